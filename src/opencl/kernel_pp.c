/*
 * OpenCL backend: the C preprocessor that kernel_sig.c and kernel_rw.c
 * run over a program before they read kernel parameter lists: comments,
 * line continuations, #define (object-like and function-like macros, whose
 * expansion is kernel_macro.c's) and #undef, -D/-U build options, and
 * #if/#ifdef/#ifndef/#elif/#else/#endif with C's integer expressions and
 * defined().  #include is not followed (OpenCL C programs built from one
 * string have no headers to include); #pragma, #line and the rest are
 * passed over.  Calls no driver, takes no lock.
 */
#include "kernel_pp.h"

#include "kernel_macro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lexes [p, end) (one logical line or more) onto v; returns end. */
static void cls__lex_into(cls__pp *pp, cls__wtv *v, const char *p,
                          const char *end, int stop_nl) {
  for (;;) {
    const char *q = cls__pp_skip(p, end, stop_nl);
    if (q >= end || *q == '\n' || pp->oom) return;
    cls__wt w = {{0}, NULL, q != p};
    p = cls__pp_lex(q, end, &w.t);
    cls__wt_push(pp, v, w);
  }
}

/* Appends v's tokens to pp->toks. */
static void cls__emit(cls__pp *pp, const cls__wtv *v) {
  for (size_t i = 0; i < v->n && !pp->oom; i++) {
    if (pp->ntoks >= CLS__MAX_TOKENS) {
      pp->oom = 1;
      return;
    }
    cls__tok *t = cls__grow(pp->toks, pp->ntoks, &pp->captoks, 1024, sizeof *t);
    if (!t) {
      pp->oom = 1;
      return;
    }
    pp->toks = t;
    t[pp->ntoks++] = v->v[i].t;
  }
}

/* ---- #if expressions ----------------------------------------------------- */

typedef struct cls__expr {
  const cls__tok *t;
  size_t i, n;
  int bad;
} cls__expr;

static long long cls__cond(cls__expr *x);

static cls__tok cls__peek(cls__expr *x) {
  static const cls__tok none = {"", 0, 0, 0};
  return x->i < x->n ? x->t[x->i] : none;
}

static long long cls__primary(cls__expr *x) {
  cls__tok t = cls__peek(x);
  if (!t.n) {
    x->bad = 1;
    return 0;
  }
  x->i++;
  if (cls__tok_eq(t, "(")) {
    long long v = cls__cond(x);
    if (cls__tok_eq(cls__peek(x), ")"))
      x->i++;
    else
      x->bad = 1;
    return v;
  }
  if (cls__tok_eq(t, "!")) return !cls__primary(x);
  if (cls__tok_eq(t, "-")) return -cls__primary(x);
  if (cls__tok_eq(t, "+")) return cls__primary(x);
  if (cls__tok_eq(t, "~")) return ~cls__primary(x);
  if (isdigit((unsigned char)t.s[0])) {
    char buf[64];
    size_t n = t.n < sizeof buf - 1 ? t.n : sizeof buf - 1;
    memcpy(buf, t.s, n);
    buf[n] = '\0';
    return (long long)strtoull(buf, NULL, 0);
  }
  if (t.s[0] == '\'') return t.n > 2 ? (unsigned char)t.s[1] : 0;
  /* An identifier left after expansion (defined() is resolved before)
   * is 0, as in C. */
  return 0;
}

/* Binary operators by precedence, loosest first. */
static long long cls__binary(cls__expr *x, int level) {
  static const char *const ops[][4] = {{"||"},
                                       {"&&"},
                                       {"|"},
                                       {"^"},
                                       {"&"},
                                       {"==", "!="},
                                       {"<", ">", "<=", ">="},
                                       {"<<", ">>"},
                                       {"+", "-"},
                                       {"*", "/", "%"}};
  if (level == (int)(sizeof ops / sizeof ops[0])) return cls__primary(x);
  long long v = cls__binary(x, level + 1);
  for (;;) {
    cls__tok t = cls__peek(x);
    int op = -1;
    for (int k = 0; k < 4 && ops[level][k]; k++)
      if (cls__tok_eq(t, ops[level][k])) op = k;
    if (op < 0) return v;
    x->i++;
    long long r = cls__binary(x, level + 1);
    const char *o = ops[level][op];
    if (!strcmp(o, "||"))
      v = v || r;
    else if (!strcmp(o, "&&"))
      v = v && r;
    else if (!strcmp(o, "|"))
      v |= r;
    else if (!strcmp(o, "^"))
      v ^= r;
    else if (!strcmp(o, "&"))
      v &= r;
    else if (!strcmp(o, "=="))
      v = v == r;
    else if (!strcmp(o, "!="))
      v = v != r;
    else if (!strcmp(o, "<"))
      v = v < r;
    else if (!strcmp(o, ">"))
      v = v > r;
    else if (!strcmp(o, "<="))
      v = v <= r;
    else if (!strcmp(o, ">="))
      v = v >= r;
    else if (!strcmp(o, "<<"))
      v = r >= 0 && r < 63 ? v << r : 0;
    else if (!strcmp(o, ">>"))
      v = r >= 0 && r < 63 ? v >> r : 0;
    else if (!strcmp(o, "+"))
      v += r;
    else if (!strcmp(o, "-"))
      v -= r;
    else if (!strcmp(o, "*"))
      v *= r;
    else if (r == 0)
      x->bad = 1;
    else if (!strcmp(o, "/"))
      v /= r;
    else
      v %= r;
  }
}

