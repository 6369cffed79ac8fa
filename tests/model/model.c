/*
 * clstream-model: model-based random testing of clstream's stream and
 * event ordering.
 *
 * Each seed generates a reproducible random sequence of operations over
 * several streams (the legacy stream, the per-thread stream, blocking and
 * non-blocking created streams), events, device buffers and pinned host
 * buffers: kernels that write known values (tests/kernels/model.cl), async
 * copies and memsets, synchronous copies, event records, clsStreamWaitEvent,
 * host functions and callbacks (some held by a gate until a later "release"),
 * queries, synchronizations, destroy and re-create.  The sequence runs
 * through clstream and every observation is checked against a small
 * reference model of CUDA's ordering rules:
 *
 *   - every operation is a node of a DAG whose edges are CUDA's: the
 *     previous operation of the same stream, the event captured by
 *     clsStreamWaitEvent at the time of the call, and the legacy stream's
 *     implicit synchronization (legacy work waits for the newest work of
 *     every blocking stream, destroyed ones included; blocking-stream work
 *     waits for the legacy stream's newest work);
 *   - what each call waits for is CUDA 13's (docs/semantics.md): clsMemset of
 *     device memory and device-to-device clsMemcpy return at once, other
 *     clsMemcpy calls and clsMemcpyAsync into pageable memory return when
 *     done, clsFree waits for the whole device and clsMalloc for nothing
 *     (a call that waits when it should not hangs behind a held gate,
 *     which fails the seed); querying or synchronizing the legacy stream
 *     covers the blocking streams' work that legacy work issued then
 *     would wait for; a launch with a bad configuration returns
 *     InvalidValue and is not sticky;
 *   - a node MUST be complete once a synchronization (or a query that
 *     returned clsSuccess) covered it or a descendant: NotReady is then a
 *     failure;
 *   - a node CANNOT be complete while a gate it depends on is held:
 *     clsSuccess is then a failure;
 *   - the generator only emits race-free programs (every access to a
 *     buffer is ordered after the buffer's last writer, and every write
 *     after the readers since), so each buffer's content is known; a
 *     buffer whose last writer must be complete is read back and compared;
 *   - host functions log when they start and end: each runs once, after
 *     every host function it depends on has returned, and sees the pinned
 *     host buffer it reads with the content the model predicts.
 *
 * Generation depends only on the seed and on facts the model knows for
 * sure (synchronizations), never on what a query happened to return, so a
 * seed always produces the same program.  Each batch of seeds runs in a
 * worker process watched by the parent (a crash or a hang fails the seed);
 * a failing seed is shrunk (operations dropped while it still fails, each
 * candidate in a fresh process) and printed as a C-like replay.
 *
 * Usage: clstream-model [--seeds N] [--start S] [--seed S] [--ops N]
 *                       [--timeout SEC] [--max-failures N] [--no-shrink]
 *                       [--shrink-seconds S] [--print] [--quiet]
 *                       [--lenient-waits]
 *   --seeds N     run seeds start..start+N-1 (default 1..1000)
 *   --seed S      run seed S alone (then shrink it if it fails)
 *   --ops N       operations per sequence (default 40)
 *   --timeout SEC no progress for SEC seconds is a hang (default 30)
 *   --print       print seed S's program without running it
 *   --lenient-waits  do not count a pending clsStreamWaitEvent as stream
 *                 work for the legacy stream's implicit synchronization
 *                 (CUDA does; see g_strict_waits)
 *
 * The longer run (not in CI; about 0.05 s per sequence on PoCL, 2 cores):
 *   build/tests/model/clstream-model --seeds 100000 --start 1000001 \
 *       --no-shrink --no-confirm --timeout 5 --max-failures 100000
 * --no-confirm names a failing seed without re-running and printing it;
 * re-run one seed with --seed S to get its shrunk replay.
 */
#include "clstream.h"
#include "clstream_kernels.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Sizes ------------------------------------------------------------- */

#define NSTREAM 5 /* 0 legacy, 1 per-thread, 2..4 created */
#define NEVENT 4
#define NDEV 4  /* device buffers d0..d3 */
#define NHOST 2 /* pinned host buffers h0..h1 (buffer ids NDEV..) */
#define NBUF (NDEV + NHOST)
#define NGATE 3
#define N 128 /* unsigned elements per buffer */

/* ---- Operations ---------------------------------------------------------- */

enum opkind {
  OP_FILL,      /* model_fill on s: b[i] = v + i */
  OP_ADD,       /* model_add on s: b[i] += v (iters of busy work) */
  OP_KCOPY,     /* model_copy on s: b = b2 */
  OP_COPY,      /* clsMemcpyAsync on s, b[off..] = b2[off2..], cnt */
  OP_H2D_PAGE,  /* clsMemcpyAsync from pageable memory (staged) */
  OP_D2H_PAGE,  /* clsMemcpyAsync into pageable memory (blocks) */
  OP_MEMSET,    /* clsMemsetAsync on s */
  OP_SYNC_COPY, /* clsMemcpy (legacy stream; blocks unless D2D) */
  OP_SYNC_SET,  /* clsMemset (legacy stream, returns at once) */
  OP_RECORD,    /* clsEventRecord(e, s) */
  OP_WAIT,      /* clsStreamWaitEvent(s, e, 0) */
  OP_HOSTFN,    /* clsLaunchHostFunc / clsStreamAddCallback on s */
  OP_GATE,      /* a host function on s held until OP_RELEASE */
  OP_RELEASE,   /* lets gate g's host function return */
  OP_QEVENT,    /* clsEventQuery(e) */
  OP_QSTREAM,   /* clsStreamQuery(s) */
  OP_SEVENT,    /* clsEventSynchronize(e) */
  OP_SSTREAM,   /* clsStreamSynchronize(s) */
  OP_SDEVICE,   /* clsDeviceSynchronize() */
  OP_ELAPSED,   /* clsEventElapsedTime(e, e2) */
  OP_SCREATE,   /* clsStreamCreateWithFlags into slot s */
  OP_SDESTROY,  /* clsStreamDestroy(slot s) */
  OP_ECREATE,   /* clsEventCreateWithFlags into slot e */
  OP_EDESTROY,  /* clsEventDestroy(slot e) */
  OP_MALLOC,    /* clsMalloc of the scratch allocation (never waits) */
  OP_FREE,      /* clsFree of it (waits for the whole device) */
  OP_BADLAUNCH, /* a launch with a bad configuration (InvalidValue) */
  OP_COUNT
};

typedef struct op {
  int k;
  int s, e, e2, b, b2, g;
  unsigned v;
  int off, off2, cnt;
  unsigned flags;
  int alt; /* legacy stream as NULL (0) or clsStreamLegacy (1); host fn
              (0) or callback (1); exact copy kind (0) or Default (1) */
} op;

typedef struct prog {
  unsigned long long seed;
  unsigned sflags[NSTREAM]; /* created streams' initial flags */
  unsigned eflags[NEVENT];
  op *ops;
  int nops;
} prog;

/* ---- Random numbers (splitmix64) ---------------------------------------- */

typedef struct rng {
  uint64_t x;
} rng;
static uint64_t rnext(rng *r) {
  uint64_t z = (r->x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int rint_(rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); }

/* ---- Library objects shared by the sequences of one process -------------- */

static clsModule_t g_mod;
static int g_untimed; /* the device gives no usable timestamps */
static clsFunction_t g_fill, g_add, g_kcopy;
static unsigned *g_dbuf[NDEV];
static unsigned *g_hbuf[NHOST];
static unsigned *g_readback; /* pinned */
static clsStream_t g_reader; /* non-blocking, outside the model */

/* ---- Gates --------------------------------------------------------------- */

typedef struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int released;
} gate;

/* ---- The model ------------------------------------------------------------
 */

enum nodekind { N_CMD, N_RECORD, N_WAIT, N_HOST, N_GATE };

typedef struct node {
  int kind;
  int stream;
  int gate; /* N_GATE: gate slot */
  int opidx;
  uint64_t *anc; /* strict ancestors */
  int sure;      /* complete: a synchronization covered it */
  int obs;       /* complete: a query said so */
  /* host functions (written by the library's threads, under logmu) */
  int starts, ends, start_pos, end_pos;
} node;

typedef struct hctx {
  struct model *m;
  int node;
  int h;           /* pinned buffer it reads, -1 none */
  uint32_t expect; /* its hash */
  gate *g;         /* gate to wait on, or NULL */
  int callback;
} hctx;

