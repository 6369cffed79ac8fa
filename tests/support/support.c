/* Helpers shared by the Check test programs; see support.h. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Time ------------------------------------------------------------ */

double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

double thread_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double spin_share(int ms) {
  double w0 = now_ms(), c0 = thread_cpu_ms(), w1;
  volatile unsigned x = 0;
  while ((w1 = now_ms()) - w0 < ms) x = x * 1664525u + 1013904223u;
  return (thread_cpu_ms() - c0) / (w1 - w0);
}

clsError_t poll_event(clsEvent_t e, int timeout_ms) {
  double end = now_ms() + timeout_ms;
  clsError_t r;
  while ((r = clsEventQuery(e)) == clsErrorNotReady && now_ms() < end)
    sleep_ms(1);
  return r;
}

clsError_t poll_stream(clsStream_t s, int timeout_ms) {
  double end = now_ms() + timeout_ms;
  clsError_t r;
  while ((r = clsStreamQuery(s)) == clsErrorNotReady && now_ms() < end)
    sleep_ms(1);
  return r;
}

int wait_atomic_ge(atomic_int *a, int v, int timeout_ms) {
  double end = now_ms() + timeout_ms;
  int x;
  while ((x = atomic_load(a)) < v && now_ms() < end) sleep_ms(1);
  return x;
}

/* ---- Gates ----------------------------------------------------------- */

/* How long a gate waits for its release before giving up, so that a
 * broken test cannot block the library's thread forever. */
#define GATE_SAFETY_MS 45000

static pthread_mutex_t gates_mu = PTHREAD_MUTEX_INITIALIZER;
static gate *gates_head;
static pthread_once_t gates_once = PTHREAD_ONCE_INIT;

/* Lets g's host function return; 1 if it had given up waiting first. */
static int gate_open(gate *g) {
  pthread_mutex_lock(&g->mu);
  g->released = 1;
  int timed_out = g->timed_out;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  return timed_out;
}

/* At exit nothing is asserted: a failing test may hold gates. */
static void gates_release_all(void) {
  pthread_mutex_lock(&gates_mu);
  for (gate *g = gates_head; g; g = g->next) (void)gate_open(g);
  pthread_mutex_unlock(&gates_mu);
}

/* atexit handlers run in reverse order of registration, so this one runs
 * before the library's own exit-time cleanup (registered earlier, at
 * load time): a test that fails while holding a gate still exits. */
static void gates_register_atexit(void) { atexit(gates_release_all); }

gate *gate_new(void) {
  gate *g = calloc(1, sizeof *g);
  ck_assert_ptr_nonnull(g);
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  pthread_mutex_lock(&gates_mu);
  g->next = gates_head;
  gates_head = g;
  pthread_mutex_unlock(&gates_mu);
  return g;
}

static void gate_fn(void *p) {
  gate *g = p;
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += GATE_SAFETY_MS / 1000;
  pthread_mutex_lock(&g->mu);
  g->entered = 1;
  g->thread = pthread_self();
  pthread_cond_broadcast(&g->cv);
  while (!g->released) {
    if (pthread_cond_timedwait(&g->cv, &g->mu, &dl) == ETIMEDOUT) {
      g->timed_out = 1;
      break;
    }
  }
  g->runs++;
  g->finished = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

clsError_t gate_try_hold(gate *g, clsStream_t s) {
  clsError_t r = clsLaunchHostFunc(s, gate_fn, g);
  /* Registered after the library's first calls, so it runs before any
   * exit-time cleanup the library registered. */
  pthread_once(&gates_once, gates_register_atexit);
  return r;
}

void gate_hold(gate *g, clsStream_t s) { CK_OK(gate_try_hold(g, s)); }

static int gate_wait_flag(gate *g, const int *flag, int timeout_ms) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += timeout_ms / 1000;
  dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (dl.tv_nsec >= 1000000000L) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&g->mu);
  while (!*flag)
    if (pthread_cond_timedwait(&g->cv, &g->mu, &dl) == ETIMEDOUT) break;
  int r = *flag;
  pthread_mutex_unlock(&g->mu);
  return r;
}

int gate_wait_entered(gate *g, int timeout_ms) {
  return gate_wait_flag(g, &g->entered, timeout_ms);
}

int gate_wait_finished(gate *g, int timeout_ms) {
  return gate_wait_flag(g, &g->finished, timeout_ms);
}

void gate_release(gate *g) {
  /* A gate that gave up before its release did not hold anything: a call
   * that should have returned at once waited for it instead. */
  ck_assert_msg(!gate_open(g),
                "gate timed out after %d ms before its release: something "
                "waited on work the gate held",
                GATE_SAFETY_MS);
}

