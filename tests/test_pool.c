/* Stream-ordered allocation (clsMallocAsync, clsFreeAsync): CUDA's rules
 * and the pool's promise that reuse never overlaps unfinished work.
 *
 * The pool's policy (src/opencl/pool.c) is part of what is tested: memory
 * freed in stream A comes back at once to an allocation in A, even while
 * A's work is held; to an allocation in another stream only once the
 * free's point in A has been reached.  Where a test asserts that a pointer
 * comes back, that is this policy (on the CUDA build the runtime's pool
 * decides, so those assertions are made on OpenCL only).  Gates make every
 * "still pending" state deterministic. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the library's own pool decides (not the CUDA runtime's). */
static int opencl_policy(void) {
  int dev;
  clsDeviceProp p;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&p, dev));
  return strcmp(p.platformName, "CUDA") != 0;
}
#define OPENCL_POLICY opencl_policy()

typedef struct checker {
  arith ar;
  clsModule_t mod;
  clsFunction_t check;
  int *bad; /* bad[0]: a mismatch was seen; bad[1]: the value */
} checker;

static void checker_load(checker *c) {
  arith_load(&c->ar);
  CK_OK(clsModuleLoadData(&c->mod, cls_kernel_pool, NULL));
  CK_OK(clsModuleGetFunction(&c->check, c->mod, "pool_check"));
  c->bad = dev_ints(2);
  dev_set(c->bad, 0, 2);
}

static void checker_unload(checker *c) {
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsFree(c->bad));
  CK_OK(clsModuleUnload(c->mod));
  arith_unload(&c->ar);
}

static clsError_t launch_check(const checker *c, clsStream_t s, int *t, int v,
                               unsigned n) {
  int *bad = c->bad;
  void *args[] = {&t, &v, &n, &bad};
  clsDim3 grid = {(n + 63) / 64, 1, 1}, block = {64, 1, 1};
  return clsLaunchKernel(c->check, grid, block, args, 0, s);
}

static void checker_expect_clean(const checker *c, const char *what) {
  int bad[2];
  CK_OK(clsDeviceSynchronize());
  dev_get(bad, c->bad, 2);
  ck_assert_msg(bad[0] == 0,
                "%s: a check saw %d where its own value was "
                "expected: memory was reused under unfinished work",
                what, bad[1]);
}

START_TEST(alloc_use_free) {
  checker c;
  checker_load(&c);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  enum { N = 4096 };
  int *p = NULL;
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), s));
  ck_assert_ptr_nonnull(p);
  CK_OK(launch_fill(&c.ar, s, p, 41, N));
  CK_OK(launch_check(&c, s, p, 41, N));
  int *h;
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  CK_OK(clsMemcpyAsync(h, p, N * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_OK(clsFreeAsync(p, s));
  CK_OK(clsStreamSynchronize(s));
  host_expect(h, 41, N, "copied back");
  /* The default streams take stream-ordered allocations too. */
  void *q = NULL;
  CK_OK(clsMallocAsync(&q, 100, NULL));
  CK_OK(clsMemsetAsync(q, 0, 100, clsStreamPerThread));
  CK_OK(clsFreeAsync(q, clsStreamLegacy));
  CK_OK(clsMallocAsync(&q, 100, clsStreamPerThread));
  CK_OK(clsFreeAsync(q, clsStreamPerThread));
  /* 0 bytes: NULL, as clsMalloc. */
  q = &c;
  CK_OK(clsMallocAsync(&q, 0, s));
  ck_assert_ptr_null(q);
  CK_OK(clsFreeHost(h));
  CK_OK(clsStreamDestroy(s));
  checker_expect_clean(&c, "alloc_use_free");
  checker_unload(&c);
}
END_TEST

/* Memory is usable by work ordered after the allocation: another stream
 * after an event recorded behind it. */
START_TEST(event_orders_other_stream) {
  checker c;
  checker_load(&c);
  clsStream_t a, b;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&a));
  CK_OK(clsStreamCreateWithFlags(&b, clsStreamNonBlocking));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  gate *g = gate_new();
  gate_hold(g, a);
  enum { N = 1000 };
  int *p;
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), a));
  CK_OK(launch_fill(&c.ar, a, p, 7, N));
  CK_OK(clsEventRecord(e, a));
  CK_OK(clsStreamWaitEvent(b, e, 0));
  CK_OK(launch_check(&c, b, p, 7, N));
  /* The free is ordered after b's use by b itself. */
  CK_OK(clsFreeAsync(p, b));
  CK_CLS(clsStreamQuery(b), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(b));
  CK_OK(clsEventDestroy(e));
  CK_OK(clsStreamDestroy(a));
  CK_OK(clsStreamDestroy(b));
  checker_expect_clean(&c, "event_orders_other_stream");
  checker_unload(&c);
}
END_TEST

