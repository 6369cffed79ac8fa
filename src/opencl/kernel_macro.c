/*
 * OpenCL backend: macro expansion for the kernel source preprocessor
 * (kernel_pp.c): object-like and function-like macros, # and ##,
 * variadic parameters (__VA_ARGS__, GNU's `name...` and `, ## __VA_ARGS__`),
 * arguments expanded before substitution and the result rescanned with
 * the tokens that follow, as C's preprocessor does.  A token carries the
 * set of macros it came through (its hide set), which it may not expand
 * again.  Each top-level invocation's source text is recorded
 * (pp->invs), so that kernel_rw.c can put the expansion in its place.
 * Calls no driver, takes no lock.
 */
#include "kernel_macro.h"

#include <stdlib.h>
#include <string.h>

/* ---- The macro table --------------------------------------------------- */

static int cls__same(cls__tok a, cls__tok b) {
  return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
}

cls__macro *cls__find_macro(cls__pp *pp, cls__tok name) {
  for (size_t i = pp->nmacros; i-- > 0;)
    if (cls__same(pp->macros[i].name, name)) return &pp->macros[i];
  return NULL;
}

void cls__undef(cls__pp *pp, cls__tok name) {
  cls__macro *m = cls__find_macro(pp, name);
  if (m) *m = pp->macros[--pp->nmacros];
}

void cls__define_toks(cls__pp *pp, cls__tok name, int function_like,
                      const cls__wt *t, size_t n) {
  cls__macro m = {name, NULL, -1, 0, 0};
  size_t i = 0;
  cls__wt *keep = cls__pp_alloc(pp, (n + 1) * sizeof *keep);
  if (!keep) return;
  size_t k = 0;
  if (function_like) { /* ( a , b , ... ) */
    m.nparams = 0;
    for (i = 1; i < n && !cls__tok_eq(t[i].t, ")"); i++) {
      if (cls__tok_eq(t[i].t, ",")) continue;
      if (cls__tok_eq(t[i].t, "...")) {
        m.variadic = 1;
        keep[k++] = (cls__wt){{"__VA_ARGS__", 11, 0, 0}, NULL, 0};
      } else if (i + 1 < n && cls__tok_eq(t[i + 1].t, "...")) {
        m.variadic = 1; /* GNU: name... */
        keep[k++] = t[i++];
      } else {
        keep[k++] = t[i];
      }
      m.nparams++;
    }
    i++; /* the ')' */
  }
  for (; i < n; i++) keep[k++] = t[i];
  m.toks = keep;
  m.nbody = k - (size_t)(m.nparams > 0 ? m.nparams : 0);
  if (m.nbody) m.toks[m.nparams > 0 ? m.nparams : 0].ws = 0;
  cls__undef(pp, name);
  cls__macro *v =
      cls__grow(pp->macros, pp->nmacros, &pp->capmacros, 64, sizeof *v);
  if (!v) {
    pp->oom = 1;
    return;
  }
  pp->macros = v;
  v[pp->nmacros++] = m;
}

/* ---- Hide sets ---------------------------------------------------------- */

static int cls__hidden(const cls__hs *h, cls__tok name) {
  for (; h; h = h->next)
    if (cls__same(h->name, name)) return 1;
  return 0;
}

static const cls__hs *cls__hide(cls__pp *pp, const cls__hs *h, cls__tok name) {
  cls__hs *n = cls__pp_alloc(pp, sizeof *n);
  if (!n) return h;
  n->name = name;
  n->next = h;
  return n;
}

/* ---- Substitution ------------------------------------------------------- */

/* One argument: raw tokens [a, b) of the collected list. */
typedef struct cls__arg {
  size_t a, b;
} cls__arg;

/* The parameter index of token t in m, or -1. */
static int cls__param_of(const cls__macro *m, cls__tok t) {
  for (int i = 0; i < m->nparams; i++)
    if (cls__same(m->toks[i].t, t)) return i;
  return -1;
}

/* The text of the argument's tokens as a string literal. */
static cls__wt cls__stringize(cls__pp *pp, const cls__wt *a, size_t n) {
  size_t len = 3;
  for (size_t i = 0; i < n; i++) len += 2 * a[i].t.n + 1;
  char *s = cls__pp_alloc(pp, len);
  cls__wt w = {{"\"\"", 2, 1, 0}, NULL, 0};
  if (!s) return w;
  size_t k = 0;
  s[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    if (i && a[i].ws) s[k++] = ' ';
    int lit = a[i].t.s[0] == '"' || a[i].t.s[0] == '\'';
    for (unsigned j = 0; j < a[i].t.n; j++) {
      char c = a[i].t.s[j];
      if (lit && (c == '"' || c == '\\')) s[k++] = '\\';
      s[k++] = c;
    }
  }
  s[k++] = '"';
  w.t.s = s;
  w.t.n = (unsigned)k;
  return w;
}

