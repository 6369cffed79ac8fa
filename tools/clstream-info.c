/*
 * clstream-info: lists the settings in force (the CLSTREAM_* variables),
 * every device clstream sees, what it supports, whether clstream can use
 * it (and why not), and the CLSTREAM_DEVICE values that select it.  It
 * uses the public API only.
 *
 * Usage: clstream-info [-h|--help]
 *
 * Exit status: 0 when at least one device is listed, 1 otherwise.
 */
#include <clstream.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What cls_clock64() reads on an opened device (clsDeviceProp's
 * kernelClock, decided by a probe build when the device is opened). */
static const char *kernel_clock(const clsDeviceProp *p) {
  switch (p->kernelClock) {
  case clsKernelClockSmCycles:
    return "the multiprocessor's cycle counter (cls_clock64, CUDA's clock64)";
  case clsKernelClockDevice:
    return "cl_khr_kernel_clock's device clock (cls_clock64)";
  case clsKernelClockHostCycles:
    return "the host CPU's time-stamp counter (cls_clock64)";
  default:
    return "none: cls_clock64() is a build error on this device";
  }
}

/* ---- Which CLSTREAM_DEVICE strings select which device ----------------- */

/* Does CLSTREAM_DEVICE=value name device d?  The library's own rule
 * (clsDeviceMatchesName), so that the two cannot disagree. */
static int matches(int d, const char *value) {
  int match = 0;
  return clsDeviceMatchesName(&match, d, value) == clsSuccess && match;
}

/* The device CLSTREAM_DEVICE=value selects: the first that it names. */
static int selected_by(int count, const char *value) {
  for (int d = 0; d < count; ++d)
    if (matches(d, value)) return d;
  return -1;
}

/* Whether s is all decimal digits (an index, never a name). */
static int all_digits(const char *s) {
  for (; *s; ++s)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* Is device d the only one `value` matches? */
static int matches_only(int count, int d, const char *value) {
  if (!matches(d, value)) return 0;
  for (int o = 0; o < count; ++o)
    if (o != d && matches(o, value)) return 0;
  return 1;
}

/* Finds the first word (3 characters or more) of device d's name, or of its
 * platform's name, that matches device d and no other; failing that, the whole
 * name if it selects d.  Writes "" when no name selects d (then only the index
 * does). */
static void name_selector(const clsDeviceProp *p, int count, int d, char *out,
                          size_t size) {
  const char *sources[2] = {p->name, p->platformName};
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
        if (!all_digits(word) && matches_only(count, d, word)) {
          snprintf(out, size, "%s", word);
          return;
        }
      }
      p += len;
    }
  }
  if (p->name[0] && !all_digits(p->name) && selected_by(count, p->name) == d)
    snprintf(out, size, "%s", p->name);
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
  /* The same kernel on mapped host memory after device memory: where host
   * memory reaches kernels as a buffer, this asks the driver whether an
   * argument that held an SVM pointer takes one (svmArgsStick). */
  int *mapped = NULL;
  unsigned one_item = 1;
  void *margs[] = {&mapped, &v, &one_item};
  if (r == clsSuccess && clsHostAlloc((void **)&mapped, sizeof(int),
                                      clsHostAllocMapped) == clsSuccess) {
    (void)clsLaunchKernel(fill, one, one, margs, 0, NULL);
    (void)clsDeviceSynchronize();
    clsFreeHost(mapped);
  }
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

/* The settings: with `all`, every one with its value, meaning and
 * default; else the ones set, then the names of the others. */
static void print_settings(int all) {
  clsSetting st;
  printf("%s\n", all ? "settings (CLSTREAM_* environment variables):"
                     : "settings in force:");
  int col = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; clsGetSetting(&st, i) == clsSuccess; ++i) {
      if (all && pass == 0)
        printf("  %s\n    %s\n    value: %s%s%s\n    unset: %s\n", st.name,
               st.meaning, st.value ? "\"" : "",
               st.value ? st.value : "(unset)", st.value ? "\"" : "",
               st.whenUnset);
      else if (!all && pass == 0 && st.value)
        printf("  %s=%s (%s)\n", st.name, st.value, st.meaning);
      else if (!all && pass == 1 && !st.value) {
        /* The unset ones, a few to a line. */
        int len = (int)strlen(st.name);
        if (col == 0)
          col = printf("  unset (as by default): %s", st.name);
        else if (col + 2 + len > 78)
          col = printf(",\n    %s", st.name) - 2;
        else
          col += printf(", %s", st.name);
      }
    }
  if (col) printf("\n");
  (void)clsGetLastError(); /* the end of the list */
}