/* A block freed in a stream whose work is held comes back to that stream
 * at once (its later work runs after the free), and the data each user
 * sees is its own. */
START_TEST(same_stream_reuse_while_pending) {
  checker c;
  checker_load(&c);
  clsStream_t s;
  CK_OK(clsStreamCreate(&s));
  enum { N = 2048 };
  gate *g = gate_new();
  int *p, *q, *h;
  CK_OK(clsMallocHost((void **)&h, N * sizeof(int)));
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), s));
  CK_OK(launch_fill(&c.ar, s, p, 1, N));
  gate_hold(g, s);
  CK_OK(launch_check(&c, s, p, 1, N));
  CK_OK(clsFreeAsync(p, s));
  CK_OK(clsMallocAsync((void **)&q, N * sizeof(int), s));
  if (OPENCL_POLICY)
    ck_assert_msg(q == p, "the block freed in this stream was not reused");
  CK_OK(launch_fill(&c.ar, s, q, 2, N));
  CK_OK(launch_check(&c, s, q, 2, N));
  CK_OK(clsMemcpyAsync(h, q, N * sizeof(int), clsMemcpyDeviceToHost, s));
  CK_CLS(clsStreamQuery(s), clsErrorNotReady);
  gate_release(g);
  CK_OK(clsStreamSynchronize(s));
  host_expect(h, 2, N, "the second allocation");
  CK_OK(clsFreeAsync(q, s));
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsFreeHost(h));
  CK_OK(clsStreamDestroy(s));
  checker_expect_clean(&c, "same_stream_reuse_while_pending");
  checker_unload(&c);
}
END_TEST

/* A block freed in stream a, whose work is held, never goes to another
 * stream until a's free point is reached; then it does. */
START_TEST(other_stream_waits_for_free_point) {
  checker c;
  checker_load(&c);
  clsStream_t a, b;
  CK_OK(clsStreamCreate(&a));
  CK_OK(clsStreamCreate(&b));
  enum { N = 1024 };
  gate *g = gate_new();
  int *p, *q, *r;
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), a));
  CK_OK(launch_fill(&c.ar, a, p, 5, N));
  gate_hold(g, a);
  CK_OK(launch_check(&c, a, p, 5, N)); /* held: runs after the release */
  CK_OK(clsFreeAsync(p, a));
  CK_OK(clsMallocAsync((void **)&q, N * sizeof(int), b));
  ck_assert_msg(q != p, "a block whose free is still pending in another "
                        "stream was handed out");
  CK_OK(launch_fill(&c.ar, b, q, 6, N));
  CK_OK(clsStreamSynchronize(b)); /* b's work done while a is held */
  sleep_ms(SETTLE_MS);
  gate_release(g);
  CK_OK(clsStreamSynchronize(a));
  CK_OK(clsMallocAsync((void **)&r, N * sizeof(int), b));
  if (OPENCL_POLICY)
    ck_assert_msg(r == p, "a block whose free point was reached was not "
                          "reused");
  CK_OK(clsFreeAsync(q, b));
  CK_OK(clsFreeAsync(r, b));
  CK_OK(clsStreamDestroy(a));
  CK_OK(clsStreamDestroy(b));
  checker_expect_clean(&c, "other_stream_waits_for_free_point");
  checker_unload(&c);
}
END_TEST