/* The token made by pasting l and r (one token of their joined text). */
static cls__wt cls__paste(cls__pp *pp, cls__wt l, cls__wt r) {
  if (!l.t.n) return r; /* a placemarker */
  if (!r.t.n) return l;
  char *s = cls__pp_alloc(pp, l.t.n + r.t.n + 1);
  if (!s) return l;
  memcpy(s, l.t.s, l.t.n);
  memcpy(s + l.t.n, r.t.s, r.t.n);
  s[l.t.n + r.t.n] = '\0';
  l.t.s = s;
  l.t.n += r.t.n;
  return l;
}

/* Appends m's replacement for the arguments args (raw tokens in `raw`)
 * to out. */
static void cls__substitute(cls__pp *pp, const cls__macro *m,
                            const cls__wt *raw, const cls__arg *args,
                            cls__wtv *out) {
  const cls__wt *body = m->toks + (m->nparams > 0 ? m->nparams : 0);
  size_t start = out->n, vaopt_close = (size_t)-1;
  const cls__arg *va = m->variadic ? &args[m->nparams - 1] : NULL;
  for (size_t i = 0; i < m->nbody && !pp->oom; i++) {
    cls__wt b = body[i];
    if (i == vaopt_close) continue; /* __VA_OPT__'s ')' */
    if (va && cls__tok_eq(b.t, "__VA_OPT__") && i + 1 < m->nbody &&
        cls__tok_eq(body[i + 1].t, "(")) {
      /* __VA_OPT__(x): x where the variable arguments are not empty. */
      size_t j = i + 1;
      for (int d = 0; j < m->nbody; j++) {
        d += cls__tok_eq(body[j].t, "(") - cls__tok_eq(body[j].t, ")");
        if (d == 0) break;
      }
      if (va->a == va->b)
        i = j;
      else {
        vaopt_close = j;
        i++;
      }
      continue;
    }
    int next_paste = i + 1 < m->nbody && cls__tok_eq(body[i + 1].t, "##");
    int p = cls__param_of(m, b.t);
    if (cls__tok_eq(b.t, "#") && i + 1 < m->nbody &&
        (p = cls__param_of(m, body[i + 1].t)) >= 0) {
      cls__wt s = cls__stringize(pp, raw + args[p].a, args[p].b - args[p].a);
      s.ws = b.ws;
      cls__wt_push(pp, out, s);
      i++;
    } else if (cls__tok_eq(b.t, "##") && out->n > start && i + 1 < m->nbody) {
      cls__wt r = body[++i];
      int q = cls__param_of(m, r.t);
      size_t from = 0, to = 1;
      const cls__wt *rv = &r;
      if (q >= 0) {
        rv = raw + args[q].a;
        to = args[q].b - args[q].a;
        /* GNU: ", ## __VA_ARGS__" drops the comma when there are none,
         * and is the comma and the arguments (expanded) otherwise. */
        if (m->variadic && q == m->nparams - 1 &&
            cls__tok_eq(out->v[out->n - 1].t, ",")) {
          if (!to)
            out->n--;
          else
            cls__expand(pp, rv, to, out);
          continue;
        }
      }
      if (to > from) {
        out->v[out->n - 1] = cls__paste(pp, out->v[out->n - 1], rv[from]);
        for (size_t j = from + 1; j < to; j++) cls__wt_push(pp, out, rv[j]);
      }
    } else if (p >= 0) {
      int pasted = next_paste || (i > 0 && cls__tok_eq(body[i - 1].t, "##"));
      size_t n0 = out->n;
      if (pasted) {
        for (size_t j = args[p].a; j < args[p].b; j++)
          cls__wt_push(pp, out, raw[j]);
        if (out->n == n0 && next_paste) /* a placemarker */
          cls__wt_push(pp, out, (cls__wt){{"", 0, 1, 0}, NULL, 0});
      } else {
        cls__expand(pp, raw + args[p].a, args[p].b - args[p].a, out);
      }
      if (out->n > n0) out->v[n0].ws = b.ws;
    } else {
      cls__wt_push(pp, out, b);
    }
  }
  /* Placemarkers left unpasted are nothing. */
  size_t k = start;
  for (size_t i = start; i < out->n; i++)
    if (out->v[i].t.n) out->v[k++] = out->v[i];
  out->n = k;
}

/* ---- Expansion ---------------------------------------------------------- */

static int cls__kept(const cls__pp *pp, cls__tok t) {
  for (const char *const *k = pp->keep; k && *k; k++)
    if (cls__tok_eq(t, *k)) return 1;
  return 0;
}

