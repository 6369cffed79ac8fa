/*
 * OpenCL backend: the small C preprocessor that kernel_sig.c runs over a
 * program before it reads kernel parameter lists: comments, line
 * continuations, object-like #define and #undef, -D/-U build options, and
 * #if/#ifdef/#ifndef/#elif/#else/#endif with C's integer expressions and
 * defined().  #include is not followed (OpenCL C programs built from one
 * string have no headers to include).  Calls no driver, takes no lock.
 */
#include "kernel_pp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tokens -------------------------------------------------------------- */

int cls__ident_start(int c) { return isalpha(c) || c == '_'; }
int cls__ident_char(int c) { return isalnum(c) || c == '_'; }

int cls__tok_eq(cls__tok t, const char *w) {
  return strlen(w) == t.n && memcmp(t.s, w, t.n) == 0;
}

/* Skips white space, comments and line continuations in [p, end); stops at
 * a newline when `stop_nl`.  Returns the new position. */
static const char *cls__skip(const char *p, const char *end, int stop_nl) {
  while (p < end) {
    if (*p == '\\' && p + 1 < end && (p[1] == '\n' || p[1] == '\r')) {
      p += p[1] == '\r' && p + 2 < end && p[2] == '\n' ? 3 : 2;
    } else if (*p == '\n') {
      if (stop_nl) return p;
      p++;
    } else if (isspace((unsigned char)*p)) {
      p++;
    } else if (*p == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n') p++;
    } else if (*p == '/' && p + 1 < end && p[1] == '*') {
      p += 2;
      while (p + 1 < end && !(p[0] == '*' && p[1] == '/')) p++;
      p = p + 2 <= end ? p + 2 : end;
    } else {
      return p;
    }
  }
  return p;
}