typedef struct model {
  const prog *p;
  int exec; /* 0: dry (generation only), 1: run through clstream */
  int words;
  node *nodes;
  int nnodes, capnodes;
  struct {
    int alive, nonblocking, last;
    int last_cmd; /* newest node that is not a clsStreamWaitEvent */
    clsStream_t h;
  } st[NSTREAM];
  int *orphans;
  int norphans;
  struct {
    int alive, node;
    unsigned flags;
    clsEvent_t h;
  } ev[NEVENT];
  struct {
    unsigned exp[N];
    int writer;
    uint64_t *readers;
    int dirty;
  } buf[NBUF];
  struct {
    gate *g;
    int held, node;
  } gt[NGATE];
  int scratch;       /* the scratch allocation exists */
  void *scratch_ptr; /* (exec only) */
  gate **allgates;
  int nallgates;
  hctx **hcs;
  int nhcs;
  pthread_mutex_t logmu;
  int logpos;
  int bad_host; /* host function saw a wrong value or status */
  char bad_msg[256];
  /* failure */
  int failed;
  int fail_op;
  char msg[1024];
  int cur_op;
} model;

static int g_quiet;
static int *g_progress;
/* Observations checked (this process): queries the model required to be
 * clsSuccess, required to be NotReady (a held gate ahead), left open;
 * buffers compared; host functions checked for order. */
static unsigned long g_must_ok, g_must_notready, g_open,
    g_buffers; /* shared with the parent: op being executed */

static void fail(model *m, const char *fmt, ...) {
  if (m->failed) return;
  m->failed = 1;
  m->fail_op = m->cur_op;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->msg, sizeof m->msg, fmt, ap);
  va_end(ap);
}

static int bit(const uint64_t *s, int i) { return (s[i >> 6] >> (i & 63)) & 1; }
static void setbit(uint64_t *s, int i) { s[i >> 6] |= 1ull << (i & 63); }

static int is_blocking_slot(const model *m, int s) {
  if (s == 0) return 0;
  if (s == 1) return 1;
  return !m->st[s].nonblocking;
}

static int done(const model *m, int n) {
  return n < 0 || m->nodes[n].sure || m->nodes[n].obs;
}

/* A held gate among n and its ancestors (anc may be a prospective set). */
static int blocked_set(const model *m, const uint64_t *anc, int self) {
  for (int g = 0; g < NGATE; ++g)
    if (m->gt[g].held &&
        (m->gt[g].node == self || (anc && bit(anc, m->gt[g].node))))
      return 1;
  return 0;
}
static int blocked(const model *m, int n) {
  return n >= 0 && blocked_set(m, m->nodes[n].anc, n);
}

/* w happens before a node with ancestors anc (or is known complete). */
static int ordered(const model *m, int w, const uint64_t *anc) {
  return w < 0 || m->nodes[w].sure || bit(anc, w);
}

static void add_dep(model *m, uint64_t *anc, int n) {
  if (n < 0) return;
  setbit(anc, n);
  for (int i = 0; i < m->words; ++i) anc[i] |= m->nodes[n].anc[i];
}

/* How clsStreamWaitEvent takes part in the legacy stream's implicit
 * synchronization, as measured with CUDA 13.0 on an H200 (driver 580):
 *  - legacy work waits for a blocking stream's pending wait (s waits on a
 *    held event, then a record on stream 0 stays NotReady);
 *  - a wait issued on the legacy stream is legacy work: it waits for the
 *    blocking streams (cudaStreamQuery(0) NotReady while one is held).
 * (Whether a wait on a blocking stream waits for earlier legacy work could
 * not be told apart, so the model adds no such edge.)  --lenient-waits
 * drops both edges, for an implementation that keeps them as a deviation. */
static int g_strict_waits = 1;

static int tail(const model *m, int t) {
  return g_strict_waits ? m->st[t].last : m->st[t].last_cmd;
}

/* The ancestors a new node on stream s would have (plus `extra`, the
 * event a wait waits for). */
static void deps(model *m, int s, int extra, uint64_t *anc, int is_wait) {
  memset(anc, 0, sizeof *anc * (size_t)m->words);
  add_dep(m, anc, m->st[s].last);
  if (!is_wait || (g_strict_waits && s == 0)) {
    if (s == 0) {
      for (int t = 1; t < NSTREAM; ++t)
        if (m->st[t].alive && is_blocking_slot(m, t))
          add_dep(m, anc, tail(m, t));
      for (int i = 0; i < m->norphans; ++i) add_dep(m, anc, m->orphans[i]);
    } else if (is_blocking_slot(m, s)) {
      add_dep(m, anc, tail(m, 0));
    }
  }
  add_dep(m, anc, extra);
}

static int new_node(model *m, int s, int kind, const uint64_t *anc) {
  if (m->nnodes == m->capnodes) {
    m->capnodes = m->capnodes ? m->capnodes * 2 : 64;
    m->nodes = realloc(m->nodes, sizeof *m->nodes * (size_t)m->capnodes);
  }
  int id = m->nnodes++;
  node *n = &m->nodes[id];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  n->stream = s;
  n->opidx = m->cur_op;
  n->start_pos = n->end_pos = -1;
  n->anc = calloc((size_t)m->words, sizeof *n->anc);
  memcpy(n->anc, anc, sizeof *anc * (size_t)m->words);
  m->st[s].last = id;
  if (kind != N_WAIT) m->st[s].last_cmd = id;
  return id;
}

static void mark(model *m, int n, int sure) {
  if (n < 0) return;
  for (int i = 0; i <= n; ++i)
    if (i == n || bit(m->nodes[n].anc, i)) {
      if (sure)
        m->nodes[i].sure = 1;
      else
        m->nodes[i].obs = 1;
    }
}

/* ---- Buffers ----------------------------------------------------------------
 */

/* The buffer as the host's copies see it, and as kernels see it (host
 * buffers are mapped host memory, as CUDA's pinned memory is to kernels:
 * their device pointer comes from clsHostGetDevicePointer). */
static unsigned *bufptr(int b) {
  return b < NDEV ? g_dbuf[b] : g_hbuf[b - NDEV];
}
static unsigned *g_hdev[NHOST];
static unsigned *kernptr(int b) {
  return b < NDEV ? g_dbuf[b] : g_hdev[b - NDEV];
}

static int can_read(const model *m, int b, const uint64_t *anc) {
  return ordered(m, m->buf[b].writer, anc);
}
static int can_write(const model *m, int b, const uint64_t *anc) {
  if (!ordered(m, m->buf[b].writer, anc)) return 0;
  for (int i = 0; i < m->nnodes; ++i)
    if (bit(m->buf[b].readers, i) && !ordered(m, i, anc)) return 0;
  return 1;
}
static void note_read(model *m, int b, int n) { setbit(m->buf[b].readers, n); }
static void note_write(model *m, int b, int n) {
  m->buf[b].writer = n;
  memset(m->buf[b].readers, 0, sizeof(uint64_t) * (size_t)m->words);
  m->buf[b].dirty = 1;
}

static uint32_t hash(const unsigned *a) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < N; ++i) h = (h ^ a[i]) * 16777619u;
  return h;
}

/* Reads buffer b now (its writers are complete) and compares. */
static void check_buffer(model *m, int b, const char *when) {
  const unsigned *got;
  if (b < NDEV) {
    clsError_t r = clsMemcpyAsync(g_readback, g_dbuf[b], N * sizeof(unsigned),
                                  clsMemcpyDeviceToHost, g_reader);
    if (r == clsSuccess) r = clsStreamSynchronize(g_reader);
    if (r != clsSuccess) {
      fail(m, "reading back d%d: %s", b, clsGetErrorName(r));
      return;
    }
    got = g_readback;
  } else {
    got = g_hbuf[b - NDEV];
  }
  g_buffers++;
  for (int i = 0; i < N; ++i)
    if (got[i] != m->buf[b].exp[i]) {
      char name[8];
      snprintf(name, sizeof name, b < NDEV ? "d%d" : "h%d",
               b < NDEV ? b : b - NDEV);
      fail(m, "%s: %s[%d] = %u, the model says %u (last writer: op %d)", when,
           name, i, got[i], m->buf[b].exp[i],
           m->buf[b].writer >= 0 ? m->nodes[m->buf[b].writer].opidx : -1);
      return;
    }
  m->buf[b].dirty = 0;
}

/* After anything became complete: host functions that must have returned
 * did; buffers whose last writer is complete hold what the model says. */
static void verify(model *m, const char *when) {
  if (!m->exec || m->failed) return;
  pthread_mutex_lock(&m->logmu);
  int bad = m->bad_host;
  for (int i = 0; i < m->nnodes && !m->failed; ++i) {
    node *n = &m->nodes[i];
    if ((n->kind == N_HOST || n->kind == N_GATE) && done(m, i) && n->ends != 1)
      fail(m,
           "%s: the host function of op %d must have returned once, "
           "ran %d time(s)",
           when, n->opidx, n->ends);
  }
  pthread_mutex_unlock(&m->logmu);
  if (bad) fail(m, "%s: %s", when, m->bad_msg);
  for (int b = 0; b < NBUF && !m->failed; ++b)
    if (m->buf[b].dirty && done(m, m->buf[b].writer)) check_buffer(m, b, when);
}