int gate_runs(gate *g) {
  pthread_mutex_lock(&g->mu);
  int r = g->runs;
  pthread_mutex_unlock(&g->mu);
  return r;
}

int gate_entered(gate *g) {
  pthread_mutex_lock(&g->mu);
  int r = g->entered;
  pthread_mutex_unlock(&g->mu);
  return r;
}

/* ---- Host functions -------------------------------------------------- */

void hf_count(void *p) { atomic_fetch_add((atomic_int *)p, 1); }

void hf_probe_fn(void *p) {
  hf_probe *h = p;
  h->thread = pthread_self();
  if (h->clock) atomic_store(&h->order, atomic_fetch_add(h->clock, 1) + 1);
  atomic_fetch_add(&h->runs, 1);
}

/* ---- Background calls ------------------------------------------------ */

static void *bg_main(void *p) {
  bg_call *c = p;
  atomic_store(&c->started, 1);
  double w0 = now_ms(), c0 = thread_cpu_ms();
  c->rc = c->fn(c->arg);
  c->cpu_ms = thread_cpu_ms() - c0;
  c->wall_ms = now_ms() - w0;
  atomic_store(&c->done, 1);
  return NULL;
}

void bg_start(bg_call *c, clsError_t (*fn)(void *), void *arg) {
  memset(c, 0, sizeof *c);
  c->fn = fn;
  c->arg = arg;
  ck_assert_int_eq(pthread_create(&c->t, NULL, bg_main, c), 0);
  wait_atomic_ge(&c->started, 1, 10000);
}

int bg_done(bg_call *c) { return atomic_load(&c->done); }

int bg_wait_done(bg_call *c, int timeout_ms) {
  return wait_atomic_ge(&c->done, 1, timeout_ms) >= 1;
}

clsError_t bg_join(bg_call *c) {
  pthread_join(c->t, NULL);
  return c->rc;
}

clsError_t bg_call_within(clsError_t (*fn)(void *), void *arg, int ms,
                          const char *what) {
  bg_call *c = calloc(1, sizeof *c); /* leaked if it hangs */
  ck_assert_ptr_nonnull(c);
  bg_start(c, fn, arg);
  double end = now_ms() + ms;
  while (!bg_done(c) && now_ms() < end) sleep_ms(2);
  ck_assert_msg(bg_done(c), "%s did not return within %d ms (hang)", what, ms);
  clsError_t r = bg_join(c);
  free(c);
  return r;
}

clsError_t expect_blocked_until_release(bg_call *c, clsError_t (*fn)(void *),
                                        void *arg, gate *g, int hold_ms,
                                        const char *what) {
  bg_start(c, fn, arg);
  sleep_ms(hold_ms);
  int returned = bg_done(c);
  gate_release(g);
  ck_assert_msg(!returned, "%s returned while the gate held its work", what);
  return bg_join(c);
}

clsError_t bg_stream_sync(void *s) { return clsStreamSynchronize(s); }
clsError_t bg_event_sync(void *e) { return clsEventSynchronize(e); }
clsError_t bg_device_sync(void *unused) {
  (void)unused;
  return clsDeviceSynchronize();
}
clsError_t bg_stream_destroy(void *s) { return clsStreamDestroy(s); }
clsError_t bg_event_destroy(void *e) { return clsEventDestroy(e); }
clsError_t bg_free(void *p) { return clsFree(p); }
clsError_t bg_free_host(void *p) { return clsFreeHost(p); }

/* ---- Kernels --------------------------------------------------------- */

clsModule_t load_source(const char *src, const char *what) {
  clsModule_t m = NULL;
  clsError_t r = clsModuleLoadData(&m, src, NULL);
  ck_assert_msg(r == clsSuccess, "loading %s: %s\n%s", what, clsGetErrorName(r),
                clsGetLastBuildLog());
  return m;
}

clsFunction_t source_fn(clsModule_t m, const char *name) {
  clsFunction_t f = NULL;
  CK_OK(clsModuleGetFunction(&f, m, name));
  return f;
}

void arith_load(arith *a) {
  memset(a, 0, sizeof *a);
  a->mod = load_source(cls_kernel_arith, "examples/arith.cl");
  a->scale = source_fn(a->mod, "scale");
  a->add = source_fn(a->mod, "add");
  a->fill = source_fn(a->mod, "fill");
  a->spin = source_fn(a->mod, "spin");
}

void arith_unload(arith *a) {
  CK_OK(clsModuleUnload(a->mod));
  memset(a, 0, sizeof *a);
}