/* Reads one token at p (after cls__skip); returns the position after it. */
static const char *cls__lex(const char *p, const char *end, cls__tok *t) {
  static const char *const two[] = {
      "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "##", "->"};
  t->s = p;
  if (cls__ident_start((unsigned char)*p)) {
    while (p < end && cls__ident_char((unsigned char)*p)) p++;
  } else if (isdigit((unsigned char)*p) ||
             (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
    while (p < end && (isalnum((unsigned char)*p) || *p == '.' || *p == '_'))
      p++;
  } else if (*p == '"' || *p == '\'') {
    char q = *p++;
    while (p < end && *p != q && *p != '\n')
      p += *p == '\\' && p + 1 < end ? 2 : 1;
    if (p < end && *p == q) p++;
  } else {
    p++;
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
      if (p < end && t->s[0] == two[i][0] && *p == two[i][1]) {
        p++;
        break;
      }
  }
  t->n = (unsigned)(p - t->s);
  return p;
}

/* ---- Macros -------------------------------------------------------------- */

static cls__macro *cls__find_macro(cls__pp *pp, cls__tok name) {
  for (size_t i = pp->nmacros; i-- > 0;)
    if (pp->macros[i].name.n == name.n &&
        memcmp(pp->macros[i].name.s, name.s, name.n) == 0)
      return &pp->macros[i];
  return NULL;
}

static void cls__undef(cls__pp *pp, cls__tok name) {
  cls__macro *m = cls__find_macro(pp, name);
  if (m) *m = pp->macros[--pp->nmacros];
}

static void cls__define(cls__pp *pp, cls__tok name, const char *body,
                        size_t blen, int function_like) {
  cls__undef(pp, name);
  if (pp->nmacros == pp->capmacros) {
    size_t cap = pp->capmacros ? pp->capmacros * 2 : 64;
    cls__macro *m = realloc(pp->macros, cap * sizeof *m);
    if (!m) {
      pp->oom = 1;
      return;
    }
    pp->macros = m;
    pp->capmacros = cap;
  }
  pp->macros[pp->nmacros++] = (cls__macro){name, body, blen, function_like};
}

/* Macros that expand into ever more tokens are cut off here. */

static void cls__push(cls__pp *pp, cls__tok t) {
  if (pp->ntoks >= CLS__MAX_TOKENS) {
    pp->oom = 1;
    return;
  }
  if (pp->ntoks == pp->captoks) {
    size_t cap = pp->captoks ? pp->captoks * 2 : 1024;
    cls__tok *n = realloc(pp->toks, cap * sizeof *n);
    if (!n) {
      pp->oom = 1;
      return;
    }
    pp->toks = n;
    pp->captoks = cap;
  }
  pp->toks[pp->ntoks++] = t;
}

/* Appends the tokens of [p, end) to *out (pp->toks when out is NULL),
 * expanding object-like macros (a macro is not expanded inside its own
 * expansion).  `active` holds the macros being expanded. */
#define CLS__MAX_DEPTH 32
static void cls__expand(cls__pp *pp, const char *p, const char *end,
                        const cls__macro **active, int depth) {
  for (;;) {
    p = cls__skip(p, end, 0);
    if (p >= end || pp->oom) return;
    cls__tok t;
    p = cls__lex(p, end, &t);
    cls__macro *m =
        cls__ident_start((unsigned char)t.s[0]) ? cls__find_macro(pp, t) : NULL;
    int busy = 0;
    for (int i = 0; m && i < depth; i++) busy |= active[i] == m;
    if (!m || busy || m->function_like || depth >= CLS__MAX_DEPTH) {
      t.expanded = depth > 0;
      cls__push(pp, t);
      continue;
    }
    active[depth] = m;
    cls__expand(pp, m->body, m->body + m->blen, active, depth + 1);
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
  static const cls__tok none = {"", 0, 0};
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
  /* Resolve defined() into "1"/"0" tokens, keeping the rest as text
   * positions for expansion. */
  size_t mark = pp->ntoks;
  for (;;) {
    p = cls__skip(p, end, 0);
    if (p >= end || pp->oom) break;
    cls__tok t;
    const char *q = cls__lex(p, end, &t);
    if (cls__tok_eq(t, "defined")) {
      q = cls__skip(q, end, 0);
      int paren = q < end && *q == '(';
      if (paren) q = cls__skip(q + 1, end, 0);
      cls__tok name = {"", 0, 0};
      if (q < end) q = cls__lex(q, end, &name);
      if (paren) {
        q = cls__skip(q, end, 0);
        if (q < end && *q == ')') q++;
      }
      cls__push(pp, (cls__tok){cls__find_macro(pp, name) ? "1" : "0", 1, 0});
    } else {
      const cls__macro *active[CLS__MAX_DEPTH];
      cls__expand(pp, p, q, active, 0);
    }
    p = q;
  }
  cls__expr x = {pp->toks + mark, 0, pp->ntoks - mark, 0};
  long long v = pp->oom ? 0 : cls__cond(&x);
  pp->ntoks = mark;
  return v != 0;
}

/* ---- The preprocessor ---------------------------------------------------- */

/* Defines NAME or NAME=VALUE (a -D option or a predefined macro).  The text
 * must outlive the preprocessor. */
void cls__define_option(cls__pp *pp, const char *s, size_t n) {
  const char *eq = memchr(s, '=', n);
  cls__tok name = {s, (unsigned)(eq ? (size_t)(eq - s) : n), 0};
  if (eq)
    cls__define(pp, name, eq + 1, n - (size_t)(eq + 1 - s), 0);
  else
    cls__define(pp, name, "1", 1, 0);
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
      cls__undef(pp, (cls__tok){a, (unsigned)(o - a), 0});
  }
}

/* Runs the preprocessor over `src`: pp->toks gets the active code. */
void cls__preprocess(cls__pp *pp, const char *src) {
  const char *p = src, *end = src + strlen(src);
  /* Conditional groups: each level is live (its branch is taken), or
   * dead, remembering whether an earlier branch was taken. */
  enum { LIVE = 1, TAKEN = 2, PARENT_LIVE = 4 };
  unsigned char stack[64];
  int depth = 0;
  int live = 1;
  int line_start = 1;
  while (p < end && !pp->oom) {
    p = cls__skip(p, end, 1);
    if (p >= end) break;
    if (*p == '\n') {
      p++;
      line_start = 1;
      continue;
    }
    if (*p == '#' && line_start) {
      const char *q = cls__skip(p + 1, end, 1);
      cls__tok d = {"", 0, 0};
      if (q < end && *q != '\n') q = cls__lex(q, end, &d);
      /* The rest of the directive's line. */
      const char *rest = cls__skip(q, end, 1), *eol = rest;
      while (eol < end && *eol != '\n') {
        const char *n = cls__skip(eol, end, 1);
        if (n == eol)
          eol++;
        else
          eol = n;
      }
      if (cls__tok_eq(d, "if") || cls__tok_eq(d, "ifdef") ||
          cls__tok_eq(d, "ifndef")) {
        int v = 0;
        if (live) {
          if (cls__tok_eq(d, "if")) {
            v = cls__eval(pp, rest, eol);
          } else {
            cls__tok name = {"", 0, 0};
            if (rest < eol) cls__lex(rest, eol, &name);
            v = (cls__find_macro(pp, name) != NULL) == cls__tok_eq(d, "ifdef");
          }
        }
        if (depth < (int)sizeof stack)
          stack[depth] = (unsigned char)((live ? PARENT_LIVE : 0) |
                                         (v ? LIVE | TAKEN : 0));
        depth++;
        live = live && v;
      } else if (cls__tok_eq(d, "elif") || cls__tok_eq(d, "else")) {
        if (depth > 0 && depth <= (int)sizeof stack) {
          unsigned char *s = &stack[depth - 1];
          int v = 0;
          if ((*s & PARENT_LIVE) && !(*s & TAKEN))
            v = cls__tok_eq(d, "else") ? 1 : cls__eval(pp, rest, eol);
          *s = (unsigned char)((*s & (PARENT_LIVE | TAKEN)) |
                               (v ? LIVE | TAKEN : 0));
          live = v;
        }
      } else if (cls__tok_eq(d, "endif")) {
        if (depth > 0) {
          depth--;
          live = depth < (int)sizeof stack ? (stack[depth] & PARENT_LIVE) != 0
                                           : live;
        }
      } else if (live && cls__tok_eq(d, "define") && rest < eol) {
        cls__tok name;
        const char *b = cls__lex(rest, eol, &name);
        int fn = b < eol && *b == '(';
        if (fn) { /* skip the parameter list */
          while (b < eol && *b != ')') b++;
          if (b < eol) b++;
        }
        b = cls__skip(b, eol, 1);
        if (cls__ident_start((unsigned char)name.s[0]))
          cls__define(pp, name, b, (size_t)(eol - b), fn);
      } else if (live && cls__tok_eq(d, "undef") && rest < eol) {
        cls__tok name;
        cls__lex(rest, eol, &name);
        cls__undef(pp, name);
      }
      p = eol;
      continue;
    }
    line_start = 0;
    /* One line of code at a time, so that directives are seen. */
    const char *eol = p;
    while (eol < end && *eol != '\n') {
      const char *n = cls__skip(eol, end, 1);
      if (n != eol) {
        eol = n;
        continue;
      }
      cls__tok t;
      eol = cls__lex(eol, end, &t);
    }
    if (live) {
      const cls__macro *active[CLS__MAX_DEPTH];
      cls__expand(pp, p, eol, active, 0);
    }
    p = eol;
  }
}