/* Checks a query's answer for node n (-1: nothing captured). */
static void expect_query(model *m, int n, clsError_t got, const char *what) {
  if (!m->exec) return;
  if (done(m, n))
    g_must_ok++;
  else if (blocked(m, n))
    g_must_notready++;
  else
    g_open++;
  if (got == clsSuccess) {
    if (blocked(m, n))
      fail(m,
           "%s returned clsSuccess, but a held gate (host function) "
           "is still ahead of it",
           what);
    else if (n >= 0) {
      mark(m, n, 0);
      verify(m, what);
    }
  } else if (got == clsErrorNotReady) {
    if (done(m, n))
      fail(m,
           "%s returned clsErrorNotReady, but the model says it must be "
           "complete (%s)",
           what,
           n < 0 ? "nothing was captured" : "a synchronization covered it");
  } else {
    fail(m, "%s returned %s", what, clsGetErrorName(got));
  }
}

/* Checks a query's answer for a set of nodes (closed under ancestry): the
 * legacy stream's state, which includes the blocking streams' work that
 * legacy work issued now would wait for. */
static void expect_query_set(model *m, const uint64_t *anc, clsError_t got,
                             const char *what) {
  if (!m->exec) return;
  int all_done = 1;
  for (int i = 0; i < m->nnodes && all_done; ++i)
    if (bit(anc, i) && !done(m, i)) all_done = 0;
  int held = blocked_set(m, anc, -1);
  if (all_done)
    g_must_ok++;
  else if (held)
    g_must_notready++;
  else
    g_open++;
  if (got == clsSuccess) {
    if (held) {
      fail(m,
           "%s returned clsSuccess, but a held gate (host function) "
           "is still ahead of the work it covers",
           what);
      return;
    }
    for (int i = 0; i < m->nnodes; ++i)
      if (bit(anc, i)) m->nodes[i].obs = 1;
    verify(m, what);
  } else if (got == clsErrorNotReady) {
    if (all_done)
      fail(m,
           "%s returned clsErrorNotReady, but the model says the work it "
           "covers must be complete",
           what);
  } else {
    fail(m, "%s returned %s", what, clsGetErrorName(got));
  }
}

static void expect_ok(model *m, clsError_t got, const char *what) {
  if (m->exec && got != clsSuccess)
    fail(m, "%s returned %s, expected clsSuccess", what, clsGetErrorName(got));
}

/* ---- Host functions
 * ---------------------------------------------------------- */

static void host_log(hctx *c, int end) {
  model *m = c->m;
  pthread_mutex_lock(&m->logmu);
  node *n = &m->nodes[c->node];
  if (end) {
    n->ends++;
    n->end_pos = m->logpos++;
  } else {
    n->starts++;
    n->start_pos = m->logpos++;
  }
  pthread_mutex_unlock(&m->logmu);
}

static void host_body(hctx *c, clsError_t status) {
  model *m = c->m;
  host_log(c, 0);
  if (status != clsSuccess || (c->h >= 0 && hash(g_hbuf[c->h]) != c->expect)) {
    pthread_mutex_lock(&m->logmu);
    if (!m->bad_host) {
      m->bad_host = 1;
      snprintf(
          m->bad_msg, sizeof m->bad_msg,
          status != clsSuccess
              ? "the callback of op %d got status %d"
              : "the host function of op %d saw h%d with the wrong content",
          m->nodes[c->node].opidx, status != clsSuccess ? (int)status : c->h);
    }
    pthread_mutex_unlock(&m->logmu);
  }
  if (c->g) {
    pthread_mutex_lock(&c->g->mu);
    while (!c->g->released) pthread_cond_wait(&c->g->cv, &c->g->mu);
    pthread_mutex_unlock(&c->g->mu);
  }
  host_log(c, 1);
}

static void host_fn(void *p) { host_body(p, clsSuccess); }
static void host_cb(clsStream_t s, clsError_t status, void *p) {
  (void)s;
  host_body(p, status);
}

/* ---- Names for the replay
 * ------------------------------------------------------ */

static const char *sname(const op *o, int s) {
  static const char *n[] = {"NULL", "clsStreamPerThread", "s2", "s3", "s4"};
  if (s == 0 && o->alt) return "clsStreamLegacy";
  return n[s];
}
static const char *bname(int b) {
  static const char *n[] = {"d0", "d1", "d2", "d3", "h0", "h1"};
  return n[b];
}
static const char *eflagname(unsigned f) {
  static const char *n[] = {"clsEventDefault", "clsEventBlockingSync",
                            "clsEventDisableTiming",
                            "clsEventBlockingSync | clsEventDisableTiming"};
  return n[f & 3];
}

static void op_text(const op *o, char *t, size_t n) {
  const char *S = sname(o, o->s);
  switch (o->k) {
  case OP_FILL:
    snprintf(t, n, "model_fill<<<%s>>>(%s, %u);  /* %s[i] = %u + i */", S,
             bname(o->b), o->v, bname(o->b), o->v);
    break;
  case OP_ADD:
    snprintf(t, n, "model_add<<<%s>>>(%s, %u, iters=%d);", S, bname(o->b), o->v,
             o->off);
    break;
  case OP_KCOPY:
    snprintf(t, n, "model_copy<<<%s>>>(%s, %s);", S, bname(o->b), bname(o->b2));
    break;
  case OP_COPY:
    snprintf(t, n, "clsMemcpyAsync(%s + %d, %s + %d, %d * 4, %s, %s);",
             bname(o->b), o->off, bname(o->b2), o->off2, o->cnt,
             o->alt ? "clsMemcpyDefault" : "<exact kind>", S);
    break;
  case OP_H2D_PAGE:
    snprintf(t, n,
             "clsMemcpyAsync(%s, pageable /* [i] = %u + 2i, overwritten "
             "after the call */, N * 4, clsMemcpyHostToDevice, %s);",
             bname(o->b), o->v, S);
    break;
  case OP_D2H_PAGE:
    snprintf(t, n,
             "clsMemcpyAsync(pageable, %s, N * 4, clsMemcpyDeviceToHost, %s);"
             "  /* blocks; compared at once */",
             bname(o->b2), S);
    break;
  case OP_MEMSET:
    snprintf(t, n, "clsMemsetAsync(%s + %d, 0x%02x, %d * 4, %s);", bname(o->b),
             o->off, o->v & 0xff, o->cnt, S);
    break;
  case OP_SYNC_COPY:
    snprintf(t, n, "clsMemcpy(%s, %s, N * 4, clsMemcpyDefault);", bname(o->b),
             bname(o->b2));
    break;
  case OP_SYNC_SET:
    snprintf(t, n, "clsMemset(%s, 0x%02x, N * 4);", bname(o->b), o->v & 0xff);
    break;
  case OP_RECORD:
    snprintf(t, n, "clsEventRecord(e%d, %s);", o->e, S);
    break;
  case OP_WAIT:
    snprintf(t, n, "clsStreamWaitEvent(%s, e%d, 0);", S, o->e);
    break;
  case OP_HOSTFN:
    if (o->b >= 0)
      snprintf(t, n, "%s(%s, hostfn /* logs, reads %s */, ...);",
               o->alt ? "clsStreamAddCallback" : "clsLaunchHostFunc", S,
               bname(o->b));
    else
      snprintf(t, n, "%s(%s, hostfn /* logs */, ...);",
               o->alt ? "clsStreamAddCallback" : "clsLaunchHostFunc", S);
    break;
  case OP_GATE:
    snprintf(t, n, "clsLaunchHostFunc(%s, gate_wait, g%d);  /* held */", S,
             o->g);
    break;
  case OP_RELEASE:
    snprintf(t, n, "gate_release(g%d);", o->g);
    break;
  case OP_QEVENT:
    snprintf(t, n, "clsEventQuery(e%d);", o->e);
    break;
  case OP_QSTREAM:
    snprintf(t, n, "clsStreamQuery(%s);", S);
    break;
  case OP_SEVENT:
    snprintf(t, n, "clsEventSynchronize(e%d);", o->e);
    break;
  case OP_SSTREAM:
    snprintf(t, n, "clsStreamSynchronize(%s);", S);
    break;
  case OP_SDEVICE:
    snprintf(t, n, "clsDeviceSynchronize();");
    break;
  case OP_ELAPSED:
    snprintf(t, n, "clsEventElapsedTime(&ms, e%d, e%d);", o->e, o->e2);
    break;
  case OP_SCREATE:
    snprintf(t, n, "clsStreamCreateWithFlags(&s%d, %s);", o->s,
             o->flags ? "clsStreamNonBlocking" : "clsStreamDefault");
    break;
  case OP_SDESTROY:
    snprintf(t, n, "clsStreamDestroy(s%d);", o->s);
    break;
  case OP_ECREATE:
    snprintf(t, n, "clsEventCreateWithFlags(&e%d, %s);", o->e,
             eflagname(o->flags));
    break;
  case OP_EDESTROY:
    snprintf(t, n, "clsEventDestroy(e%d);", o->e);
    break;
  case OP_MALLOC:
    snprintf(t, n, "clsMalloc(&scratch, 4096);  /* never waits */");
    break;
  case OP_FREE:
    snprintf(t, n, "clsFree(scratch);  /* waits for the device */");
    break;
  case OP_BADLAUNCH:
    snprintf(t, n,
             "model_fill<<<%s>>> with a %s  /* InvalidValue, not sticky */", S,
             o->v % 3 == 0   ? "zero grid dimension"
             : o->v % 3 == 1 ? "zero block dimension"
                             : "block above maxThreadsPerBlock");
    break;
  }
}

