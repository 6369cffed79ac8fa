/*
 * multi_gpu: split one compute-bound job over several devices.  Each
 * device computes its share in a stream of its own, all at once; device
 * 0's stream waits for the other devices' events and gathers their shares
 * into one buffer with peer copies; the host checks the result and prints
 * each device's share and the speedup over the first device alone.
 *
 *   multi_gpu [DEVICE...]
 *
 * With no argument it uses every device clstream reports, leaving out
 * simulators and a device that was split into smaller ones listed after
 * it (CLSTREAM_SPLIT_DEVICES: the sub-devices share its cores).  Shares
 * follow each device's measured speed, so a GPU and a CPU can share one
 * job.  CLS_EXAMPLE_MIN_SPEEDUP=X makes the program fail when the split
 * run is not X times faster than the first device alone (ci/gpu2.sh).
 */
#include "common.h"

#include <string.h>
#include <time.h>

/* item i of the job: a seed from i, then `iters` rounds of a
 * multiply-add and an xor-shift (no closed form: each round must run). */
static const char *source =
    "CLS_KERNEL void work(CLS_GLOBAL unsigned *out, unsigned first,\n"
    "                     unsigned count, unsigned iters) {\n"
    "  unsigned i = cls_global_id(0);\n"
    "  if (i >= count) return;\n"
    "  unsigned x = first + i + 1u;\n"
    "  for (unsigned k = 0; k < iters; ++k) {\n"
    "    x = x * 1664525u + 1013904223u;\n"
    "    x ^= x >> 15;\n"
    "  }\n"
    "  out[i] = x;\n"
    "}\n";

static unsigned host_item(unsigned i, unsigned iters) {
  unsigned x = i + 1u;
  for (unsigned k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 15;
  }
  return x;
}

enum { MAXDEV = 16, BLOCK = 128, N = 1 << 20 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static clsFunction_t work;

/* Enqueues items [first, first + count) on `s`, written to out[0..count). */
static void launch(unsigned *out, unsigned first, unsigned count,
                   unsigned iters, clsStream_t s) {
  void *args[] = {&out, &first, &count, &iters};
  unsigned blocks = (count + BLOCK - 1) / BLOCK;
  CHECK(clsLaunchKernel(work, (clsDim3){blocks, 1, 1}, (clsDim3){BLOCK, 1, 1},
                        args, 0, s));
}

/* Milliseconds for `count` items on device d's stream s, host-timed. */
static double timed_run(int d, unsigned *out, unsigned count, unsigned iters,
                        clsStream_t s) {
  CHECK(clsSetDevice(d));
  double t0 = now_ms();
  launch(out, 0, count, iters, s);
  CHECK(clsStreamSynchronize(s));
  return now_ms() - t0;
}

/* The devices to use: the arguments, else every usable device. */
static int pick_devices(int argc, char **argv, int *dev) {
  int n = 0, k = 0;
  CHECK(clsGetDeviceCount(&n));
  if (argc > 1) {
    for (int i = 1; i < argc && k < MAXDEV; ++i) {
      int d = atoi(argv[i]);
      if (d < 0 || d >= n) {
        fprintf(stderr, "multi_gpu: no device %s (0..%d)\n", argv[i], n - 1);
        exit(2);
      }
      dev[k++] = d;
    }
    return k;
  }
  for (int d = 0; d < n && k < MAXDEV; ++d) {
    clsDeviceProp p, q;
    CHECK(clsGetDeviceProperties(&p, d));
    int split = 0;
    for (int e = d + 1; e < n && !split; ++e) {
      CHECK(clsGetDeviceProperties(&q, e));
      split = strcmp(p.name, q.name) == 0 &&
              strcmp(p.platformName, q.platformName) == 0 &&
              q.multiProcessorCount < p.multiProcessorCount;
    }
    if (p.selectable && !p.simulator && !split) dev[k++] = d;
  }
  return k;
}

int main(int argc, char **argv) {
  int dev[MAXDEV];
  clsStream_t s[MAXDEV];
  clsEvent_t start[MAXDEV], done[MAXDEV];
  unsigned *out[MAXDEV], first[MAXDEV], share[MAXDEV];
  double rate[MAXDEV], total = 0;
  clsModule_t mod;

  int nd = pick_devices(argc, argv, dev);
  if (nd == 0) {
    fprintf(stderr, "multi_gpu: no usable device\n");
    return 1;
  }
  CHECK(clsSetDevice(dev[0]));
  print_device();
  CHECK(clsModuleLoadData(&mod, source, NULL));
  CHECK(clsModuleGetFunction(&work, mod, "work"));
  /* A stream, two events and a whole-job buffer on every device; the
   * first device's buffer receives the gathered result.  The first
   * launch on each device builds the kernel there. */
  for (int j = 0; j < nd; ++j) {
    CHECK(clsSetDevice(dev[j]));
    CHECK(clsStreamCreateWithFlags(&s[j], clsStreamNonBlocking));
    CHECK(clsEventCreate(&start[j]));
    CHECK(clsEventCreate(&done[j]));
    CHECK(clsMalloc((void **)&out[j], N * sizeof(unsigned)));
    timed_run(dev[j], out[j], BLOCK, 1, s[j]);
  }

  /* Rounds per item: the first device alone should take about 400 ms. */
  unsigned iters = 64;
  double ms = timed_run(dev[0], out[0], N, iters, s[0]);
  while (ms < 40 && iters < (1u << 26)) {
    iters *= 4;
    ms = timed_run(dev[0], out[0], N, iters, s[0]);
  }
  double want = iters * (400.0 / (ms > 0.01 ? ms : 0.01));
  iters = want < 1 ? 1u : want > 4e9 ? 4000000000u : (unsigned)want;
  /* Each device's speed, in items per millisecond: the item count doubles
   * until one run takes 20 ms, so a slow device is not held for long. */
  for (int j = 0; j < nd; ++j) {
    unsigned m = BLOCK;
    double t = timed_run(dev[j], out[j], m, iters, s[j]);
    while (t < 20 && m < N) {
      m *= 2;
      t = timed_run(dev[j], out[j], m, iters, s[j]);
    }
    rate[j] = m / (t > 0.001 ? t : 0.001);
    total += rate[j];
  }
  /* Shares follow the speeds, whole blocks, the rest to the first device;
   * the first device's share starts at item 0, so it computes in place. */
  unsigned given = 0;
  for (int j = nd - 1; j >= 1; --j) {
    share[j] = (unsigned)(N * (rate[j] / total)) / BLOCK * BLOCK;
    given += share[j];
  }
  share[0] = N - given;
  first[0] = 0;
  for (int j = 1; j < nd; ++j) first[j] = first[j - 1] + share[j - 1];

  /* The best of three runs each way (load from elsewhere only slows a
   * run): the whole job on the first device alone, then every device at
   * once: launches on all streams first, then device 0's stream waits for
   * each other device's event and copies that device's share. */
  double t_one = 0, t_all = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double t = timed_run(dev[0], out[0], N, iters, s[0]);
    if (rep == 0 || t < t_one) t_one = t;
    double t0 = now_ms();
    for (int j = 0; j < nd; ++j) {
      CHECK(clsSetDevice(dev[j]));
      CHECK(clsEventRecord(start[j], s[j]));
      if (share[j]) launch(out[j], first[j], share[j], iters, s[j]);
      CHECK(clsEventRecord(done[j], s[j]));
    }
    CHECK(clsSetDevice(dev[0]));
    for (int j = 1; j < nd; ++j) {
      if (!share[j]) continue;
      CHECK(clsStreamWaitEvent(s[0], done[j], 0));
      CHECK(clsMemcpyPeerAsync(out[0] + first[j], dev[0], out[j], dev[j],
                               share[j] * sizeof(unsigned), s[0]));
    }
    CHECK(clsStreamSynchronize(s[0]));
    t = now_ms() - t0;
    if (rep == 0 || t < t_all) t_all = t;
  }

