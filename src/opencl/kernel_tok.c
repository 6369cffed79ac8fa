/*
 * OpenCL backend: the kernel source preprocessor's tokens (kernel_tok.h):
 * the lexer over C's tokens, comments and line continuations, and the
 * memory the preprocessor's state lives in (an arena freed with it, and
 * growing arrays).  Calls no driver, takes no lock.
 */
#include "kernel_tok.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tokens -------------------------------------------------------------- */

int cls__ident_start(int c) { return isalpha(c) || c == '_'; }
int cls__ident_char(int c) { return isalnum(c) || c == '_'; }

int cls__tok_eq(cls__tok t, const char *w) {
  return strlen(w) == t.n && memcmp(t.s, w, t.n) == 0;
}

const char *cls__pp_skip(const char *p, const char *end, int stop_nl) {
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

const char *cls__pp_lex(const char *p, const char *end, cls__tok *t) {
  /* C's punctuators of more than one character, longest first, so that
   * a token joined again with spaces (kernel_edit.c) reads the same. */
  static const char *const multi[] = {
      "<<=", ">>=", "...", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "##",
      "->",  "++",  "--",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
  *t = (cls__tok){p, 0, 0, 0};
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
    size_t len = 1;
    for (size_t i = 0; i < sizeof multi / sizeof multi[0]; i++) {
      size_t k = strlen(multi[i]);
      if ((size_t)(end - p) >= k && memcmp(p, multi[i], k) == 0) {
        len = k;
        break;
      }
    }
    p += len;
  }
  t->n = (unsigned)(p - t->s);
  return p;
}

/* ---- Memory ------------------------------------------------------------ */

typedef struct cls__blk {
  struct cls__blk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} cls__blk;

void *cls__pp_alloc(cls__pp *pp, size_t n) {
  n = (n + 15) & ~(size_t)15;
  cls__blk *b = pp->arena;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    b = malloc(sizeof *b + cap);
    if (!b) {
      pp->oom = 1;
      return NULL;
    }
    b->next = pp->arena;
    b->used = 0;
    b->cap = cap;
    pp->arena = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  return p;
}

void *cls__grow(void *v, size_t n, size_t *cap, size_t first, size_t size) {
  if (n < *cap) return v;
  size_t c = *cap ? *cap * 2 : first;
  void *m = realloc(v, c * size);
  if (m) *cap = c;
  return m;
}

void cls__wt_push(cls__pp *pp, cls__wtv *v, cls__wt w) {
  if (pp->oom) return;
  cls__wt *a = cls__grow(v->v, v->n, &v->cap, 64, sizeof *a);
  if (!a) {
    pp->oom = 1;
    return;
  }
  v->v = a;
  a[v->n++] = w;
}

void cls__pp_free(cls__pp *pp) {
  while (pp->arena) {
    cls__blk *b = pp->arena;
    pp->arena = b->next;
    free(b);
  }
  free(pp->macros);
  free(pp->toks);
  free(pp->invs);
  pp->macros = NULL;
  pp->toks = NULL;
  pp->invs = NULL;
}
