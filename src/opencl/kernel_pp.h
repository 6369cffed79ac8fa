/*
 * OpenCL backend: the preprocessor of kernel sources (kernel_pp.c), for
 * kernel_sig.c: its tokens, macros and state, and the calls that fill
 * them.  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_PP_H
#define CLSTREAM_OPENCL_KERNEL_PP_H

#include <stddef.h>

typedef struct cls__tok {
  const char *s;
  unsigned n;
  unsigned char expanded; /* came from a macro's replacement text */
} cls__tok;

typedef struct cls__macro {
  cls__tok name;
  const char *body; /* text of the replacement (not NUL-terminated) */
  size_t blen;
  int function_like;
} cls__macro;

typedef struct cls__pp {
  cls__macro *macros;
  size_t nmacros, capmacros;
  cls__tok *toks; /* active code, object-like macros expanded */
  size_t ntoks, captoks;
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
/* Preprocesses src into pp->toks: the active code, object-like macros
 * expanded (pp->oom when out of host memory). */
void cls__preprocess(cls__pp *pp, const char *src);

/* ---- kernel_sig.c, for kernel_rw.c ---- */
struct cls__kernel_param;
/* Skips __attribute__((...)) at pp->toks[i]; returns the index after it. */
size_t cls__skip_attr(const cls__pp *pp, size_t i);
/* Reads one parameter from pp->toks[a, b) into *out; -1 with `why`. */
int cls__param(const cls__pp *pp, size_t a, size_t b,
               struct cls__kernel_param *out, char *why, size_t nwhy);

#endif /* CLSTREAM_OPENCL_KERNEL_PP_H */