static void usage(FILE *f) {
  fprintf(
      f, "usage: clstream-info [--settings]\n"
         "Lists the settings in force (CLSTREAM_* environment variables) and\n"
         "every device clstream sees (every device of every OpenCL platform,\n"
         "GPUs first; on the CUDA build, the CUDA devices): what it supports,\n"
         "whether clstream can use it, and the CLSTREAM_DEVICE values that\n"
         "select it.  --settings lists every setting, its meaning and its\n"
         "default, and nothing else.\n");
}

int main(int argc, char **argv) {
  if (argc > 1) {
    if (!strcmp(argv[1], "--settings") && argc == 2) {
      print_settings(1);
      return 0;
    }
    int help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
    usage(help ? stdout : stderr);
    return help ? 0 : 2;
  }

  printf("clstream %d.%d.%d\n", CLSTREAM_VERSION_MAJOR, CLSTREAM_VERSION_MINOR,
         CLSTREAM_VERSION_PATCH);
  print_settings(0);
  int count = 0;
  clsError_t e = clsGetDeviceCount(&count);
  if (e != clsSuccess) {
    printf("no device: clsGetDeviceCount returned %s (%s)\n",
           clsGetErrorName(e), clsGetErrorString(e));
    return 1;
  }

  /* The default device: CLSTREAM_DEVICE's choice, asked before any
   * clsSetDevice changes this thread's device. */
  int def = -1;
  clsError_t def_err = clsGetDevice(&def);
  if (def_err == clsSuccess)
    printf("default device: %d\n", def);
  else
    printf("default device: none (%s: %s)\n", clsGetErrorName(def_err),
           clsGetErrorString(def_err));
  printf("%d device%s\n", count, count == 1 ? "" : "s");

  clsDeviceProp *props = calloc((size_t)count, sizeof *props);
  clsError_t *prop_err = calloc((size_t)count, sizeof *prop_err);
  if (!props || !prop_err) {
    fprintf(stderr, "clstream-info: out of memory\n");
    return 1;
  }
  for (int d = 0; d < count; ++d)
    prop_err[d] = clsGetDeviceProperties(&props[d], d);

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
    printf("  %-22s any\n", "kernel ptr offsets:");
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
    if (sel == clsSuccess) {
      printf("  %-22s %s\n", "event timing:",
             opened.eventHostStamps
                 ? "host stamps (the device's timestamps cannot time work: "
                   "a timed record is stamped when a library thread sees "
                   "its work complete)"
                 : "the device's profiling timestamps");
      printf("  %-22s %s\n", "kernel clock:", kernel_clock(&opened));
    }
    if (sel == clsSuccess) probe_kernels(p);
    if (sel == clsSuccess &&
        clsGetDeviceProperties(&opened, d) == clsSuccess) /* after a launch */
      printf("  %-22s %s\n", "buffer after SVM arg:",
             opened.svmArgsStick == 2
                 ? "refused (the probe found it): launches passing host "
                   "memory after device memory use a second kernel object"
             : opened.svmArgsStick == 1 ? "taken (the probe found it)"
             : p->bufferMemory          ? "never asked (no SVM arguments)"
                                        : "never asked (host memory reaches "
                                          "kernels as SVM here)");
    if (sel == clsSuccess)
      printf("  %-22s yes\n", "selectable:");
    else
      printf("  %-22s no: clsSetDevice returns %s (%s)%s\n",
             "selectable:", clsGetErrorName(sel), clsGetErrorString(sel),
             p->major * 10 + p->minor < 12 ? "; OpenCL 1.2 or later needed"
                                           : "");

    char word[256];
    name_selector(p, count, d, word, sizeof word);
    if (word[0])
      printf("  %-22s %d or \"%s\"\n", "CLSTREAM_DEVICE:", d, word);
    else
      printf("  %-22s %d\n", "CLSTREAM_DEVICE:", d);
  }
  /* clsSetDevice above failed on purpose for unusable devices: leave no
   * stale last error behind. */
  (void)clsGetLastError();
  free(props);
  free(prop_err);
  return 0;
}