/* A free on the legacy stream is ordered after the blocking streams' work
 * (the legacy stream waits for it), so while a blocking stream that used
 * the block is held, no other stream gets the block. */
START_TEST(legacy_free_waits_for_blocking_streams) {
  checker c;
  checker_load(&c);
  clsStream_t s, nb;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreateWithFlags(&nb, clsStreamNonBlocking));
  enum { N = 512 };
  gate *g = gate_new();
  int *p, *q;
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), s));
  CK_OK(launch_fill(&c.ar, s, p, 9, N));
  gate_hold(g, s);
  CK_OK(launch_check(&c, s, p, 9, N));
  CK_OK(clsFreeAsync(p, NULL));
  CK_OK(clsMallocAsync((void **)&q, N * sizeof(int), nb));
  ck_assert_msg(q != p, "a block freed on the legacy stream behind a held "
                        "blocking stream was handed out");
  CK_OK(launch_fill(&c.ar, nb, q, 10, N));
  CK_OK(clsStreamSynchronize(nb));
  sleep_ms(SETTLE_MS);
  gate_release(g);
  CK_OK(clsDeviceSynchronize());
  CK_OK(clsFreeAsync(q, nb));
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(nb));
  checker_expect_clean(&c, "legacy_free_waits_for_blocking_streams");
  checker_unload(&c);
}
END_TEST

/* clsFreeAsync takes clsMalloc memory and clsFree takes clsMallocAsync
 * memory, as in CUDA; a freed pointer is no longer device memory. */
START_TEST(mixed_frees) {
  checker c;
  checker_load(&c);
  clsStream_t s, t;
  CK_OK(clsStreamCreate(&s));
  CK_OK(clsStreamCreate(&t));
  enum { N = 4096 };
  gate *g = gate_new();
  int *d = dev_ints(N), *q;
  CK_OK(launch_fill(&c.ar, s, d, 3, N));
  gate_hold(g, s);
  CK_OK(launch_check(&c, s, d, 3, N));
  CK_OK(clsFreeAsync(d, s));
  CK_CLS(clsMemsetAsync(d, 0, 16, t), clsErrorInvalidValue);
  CK_OK(clsMallocAsync((void **)&q, N * sizeof(int), t));
  ck_assert_msg(q != d, "clsMalloc memory freed behind held work was handed "
                        "out to another stream");
  CK_OK(launch_fill(&c.ar, t, q, 4, N));
  CK_OK(clsStreamSynchronize(t));
  sleep_ms(SETTLE_MS);
  gate_release(g);
  /* clsFree of stream-ordered memory waits for the device, then frees. */
  CK_OK(clsFree(q));
  CK_CLS(clsFree(q), clsErrorInvalidValue);
  CK_OK(clsStreamDestroy(s));
  CK_OK(clsStreamDestroy(t));
  checker_expect_clean(&c, "mixed_frees");
  checker_unload(&c);
}
END_TEST

/* A free on a stream of another device that shares the memory (the same
 * OpenCL context; unified addressing on CUDA), ordered by an event: the
 * block goes back to its own device's pool once the free is reached. */
START_TEST(free_on_other_device) {
  int a, b;
  if (!two_devices("free_on_other_device", &a, &b)) return;
  CK_OK(clsSetDevice(a));
  checker c;
  checker_load(&c);
  clsStream_t sa, sb;
  clsEvent_t e;
  CK_OK(clsStreamCreate(&sa));
  CK_OK(clsEventCreateWithFlags(&e, clsEventDisableTiming));
  enum { N = 700 };
  int *p, *q;
  CK_OK(clsMallocAsync((void **)&p, N * sizeof(int), sa));
  CK_OK(launch_fill(&c.ar, sa, p, 12, N));
  CK_OK(launch_check(&c, sa, p, 12, N));
  CK_OK(clsEventRecord(e, sa));
  CK_OK(clsSetDevice(b));
  CK_OK(clsStreamCreate(&sb));
  CK_OK(clsStreamWaitEvent(sb, e, 0));
  CK_OK(clsFreeAsync(p, sb));
  CK_OK(clsStreamSynchronize(sb));
  CK_OK(clsSetDevice(a));
  CK_OK(clsMallocAsync((void **)&q, N * sizeof(int), sa));
  if (OPENCL_POLICY)
    ck_assert_msg(q == p, "a block freed on another device's stream was not "
                          "reused once its free was reached");
  CK_OK(clsFreeAsync(q, sa));
  CK_OK(clsStreamSynchronize(sa));
  CK_OK(clsStreamDestroy(sb));
  CK_OK(clsStreamDestroy(sa));
  CK_OK(clsEventDestroy(e));
  checker_expect_clean(&c, "free_on_other_device");
  checker_unload(&c);
}
END_TEST

