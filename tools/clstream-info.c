/*
 * clstream-info: lists every device clstream sees, what it supports, whether
 * clstream can use it (and why not), and the CLSTREAM_DEVICE values that
 * select it.
 *
 * Usage: clstream-info [-h|--help]
 *
 * Exit status: 0 when at least one device is listed, 1 otherwise.
 */
#include <clstream.h>

#include "device_match.h" /* the library's own CLSTREAM_DEVICE match */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Which CLSTREAM_DEVICE strings select which device ----------------- */

typedef struct names {
  char name[256];
  char platform[256];
} names;

/* Does `value` match device d (its name or its platform's name)? */
static int matches(const names *all, int d, const char *value) {
  return cls__names_device(all[d].name, all[d].platform, value);
}

/* The device CLSTREAM_DEVICE=value selects: the first that matches. */
static int selected_by(const names *all, int count, const char *value) {
  for (int d = 0; d < count; ++d)
    if (matches(all, d, value)) return d;
  return -1;
}

/* Is device d the only one `value` matches? */
static int matches_only(const names *all, int count, int d, const char *value) {
  if (!matches(all, d, value)) return 0;
  for (int o = 0; o < count; ++o)
    if (o != d && matches(all, o, value)) return 0;
  return 1;
}

/* Finds the first word (3 characters or more) of device d's name, or of its
 * platform's name, that matches device d and no other; failing that, the whole
 * name if it selects d.  Writes "" when no name selects d (then only the index
 * does). */
static void name_selector(const names *all, int count, int d, char *out,
                          size_t size) {
  const char *sources[2] = {all[d].name, all[d].platform};
  out[0] = '\0';
  for (int s = 0; s < 2; ++s) {
    const char *p = sources[s];
    while (*p) {
      while (*p && !isalnum((unsigned char)*p)) ++p;
      size_t len = 0;
      while (p[len] && (isalnum((unsigned char)p[len]) || p[len] == '_')) ++len;
      if (len >= 3 && len < size) {
        char word[256];
        memcpy(word, p, len);
        word[len] = '\0';
        if (!cls__all_digits(word) && matches_only(all, count, d, word)) {
          snprintf(out, size, "%s", word);
          return;
        }
      }
      p += len;
    }
  }
  if (all[d].name[0] && !cls__all_digits(all[d].name) &&
      selected_by(all, count, all[d].name) == d)
    snprintf(out, size, "%s", all[d].name);
}

/* ---- Kernels: what the device's compiler and launches do ----------------- */

/* The first non-empty line of the thread's last build log, in `out`. */
static void first_log_line(char *out, size_t size) {
  const char *log = clsGetLastBuildLog();
  out[0] = '\0';
  while (*log) {
    size_t len = strcspn(log, "\n");
    if (len) {
      snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), log);
      return;
    }
    log += 1;
  }
}

/* On the current device: a module holding an empty kernel builds (NVIDIA's
 * driver needs clstream's fallback for it), a trivial kernel runs with the
 * device's largest block (drivers hint lower limits than they run), and
 * what the compiler's log of an error looks like (each driver's differs). */
static void probe_kernels(const clsDeviceProp *p) {
  static const char src[] =
      "CLS_KERNEL void info_empty(void) {}\n"
      "CLS_KERNEL void info_fill(CLS_GLOBAL int *t, int v, unsigned n) {\n"
      "  unsigned i = cls_global_id(0);\n"
      "  if (i < n) t[i] = v;\n"
      "}\n";
  char line[160];
  clsModule_t m;
  clsError_t r = clsModuleLoadData(&m, src, NULL);
  if (r != clsSuccess) {
    first_log_line(line, sizeof line);
    printf("  %-22s a module with an empty kernel fails to build: %s: %s\n",
           "kernels:", clsGetErrorName(r), line);
    return;
  }
  clsFunction_t empty, fill;
  unsigned n = (unsigned)p->maxThreadsPerBlock;
  if (n > (unsigned)p->maxThreadsDim[0]) n = (unsigned)p->maxThreadsDim[0];
  int *d = NULL, v = 7, bad = -1;
  clsDim3 one = {1, 1, 1}, block = {n, 1, 1};
  r = clsModuleGetFunction(&empty, m, "info_empty");
  if (r == clsSuccess) r = clsModuleGetFunction(&fill, m, "info_fill");
  if (r == clsSuccess) r = clsLaunchKernel(empty, one, one, NULL, 0, NULL);
  if (r == clsSuccess) r = clsMalloc((void **)&d, n * sizeof(int));
  void *args[] = {&d, &v, &n};
  if (r == clsSuccess) r = clsLaunchKernel(fill, one, block, args, 0, NULL);
  int *h = r == clsSuccess ? calloc(n, sizeof *h) : NULL;
  if (h && (r = clsMemcpy(h, d, n * sizeof(int), clsMemcpyDeviceToHost)) ==
               clsSuccess)
    for (unsigned i = 0; i < n && bad < 0; ++i)
      if (h[i] != v) bad = (int)i;
  if (r == clsSuccess && bad < 0)
    printf("  %-22s an empty kernel builds and runs; a trivial kernel runs "
           "with a block of %u threads\n",
           "kernels:", n);
  else if (r == clsSuccess)
    printf("  %-22s a block of %u threads ran, but item %d wrote %d\n",
           "kernels:", n, bad, h ? h[bad] : 0);
  else
    printf("  %-22s a kernel launch (block of up to %u threads) failed: %s\n",
           "kernels:", n, clsGetErrorName(r));
  free(h);
  clsFree(d);
  clsModuleUnload(m);
  /* What the compiler says about an error, in its own words. */
  clsModule_t broken;
  if (clsModuleLoadData(
          &broken,
          "/* cls-sweep: expect build error */ "
          "CLS_KERNEL void info_broken(void) { undeclared_x = 1; }",
          NULL) == clsErrorInvalidSource) {
    first_log_line(line, sizeof line);
    printf("  %-22s %s\n", "build log (an error):", line);
  }
  (void)clsGetLastError();
}