/* ---- Executing one operation
 * ---------------------------------------------------- */

static clsStream_t shandle(const model *m, const op *o, int s) {
  if (s == 0) return o->alt ? clsStreamLegacy : NULL;
  if (s == 1) return clsStreamPerThread;
  return m->st[s].h;
}

static clsDim3 grid = {N / 64, 1, 1}, block = {64, 1, 1};

/* Whether op o is valid in the current state (and, when `a` is given, the
 * ancestors its node would have).  Only facts the generator also knows. */
static int valid(model *m, const op *o, uint64_t *a) {
  int s = o->s;
  switch (o->k) {
  case OP_FILL:
  case OP_ADD:
  case OP_MEMSET:
  case OP_H2D_PAGE:
    if (!m->st[s].alive) return 0;
    deps(m, s, -1, a, 0);
    return can_write(m, o->b, a);
  case OP_KCOPY:
  case OP_COPY:
    if (!m->st[s].alive || o->b == o->b2) return 0;
    deps(m, s, -1, a, 0);
    /* A host-to-host copy on the legacy stream returns when done (CUDA
     * 13), so it may not be ordered behind a held gate. */
    if (o->k == OP_COPY && s == 0 && o->b >= NDEV && o->b2 >= NDEV &&
        blocked_set(m, a, -1))
      return 0;
    return can_write(m, o->b, a) && can_read(m, o->b2, a);
  case OP_D2H_PAGE:
    if (!m->st[s].alive) return 0;
    deps(m, s, -1, a, 0);
    return can_read(m, o->b2, a) && !blocked_set(m, a, -1);
  case OP_SYNC_COPY:
    if (o->b == o->b2) return 0;
    deps(m, 0, -1, a, 0);
    /* Device to device returns at once; a copy that touches host memory
     * returns when done, so it may not be ordered behind a held gate. */
    return can_write(m, o->b, a) && can_read(m, o->b2, a) &&
           ((o->b < NDEV && o->b2 < NDEV) || !blocked_set(m, a, -1));
  case OP_SYNC_SET:
    deps(m, 0, -1, a, 0);
    return can_write(m, o->b, a); /* returns at once */
  case OP_RECORD:
    if (!m->st[s].alive || !m->ev[o->e].alive) return 0;
    deps(m, s, -1, a, 0);
    return 1;
  case OP_WAIT:
    if (!m->st[s].alive || !m->ev[o->e].alive) return 0;
    deps(m, s, m->ev[o->e].node, a, 1);
    return 1;
  case OP_HOSTFN:
    if (!m->st[s].alive) return 0;
    deps(m, s, -1, a, 0);
    return o->b < 0 || can_read(m, o->b, a);
  case OP_GATE:
    if (!m->st[s].alive || m->gt[o->g].held) return 0;
    deps(m, s, -1, a, 0);
    return 1;
  case OP_RELEASE:
    return m->gt[o->g].held;
  case OP_QEVENT:
    return m->ev[o->e].alive;
  case OP_QSTREAM:
    return m->st[s].alive;
  case OP_SEVENT:
    return m->ev[o->e].alive && !blocked(m, m->ev[o->e].node);
  case OP_SSTREAM:
    if (s == 0) { /* covers the blocking streams' work too */
      deps(m, 0, -1, a, 0);
      return !blocked_set(m, a, -1);
    }
    return m->st[s].alive && !blocked(m, m->st[s].last);
  case OP_SDEVICE:
    for (int g = 0; g < NGATE; ++g)
      if (m->gt[g].held) return 0;
    return 1;
  case OP_ELAPSED:
    return m->ev[o->e].alive && m->ev[o->e2].alive;
  case OP_SCREATE:
    return s >= 2 && !m->st[s].alive;
  case OP_SDESTROY:
    return s >= 2 && m->st[s].alive;
  case OP_ECREATE:
    return !m->ev[o->e].alive;
  case OP_EDESTROY:
    return m->ev[o->e].alive;
  case OP_MALLOC:
    return !m->scratch;
  case OP_FREE:
    if (!m->scratch) return 0;
    for (int g = 0; g < NGATE; ++g)
      if (m->gt[g].held) return 0;
    return 1;
  case OP_BADLAUNCH:
    return m->st[s].alive;
  }
  return 0;
}

static void fill_exp(unsigned *exp, const op *o) {
  for (int i = 0; i < N; ++i) exp[i] = o->v + (unsigned)i;
}