  /* Check every 4093rd item and each share's first and last. */
  unsigned *host = malloc(N * sizeof *host);
  if (!host) return 1;
  CHECK(clsMemcpy(host, out[0], N * sizeof *host, clsMemcpyDeviceToHost));
  unsigned checked = 0, bad = 0;
  for (unsigned i = 0; i < N; i += 4093) {
    bad += host[i] != host_item(i, iters);
    checked++;
  }
  for (int j = 0; j < nd; ++j) {
    if (!share[j]) continue;
    unsigned ends[2] = {first[j], first[j] + share[j] - 1};
    for (int e = 0; e < 2; ++e) {
      if (host[ends[e]] != host_item(ends[e], iters)) {
        printf("MISMATCH at item %u (device %d's share)\n", ends[e], dev[j]);
        bad++;
      }
      checked++;
    }
  }

  printf("job: %u items x %u rounds on %d device%s\n", (unsigned)N, iters, nd,
         nd == 1 ? "" : "s");
  for (int j = 0; j < nd; ++j) {
    clsDeviceProp p;
    float kms = 0;
    CHECK(clsGetDeviceProperties(&p, dev[j]));
    int timed = p.timerResolutionNs > 0 &&
                clsEventElapsedTime(&kms, start[j], done[j]) == clsSuccess;
    printf("device %d: %s (%s): %u items (%.1f%%), kernel ", dev[j], p.name,
           p.platformName, share[j], 100.0 * share[j] / N);
    if (timed)
      printf("%.1f ms\n", kms);
    else
      printf("untimed\n");
  }
  double speedup = t_all > 0 ? t_one / t_all : 0;
  printf("one device: %.1f ms; %d device%s: %.1f ms; speedup %.2fx\n", t_one,
         nd, nd == 1 ? "" : "s", t_all, speedup);
  printf("result: %s (%u items checked)\n", bad ? "WRONG" : "ok", checked);

  for (int j = 0; j < nd; ++j) {
    CHECK(clsSetDevice(dev[j]));
    CHECK(clsEventDestroy(start[j]));
    CHECK(clsEventDestroy(done[j]));
    CHECK(clsStreamDestroy(s[j]));
    CHECK(clsFree(out[j]));
  }
  CHECK(clsModuleUnload(mod));
  free(host);
  const char *min = getenv("CLS_EXAMPLE_MIN_SPEEDUP");
  if (min && *min && speedup < atof(min)) {
    printf("speedup %.2fx is below the %.2fx wanted\n", speedup, atof(min));
    return 1;
  }
  return bad ? 1 : 0;
}
