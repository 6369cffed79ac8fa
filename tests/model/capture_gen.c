/*
 * The generator of clstream-capture-model: from a seed, a random program
 * that a stream capture accepts and whose result does not depend on
 * timing.  It tracks, per stream, the set of work nodes the next
 * operation follows (stream order and the events waited for), and per
 * buffer its last writer and the readers since; where an access would
 * race, it first adds a record on the conflicting stream and a wait.  A
 * stream other than the origin starts with a wait (the fork), and every
 * stream that took part ends in a record the origin waits for (the join).
 */
#include "capture_prog.h"
#include "clstream.h" /* the stream flags */

#include <stdint.h>
#include <string.h>

typedef struct bits {
  uint64_t w[2];
} bits;

/* ---- Random numbers (splitmix64) and bit sets ---------------------------
 */

static uint64_t g_rng;
static uint64_t rnd(void) {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static unsigned rn(unsigned n) { return (unsigned)(rnd() % n); }

static void bset(bits *b, int i) { b->w[i >> 6] |= 1ull << (i & 63); }
static void bor(bits *a, const bits *b) {
  a->w[0] |= b->w[0];
  a->w[1] |= b->w[1];
}
/* The bits of a that b lacks. */
static bits bminus(bits a, const bits *b) {
  a.w[0] &= ~b->w[0];
  a.w[1] &= ~b->w[1];
  return a;
}
static int bany(const bits *a) { return (a->w[0] | a->w[1]) != 0; }
static int bhas(const bits *a, int i) {
  return (int)(a->w[i >> 6] >> (i & 63)) & 1;
}

/* ---- Generation ---------------------------------------------------------
 */

/* The generator's view of ordering: reach[s] holds every node the next
 * operation on s follows; an event holds what its last record held. */
typedef struct gen {
  prog *p;
  bits reach[NSTREAM], ev[NEVENT];
  int joined[NSTREAM], recorded[NEVENT];
  int nnodes, node_stream[MAXNODES];
  bits wmask[NBUF], rmask[NBUF]; /* last writer; readers since */
} gen;

static void emit(gen *g, op o) {
  if (g->p->nops < MAXOPS) g->p->ops[g->p->nops++] = o;
}

static void gen_record(gen *g, int s, int e) {
  op o = {.kind = OP_RECORD, .s = s, .e = e};
  emit(g, o);
  g->ev[e] = g->reach[s];
  g->recorded[e] = 1;
}

static void gen_wait(gen *g, int s, int e) {
  op o = {.kind = OP_WAIT, .s = s, .e = e};
  emit(g, o);
  bor(&g->reach[s], &g->ev[e]);
  g->joined[s] = 1;
}

/* Orders s after stream t's work so far with a record on t and a wait. */
static void gen_link(gen *g, int s, int t) {
  int e = (int)rn(NEVENT);
  gen_record(g, t, e);
  gen_wait(g, s, e);
}

/* Makes an access on s to buffer b (writing or not) race-free: for each
 * stream holding a conflicting node that s does not yet follow, a record
 * there and a wait on s. */
static void gen_order(gen *g, int s, int b, int write) {
  bits need = g->wmask[b];
  if (write) bor(&need, &g->rmask[b]);
  need = bminus(need, &g->reach[s]);
  for (int t = 0; t < NSTREAM && bany(&need); ++t) {
    int conflict = 0;
    for (int n = 0; n < g->nnodes; ++n)
      if (bhas(&need, n) && g->node_stream[n] == t) conflict = 1;
    if (conflict) {
      gen_link(g, s, t);
      need = bminus(need, &g->reach[s]);
    }
  }
}

/* Adds work op o on o.s reading rd (or -1) and writing wr. */
static void gen_work(gen *g, op o, int rd, int wr) {
  int s = o.s, n;
  if (g->nnodes >= MAXNODES) return;
  if (!g->joined[s]) /* a fork: s waits for a stream already in */
    gen_link(g, s, 0);
  if (rd >= 0) gen_order(g, s, rd, 0);
  gen_order(g, s, wr, 1);
  n = g->nnodes++;
  g->node_stream[n] = s;
  emit(g, o);
  g->p->nwork++;
  if (rd >= 0) bset(&g->rmask[rd], n);
  memset(&g->wmask[wr], 0, sizeof(bits));
  memset(&g->rmask[wr], 0, sizeof(bits));
  bset(&g->wmask[wr], n);
  if (o.kind == OP_ADD) bset(&g->rmask[wr], n);
  bset(&g->reach[s], n);
}

void capture_generate(prog *p, unsigned long long seed, int nops) {
  gen g;
  memset(p, 0, sizeof *p);
  memset(&g, 0, sizeof g);
  g.p = p;
  p->seed = seed;
  g_rng = seed * 0x2545f4914f6cdd1dull + 7;
  p->origin_per_thread = rn(4) == 0;
  p->mode = (int)rn(3);
  p->sflags[1] = rn(2) ? clsStreamNonBlocking : clsStreamDefault;
  p->sflags[2] = rn(2) ? clsStreamNonBlocking : clsStreamDefault;
  p->launch_on[0] = (int)rn(NSTREAM);
  p->launch_on[1] = (int)rn(NSTREAM);
  p->destroy_graph_early = rn(2);
  p->salt = (unsigned)rnd() | 1u;
  for (int b = 0; b < NBUF; ++b)
    for (int i = 0; i < N; ++i) p->init[b][i] = (unsigned)rnd();
  g.joined[0] = 1;
  for (int k = 0; k < nops && p->nops < MAXOPS - 16; ++k) {
    op o = {.s = (int)rn(NSTREAM)};
    unsigned r = rn(100);
    o.v = (unsigned)rn(1000) + 1;
    if (r < 14) {
      o.kind = OP_FILL, o.b = (int)rn(NDEV);
      gen_work(&g, o, -1, o.b);
    } else if (r < 28) {
      o.kind = OP_ADD, o.b = (int)rn(NDEV);
      gen_work(&g, o, -1, o.b);
    } else if (r < 38) {
      o.kind = OP_KCOPY, o.b = (int)rn(NDEV);
      o.b2 = (o.b + 1 + (int)rn(NDEV - 1)) % NDEV;
      gen_work(&g, o, o.b2, o.b);
    } else if (r < 48) {
      o.kind = OP_COPY, o.b = (int)rn(NDEV);
      o.b2 = (o.b + 1 + (int)rn(NDEV - 1)) % NDEV;
      o.cnt = rn(N) + 1, o.off = rn(N - o.cnt + 1), o.off2 = rn(N - o.cnt + 1);
      gen_work(&g, o, o.b2, o.b);
    } else if (r < 56) {
      o.kind = OP_H2D, o.b = (int)rn(NDEV), o.b2 = NDEV + (int)rn(NHOST);
      gen_work(&g, o, o.b2, o.b);
    } else if (r < 64) {
      o.kind = OP_D2H, o.b = NDEV + (int)rn(NHOST), o.b2 = (int)rn(NDEV);
      gen_work(&g, o, o.b2, o.b);
    } else if (r < 72) {
      o.kind = OP_MEMSET, o.b = (int)rn(NDEV), o.v = rn(256);
      o.cnt = rn(N) + 1, o.off = rn(N - o.cnt + 1);
      gen_work(&g, o, -1, o.b);
    } else if (r < 80) {
      o.kind = OP_HOSTFN, o.b = NDEV + (int)rn(NHOST), o.v = rn(7) + 2;
      gen_work(&g, o, o.b, o.b);
    } else if (r < 90) {
      if (g.joined[o.s]) gen_record(&g, o.s, (int)rn(NEVENT));
    } else {
      int e = (int)rn(NEVENT);
      if (g.recorded[e]) gen_wait(&g, o.s, e);
    }
  }
  /* The join: every stream that took part ends in the origin. */
  for (int s = 1; s < NSTREAM; ++s)
    if (g.joined[s]) gen_link(&g, 0, s);
}

const char *const capture_kind[] = {"fill",   "add", "kcopy",  "copy",
                                    "h2d",    "d2h", "memset", "hostfn",
                                    "record", "wait"};

void capture_print(FILE *f, const prog *p) {
  fprintf(f,
          "/* clstream-capture-model, seed %llu: origin %s, mode %d, s1 %s, "
          "s2 %s, launches on s%d then s%d%s */\n",
          p->seed, p->origin_per_thread ? "per-thread" : "created", p->mode,
          p->sflags[1] ? "non-blocking" : "blocking",
          p->sflags[2] ? "non-blocking" : "blocking", p->launch_on[0],
          p->launch_on[1],
          p->destroy_graph_early ? ", graph destroyed early" : "");
  for (int i = 0; i < p->nops; ++i) {
    const op *o = &p->ops[i];
    fprintf(f, "%3d s%d %-7s", i, o->s, capture_kind[o->kind]);
    switch (o->kind) {
    case OP_RECORD:
    case OP_WAIT:
      fprintf(f, " e%d\n", o->e);
      break;
    case OP_FILL:
    case OP_ADD:
    case OP_HOSTFN:
      fprintf(f, " b%d v=%u\n", o->b, o->v);
      break;
    case OP_COPY:
      fprintf(f, " b%d[%u..] = b%d[%u..], %u\n", o->b, o->off, o->b2, o->off2,
              o->cnt);
      break;
    case OP_MEMSET:
      fprintf(f, " b%d[%u..], %u, byte %u\n", o->b, o->off, o->cnt, o->v);
      break;
    default:
      fprintf(f, " b%d = b%d\n", o->b, o->b2);
    }
  }
}