static void exec_op(model *m, const op *o) {
  uint64_t a[m->words];
  if (!valid(m, o, a)) return;
  int s = o->s, x = m->exec, n = -1;
  clsStream_t sh = x ? shandle(m, o, s) : NULL;
  clsError_t r = clsSuccess;
  char what[200];
  op_text(o, what, sizeof what);
  unsigned *d = bufptr(o->b >= 0 ? o->b : 0);
  unsigned *kd = kernptr(o->b >= 0 ? o->b : 0); /* d as kernels see it */
  unsigned nn = N;
  switch (o->k) {
  case OP_FILL: {
    if (x) {
      void *args[] = {&kd, (void *)&o->v, &nn};
      r = clsLaunchKernel(g_fill, grid, block, args, 0, sh);
    }
    n = new_node(m, s, N_CMD, a);
    fill_exp(m->buf[o->b].exp, o);
    note_write(m, o->b, n);
    break;
  }
  case OP_ADD: {
    if (x) {
      unsigned iters = (unsigned)o->off, zero = 0;
      void *args[] = {&kd, (void *)&o->v, &nn, &iters, &zero};
      r = clsLaunchKernel(g_add, grid, block, args, 0, sh);
    }
    n = new_node(m, s, N_CMD, a);
    for (int i = 0; i < N; ++i) m->buf[o->b].exp[i] += o->v;
    note_write(m, o->b, n);
    break;
  }
  case OP_KCOPY: {
    unsigned *src = kernptr(o->b2);
    if (x && !src) {
      /* A host buffer kernels cannot reach (no mapped host memory on this
       * device): the same stream-ordered read of it and write of d, as a
       * copy. */
      r = clsMemcpyAsync(d, bufptr(o->b2), N * sizeof(unsigned),
                         clsMemcpyHostToDevice, sh);
    } else if (x) {
      void *args[] = {&kd, &src, &nn};
      r = clsLaunchKernel(g_kcopy, grid, block, args, 0, sh);
    }
    n = new_node(m, s, N_CMD, a);
    memcpy(m->buf[o->b].exp, m->buf[o->b2].exp, sizeof m->buf[o->b].exp);
    note_read(m, o->b2, n);
    note_write(m, o->b, n);
    break;
  }
  case OP_COPY: {
    clsMemcpyKind kind = clsMemcpyDefault;
    if (!o->alt) {
      int hs = o->b2 >= NDEV, hd = o->b >= NDEV;
      kind = hs && hd ? clsMemcpyHostToHost
             : hs     ? clsMemcpyHostToDevice
             : hd     ? clsMemcpyDeviceToHost
                      : clsMemcpyDeviceToDevice;
    }
    if (x)
      r = clsMemcpyAsync(bufptr(o->b) + o->off, bufptr(o->b2) + o->off2,
                         (size_t)o->cnt * sizeof(unsigned), kind, sh);
    n = new_node(m, s, N_CMD, a);
    memmove(m->buf[o->b].exp + o->off, m->buf[o->b2].exp + o->off2,
            (size_t)o->cnt * sizeof(unsigned));
    note_read(m, o->b2, n);
    note_write(m, o->b, n);
    /* Host to host on the legacy stream: returns when done. */
    if (s == 0 && o->b >= NDEV && o->b2 >= NDEV) mark(m, n, 1);
    break;
  }
  case OP_H2D_PAGE: {
    if (x) {
      unsigned *tmp = malloc(N * sizeof *tmp);
      for (int i = 0; i < N; ++i) tmp[i] = o->v + 2u * (unsigned)i;
      r = clsMemcpyAsync(d, tmp, N * sizeof *tmp,
                         o->alt ? clsMemcpyDefault : clsMemcpyHostToDevice, sh);
      for (int i = 0; i < N; ++i) tmp[i] = 0xdeadbeefu; /* may be reused */
      free(tmp);
    }
    n = new_node(m, s, N_CMD, a);
    for (int i = 0; i < N; ++i) m->buf[o->b].exp[i] = o->v + 2u * (unsigned)i;
    note_write(m, o->b, n);
    break;
  }
  case OP_D2H_PAGE: {
    unsigned tmp[N];
    if (x)
      r = clsMemcpyAsync(tmp, bufptr(o->b2), sizeof tmp,
                         o->alt         ? clsMemcpyDefault
                         : o->b2 < NDEV ? clsMemcpyDeviceToHost
                                        : clsMemcpyHostToHost,
                         sh);
    n = new_node(m, s, N_CMD, a);
    note_read(m, o->b2, n);
    mark(m, n, 1);
    if (x && r == clsSuccess)
      for (int i = 0; i < N; ++i)
        if (tmp[i] != m->buf[o->b2].exp[i]) {
          fail(m, "%s: pageable[%d] = %u, the model says %u", what, i, tmp[i],
               m->buf[o->b2].exp[i]);
          break;
        }
    break;
  }
  case OP_MEMSET: {
    if (x)
      r = clsMemsetAsync(d + o->off, (int)(o->v & 0xff),
                         (size_t)o->cnt * sizeof(unsigned), sh);
    n = new_node(m, s, N_CMD, a);
    for (int i = 0; i < o->cnt; ++i)
      m->buf[o->b].exp[o->off + i] = (o->v & 0xff) * 0x01010101u;
    note_write(m, o->b, n);
    break;
  }
  case OP_SYNC_COPY:
    if (x)
      r = clsMemcpy(bufptr(o->b), bufptr(o->b2), N * sizeof(unsigned),
                    clsMemcpyDefault);
    n = new_node(m, 0, N_CMD, a);
    memcpy(m->buf[o->b].exp, m->buf[o->b2].exp, sizeof m->buf[o->b].exp);
    note_read(m, o->b2, n);
    note_write(m, o->b, n);
    if (o->b >= NDEV || o->b2 >= NDEV) mark(m, n, 1); /* touches the host */
    break;
  case OP_SYNC_SET:
    if (x) r = clsMemset(d, (int)(o->v & 0xff), N * sizeof(unsigned));
    n = new_node(m, 0, N_CMD, a);
    for (int i = 0; i < N; ++i)
      m->buf[o->b].exp[i] = (o->v & 0xff) * 0x01010101u;
    note_write(m, o->b, n);
    break;
  case OP_RECORD:
    if (x) r = clsEventRecord(m->ev[o->e].h, sh);
    n = new_node(m, s, N_RECORD, a);
    m->ev[o->e].node = n;
    break;
  case OP_WAIT:
    if (x) r = clsStreamWaitEvent(sh, m->ev[o->e].h, 0);
    if (m->ev[o->e].node >= 0) n = new_node(m, s, N_WAIT, a);
    break;
  case OP_HOSTFN:
  case OP_GATE: {
    int gate_ = o->k == OP_GATE;
    n = new_node(m, s, gate_ ? N_GATE : N_HOST, a);
    hctx *c = calloc(1, sizeof *c);
    c->m = m;
    c->node = n;
    c->h = -1;
    if (!gate_ && o->b >= 0) {
      c->h = o->b - NDEV;
      c->expect = hash(m->buf[o->b].exp);
      note_read(m, o->b, n);
    }
    if (gate_) {
      gate *g = calloc(1, sizeof *g);
      pthread_mutex_init(&g->mu, NULL);
      pthread_cond_init(&g->cv, NULL);
      m->allgates =
          realloc(m->allgates, sizeof(gate *) * (size_t)(m->nallgates + 1));
      m->allgates[m->nallgates++] = g;
      c->g = g;
      m->gt[o->g].g = g;
      m->gt[o->g].held = 1;
      m->gt[o->g].node = n;
    }
    m->hcs = realloc(m->hcs, sizeof(hctx *) * (size_t)(m->nhcs + 1));
    m->hcs[m->nhcs++] = c;
    if (x) {
      if (!gate_ && o->alt)
        r = clsStreamAddCallback(sh, host_cb, c, 0);
      else
        r = clsLaunchHostFunc(sh, host_fn, c);
    }
    break;
  }
  case OP_RELEASE: {
    gate *g = m->gt[o->g].g;
    m->gt[o->g].held = 0;
    if (x) {
      pthread_mutex_lock(&g->mu);
      g->released = 1;
      pthread_cond_broadcast(&g->cv);
      pthread_mutex_unlock(&g->mu);
    }
    break;
  }
  case OP_QEVENT:
    if (x)
      expect_query(m, m->ev[o->e].node, clsEventQuery(m->ev[o->e].h), what);
    return;
  case OP_QSTREAM:
    if (x && s == 0) {
      deps(m, 0, -1, a, 0); /* what legacy work issued now would wait for */
      expect_query_set(m, a, clsStreamQuery(sh), what);
    } else if (x) {
      expect_query(m, m->st[s].last, clsStreamQuery(sh), what);
    }
    return;
  case OP_SEVENT:
    if (x) r = clsEventSynchronize(m->ev[o->e].h);
    mark(m, m->ev[o->e].node, 1);
    break;
  case OP_SSTREAM:
    if (x) r = clsStreamSynchronize(sh);
    if (s == 0) { /* valid() left the legacy stream's whole set in a */
      for (int i = 0; i < m->nnodes; ++i)
        if (bit(a, i)) m->nodes[i].sure = 1;
    } else {
      mark(m, m->st[s].last, 1);
    }
    break;
  case OP_SDEVICE:
    if (x) r = clsDeviceSynchronize();
    for (int i = 0; i < m->nnodes; ++i) m->nodes[i].sure = 1;
    break;
  case OP_ELAPSED: {
    if (!x) return;
    float ms = 0;
    int na = m->ev[o->e].node, nb = m->ev[o->e2].node;
    r = clsEventElapsedTime(&ms, m->ev[o->e].h, m->ev[o->e2].h);
    clsError_t want;
    if (na < 0 || nb < 0 ||
        ((m->ev[o->e].flags | m->ev[o->e2].flags) & clsEventDisableTiming))
      want = clsErrorInvalidResourceHandle;
    else if (blocked(m, na) || blocked(m, nb))
      want = clsErrorNotReady;
    else if (done(m, na) && done(m, nb))
      want = clsSuccess;
    else
      want = r == clsSuccess || (g_untimed && r == clsErrorNotSupported)
                 ? clsSuccess
                 : clsErrorNotReady;
    /* Both complete, on a device without timing: NotSupported for two
     * different records, never a made-up time. */
    int untimed = g_untimed && want == clsSuccess && na != nb;
    if (untimed) want = clsErrorNotSupported;
    if (untimed && r == want) {
      mark(m, na, 0);
      mark(m, nb, 0);
      verify(m, what);
    } else if (r != want)
      fail(m, "%s returned %s, the model says %s", what, clsGetErrorName(r),
           clsGetErrorName(want));
    else if (r == clsSuccess) {
      mark(m, na, 0);
      mark(m, nb, 0);
      if (na == nb && ms != 0.0f)
        fail(m, "%s: %g ms for the same record, expected 0", what, ms);
      verify(m, what);
    }
    return;
  }
  case OP_SCREATE:
    if (x) r = clsStreamCreateWithFlags(&m->st[s].h, o->flags);
    m->st[s].alive = 1;
    m->st[s].nonblocking = o->flags != 0;
    m->st[s].last = m->st[s].last_cmd = -1;
    break;
  case OP_SDESTROY:
    if (x) r = clsStreamDestroy(m->st[s].h);
    if (is_blocking_slot(m, s) && tail(m, s) >= 0) {
      m->orphans = realloc(m->orphans, sizeof(int) * (size_t)(m->norphans + 1));
      m->orphans[m->norphans++] = tail(m, s);
    }
    m->st[s].alive = 0;
    m->st[s].last = m->st[s].last_cmd = -1;
    break;
  case OP_ECREATE:
    if (x) r = clsEventCreateWithFlags(&m->ev[o->e].h, o->flags);
    m->ev[o->e].alive = 1;
    m->ev[o->e].node = -1;
    m->ev[o->e].flags = o->flags;
    break;
  case OP_EDESTROY:
    if (x) r = clsEventDestroy(m->ev[o->e].h);
    m->ev[o->e].alive = 0;
    break;
  case OP_MALLOC:
    if (x) r = clsMalloc(&m->scratch_ptr, 4096);
    m->scratch = 1;
    break;
  case OP_FREE:
    if (x) r = clsFree(m->scratch_ptr);
    m->scratch = 0;
    m->scratch_ptr = NULL;
    for (int i = 0; i < m->nnodes; ++i) m->nodes[i].sure = 1;
    break;
  case OP_BADLAUNCH: {
    if (!x) return;
    clsDim3 g = grid, b = block;
    if (o->v % 3 == 0)
      g.y = 0;
    else if (o->v % 3 == 1)
      b.x = 0;
    else
      b.x = 1u << 30; /* above every device's maxThreadsPerBlock */
    void *args[] = {&d, (void *)&o->v, &nn};
    (void)clsGetLastError();
    r = clsLaunchKernel(g_fill, g, b, args, 0, sh);
    if (r != clsErrorInvalidValue)
      fail(m, "%s returned %s, expected clsErrorInvalidValue", what,
           clsGetErrorName(r));
    else if ((r = clsGetLastError()) != clsErrorInvalidValue)
      fail(m, "%s: the last error is %s, expected clsErrorInvalidValue", what,
           clsGetErrorName(r));
    else if ((r = clsPeekAtLastError()) != clsSuccess)
      fail(m, "%s: the error is sticky (%s after it was read)", what,
           clsGetErrorName(r));
    return; /* nothing enqueued, no node */
  }
  }
  expect_ok(m, r, what);
  if (x && !m->failed &&
      (o->k == OP_SEVENT || o->k == OP_SSTREAM || o->k == OP_SDEVICE ||
       o->k == OP_SYNC_COPY || o->k == OP_SYNC_SET || o->k == OP_D2H_PAGE ||
       o->k == OP_FREE))
    verify(m, what);
}

