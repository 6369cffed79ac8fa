/*
 * OpenCL backend: the edits of the kernel source rewrite (kernel_rw.c):
 * each replaces a range of the source with text, at a source position or
 * at a token of the preprocessed program.  A token that came from a
 * top-level macro invocation (kernel_macro.c records its text) cannot be
 * edited where it stands: the invocation is replaced by its expansion as
 * the preprocessor made it, with the edits in it, and as many newlines as
 * the invocation spanned, so that later lines keep their numbers (the
 * compiler then sees the kernel that a macro such as HIP's
 * VECTOR_ADD(T) builds, spelled out).  Calls no driver, takes no lock.
 */
#include "kernel_edit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cls__putf(cls__str *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0 || b->oom) return;
  if (b->n + (size_t)k + 1 > b->cap) {
    size_t cap = (b->n + (size_t)k + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

/* Whether token t stands in the source itself (not in a macro's
 * replacement), so that an edit can be placed at it. */
int cls__in_src(const cls__rwstate *st, cls__tok t) {
  return !t.expanded && !t.inv && t.s >= st->src && t.s < st->src + st->len;
}

/* Room for one more edit in array v (n of *cap, `size` bytes each), or
 * NULL with text's text freed: out of host memory now or before (text's
 * own shortage counts as st's). */
static void *cls__edit_room(cls__rwstate *st, cls__str *text, void *v, size_t n,
                            size_t *cap, size_t size) {
  if (text->oom) st->oom = 1;
  void *e = st->oom ? NULL : cls__grow(v, n, cap, 16, size);
  if (!e) {
    st->oom = 1;
    free(text->s);
  }
  return e;
}

/* Adds an edit taking ownership of the string builder's text. */
void cls__edit_add(cls__rwstate *st, size_t pos, size_t del, cls__str *text) {
  cls__edit *e =
      cls__edit_room(st, text, st->ed, st->ned, &st->caped, sizeof *e);
  if (!e) return;
  st->ed = e;
  e[st->ned] = (cls__edit){pos, del, text->s, st->ned};
  st->ned++;
}

static int cls__edit_cmp(const void *a, const void *b) {
  const cls__edit *x = a, *y = b;
  if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void cls__edit_tok(cls__rwstate *st, size_t i, int after, int del,
                   cls__str *text) {
  if (i >= st->pp.ntoks) { /* no such token: nothing to place */
    if (text->oom) st->oom = 1;
    free(text->s);
    return;
  }
  cls__tedit *e =
      cls__edit_room(st, text, st->ted, st->nted, &st->capted, sizeof *e);
  if (!e) return;
  st->ted = e;
  e[st->nted] = (cls__tedit){i, after, del, text->s, st->nted};
  st->nted++;
}

static int cls__tedit_cmp(const void *a, const void *b) {
  const cls__tedit *x = a, *y = b;
  if (x->tok != y->tok) return x->tok < y->tok ? -1 : 1;
  if (x->after != y->after) return x->after - y->after;
  return x->seq < y->seq ? -1 : x->seq > y->seq; /* the order made in */
}

/* Turns the token edits into source edits: in place for the source's own
 * tokens, and for a macro invocation's, its whole expansion. */
static void cls__lower(cls__rwstate *st) {
  const cls__pp *pp = &st->pp;
  if (st->nted) qsort(st->ted, st->nted, sizeof *st->ted, cls__tedit_cmp);
  for (size_t e = 0; e < st->nted && !st->oom;) {
    cls__tok t = pp->toks[st->ted[e].tok];
    if (!t.inv) {
      cls__str x = {0};
      cls__putf(&x, "%s", st->ted[e].text ? st->ted[e].text : "");
      size_t pos = (size_t)(t.s - st->src) + (st->ted[e].after ? t.n : 0);
      cls__edit_add(st, pos, st->ted[e].del ? t.n : 0, &x);
      e++;
      continue;
    }
    /* The invocation's tokens, contiguous in pp->toks. */
    unsigned inv = t.inv;
    size_t a = st->ted[e].tok, b = a;
    while (a > 0 && pp->toks[a - 1].inv == inv) a--;
    while (b < pp->ntoks && pp->toks[b].inv == inv) b++;
    cls__str x = {0};
    for (size_t i = a; i < b; i++) {
      int drop = 0;
      cls__putf(&x, " ");
      for (; e < st->nted && st->ted[e].tok == i && !st->ted[e].after; e++) {
        cls__putf(&x, "%s", st->ted[e].text ? st->ted[e].text : "");
        drop |= st->ted[e].del;
      }
      size_t f = e;
      for (; f < st->nted && st->ted[f].tok == i; f++) drop |= st->ted[f].del;
      if (!drop) cls__putf(&x, "%.*s", (int)pp->toks[i].n, pp->toks[i].s);
      for (; e < st->nted && st->ted[e].tok == i; e++)
        cls__putf(&x, " %s", st->ted[e].text ? st->ted[e].text : "");
    }
    const cls__span sp = pp->invs[inv - 1];
    for (const char *q = sp.a; q < sp.b; q++)
      if (*q == '\n') cls__putf(&x, "\n");
    cls__edit_add(st, (size_t)(sp.a - st->src), (size_t)(sp.b - sp.a), &x);
  }
}

void cls__apply(cls__rwstate *st, cls__str *o) {
  cls__lower(st);
  if (st->oom) {
    o->oom = 1;
    return;
  }
  if (st->ned) qsort(st->ed, st->ned, sizeof *st->ed, cls__edit_cmp);
  size_t at = 0;
  for (size_t e = 0; e < st->ned; e++) {
    if (st->ed[e].pos < at) continue; /* overlaps an earlier edit */
    cls__putf(o, "%.*s%s", (int)(st->ed[e].pos - at), st->src + at,
              st->ed[e].text);
    at = st->ed[e].pos + st->ed[e].del;
  }
  cls__putf(o, "%s", st->src + at);
}

void cls__edits_free(cls__rwstate *st) {
  for (size_t e = 0; e < st->ned; e++) free(st->ed[e].text);
  for (size_t e = 0; e < st->nted; e++) free(st->ted[e].text);
  free(st->ed);
  free(st->ted);
  free(st->tail.s);
  free(st->ginit.s);
  free(st->prev_type.s);
}
