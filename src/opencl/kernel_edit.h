/*
 * OpenCL backend: the edits of the kernel source rewrite (kernel_edit.c,
 * for kernel_rw.c): growing strings, edits placed at a source position or
 * at a preprocessed token, and the text they make.  An edit at a token
 * that a macro invocation produced puts the invocation's expansion, with
 * the edit, in the invocation's place.  Internal to the device layer.
 */
#ifndef CLSTREAM_OPENCL_KERNEL_EDIT_H
#define CLSTREAM_OPENCL_KERNEL_EDIT_H

#include "kernel_pp.h"

#include <stddef.h>

typedef struct cls__str {
  char *s;
  size_t n, cap;
  int oom;
} cls__str;

/* Appends printf-style text to b (b->oom when out of memory). */
void cls__putf(cls__str *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef struct cls__edit {
  size_t pos, del; /* replace source[pos, pos + del) ... */
  char *text;      /* ... with this (malloc'd) */
  size_t seq;      /* order among edits at one position */
} cls__edit;

/* An edit at preprocessed token `tok`: text before it (or after it, with
 * `after`), and the token dropped with `del`. */
typedef struct cls__tedit {
  size_t tok;
  int after, del;
  char *text;
  size_t seq; /* order among edits at one token */
} cls__tedit;

typedef struct cls__rwstate {
  const char *src;
  size_t len;
  const char *user; /* the user's line 1 (after the prelude) */
  cls__pp pp;
  cls__edit *ed;
  size_t ned, caped;
  cls__tedit *ted;
  size_t nted, capted;
  cls__str tail; /* the helper kernels' statements */
  cls__str ginit;
  cls__str prev_type; /* the last global's type name */
  int globals;        /* the source declares globals */
  int oom;
} cls__rwstate;

/* Whether token t stands in the source itself (not from a macro), so
 * that a source edit can be placed at it. */
int cls__in_src(const cls__rwstate *st, cls__tok t);
/* Replaces source[pos, pos + del) with text's text (taken over). */
void cls__edit_add(cls__rwstate *st, size_t pos, size_t del, cls__str *text);
/* Puts text's text (taken over) before token i (after it with `after`),
 * dropping the token with `del`. */
void cls__edit_tok(cls__rwstate *st, size_t i, int after, int del,
                   cls__str *text);
/* Appends the source with every edit made to o (o->oom when out of host
 * memory). */
void cls__apply(cls__rwstate *st, cls__str *o);
/* Lets go of st's edits and strings (not its pp). */
void cls__edits_free(cls__rwstate *st);

#endif /* CLSTREAM_OPENCL_KERNEL_EDIT_H */