/* ---- Generation
 * ------------------------------------------------------------------ */

static const int weights[OP_COUNT] = {
    [OP_FILL] = 8,     [OP_ADD] = 8,      [OP_KCOPY] = 5,    [OP_COPY] = 8,
    [OP_H2D_PAGE] = 3, [OP_D2H_PAGE] = 2, [OP_MEMSET] = 3,   [OP_SYNC_COPY] = 2,
    [OP_SYNC_SET] = 1, [OP_RECORD] = 14,  [OP_WAIT] = 10,    [OP_HOSTFN] = 6,
    [OP_GATE] = 5,     [OP_RELEASE] = 6,  [OP_QEVENT] = 10,  [OP_QSTREAM] = 7,
    [OP_SEVENT] = 4,   [OP_SSTREAM] = 4,  [OP_SDEVICE] = 1,  [OP_ELAPSED] = 2,
    [OP_SCREATE] = 2,  [OP_SDESTROY] = 1, [OP_ECREATE] = 2,  [OP_EDESTROY] = 1,
    [OP_MALLOC] = 1,   [OP_FREE] = 1,     [OP_BADLAUNCH] = 1};

static int pick_stream(rng *r) {
  int x = rint_(r, 20);
  return x < 3 ? 0 : x < 5 ? 1 : 2 + rint_(r, 3);
}

static void random_op(rng *r, op *o) {
  int total = 0;
  for (int k = 0; k < OP_COUNT; ++k) total += weights[k];
  int x = rint_(r, total), k = 0;
  while (x >= weights[k]) x -= weights[k++];
  memset(o, 0, sizeof *o);
  o->k = k;
  o->s = pick_stream(r);
  o->e = rint_(r, NEVENT);
  o->e2 = rint_(r, NEVENT);
  o->b = rint_(r, NDEV);
  o->b2 = rint_(r, NBUF);
  o->g = rint_(r, NGATE);
  o->v = (unsigned)rnext(r) & 0xffffu;
  o->alt = rint_(r, 2);
  switch (k) {
  case OP_ADD:
    o->off = rint_(r, 3) == 0 ? 20000 + rint_(r, 60000) : 0;
    break;
  case OP_COPY:
    o->b = rint_(r, NBUF);
    o->cnt = 1 + rint_(r, N);
    o->off = rint_(r, N - o->cnt + 1);
    o->off2 = rint_(r, N - o->cnt + 1);
    break;
  case OP_D2H_PAGE:
    o->b2 = rint_(r, NBUF);
    break;
  case OP_MEMSET:
    o->cnt = 1 + rint_(r, N);
    o->off = rint_(r, N - o->cnt + 1);
    break;
  case OP_SYNC_COPY:
    o->b = rint_(r, NBUF);
    break;
  case OP_HOSTFN:
    o->b = rint_(r, 3) == 0 ? NDEV + rint_(r, NHOST) : -1;
    break;
  case OP_SCREATE:
  case OP_SDESTROY:
    o->s = 2 + rint_(r, 3);
    o->flags = (unsigned)rint_(r, 2);
    break;
  case OP_ECREATE:
    o->flags = (unsigned)rint_(r, 4);
    break;
  }
}

/* ---- A whole sequence
 * ------------------------------------------------------------ */

static void model_init(model *m, const prog *p, int exec, int maxnodes) {
  memset(m, 0, sizeof *m);
  m->p = p;
  m->exec = exec;
  m->words = (maxnodes + 64) / 64;
  pthread_mutex_init(&m->logmu, NULL);
  m->cur_op = -1;
  for (int s = 0; s < NSTREAM; ++s) {
    m->st[s].alive = 1;
    m->st[s].last = m->st[s].last_cmd = -1;
    m->st[s].nonblocking = s >= 2 && (p->sflags[s] & clsStreamNonBlocking);
  }
  for (int e = 0; e < NEVENT; ++e) {
    m->ev[e].alive = 1;
    m->ev[e].node = -1;
    m->ev[e].flags = p->eflags[e];
  }
  for (int b = 0; b < NBUF; ++b) {
    m->buf[b].writer = -1;
    m->buf[b].readers = calloc((size_t)m->words, sizeof(uint64_t));
    for (int i = 0; i < N; ++i)
      m->buf[b].exp[i] =
          (unsigned)(p->seed * 7919u) + (unsigned)b * 1000u + (unsigned)i;
  }
  for (int g = 0; g < NGATE; ++g) m->gt[g].node = -1;
}

static void model_free(model *m) {
  for (int i = 0; i < m->nnodes; ++i) free(m->nodes[i].anc);
  free(m->nodes);
  for (int b = 0; b < NBUF; ++b) free(m->buf[b].readers);
  for (int i = 0; i < m->nallgates; ++i) {
    pthread_cond_destroy(&m->allgates[i]->cv);
    pthread_mutex_destroy(&m->allgates[i]->mu);
    free(m->allgates[i]);
  }
  free(m->allgates);
  for (int i = 0; i < m->nhcs; ++i) free(m->hcs[i]);
  free(m->hcs);
  free(m->orphans);
  pthread_mutex_destroy(&m->logmu);
}

static void preamble(model *m) {
  const prog *p = m->p;
  for (int s = 2; s < NSTREAM; ++s)
    expect_ok(m, clsStreamCreateWithFlags(&m->st[s].h, p->sflags[s]),
              "clsStreamCreateWithFlags");
  for (int e = 0; e < NEVENT; ++e)
    expect_ok(m, clsEventCreateWithFlags(&m->ev[e].h, p->eflags[e]),
              "clsEventCreateWithFlags");
  for (int b = 0; b < NDEV && !m->failed; ++b)
    expect_ok(m,
              clsMemcpy(g_dbuf[b], m->buf[b].exp, sizeof m->buf[b].exp,
                        clsMemcpyHostToDevice),
              "initializing a device buffer");
  for (int h = 0; h < NHOST; ++h)
    memcpy(g_hbuf[h], m->buf[NDEV + h].exp, sizeof m->buf[NDEV + h].exp);
}

/* Releases every gate, synchronizes the device and checks everything:
 * buffers, host functions run once each, in an order the DAG allows. */
static void epilogue(model *m) {
  m->cur_op = -2;
  for (int g = 0; g < NGATE; ++g)
    if (m->gt[g].held) {
      op o = {.k = OP_RELEASE, .g = g};
      exec_op(m, &o);
    }
  clsError_t r = clsDeviceSynchronize();
  if (r != clsSuccess)
    fail(m, "final clsDeviceSynchronize returned %s", clsGetErrorName(r));
  if (m->scratch) expect_ok(m, clsFree(m->scratch_ptr), "clsFree(scratch)");
  for (int i = 0; i < m->nnodes; ++i) m->nodes[i].sure = 1;
  for (int b = 0; b < NBUF; ++b) m->buf[b].dirty = 1;
  verify(m, "after the final clsDeviceSynchronize");
  pthread_mutex_lock(&m->logmu);
  for (int i = 0; i < m->nnodes && !m->failed; ++i) {
    node *B = &m->nodes[i];
    if (B->kind != N_HOST && B->kind != N_GATE) continue;
    if (B->starts != 1 || B->ends != 1) {
      fail(m, "the host function of op %d ran %d time(s)", B->opidx, B->starts);
      break;
    }
    for (int j = 0; j < i; ++j) {
      node *A = &m->nodes[j];
      if ((A->kind == N_HOST || A->kind == N_GATE) && bit(B->anc, j) &&
          !(A->end_pos < B->start_pos)) {
        fail(m,
             "the host function of op %d started before the one of op "
             "%d, which it depends on, returned",
             B->opidx, A->opidx);
        break;
      }
    }
  }
  pthread_mutex_unlock(&m->logmu);
  for (int s = 2; s < NSTREAM; ++s)
    if (m->st[s].alive)
      expect_ok(m, clsStreamDestroy(m->st[s].h), "clsStreamDestroy");
  for (int e = 0; e < NEVENT; ++e)
    if (m->ev[e].alive)
      expect_ok(m, clsEventDestroy(m->ev[e].h), "clsEventDestroy");
}