/* ---- A random model: many streams, gates, moves and frees -------------- */

enum { M_STREAMS = 4, M_LIVE = 24, M_OPS = 400 };

typedef struct m_alloc {
  int *p;
  unsigned n; /* ints */
  int owner;  /* the stream all its work is ordered on */
  int tag;    /* the value its owner last filled in */
} m_alloc;

static unsigned m_rand(unsigned long long *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(*st >> 33);
}

/* One seeded run.  Every allocation's work (a fill, then a check that may
 * be held behind a gate) is ordered on its owner stream; ownership moves
 * between streams through events; frees happen on the owner or on another
 * stream after an event, as CUDA's rules require.  If the pool handed out
 * a block that a held check still reads, the new owner's fill runs first
 * and that check sees the wrong value. */
static void model_run(unsigned long long seed) {
  checker c;
  checker_load(&c);
  clsStream_t st[M_STREAMS];
  CK_OK(clsStreamCreate(&st[0]));
  CK_OK(clsStreamCreate(&st[1]));
  CK_OK(clsStreamCreateWithFlags(&st[2], clsStreamNonBlocking));
  st[3] = NULL; /* the legacy stream */
  gate *held[M_STREAMS] = {NULL};
  clsEvent_t ev;
  CK_OK(clsEventCreateWithFlags(&ev, clsEventDisableTiming));
  m_alloc live[M_LIVE];
  int nlive = 0, tag = 100, made = 0;
  static const unsigned sizes[] = {16, 64, 250, 1024, 1500, 16384, 50000};
  unsigned long long rs = seed;
  for (int op = 0; op < M_OPS; ++op) {
    unsigned r = m_rand(&rs) % 100;
    if (r < 30 && nlive < M_LIVE) { /* allocate, fill, check */
      m_alloc a;
      a.n = sizes[m_rand(&rs) % (sizeof sizes / sizeof sizes[0])];
      a.owner = (int)(m_rand(&rs) % M_STREAMS);
      CK_OK(clsMallocAsync((void **)&a.p, a.n * sizeof(int), st[a.owner]));
      for (int i = 0; i < nlive; ++i)
        ck_assert_msg(a.p + a.n <= live[i].p || live[i].p + live[i].n <= a.p,
                      "seed %llu op %d: the new allocation overlaps a live one",
                      seed, op);
      made++;
      a.tag = tag++;
      CK_OK(launch_fill(&c.ar, st[a.owner], a.p, a.tag, a.n));
      CK_OK(launch_check(&c, st[a.owner], a.p, a.tag, a.n));
      live[nlive++] = a;
    } else if (r < 55 && nlive > 0) { /* touch: fill, maybe hold, check */
      m_alloc *a = &live[m_rand(&rs) % (unsigned)nlive];
      a->tag = tag++;
      CK_OK(launch_fill(&c.ar, st[a->owner], a->p, a->tag, a->n));
      if (!held[a->owner] && m_rand(&rs) % 2) {
        held[a->owner] = gate_new();
        gate_hold(held[a->owner], st[a->owner]);
      }
      CK_OK(launch_check(&c, st[a->owner], a->p, a->tag, a->n));
    } else if (r < 65 && nlive > 0) { /* move to another stream */
      m_alloc *a = &live[m_rand(&rs) % (unsigned)nlive];
      int to = (int)(m_rand(&rs) % M_STREAMS);
      CK_OK(clsEventRecord(ev, st[a->owner]));
      CK_OK(clsStreamWaitEvent(st[to], ev, 0));
      a->owner = to;
    } else if (r < 90 && nlive > 0) { /* free, here or elsewhere */
      unsigned i = m_rand(&rs) % (unsigned)nlive;
      m_alloc a = live[i];
      live[i] = live[--nlive];
      int on = (int)(m_rand(&rs) % M_STREAMS);
      if (on != a.owner) {
        CK_OK(clsEventRecord(ev, st[a.owner]));
        CK_OK(clsStreamWaitEvent(st[on], ev, 0));
      }
      CK_OK(clsFreeAsync(a.p, st[on]));
    } else { /* release a gate */
      int k = (int)(m_rand(&rs) % M_STREAMS);
      if (held[k]) {
        gate_release(held[k]);
        held[k] = NULL;
      }
    }
  }
  for (int k = 0; k < M_STREAMS; ++k)
    if (held[k]) gate_release(held[k]);
  for (int i = 0; i < nlive; ++i)
    CK_OK(clsFreeAsync(live[i].p, st[live[i].owner]));
  CK_OK(clsDeviceSynchronize());
  char what[64];
  snprintf(what, sizeof what, "model seed %llu (%d allocations)", seed, made);
  checker_expect_clean(&c, what);
  CK_OK(clsEventDestroy(ev));
  for (int k = 0; k < 3; ++k) CK_OK(clsStreamDestroy(st[k]));
  checker_unload(&c);
}