static long long cls__cond(cls__expr *x) {
  long long c = cls__binary(x, 0);
  if (!cls__tok_eq(cls__peek(x), "?")) return c;
  x->i++;
  long long a = cls__cond(x);
  if (cls__tok_eq(cls__peek(x), ":"))
    x->i++;
  else
    x->bad = 1;
  long long b = cls__cond(x);
  return c ? a : b;
}

/* Evaluates the #if expression in [p, end): defined X and defined(X)
 * first, then macro expansion, then the arithmetic. */
static int cls__eval(cls__pp *pp, const char *p, const char *end) {
  cls__wtv line = {0}, in = {0}, out = {0};
  cls__lex_into(pp, &line, p, end, 1);
  for (size_t i = 0; i < line.n; i++) {
    if (!cls__tok_eq(line.v[i].t, "defined")) {
      cls__wt_push(pp, &in, line.v[i]);
      continue;
    }
    size_t j = i + 1;
    int paren = j < line.n && cls__tok_eq(line.v[j].t, "(");
    j += (size_t)paren;
    cls__tok name = j < line.n ? line.v[j].t : (cls__tok){"", 0, 0, 0};
    i = j + (size_t)(paren && j + 1 < line.n);
    int def = cls__find_macro(pp, name) != NULL;
    cls__wt_push(pp, &in, (cls__wt){{def ? "1" : "0", 1, 0, 0}, NULL, 1});
  }
  pp->no_spans = 1;
  cls__expand(pp, in.v, in.n, &out);
  pp->no_spans = 0;
  cls__tok *t = malloc((out.n + 1) * sizeof *t);
  long long v = 0;
  if (t && !pp->oom) {
    for (size_t i = 0; i < out.n; i++) t[i] = out.v[i].t;
    cls__expr x = {t, 0, out.n, 0};
    v = cls__cond(&x);
  } else {
    pp->oom = 1;
  }
  free(t);
  free(line.v);
  free(in.v);
  free(out.v);
  return v != 0;
}

/* ---- The preprocessor ---------------------------------------------------- */

/* Defines NAME or NAME=VALUE (a -D option or a predefined macro).  The text
 * must outlive the preprocessor. */
void cls__define_option(cls__pp *pp, const char *s, size_t n) {
  const char *eq = memchr(s, '=', n);
  const char *nend = eq ? eq : s + n;
  /* -D'NAME(params)=body': a function-like macro. */
  const char *paren = memchr(s, '(', (size_t)(nend - s));
  cls__tok name = {s, (unsigned)((paren ? paren : nend) - s), 0, 0};
  cls__wtv v = {0};
  if (paren) cls__lex_into(pp, &v, paren, nend, 0);
  if (eq)
    cls__lex_into(pp, &v, eq + 1, s + n, 0);
  else
    cls__wt_push(pp, &v, (cls__wt){{"1", 1, 0, 0}, NULL, 0});
  cls__define_toks(pp, name, paren != NULL, v.v, v.n);
  free(v.v);
}

/* Reads the -D and -U options of a build option string. */
void cls__options(cls__pp *pp, const char *o) {
  while (o && *o) {
    while (*o && isspace((unsigned char)*o)) o++;
    const char *w = o;
    while (*o && !isspace((unsigned char)*o)) o++;
    if (o - w < 2 || w[0] != '-' || (w[1] != 'D' && w[1] != 'U')) continue;
    int def = w[1] == 'D';
    const char *a = w + 2;
    if (a == o) { /* "-D NAME": the value is the next word */
      while (*o && isspace((unsigned char)*o)) o++;
      a = o;
      while (*o && !isspace((unsigned char)*o)) o++;
    }
    if (a == o) continue;
    if (def)
      cls__define_option(pp, a, (size_t)(o - a));
    else
      cls__undef(pp, (cls__tok){a, (unsigned)(o - a), 0, 0});
  }
}