static void prog_preamble(prog *p, rng *r) {
  for (int s = 0; s < NSTREAM; ++s) p->sflags[s] = 0;
  p->sflags[3] = clsStreamNonBlocking;
  p->sflags[4] = (unsigned)rint_(r, 2);
  for (int e = 0; e < NEVENT; ++e) p->eflags[e] = (unsigned)rint_(r, 4);
}

/* Builds the program of `seed` with the model alone (no clstream call). */
static void generate(prog *p, unsigned long long seed, int nops) {
  rng r = {seed * 0x2545f4914f6cdd1dull + 1};
  p->seed = seed;
  prog_preamble(p, &r);
  p->ops = calloc((size_t)nops, sizeof *p->ops);
  p->nops = 0;
  model m;
  model_init(&m, p, 0, nops + 8);
  for (int i = 0; i < nops; ++i) {
    op o;
    uint64_t a[m.words];
    int tries = 0;
    do random_op(&r, &o);
    while (!valid(&m, &o, a) && ++tries < 50);
    if (tries == 50) continue;
    p->ops[p->nops] = o;
    m.cur_op = p->nops;
    exec_op(&m, &o);
    p->nops++;
  }
  model_free(&m);
}

/* Runs p through clstream; returns 0 on success, else 1 with m->msg. */
static int run_prog(const prog *p, char *msg, size_t msgsz, int *fail_op) {
  model m;
  model_init(&m, p, 1, p->nops + 8);
  preamble(&m);
  for (int i = 0; i < p->nops && !m.failed; ++i) {
    m.cur_op = i;
    if (g_progress) *g_progress = i;
    exec_op(&m, &p->ops[i]);
  }
  int failed = m.failed;
  if (!failed) {
    epilogue(&m);
    failed = m.failed;
  } else {
    /* Let held host functions go so that the process can exit. */
    for (int i = 0; i < m.nallgates; ++i) {
      pthread_mutex_lock(&m.allgates[i]->mu);
      m.allgates[i]->released = 1;
      pthread_cond_broadcast(&m.allgates[i]->cv);
      pthread_mutex_unlock(&m.allgates[i]->mu);
    }
  }
  if (failed) {
    snprintf(msg, msgsz, "%s", m.msg);
    *fail_op = m.fail_op;
    return 1; /* host functions may still run: leak the model */
  }
  model_free(&m);
  return 0;
}

static int setup_process(void) {
  clsError_t r = clsModuleLoadData(&g_mod, cls_kernel_model, NULL);
  if (r != clsSuccess) {
    fprintf(stderr, "clstream-model: loading tests/kernels/model.cl: %s\n%s\n",
            clsGetErrorName(r), clsGetLastBuildLog());
    return 0;
  }
  if (clsModuleGetFunction(&g_fill, g_mod, "model_fill") ||
      clsModuleGetFunction(&g_add, g_mod, "model_add") ||
      clsModuleGetFunction(&g_kcopy, g_mod, "model_copy"))
    return 0;
  for (int b = 0; b < NDEV; ++b)
    if (clsMalloc((void **)&g_dbuf[b], N * sizeof(unsigned))) return 0;
  for (int h = 0; h < NHOST; ++h) {
    clsError_t e = clsHostAlloc((void **)&g_hbuf[h], N * sizeof(unsigned),
                                clsHostAllocMapped);
    if (e == clsSuccess &&
        clsHostGetDevicePointer((void **)&g_hdev[h], g_hbuf[h], 0) !=
            clsSuccess) {
      /* No mapped host memory here (canMapHostMemory 0): kernels copy
       * from the host buffers with an async copy instead (OP_KCOPY). */
      (void)clsGetLastError();
      g_hdev[h] = NULL;
    }
    if (e != clsSuccess) {
      fprintf(stderr, "clstream-model: clsHostAlloc: %s\n", clsGetErrorName(e));
      return 0;
    }
  }
  if (clsMallocHost((void **)&g_readback, N * sizeof(unsigned))) return 0;
  if (clsStreamCreateWithFlags(&g_reader, clsStreamNonBlocking)) return 0;
  /* A device whose timestamps cannot time work (rusticl) says so, once
   * opened, with timerResolutionNs 0: elapsed times of two different
   * completed records are clsErrorNotSupported there. */
  int dev = 0;
  clsDeviceProp p;
  if (clsGetDevice(&dev) || clsGetDeviceProperties(&p, dev)) return 0;
  g_untimed = p.timerResolutionNs == 0.0;
  return 1;
}

/* ---- Printing
 * ------------------------------------------------------------------------ */

static void print_prog(FILE *f, const prog *p, int fail_op, const char *msg) {
  fprintf(f, "/* clstream-model replay, seed %llu: %d operation(s) */\n",
          p->seed, p->nops);
  fprintf(f, "clsStreamCreateWithFlags(&s2, clsStreamDefault);\n");
  fprintf(f, "clsStreamCreateWithFlags(&s3, clsStreamNonBlocking);\n");
  fprintf(f, "clsStreamCreateWithFlags(&s4, %s);\n",
          p->sflags[4] ? "clsStreamNonBlocking" : "clsStreamDefault");
  for (int e = 0; e < NEVENT; ++e)
    fprintf(f, "clsEventCreateWithFlags(&e%d, %s);\n", e,
            eflagname(p->eflags[e]));
  fprintf(f,
          "/* d0..d3: device buffers, h0..h1: pinned host buffers, %d "
          "unsigned each, initialized by clsMemcpy */\n",
          N);
  for (int i = 0; i < p->nops; ++i) {
    char t[300];
    op_text(&p->ops[i], t, sizeof t);
    fprintf(f, "/* %3d */ %s%s\n", i, t,
            i == fail_op ? "  /* <-- FAILS */" : "");
  }
  fprintf(f, "/* then: release every gate, clsDeviceSynchronize(), check */\n");
  if (msg) fprintf(f, "/* failure: %s */\n", msg);
}

/* ---- Processes
 * ------------------------------------------------------------------------ */

typedef struct result {
  int failed;
  int hang;
  int signal;
  int fail_op;
  char msg[1024];
} result;

/* Runs p `reps` times in a fresh process, with a timeout. */
static void run_isolated(const prog *p, int reps, int timeout_s, result *res) {
  memset(res, 0, sizeof *res);
  int fd[2];
  if (pipe(fd) != 0) abort();
  *g_progress = -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    int rc = 0;
    if (!setup_process()) {
      dprintf(fd[1], "-1 setting up the process failed\n");
      _exit(1);
    }
    for (int i = 0; i < reps && !rc; ++i) {
      char msg[1024];
      int fop = -1;
      rc = run_prog(p, msg, sizeof msg, &fop);
      if (rc) dprintf(fd[1], "%d %s\n", fop, msg);
    }
    _exit(rc);
  }
  close(fd[1]);
  char buf[1200];
  size_t len = 0;
  double end = (double)time(NULL) + timeout_s;
  int status = 0, done_ = 0;
  for (;;) {
    struct pollfd pf = {fd[0], POLLIN, 0};
    int pr = poll(&pf, 1, 200);
    if (pr > 0) {
      ssize_t k = read(fd[0], buf + len, sizeof buf - 1 - len);
      if (k > 0) len += (size_t)k;
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      done_ = 1;
      break;
    }
    if (time(NULL) > end) break;
  }
  if (!done_) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    res->failed = res->hang = 1;
    res->fail_op = *g_progress;
    snprintf(res->msg, sizeof res->msg,
             "no progress for %d s: hang in or after op %d", timeout_s,
             res->fail_op);
    close(fd[0]);
    return;
  }
  ssize_t k;
  while (len < sizeof buf - 1 &&
         (k = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)k;
  close(fd[0]);
  buf[len] = 0;
  if (WIFSIGNALED(status)) {
    res->failed = 1;
    res->signal = WTERMSIG(status);
    res->fail_op = *g_progress;
    snprintf(res->msg, sizeof res->msg, "killed by signal %d in or after op %d",
             res->signal, res->fail_op);
  } else if (WEXITSTATUS(status) != 0) {
    res->failed = 1;
    int fop = -1, pos = 0;
    if (sscanf(buf, "%d %n", &fop, &pos) >= 1) {
      res->fail_op = fop;
      char *nl = strchr(buf + pos, '\n');
      if (nl) *nl = 0;
      snprintf(res->msg, sizeof res->msg, "%s", buf + pos);
    } else {
      snprintf(res->msg, sizeof res->msg, "exit status %d",
               WEXITSTATUS(status));
    }
    if (!res->msg[0])
      snprintf(res->msg, sizeof res->msg,
               "exit status %d without a message (output: \"%.200s\")",
               WEXITSTATUS(status), buf);
  }
}

