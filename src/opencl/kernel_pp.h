/*
 * OpenCL backend: the preprocessor of kernel sources, for kernel_sig.c and
 * kernel_rw.c: its tokens, macros and state, and the calls that fill
 * them.  kernel_pp.c reads directives and #if expressions, kernel_macro.c
 * expands macros.  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_PP_H
#define CLSTREAM_OPENCL_KERNEL_PP_H

#include <stddef.h>

typedef struct cls__tok {
  const char *s;
  unsigned n;
  unsigned char expanded; /* came through a macro's expansion */
  /* 0: the source's own token, outside any macro invocation; else 1 + the
   * index in pp->invs of the top-level invocation it came from (a macro's
   * replacement, or an argument that went through one). */
  unsigned inv;
} cls__tok;

/* A top-level macro invocation's text in the source: [a, b). */
typedef struct cls__span {
  const char *a, *b;
} cls__span;

/* A token at work in the expansion: its hide set (the macros it may not
 * expand again, a shared list) and whether white space preceded it. */
typedef struct cls__hs {
  cls__tok name;
  const struct cls__hs *next;
} cls__hs;
typedef struct cls__wt {
  cls__tok t;
  const cls__hs *hs;
  unsigned char ws;
} cls__wt;
typedef struct cls__wtv {
  cls__wt *v;
  size_t n, cap;
} cls__wtv;

typedef struct cls__macro {
  cls__tok name;
  cls__wt *toks; /* the parameters' names, then the replacement */
  int nparams;   /* -1: object-like */
  int variadic;  /* the last parameter takes the rest (...) */
  size_t nbody;  /* replacement tokens, after the parameters */
} cls__macro;

struct cls__blk;
typedef struct cls__pp {
  cls__macro *macros;
  size_t nmacros, capmacros;
  cls__tok *toks; /* the active code, macros expanded */
  size_t ntoks, captoks;
  cls__span *invs; /* top-level invocations (cls__tok.inv) */
  size_t ninvs, capinvs;
  /* Macro names never expanded (the rewrite's forms); NULL-terminated. */
  const char *const *keep;
  struct cls__blk *arena; /* macro bodies, pasted and stringized text */
  size_t work;            /* tokens made by expansion so far */
  int no_spans;           /* expanding an #if line: record no invocation */
  int oom;
} cls__pp;

/* The most tokens one program may expand to (beyond it: pp->oom). */
#define CLS__MAX_TOKENS ((size_t)1 << 22)

/* Whether c may start an identifier. */
int cls__ident_start(int c);
/* Whether c may continue an identifier. */
int cls__ident_char(int c);
/* Whether token t is the word w. */
int cls__tok_eq(cls__tok t, const char *w);
/* Defines the macro "NAME" or "NAME=VALUE" given as s[0..n). */
void cls__define_option(cls__pp *pp, const char *s, size_t n);
/* Applies build options o's -D and -U (NULL: none). */
void cls__options(cls__pp *pp, const char *o);
/* Preprocesses src into pp->toks: the active code, macros expanded
 * (pp->oom when out of host memory). */
void cls__preprocess(cls__pp *pp, const char *src);
/* Lets go of everything pp holds. */
void cls__pp_free(cls__pp *pp);

/* ---- kernel_pp.c's lexer, for kernel_macro.c ---- */
/* Skips white space, comments and line continuations in [p, end); stops
 * at a newline when `stop_nl`. */
const char *cls__pp_skip(const char *p, const char *end, int stop_nl);
/* Reads one token at p (after cls__pp_skip); returns the position after
 * it. */
const char *cls__pp_lex(const char *p, const char *end, cls__tok *t);

/* ---- kernel_macro.c, for kernel_pp.c ---- */
/* Memory that lives as long as pp (NULL, and pp->oom, when out). */
void *cls__pp_alloc(cls__pp *pp, size_t n);
/* Appends w to v (pp->oom when out of memory). */
void cls__wt_push(cls__pp *pp, cls__wtv *v, cls__wt w);
/* The macro named `name`, or NULL. */
cls__macro *cls__find_macro(cls__pp *pp, cls__tok name);
/* Removes the macro named `name`, if any. */
void cls__undef(cls__pp *pp, cls__tok name);
/* Defines a macro from the tokens of its directive after the name: the
 * parameters (when `function_like`) and the replacement. */
void cls__define_toks(cls__pp *pp, cls__tok name, int function_like,
                      const cls__wt *t, size_t n);
/* Expands in[0, n) into out, macros rescanned until none is left. */
void cls__expand(cls__pp *pp, const cls__wt *in, size_t n, cls__wtv *out);

/* ---- kernel_sig.c, for kernel_rw.c ---- */
struct cls__kernel_param;
/* Skips __attribute__((...)) at pp->toks[i]; returns the index after it. */
size_t cls__skip_attr(const cls__pp *pp, size_t i);
/* Reads one parameter from pp->toks[a, b) into *out; -1 with `why`. */
int cls__param(const cls__pp *pp, size_t a, size_t b,
               struct cls__kernel_param *out, char *why, size_t nwhy);

#endif /* CLSTREAM_OPENCL_KERNEL_PP_H */