/* Expands the code gathered in *code onto pp->toks and empties it. */
static void cls__flush(cls__pp *pp, cls__wtv *code) {
  cls__wtv out = {0};
  cls__expand(pp, code->v, code->n, &out);
  cls__emit(pp, &out);
  free(out.v);
  code->n = 0;
}

/* Handles the directive d whose line's rest is [rest, eol). */
static void cls__directive(cls__pp *pp, cls__tok d, const char *rest,
                           const char *eol, unsigned char *stack, int *depth,
                           int *live) {
  /* Conditional groups: each level is live (its branch is taken), or
   * dead, remembering whether an earlier branch was taken. */
  enum { LIVE = 1, TAKEN = 2, PARENT_LIVE = 4, MAXD = 64 };
  if (cls__tok_eq(d, "if") || cls__tok_eq(d, "ifdef") ||
      cls__tok_eq(d, "ifndef")) {
    int v = 0;
    if (*live) {
      if (cls__tok_eq(d, "if")) {
        v = cls__eval(pp, rest, eol);
      } else {
        cls__tok name = {"", 0, 0, 0};
        if (rest < eol) cls__pp_lex(rest, eol, &name);
        v = (cls__find_macro(pp, name) != NULL) == cls__tok_eq(d, "ifdef");
      }
    }
    if (*depth < MAXD)
      stack[*depth] =
          (unsigned char)((*live ? PARENT_LIVE : 0) | (v ? LIVE | TAKEN : 0));
    ++*depth;
    *live = *live && v;
  } else if (cls__tok_eq(d, "elif") || cls__tok_eq(d, "else")) {
    if (*depth > 0 && *depth <= MAXD) {
      unsigned char *s = &stack[*depth - 1];
      int v = 0;
      if ((*s & PARENT_LIVE) && !(*s & TAKEN))
        v = cls__tok_eq(d, "else") ? 1 : cls__eval(pp, rest, eol);
      *s = (unsigned char)((*s & (PARENT_LIVE | TAKEN)) |
                           (v ? LIVE | TAKEN : 0));
      *live = v;
    }
  } else if (cls__tok_eq(d, "endif")) {
    if (*depth > 0) {
      --*depth;
      if (*depth < MAXD) *live = (stack[*depth] & PARENT_LIVE) != 0;
    }
  } else if (*live && cls__tok_eq(d, "define") && rest < eol) {
    cls__tok name;
    const char *b = cls__pp_lex(rest, eol, &name);
    int fn = b < eol && *b == '('; /* no space before the '(' */
    cls__wtv v = {0};
    cls__lex_into(pp, &v, b, eol, 1);
    if (cls__ident_start((unsigned char)name.s[0]))
      cls__define_toks(pp, name, fn, v.v, v.n);
    free(v.v);
  } else if (*live && cls__tok_eq(d, "undef") && rest < eol) {
    cls__tok name;
    cls__pp_lex(rest, eol, &name);
    cls__undef(pp, name);
  }
}

/* Runs the preprocessor over `src`: pp->toks gets the active code. */
void cls__preprocess(cls__pp *pp, const char *src) {
  const char *p = src, *end = src + strlen(src);
  unsigned char stack[64];
  int depth = 0, live = 1;
  cls__wtv code = {0}; /* lines of code since the last directive */
  while (p < end && !pp->oom) {
    /* p is at a line's start. */
    const char *q = cls__pp_skip(p, end, 1);
    const char *eol = q;
    while (eol < end && *eol != '\n') {
      const char *n = cls__pp_skip(eol, end, 1);
      if (n != eol) {
        eol = n;
        continue;
      }
      cls__tok t;
      eol = cls__pp_lex(eol, end, &t);
    }
    if (q < eol && *q == '#') {
      cls__flush(pp, &code);
      const char *r = cls__pp_skip(q + 1, eol, 1);
      cls__tok d = {"", 0, 0, 0};
      if (r < eol) r = cls__pp_lex(r, eol, &d);
      cls__directive(pp, d, cls__pp_skip(r, eol, 1), eol, stack, &depth, &live);
    } else if (live) {
      cls__lex_into(pp, &code, q, eol, 1);
    }
    p = eol < end ? eol + 1 : end;
  }
  cls__flush(pp, &code);
  free(code.v);
}