/* ---- Printing ------------------------------------------------------------ */

static const char *yes_no(int v) { return v ? "yes" : "no"; }

static void print_bytes(const char *label, size_t bytes) {
  if (bytes >= (size_t)1 << 30)
    printf("  %-22s %.1f GiB\n", label, (double)bytes / (1u << 30));
  else if (bytes >= (size_t)1 << 20)
    printf("  %-22s %.1f MiB\n", label, (double)bytes / (1u << 20));
  else
    printf("  %-22s %.1f KiB\n", label, (double)bytes / (1u << 10));
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: clstream-info\n"
          "Lists every device clstream sees (every device of every OpenCL\n"
          "platform, GPUs first; on the CUDA build, the CUDA devices): what\n"
          "it supports, whether clstream can use it, and the CLSTREAM_DEVICE\n"
          "values that select it.\n");
}

int main(int argc, char **argv) {
  if (argc > 1) {
    int help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
    usage(help ? stdout : stderr);
    return help ? 0 : 2;
  }

  printf("clstream %d.%d.%d\n", CLSTREAM_VERSION_MAJOR, CLSTREAM_VERSION_MINOR,
         CLSTREAM_VERSION_PATCH);
  int count = 0;
  clsError_t e = clsGetDeviceCount(&count);
  if (e != clsSuccess) {
    printf("no device: clsGetDeviceCount returned %s (%s)\n",
           clsGetErrorName(e), clsGetErrorString(e));
    return 1;
  }

  /* The default device: CLSTREAM_DEVICE's choice, asked before any
   * clsSetDevice changes this thread's device. */
  const char *env = getenv("CLSTREAM_DEVICE");
  int def = -1;
  clsError_t def_err = clsGetDevice(&def);
  if (env && *env) printf("CLSTREAM_DEVICE=%s\n", env);
  if (def_err == clsSuccess)
    printf("default device: %d\n", def);
  else
    printf("default device: none (%s: %s)\n", clsGetErrorName(def_err),
           clsGetErrorString(def_err));
  printf("%d device%s\n", count, count == 1 ? "" : "s");

  names *all = calloc((size_t)count, sizeof *all);
  clsDeviceProp *props = calloc((size_t)count, sizeof *props);
  clsError_t *prop_err = calloc((size_t)count, sizeof *prop_err);
  if (!all || !props || !prop_err) {
    fprintf(stderr, "clstream-info: out of memory\n");
    return 1;
  }
  for (int d = 0; d < count; ++d) {
    prop_err[d] = clsGetDeviceProperties(&props[d], d);
    if (prop_err[d] == clsSuccess) {
      snprintf(all[d].name, sizeof all[d].name, "%s", props[d].name);
      snprintf(all[d].platform, sizeof all[d].platform, "%s",
               props[d].platformName);
    }
  }

  for (int d = 0; d < count; ++d) {
    clsDeviceProp *p = &props[d];
    printf("\ndevice %d: %s%s\n", d, prop_err[d] ? "?" : p->name,
           d == def ? " (default)" : "");
    if (prop_err[d] != clsSuccess) {
      printf("  %-22s %s (%s)\n", "properties:", clsGetErrorName(prop_err[d]),
             clsGetErrorString(prop_err[d]));
      continue;
    }
    printf("  %-22s %s\n", "platform:", p->platformName);
    printf("  %-22s %s\n", "driver version:", p->driverVersion);
    printf("  %-22s %s\n", "type:", p->isCpu ? "CPU" : "GPU or accelerator");
    print_bytes("memory:", p->totalGlobalMem);
    print_bytes("local memory/group:", p->sharedMemPerBlock);
    printf("  %-22s %d\n", "compute units:", p->multiProcessorCount);
    printf("  %-22s %d (%d x %d x %d)\n",
           "max threads/block:", p->maxThreadsPerBlock, p->maxThreadsDim[0],
           p->maxThreadsDim[1], p->maxThreadsDim[2]);
    printf("  %-22s %s\n", "coarse-grained SVM:", yes_no(p->svmCoarseGrain));
    printf("  %-22s %d.%d (%s)\n", "compute capability:", p->major, p->minor,
           p->computeCapabilityNative ? "the device's"
                                      : "nominal: the device has none");
    if (p->clVersionMajor)
      printf("  %-22s %d.%d\n", "OpenCL version:", p->clVersionMajor,
             p->clVersionMinor);
    printf("  %-22s mapped host %s, managed %s, pools %s, registered %s\n",
           "memory kinds:", yes_no(p->canMapHostMemory),
           yes_no(p->managedMemory), yes_no(p->memoryPoolsSupported),
           yes_no(p->hostRegisterSupported));
    printf("  %-22s %s\n", "device memory:",
           p->bufferMemory ? "OpenCL buffers (reserved addresses)"
                           : "coarse-grained SVM");
    if (p->bufferMemory)
      printf("  %-22s multiples of %zu bytes\n",
             "kernel ptr offsets:", p->bufferArgAlign);
    if (p->simulator)
      printf("  %-22s yes (listed last; never the default over a real "
             "device)\n",
             "simulator:");
    printf("  %-22s %s\n", "host functions:",
           p->hostFuncsInline
               ? "on the calling thread, at enqueue (a flush runs the queue)"
               : "on library threads, asynchronously");

    /* Selecting the device says whether (and why not) clstream can use it,
     * and makes it current for clsDeviceGetStreamPriorityRange. */
    clsError_t sel = clsSetDevice(d);
    /* The timing fallback is decided when the device is first opened. */
    clsDeviceProp opened;
    if (sel == clsSuccess && clsGetDeviceProperties(&opened, d) == clsSuccess) {
      p->timingFallback = opened.timingFallback;
      p->timerIsHostClock = opened.timerIsHostClock;
      p->timerResolutionNs = opened.timerResolutionNs; /* 0: no timing */
    }
    int least = 0, greatest = 0;
    clsError_t prio_err = clsErrorNotSupported;
    if (sel == clsSuccess)
      prio_err = clsDeviceGetStreamPriorityRange(&least, &greatest);
    if (prio_err == clsSuccess)
      printf("  %-22s %s (range %d..%d, least..greatest)\n",
             "stream priorities:", yes_no(p->streamPriorities), least,
             greatest);
    else
      printf("  %-22s %s\n", "stream priorities:", yes_no(p->streamPriorities));
    if (sel == clsSuccess && p->timerResolutionNs == 0)
      printf("  %-22s 0 ns: no usable timestamps (clsEventElapsedTime "
             "returns clsErrorNotSupported)\n",
             "timer resolution:");
    else
      printf("  %-22s %g ns\n", "timer resolution:", p->timerResolutionNs);
    printf("  %-22s %s\n", "timing fallback:",
           p->timingFallback == 1 ? "yes (timed records use a 4-byte copy)"
           : p->timingFallback    ? "behind host functions and waits (timed "
                                    "records there use a 4-byte copy)"
                                  : "no");
    if (sel == clsSuccess)
      printf("  %-22s %s\n", "timer is a host clock:",
             p->timerIsHostClock ? "yes (a timed record on an idle stream "
                                   "reads it and enqueues nothing)"
                                 : "no");
    if (sel == clsSuccess) probe_kernels(p);
    if (sel == clsSuccess)
      printf("  %-22s yes\n", "selectable:");
    else
      printf("  %-22s no: clsSetDevice returns %s (%s)%s\n",
             "selectable:", clsGetErrorName(sel), clsGetErrorString(sel),
             p->major * 10 + p->minor < 12 ? "; OpenCL 1.2 or later needed"
                                           : "");

    char word[256];
    name_selector(all, count, d, word, sizeof word);
    if (word[0])
      printf("  %-22s %d or \"%s\"\n", "CLSTREAM_DEVICE:", d, word);
    else
      printf("  %-22s %d\n", "CLSTREAM_DEVICE:", d);
  }
  /* clsSetDevice above failed on purpose for unusable devices: leave no
   * stale last error behind. */
  (void)clsGetLastError();
  free(all);
  free(props);
  free(prop_err);
  return 0;
}
