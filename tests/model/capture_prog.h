/*
 * The programs of clstream-capture-model (capture_model.c): what one
 * operation is, what one seed's program holds, and the generator
 * (capture_gen.c) that makes a capturable, race-free program from a seed.
 */
#ifndef CLSTREAM_CAPTURE_PROG_H
#define CLSTREAM_CAPTURE_PROG_H

#include <stdio.h>

#define NSTREAM 3 /* 0 the origin, 1..2 created */
#define NEVENT 4
#define NDEV 4  /* device buffers d0..d3 */
#define NHOST 2 /* pinned host buffers h0..h1 (buffer ids NDEV..) */
#define NBUF (NDEV + NHOST)
#define N 64 /* unsigned elements per buffer */
#define MAXOPS 400
#define MAXNODES 128

enum opkind {
  OP_FILL,   /* model_fill: b[i] = v + i */
  OP_ADD,    /* model_add: b[i] += v */
  OP_KCOPY,  /* model_copy: b = b2 */
  OP_COPY,   /* clsMemcpyAsync d2d: b[off..off+cnt) = b2[off2..] */
  OP_H2D,    /* clsMemcpyAsync: d = h (pinned) */
  OP_D2H,    /* clsMemcpyAsync: h (pinned) = d */
  OP_MEMSET, /* clsMemsetAsync: bytes of b[off..off+cnt) = v */
  OP_HOSTFN, /* host function: h[i] = h[i] * v + 1 */
  OP_RECORD, /* clsEventRecord(e, s) */
  OP_WAIT,   /* clsStreamWaitEvent(s, e, 0) */
};

typedef struct op {
  int kind, s, e, b, b2;
  unsigned v, off, off2, cnt;
  unsigned *host; /* OP_HOSTFN: the buffer it rewrites (set at run) */
} op;

typedef struct prog {
  unsigned long long seed;
  int nops, nwork;
  int origin_per_thread, mode, sflags[NSTREAM];
  int launch_on[2], destroy_graph_early;
  unsigned init[NBUF][N];
  unsigned salt;
  op ops[MAXOPS];
} prog;

/* Makes seed's program of about nops operations (records and waits that
 * the ordering needs come on top). */
void capture_generate(prog *p, unsigned long long seed, int nops);
/* Prints p as a listing, one operation a line. */
void capture_print(FILE *f, const prog *p);
/* The operations' names, by kind. */
extern const char *const capture_kind[];

#endif /* CLSTREAM_CAPTURE_PROG_H */