/* Starts the record of a top-level invocation at source token t; returns
 * its cls__tok.inv. */
static unsigned cls__span_open(cls__pp *pp, cls__tok t) {
  if (pp->no_spans) return 0;
  cls__span *v = cls__grow(pp->invs, pp->ninvs, &pp->capinvs, 64, sizeof *v);
  if (!v) {
    pp->oom = 1;
    return 0;
  }
  pp->invs = v;
  v[pp->ninvs++] = (cls__span){t.s, t.s + t.n};
  return (unsigned)pp->ninvs;
}

/* Pushes v[a, b) on the stack (the input, next token last), marked as
 * coming from invocation `inv` through a macro with hide set h. */
static void cls__unread(cls__pp *pp, cls__wtv *st, const cls__wt *v, size_t a,
                        size_t b, unsigned inv, const cls__hs *h, int hide) {
  pp->work += b - a;
  if (pp->work > CLS__MAX_TOKENS * 4) pp->oom = 1;
  for (size_t i = b; i-- > a;) {
    cls__wt w = v[i];
    w.t.expanded = 1;
    w.t.inv = inv;
    if (hide)
      w.hs = h; /* the replacement's tokens take the macro's set */
    else
      for (const cls__hs *x = h; x; x = x->next)
        if (!cls__hidden(w.hs, x->name)) w.hs = cls__hide(pp, w.hs, x->name);
    cls__wt_push(pp, st, w);
  }
}

void cls__expand(cls__pp *pp, const cls__wt *in, size_t n, cls__wtv *out) {
  cls__wtv st = {0}, args = {0}, res = {0};
  cls__arg *av = NULL;
  size_t cap_av = 0;
  for (size_t i = n; i-- > 0;) cls__wt_push(pp, &st, in[i]);
  while (st.n && !pp->oom) {
    cls__wt w = st.v[--st.n];
    cls__macro *m = cls__ident_start((unsigned char)w.t.s[0])
                        ? cls__find_macro(pp, w.t)
                        : NULL;
    if (!m || cls__hidden(w.hs, w.t) || cls__kept(pp, w.t)) {
      cls__wt_push(pp, out, w);
      continue;
    }
    int fresh = w.t.inv == 0;
    if (m->nparams >= 0 && (!st.n || !cls__tok_eq(st.v[st.n - 1].t, "("))) {
      cls__wt_push(pp, out, w); /* a function-like name, not called */
      continue;
    }
    unsigned inv = fresh ? cls__span_open(pp, w.t) : w.t.inv;
    const cls__hs *h = cls__hide(pp, w.hs, w.t);
    res.n = 0;
    if (m->nparams < 0) {
      for (size_t i = 0; i < m->nbody; i++) {
        cls__wt b = m->toks[i];
        b.hs = h;
        cls__wt_push(pp, &res, b);
      }
    } else {
      /* The arguments, up to the matching ')'. */
      size_t mark = st.n;
      int depth = 0, na = 0, closed = 0;
      args.n = 0;
      size_t a = 0;
      st.n--; /* the '(' */
      while (st.n && !pp->oom) {
        cls__wt t = st.v[--st.n];
        if (t.t.inv == 0 && inv && !pp->no_spans) {
          pp->invs[inv - 1].b = t.t.s + t.t.n;
          t.t.inv = inv;
        }
        int open = cls__tok_eq(t.t, "("), close = cls__tok_eq(t.t, ")");
        int comma = cls__tok_eq(t.t, ",") && !depth &&
                    !(m->variadic && na >= m->nparams - 1);
        if ((close && !depth) || comma) {
          cls__arg *v = cls__grow(av, (size_t)na, &cap_av, 8, sizeof *v);
          if (!v) {
            pp->oom = 1;
            break;
          }
          av = v;
          av[na++] = (cls__arg){a, args.n};
          a = args.n;
          if (close) {
            closed = 1;
            break;
          }
          continue;
        }
        depth += open - close;
        cls__wt_push(pp, &args, t);
      }
      int want = m->nparams;
      if (na == 1 && want == 0 && av[0].a == av[0].b) na = 0;
      if (m->variadic && na == want - 1 && na < (int)cap_av)
        av[na++] = (cls__arg){args.n, args.n};
      if (!closed || na != want) {
        st.n = mark; /* not a call that the compiler would take */
        cls__wt_push(pp, out, w);
        continue;
      }
      cls__substitute(pp, m, args.v, av, &res);
    }
    if (res.n) res.v[0].ws = w.ws;
    cls__unread(pp, &st, res.v, 0, res.n, inv, h, 0);
  }
  free(st.v);
  free(args.v);
  free(res.v);
  free(av);
}
