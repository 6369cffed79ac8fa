/*
 * OpenCL backend: the kernel source preprocessor's bottom layer
 * (kernel_tok.c): its tokens and state, the memory they live in, and the
 * lexer.  kernel_macro.c expands macros over it and kernel_pp.c reads
 * directives over both.  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_TOK_H
#define CLSTREAM_OPENCL_KERNEL_TOK_H

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
/* Skips white space, comments and line continuations in [p, end); stops
 * at a newline when `stop_nl`. */
const char *cls__pp_skip(const char *p, const char *end, int stop_nl);
/* Reads one token at p (after cls__pp_skip); returns the position after
 * it. */
const char *cls__pp_lex(const char *p, const char *end, cls__tok *t);

/* Room for element n of array v (*cap elements of `size` bytes; `first`
 * when it has none): v itself, or v moved to a larger block, or NULL
 * when out of host memory (v is then unchanged). */
void *cls__grow(void *v, size_t n, size_t *cap, size_t first, size_t size);
/* Memory that lives as long as pp (NULL, and pp->oom, when out). */
void *cls__pp_alloc(cls__pp *pp, size_t n);
/* Appends w to v (pp->oom when out of memory). */
void cls__wt_push(cls__pp *pp, cls__wtv *v, cls__wt w);
/* Lets go of everything pp holds. */
void cls__pp_free(cls__pp *pp);

#endif /* CLSTREAM_OPENCL_KERNEL_TOK_H */