static clsDim3 grid_for(unsigned n) {
  clsDim3 g = {n ? (n + 63) / 64 : 1, 1, 1};
  return g;
}
static const clsDim3 block64 = {64, 1, 1};

clsError_t launch_fill(const arith *a, clsStream_t s, int *t, int v,
                       unsigned n) {
  void *args[] = {&t, &v, &n};
  return clsLaunchKernel(a->fill, grid_for(n), block64, args, 0, s);
}

clsError_t launch_scale(const arith *a, clsStream_t s, int *t, int k,
                        unsigned n) {
  void *args[] = {&t, &k, &n};
  return clsLaunchKernel(a->scale, grid_for(n), block64, args, 0, s);
}

clsError_t launch_add(const arith *a, clsStream_t s, const int *x, const int *y,
                      int *out, unsigned n) {
  void *args[] = {&x, &y, &out, &n};
  return clsLaunchKernel(a->add, grid_for(n), block64, args, 0, s);
}

clsError_t launch_spin(const arith *a, clsStream_t s, unsigned *out, unsigned n,
                       unsigned iters) {
  void *args[] = {&out, &iters};
  clsDim3 g = {(n + 63) / 64, 1, 1};
  return clsLaunchKernel(a->spin, g, block64, args, 0, s);
}

/* ---- Memory ---------------------------------------------------------- */

int *dev_ints(size_t n) {
  void *p = NULL;
  CK_OK(clsMalloc(&p, n * sizeof(int)));
  ck_assert_ptr_nonnull(p);
  return p;
}

void dev_put(int *dev, const int *host, size_t n) {
  CK_OK(clsMemcpy(dev, host, n * sizeof(int), clsMemcpyHostToDevice));
}

void dev_get(int *host, const int *dev, size_t n) {
  CK_OK(clsMemcpy(host, dev, n * sizeof(int), clsMemcpyDeviceToHost));
}

void dev_set(int *dev, int v, size_t n) {
  int *h = malloc(n * sizeof(int));
  ck_assert_ptr_nonnull(h);
  for (size_t i = 0; i < n; ++i) h[i] = v;
  dev_put(dev, h, n);
  free(h);
}

void host_expect(const int *host, int v, size_t n, const char *what) {
  for (size_t i = 0; i < n; ++i)
    ck_assert_msg(host[i] == v, "%s[%zu] = %d, expected %d", what, i, host[i],
                  v);
}

void dev_expect(const int *dev, int v, size_t n, const char *what) {
  int *h = malloc(n * sizeof(int));
  ck_assert_ptr_nonnull(h);
  dev_get(h, dev, n);
  host_expect(h, v, n, what);
  free(h);
}

/* ---- Devices and the environment -------------------------------------- */

int forked_or_skip(const char *test) {
  const char *f = getenv("CK_FORK");
  if (f && strcmp(f, "no") == 0) {
    printf("SKIP %s: needs a fresh process per test (CK_FORK=no)\n", test);
    return 0;
  }
  return 1;
}

int device_times_work(void) {
  int d = -1;
  CK_OK(clsGetDevice(&d));
  CK_OK(clsStreamQuery(NULL)); /* opens the device: the check is made then */
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, d));
  return p.timerResolutionNs > 0.0 && !p.eventHostStamps;
}

int events_time_work(void) {
  int d = -1;
  CK_OK(clsGetDevice(&d));
  CK_OK(clsStreamQuery(NULL)); /* opens the device: the check is made then */
  clsDeviceProp p;
  CK_OK(clsGetDeviceProperties(&p, d));
  return p.timerResolutionNs > 0.0;
}

int elapsed_or_untimed(float *ms, clsEvent_t a, clsEvent_t b) {
  if (events_time_work()) {
    CK_OK(clsEventElapsedTime(ms, a, b));
    return 1;
  }
  float keep = *ms;
  CK_CLS(clsEventElapsedTime(ms, a, b), clsErrorNotSupported);
  ck_assert_msg(*ms == keep, "elapsed time written on an untimed device");
  return 0;
}

/* Two devices: when CLSTREAM_DEVICE names devices (not an index), the
 * first two it names (the two GPUs of one platform on a two-GPU machine),
 * else the first two selectable devices.  CLS_TEST_REQUIRE_TWO_DEVICES=1
 * (ci/gpu2.sh) turns the skip into a failure and requires the pair to be
 * named by CLSTREAM_DEVICE when it is set. */