START_TEST(model_random) {
  const char *v = getenv("CLSTREAM_POOL_SEEDS");
  int seeds = v ? atoi(v) : 3;
  for (int i = 0; i < seeds; ++i)
    model_run(0x9e3779b9ull * (unsigned)(_i * 131 + i + 1));
}
END_TEST

/* Threads allocating and freeing in their own streams at once: the pool's
 * blocks never overlap and each thread's data stays its own. */
typedef struct th_arg {
  checker *c;
  int id;
} th_arg;

static void *pool_thread(void *p) {
  th_arg *t = p;
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, clsStreamNonBlocking));
  for (int k = 0; k < 60; ++k) {
    unsigned n = 64u << (k % 6);
    int *a;
    CK_OK(clsMallocAsync((void **)&a, n * sizeof(int), s));
    int v = t->id * 1000 + k;
    CK_OK(launch_fill(&t->c->ar, s, a, v, n));
    CK_OK(launch_check(t->c, s, a, v, n));
    CK_OK(clsFreeAsync(a, s));
  }
  CK_OK(clsStreamSynchronize(s));
  CK_OK(clsStreamDestroy(s));
  return NULL;
}

START_TEST(threads) {
  checker c;
  checker_load(&c);
  enum { T = 4 };
  pthread_t th[T];
  th_arg args[T];
  for (int i = 0; i < T; ++i) {
    args[i] = (th_arg){&c, i};
    pthread_create(&th[i], NULL, pool_thread, &args[i]);
  }
  for (int i = 0; i < T; ++i) pthread_join(th[i], NULL);
  checker_expect_clean(&c, "threads");
  checker_unload(&c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pool");
  TCase *tc = tcase_timed("pool", 120);
  TCase *tc_gate = tcase_tagged(s, "pool_gate", 120, "gate");
  TCase *tc_threads = tcase_tagged(s, "pool_threads", 120, "threads");
  tcase_add_test(tc, alloc_use_free);
  tcase_add_test(tc_gate, event_orders_other_stream);
  tcase_add_test(tc_gate, same_stream_reuse_while_pending);
  tcase_add_test(tc_gate, other_stream_waits_for_free_point);
  tcase_add_test(tc_gate, legacy_free_waits_for_blocking_streams);
  tcase_add_test(tc_gate, mixed_frees);
  tcase_add_test(tc, free_on_other_device);
  tcase_add_loop_test(tc_gate, model_random, 0, 2);
  tcase_add_test(tc_threads, threads);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