/* Drops operations while the program still fails (each candidate run
 * several times, in a fresh process). */
static int g_shrink_s = 120;

static void shrink(prog *p, int timeout_s, int quiet) {
  double t0 = (double)time(NULL);
  int runs = 0;
  for (int chunk = p->nops / 2; chunk >= 1; chunk /= 2) {
    int changed = 1;
    while (changed && time(NULL) - t0 < g_shrink_s) {
      changed = 0;
      for (int i = 0; i + chunk <= p->nops && time(NULL) - t0 < g_shrink_s;) {
        prog c = *p;
        c.ops = malloc(sizeof *c.ops * (size_t)(p->nops - chunk + 1));
        memcpy(c.ops, p->ops, sizeof *c.ops * (size_t)i);
        memcpy(c.ops + i, p->ops + i + chunk,
               sizeof *c.ops * (size_t)(p->nops - i - chunk));
        c.nops = p->nops - chunk;
        result res;
        run_isolated(&c, 3, timeout_s, &res);
        runs++;
        if (res.failed) {
          free(p->ops);
          *p = c;
          changed = 1;
        } else {
          free(c.ops);
          i += chunk;
        }
      }
    }
    if (chunk == 1 && !changed) break;
  }
  if (!quiet)
    fprintf(stderr, "clstream-model: shrunk to %d operation(s) in %d run(s)\n",
            p->nops, runs);
}

static int g_confirm = 1;

static void report(unsigned long long seed, int nops, int timeout_s,
                   int do_shrink, const char *first_msg) {
  prog p;
  generate(&p, seed, nops);
  fprintf(stderr, "clstream-model: seed %llu FAILED: %s\n", seed, first_msg);
  if (!g_confirm) { /* long runs: the seed alone; --seed S replays it */
    free(p.ops);
    return;
  }
  result res;
  run_isolated(&p, 3, timeout_s, &res);
  if (!res.failed) {
    fprintf(stderr,
            "clstream-model: seed %llu passed when re-run in a fresh "
            "process (timing-dependent); the full program:\n",
            seed);
    print_prog(stderr, &p, -1, first_msg);
    free(p.ops);
    return;
  }
  if (do_shrink) {
    shrink(&p, res.hang ? (timeout_s < 10 ? timeout_s : 10) : timeout_s, 0);
    run_isolated(&p, 3, timeout_s, &res);
  }
  print_prog(stderr, &p, res.fail_op, res.msg);
  free(p.ops);
}

int main(int argc, char **argv) {
  unsigned long long start = 1, count = 1000;
  int nops = 40, timeout_s = 30, do_shrink = 1, print = 0, maxfail = 3;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--seeds") && v)
      count = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--start") && v)
      start = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--seed") && v) {
      start = strtoull(argv[++i], NULL, 0);
      count = 1;
    } else if (!strcmp(a, "--ops") && v)
      nops = atoi(argv[++i]);
    else if (!strcmp(a, "--timeout") && v)
      timeout_s = atoi(argv[++i]);
    else if (!strcmp(a, "--max-failures") && v)
      maxfail = atoi(argv[++i]);
    else if (!strcmp(a, "--no-shrink"))
      do_shrink = 0;
    else if (!strcmp(a, "--no-confirm"))
      g_confirm = 0;
    else if (!strcmp(a, "--shrink-seconds") && v)
      g_shrink_s = atoi(argv[++i]);
    else if (!strcmp(a, "--strict-waits"))
      g_strict_waits = 1;
    else if (!strcmp(a, "--lenient-waits"))
      g_strict_waits = 0;
    else if (!strcmp(a, "--print"))
      print = 1;
    else if (!strcmp(a, "--quiet"))
      g_quiet = 1;
    else {
      fprintf(stderr,
              "usage: %s [--seeds N] [--start S] [--seed S] [--ops N] "
              "[--timeout SEC] [--max-failures N] [--no-shrink] "
              "[--no-confirm] [--shrink-seconds S] [--print] [--quiet] "
              "[--lenient-waits]\n",
              argv[0]);
      return 2;
    }
  }
  if (nops < 1) nops = 1;
  g_progress = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (print) {
    prog p;
    generate(&p, start, nops);
    print_prog(stdout, &p, -1, NULL);
    free(p.ops);
    return 0;
  }
  /* Seeds run in worker processes (OpenCL is never initialized in this
   * one, so that every worker and shrink candidate can fork cleanly). */
  volatile int *cur = g_progress + 1;
  unsigned long long next = start, end = start + count, failures = 0, ran = 0;
  unsigned long tot[4] = {0, 0, 0, 0};
  double t0 = (double)time(NULL);
  while (next < end && failures < (unsigned long long)maxfail) {
    int fd[2];
    if (pipe(fd) != 0) abort();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      if (!setup_process()) _exit(3);
      for (unsigned long long s = next; s < end; ++s) {
        prog p;
        generate(&p, s, nops);
        *cur = (int)(s - next);
        if (write(fd[1], "s", 1) != 1) _exit(4);
        char msg[1024];
        int fop = -1;
        if (run_prog(&p, msg, sizeof msg, &fop)) {
          dprintf(fd[1], "F%d %s\n", fop, msg);
          _exit(1);
        }
        free(p.ops);
      }
      dprintf(fd[1], "D %lu %lu %lu %lu\n", g_must_ok, g_must_notready, g_open,
              g_buffers);
      _exit(0);
    }
    close(fd[1]);
    char fmsg[1200] = "";
    size_t flen = 0;
    int in_fail = 0, status = 0;
    unsigned long long started = 0;
    time_t last = time(NULL);
    int hung = 0;
    for (;;) {
      struct pollfd pf = {fd[0], POLLIN, 0};
      int pr = poll(&pf, 1, 500);
      if (pr > 0) {
        char buf[1200];
        ssize_t k = read(fd[0], buf, sizeof buf);
        if (k <= 0) break;
        for (ssize_t j = 0; j < k; ++j) {
          if (in_fail) {
            if (flen < sizeof fmsg - 1) fmsg[flen++] = buf[j];
          } else if (buf[j] == 's') {
            started++;
            last = time(NULL);
          } else if (buf[j] == 'F') {
            in_fail = 1;
          } else if (buf[j] == 'D') {
            unsigned long a1, a2, a3, a4;
            if (sscanf(buf + j, "D %lu %lu %lu %lu", &a1, &a2, &a3, &a4) == 4) {
              tot[0] += a1;
              tot[1] += a2;
              tot[2] += a3;
              tot[3] += a4;
            }
            while (j < k && buf[j] != '\n') ++j;
          }
        }
      } else if (time(NULL) - last > timeout_s) {
        hung = 1;
        kill(pid, SIGKILL);
        break;
      }
    }
    close(fd[0]);
    waitpid(pid, &status, 0);
    fmsg[flen] = 0;
    if (!hung && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ran += end - next;
      next = end;
      break;
    }
    if (started == 0) {
      fprintf(stderr,
              "clstream-model: the worker could not start (status "
              "%d)\n",
              status);
      return 1;
    }
    unsigned long long bad = next + started - 1;
    ran += started;
    failures++;
    char why[1300];
    if (hung)
      snprintf(why, sizeof why, "hang (no progress for %d s)", timeout_s);
    else if (WIFSIGNALED(status))
      snprintf(why, sizeof why, "crash (signal %d)", WTERMSIG(status));
    else {
      char *sp = strchr(fmsg, ' ');
      char *nl = strchr(fmsg, '\n');
      if (nl) *nl = 0;
      snprintf(why, sizeof why, "op %d: %s", atoi(fmsg), sp ? sp + 1 : fmsg);
    }
    report(bad, nops, timeout_s, do_shrink, why);
    next = bad + 1;
  }
  printf("clstream-model: %llu sequence(s) of up to %d operations (seeds %llu.."
         "%llu), %llu failure(s), %.0f s\n",
         ran, nops, start, start + ran - 1, failures, (double)time(NULL) - t0);
  printf("clstream-model: checked (in passing workers) %lu queries that had "
         "to be complete, %lu that had to be NotReady (held gate), %lu "
         "either way; %lu buffer read-backs\n",
         tot[0], tot[1], tot[2], tot[3]);
  return failures ? 1 : 0;
}