int two_devices(const char *test, int *a, int *b) {
  setenv("CLSTREAM_SPLIT_DEVICES", "2", 1);
  const char *want = getenv("CLSTREAM_DEVICE");
  const char *req = getenv("CLS_TEST_REQUIRE_TWO_DEVICES");
  int named = want && *want && want[strspn(want, "0123456789")] != '\0';
  int require = req && *req && strcmp(req, "0") != 0;
  int n = 0;
  clsError_t r = clsGetDeviceCount(&n);
  ck_assert_msg(r == clsSuccess, "clsGetDeviceCount: %s", clsGetErrorName(r));
  int found[2], k = 0;
  for (int pass = named ? 0 : 1; pass < 2 && k < 2; ++pass) {
    if (pass == 1 && named && require) break; /* only the named ones */
    k = 0;
    for (int d = 0; d < n && k < 2; ++d) {
      clsDeviceProp p;
      int match = 1;
      if (clsGetDeviceProperties(&p, d) != clsSuccess || !p.selectable)
        continue;
      if (pass == 0 && (clsDeviceMatchesName(&match, d, want) != clsSuccess))
        match = 0;
      if (match) found[k++] = d;
    }
  }
  if (k < 2) {
    ck_assert_msg(!require,
                  "%s: needs two devices%s%s, found %d of %d "
                  "(CLS_TEST_REQUIRE_TWO_DEVICES is set)",
                  test, named ? " named by CLSTREAM_DEVICE=" : "",
                  named ? want : "", k, n);
    printf("SKIP %s: needs two devices, found %d selectable of %d\n", test, k,
           n);
    return 0;
  }
  *a = found[0];
  *b = found[1];
  return 1;
}

int run_child(int (*fn)(int fd, void *arg), void *arg, char *out,
              size_t outsz) {
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(p[0]);
    int code = fn(p[1], arg);
    close(p[1]);
    _exit(code);
  }
  close(p[1]);
  size_t got = 0;
  for (;;) {
    char buf[512];
    ssize_t k = read(p[0], buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    for (ssize_t i = 0; i < k; ++i)
      if (out && got + 1 < outsz) out[got++] = buf[i];
  }
  if (out && outsz) out[got] = '\0';
  close(p[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void capture_begin(capture *c) {
  char path[] = "/tmp/clstream-test-stderr-XXXXXX";
  fflush(stderr);
  c->fd = mkstemp(path);
  ck_assert_int_ge(c->fd, 0);
  unlink(path);
  c->saved = dup(2);
  ck_assert_int_ge(c->saved, 0);
  ck_assert_int_ge(dup2(c->fd, 2), 0);
}

char *capture_end(capture *c) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  off_t len = lseek(c->fd, 0, SEEK_END);
  ck_assert_int_ge(len, 0);
  char *s = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(s);
  lseek(c->fd, 0, SEEK_SET);
  size_t got = 0;
  while (got < (size_t)len) {
    ssize_t k = read(c->fd, s + got, (size_t)len - got);
    if (k <= 0) break;
    got += (size_t)k;
  }
  s[got] = '\0';
  close(c->fd);
  return s;
}

/* ---- Stream capture ---------------------------------------------------- */

clsStream_t capturing_stream(unsigned flags, clsStreamCaptureMode mode) {
  clsStream_t s;
  CK_OK(clsStreamCreateWithFlags(&s, flags));
  CK_OK(clsStreamBeginCapture(s, mode));
  return s;
}

clsGraphExec_t end_and_instantiate(clsStream_t s) {
  clsGraph_t g = NULL;
  CK_OK(clsStreamEndCapture(s, &g));
  ck_assert_ptr_nonnull(g);
  clsGraphExec_t x = NULL;
  CK_OK(clsGraphInstantiate(&x, g, 0));
  CK_OK(clsGraphDestroy(g));
  return x;
}

/* ---- Runner ---------------------------------------------------------- */

/* Runs before each test, in the test's process.  When Check forks (the
 * default), it does nothing: the library must first be called by the test
 * itself, after any setenv.  Under CK_FORK=no all tests share a process, so
 * it clears the last error an earlier test left behind. */
static void fixture_setup(void) {
  const char *f = getenv("CK_FORK");
  if (f && strcmp(f, "no") == 0) (void)clsGetLastError();
}

TCase *tcase_timed(const char *name, double timeout_s) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, timeout_s);
  tcase_add_checked_fixture(tc, fixture_setup, NULL);
  return tc;
}

TCase *tcase_tagged(Suite *s, const char *name, double timeout_s,
                    const char *tags) {
  TCase *tc = tcase_timed(name, timeout_s);
  tcase_set_tags(tc, tags);
  suite_add_tcase(s, tc);
  return tc;
}

int run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
