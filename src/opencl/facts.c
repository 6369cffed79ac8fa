/*
 * OpenCL backend: the one place for driver facts.
 *
 * Every way in which the backend treats one driver differently from
 * another is decided here, once per device, from what the driver reports
 * (versions, capabilities, names) and stored in the device's `facts`;
 * the rest of the backend reads those fields and never tests a driver's
 * name itself.  docs/drivers.md lists the facts and the drivers they were
 * found on, and clstream-info prints them.
 *
 * Facts decided here:
 * - version: the lower of the platform's and the device's OpenCL version.
 *   Entry points reach the driver through the platform's dispatch table,
 *   so a 1.2 platform (Oclgrind) gets only 1.2 calls: clCreateCommandQueue
 *   instead of clCreateCommandQueueWithProperties, and no SVM call
 *   (through ocl-icd 2.3.1, Oclgrind 21.10 spins forever in the 2.x ones).
 * - can_split: CLSTREAM_SPLIT_DEVICES may call clCreateSubDevices, which
 *   needs the device to offer an equal partition into 2 or more
 *   sub-devices, and the driver to have the entry point at all (rusticl
 *   in Mesa 22.3 has none: the ICD loader jumps to NULL).
 * - simulator: a device that simulates one (Oclgrind, whose device type
 *   has the GPU, CPU and accelerator bits all set) ranks after every other
 *   device, so that it is never the default when a real one exists.
 * - buffers: device memory is cl_mem buffers rather than coarse-grained
 *   SVM (memory.c): where the device has no coarse-grained SVM, or where
 *   CLSTREAM_MEMORY=buffers forces it (so CI tests both paths on one
 *   device).
 * - flush_runs: clFlush executes the queued commands on the calling
 *   thread and, reaching one whose wait list is incomplete, waits for it
 *   (Oclgrind 21.10).  A flush must then never be made by a thread that
 *   would later complete what the command waits for (hostjob.c defers it).
 * - host_inline: host jobs (clsLaunchHostFunc, clsStreamAddCallback, host
 *   copies and fills) run on the calling thread, at enqueue, once the
 *   stream's earlier work is done, and the call returns after the job has
 *   run (hostjob.c, cls__host_inline).  Where flush_runs holds: there a
 *   host function's usual gate (a command waiting for a user event that a
 *   worker thread sets once the function returns) can never be flushed,
 *   since the flush waits for the gate on the caller's thread, and a
 *   worker may not make the driver calls instead (Oclgrind's runtime is
 *   not thread-safe).  A host function that blocks until its caller does
 *   something deadlocks there.  CLSTREAM_HOST_INLINE=1 forces it on every
 *   device, so that CI runs this path on PoCL too.
 * - flush_together: the commands of one clFlush complete together
 *   (rusticl in Mesa 22.3), so a command that waits for a user event holds
 *   back the completion of every command flushed with it; the marker that
 *   starts a host function is flushed on its own (hostjob.c).
 * - flush_to_start: an unflushed command may never start, so the command
 *   path flushes after every command.  NVIDIA's driver (580) and PoCL (3.1
 *   and 5.0) were measured to start unflushed work on their own
 *   (docs/drivers.md); every other driver is assumed not to.
 * - flush_waited: a command that the host or another queue will wait
 *   for (one with an event: a record's marker, a copy someone waits for;
 *   a position named for a wait) is flushed at once, so that it has
 *   started by the time anyone waits.  Not on NVIDIA's driver, which
 *   submits work at enqueue: an idle marker left unflushed, with no
 *   OpenCL call after it, ran 10-12 us after it was queued, as a flushed
 *   one did (12-17 us), while a clFlush costs 1.5-1.9 us there (H200,
 *   driver 580; docs/drivers.md), most of what a record on an idle stream
 *   cost over raw OpenCL's marker.  PoCL's unflushed markers ran as
 *   promptly (3.1: 15-23 us, 5.0: 20-48 us) but its flushes cost 5 ns, so
 *   it keeps them.  Always on where flush_to_start is.
 *   CLSTREAM_FLUSH_WAITED=0 or 1 forces it off or on elsewhere, so that
 *   CI on PoCL runs NVIDIA's path too.
 * - command_events: launches, copies and fills ask the driver for their
 *   events (cls__ocl_event_slot, enqueue.h: the command path of launch.c
 *   and copy.c).  Not on NVIDIA's driver, where asking costs more than the
 *   command (+7.1 us on a 4.9 us launch) while naming a stream's position
 *   later with a barrier costs 0.8 us (and a failed kernel loses the whole
 *   context there, so no failure hides behind a missing event); on every
 *   other driver, since PoCL's events are nearly free (654 ns for a launch
 *   with its event, 644 without), a later barrier would cost more, and
 *   the barrier would not carry the failure of a command that failed
 *   before it was enqueued (PoCL chains a command only to an unfinished
 *   predecessor, docs/drivers.md); the others are unmeasured.  On PoCL
 *   the event also lets a record right behind a command stand on it
 *   instead of a marker: without it kernel_record_sync, copy_record_sync
 *   and pingpong ran slower there, while a launch's instructions fell
 *   from 1.2 to 1.00-1.05 of raw's (bench/RESULTS.md, 2026-12-04).
 *   CLSTREAM_COMMAND_EVENTS=0 or 1 forces either, so that CI on PoCL runs
 *   the event-less path too.
 * - kc_guard: a launch whose grid is wider than any earlier
 *   launch of its kernel and block waits for those still in flight
 *   (kcguard.c), on PoCL 4.x and 5.x, whose CPU drivers otherwise abort
 *   in pocl_release_dlhandle_cache (read from the platform's version;
 *   docs/repro/pocl5_dlhandle.c).  CLSTREAM_KERNEL_CACHE_GUARD=0 or 1
 *   forces it off or on, so that CI on PoCL 3.1 runs it too.
 * - warp_const: modules are built with -DCLS__WARP_CONST=1, which makes
 *   the prelude's cls_warp_size() the constant 32 instead of its
 *   sub-group spelling, on PoCL 4.0 to 6.x where the compiler has
 *   sub-groups (read from the platform's version): those drivers treat a
 *   barrier loop bounded by the sub-group size as divergent, and PoCL 5.0
 *   crashed on issue 35's reduction (cls__facts_warp_const, facts.h;
 *   docs/repro/pocl5_local_reduce.c).  On PoCL's CPU devices a sub-group
 *   is the block's X dimension, not a warp: 32 is also what
 *   clsDeviceProp.warpSize says.
 * - no_timestamps: decided when the device is opened, by the start-up
 *   timestamp check (open.c measures, cls__facts_open decides): a 4 MiB fill
 * that takes no time, or a profiling resolution of 0 (rusticl: timestamps of 2
 * or 3), means the device cannot time work, and clsEventElapsedTime returns
 *   clsErrorNotSupported rather than 0.000 ms for real work.
 * - markers_after_work, markers_after_gate, timing_fallback (kept in the
 *   device beside its facts): decided by the same check, whether markers
 *   after device work, on an idle queue and behind a user event are
 *   stamped on the device's clock; where not, timed records there are a
 *   tiny copy instead (NVIDIA's driver: wrong behind a user event).
 *   CLSTREAM_TIMING_FALLBACK forces either.
 * - host_clock: decided by the same check: the host clock (if any) that
 *   the device's profiling timestamps are read from, five idle markers
 *   each queued and ended between the host's readings around it (PoCL:
 *   CLOCK_MONOTONIC_RAW; NVIDIA's driver: none, its clock runs 73-90 us
 *   ahead of CLOCK_REALTIME), and none where two host clocks fit.  A
 *   timed record on an idle stream then reads that clock and enqueues
 *   nothing (event.c).  CLSTREAM_HOST_CLOCK=0 turns it off.  The choice
 *   from the samples is a pure function, cls__facts_pick_host_clock in
 *   facts.h, which test_device checks without a device.
 * - replay_command_buffers: an executable graph's replay records its
 *   kernels into a cl_khr_command_buffer at instantiate, only where the
 *   device has the extension and a measurement showed that replaying the
 *   buffer beats enqueueing the prepared kernels (replay.c).  No device
 *   has shown that yet: on PoCL 3.1's CPU device (extension 0.9.0) a
 *   command buffer of 100 tiny kernels replayed at 2.1-3.4 us per kernel
 *   against 1.75-2.65 us for plain enqueues, and the prepared enqueues
 *   themselves cost 1.04 of the driver's clEnqueueNDRangeKernel alone
 *   (instructions, docs/drivers.md); NVIDIA's driver and rusticl 22.3
 *   lack the extension.  So it is 0 everywhere until a device measures
 *   otherwise, and replay.c has no command-buffer path to take.
 * - kernel_clock, clock_ptx: decided when the device is opened, by
 *   building the prelude (cl/clstream_kernel.h) with a kernel that reads
 *   cls_clock64(): first with -DCLS__CLOCK_PTX=1, which makes it inline
 *   PTX (%clock64), on a GPU (PTX is a GPU's; a failed build elsewhere
 *   is noise: Oclgrind reports it as an API error); where that builds
 *   the compiler is NVIDIA's (its builtin cycle counter reads 0; the PTX
 *   counter advanced 45.6 M cycles over a 10^7-iteration spin on the
 *   H200), and every module is built with that -D (module.c).  Else
 *   without it: the prelude's own choice (cl_khr_kernel_clock's device
 *   clock, or the CPU's time-stamp counter where kernels compile for the
 *   CPU) builds or not.  Where nothing builds there is no clock, and
 *   cls_clock64() stays a build error (rusticl, Oclgrind).  The
 *   compiler is told by what it builds, never by its name.
 * - svm_args_stick: decided on first need, by the argument-form probe
 *   (formprobe.c measures, cls__facts_svm_args decides): a kernel
 *   object's argument that once held an SVM pointer refuses a buffer
 *   (NVIDIA's driver: CL_INVALID_KERNEL_ARGS at the enqueue).  There a
 *   launch passing a buffer on such an argument runs the function's other
 *   kernel object (launch.c).  The probe (a build, 30-50 ms on PoCL 3.1)
 *   runs only when a launch first passes a buffer on an argument that
 *   held an SVM pointer, never at start-up.  A probe the driver's lack of
 *   resources stopped decides nothing: that launch fails with the code,
 *   and the next one probes again.
 * The facts decided at opening (no_timestamps, host_clock and the marker
 * facts) are decided here too, by cls__facts_open, from what open.c's
 * start-up check measured; this file is the one writer of d->facts and of
 * the marker facts.
 */
#include "driver.h"

#include "facts.h"

#include <CL/cl_icd.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "OpenCL 1.2 ..." -> 12; 0 when it cannot be read. */
static int cls__parse_version(const char *v) {
  int major = 0, minor = 0;
  if (sscanf(v, "OpenCL %d.%d", &major, &minor) != 2) return 0;
  return major * 10 + minor;
}

static int cls__platform_version(cl_platform_id p) {
  char v[128] = "";
  if (clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof v - 1, v, NULL) !=
      CL_SUCCESS)
    return 0;
  return cls__parse_version(v);
}

static int cls__device_version(cl_device_id d) {
  char v[128] = "";
  if (clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof v - 1, v, NULL) !=
      CL_SUCCESS)
    return 0;
  return cls__parse_version(v);
}

/* Whether the platform says it is reached through an ICD loader
 * (cl_khr_icd): only then do its objects start with a dispatch table. */
static int cls__platform_is_icd(cl_platform_id p) {
  char ext[4096] = "";
  if (clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS, sizeof ext - 1, ext, NULL) !=
      CL_SUCCESS)
    return 0;
  return strstr(ext, "cl_khr_icd") != NULL;
}

int cls__facts_version(cl_platform_id p, cl_device_id d) {
  int pv = cls__platform_version(p), dv = cls__device_version(d);
  if (!pv) return dv ? dv : 10;
  if (!dv) return pv;
  return pv < dv ? pv : dv;
}

int cls__facts_can_split(cl_platform_id p, cl_device_id d) {
  if (cls__facts_version(p, d) < 12) return 0;
  /* The ICD loader forwards clCreateSubDevices through the device's
   * dispatch table: a driver without the entry point leaves it NULL. */
  if (cls__platform_is_icd(p)) {
    struct _cl_icd_dispatch *const *table = (void *)d;
    if (!*table || !(*table)->clCreateSubDevices) return 0;
  }
  cl_uint max = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max, &max,
                      NULL) != CL_SUCCESS ||
      max < 2)
    return 0;
  cl_device_partition_property props[16] = {0};
  size_t n = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_PARTITION_PROPERTIES, sizeof props, props,
                      &n) != CL_SUCCESS)
    return 0;
  for (size_t i = 0; i < n / sizeof props[0] && i < 16; ++i)
    if (props[i] == CL_DEVICE_PARTITION_EQUALLY) return 1;
  return 0;
}

/* Case-insensitive substring. */
static int cls__has_word(const char *s, const char *w) {
  size_t n = strlen(w);
  for (; *s; ++s) {
    size_t i = 0;
    while (i < n && s[i] && (s[i] | 0x20) == (w[i] | 0x20)) ++i;
    if (i == n) return 1;
  }
  return 0;
}

int cls__facts_simulator(const char *platform, const char *device) {
  return cls__has_word(platform, "oclgrind") ||
         cls__has_word(device, "oclgrind");
}

/* Whether d's compiler predefines `name` (d->predef, device.c). */
static int cls__predefined(const cls__ocl_device *d, const char *name) {
  for (const char *const *p = d->predef; p && *p; ++p)
    if (!strcmp(*p, name)) return 1;
  return 0;
}

/* CLSTREAM_MEMORY=buffers forces buffer-backed memory on every device,
 * =svm (or unset) keeps SVM where the device has it. */
static int cls__force_buffers(void) {
  const char *v = cls__setting(CLS__SET_MEMORY);
  return v && !strcmp(v, "buffers");
}

/* CLSTREAM_MEMORY=coarse keeps coarse-grained SVM device memory but
 * leaves the device's fine-grained SVM unused, so that pinned, registered
 * and managed memory are host buffers (hostmem.c), as on a device with
 * coarse-grained SVM alone (NVIDIA's OpenCL): CI on PoCL runs that path. */
static int cls__force_coarse(void) {
  const char *v = cls__setting(CLS__SET_MEMORY);
  return v && !strcmp(v, "coarse");
}

/* Whether the platform is PoCL 4.x or 5.x, whose CPU drivers release a
 * finished launch's loaded kernel by looking it up by kernel and block
 * alone, ignoring the grid width it was loaded for: two entries of one
 * kernel and block then get each other's releases, and the assertion
 * found->ref_count > 0 aborts the process (PoCL's source, tags v4.0 and
 * v5.0; fixed in 6.0; 3.1 and earlier take two references per launch and
 * never reach 0).  Read from CL_PLATFORM_VERSION, "OpenCL 3.0 PoCL 5.0+...". */
static int cls__pocl_cache_bug(cl_platform_id p) {
  char v[256] = "";
  if (clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof v - 1, v, NULL) !=
      CL_SUCCESS)
    return 0;
  const char *at = strstr(v, "PoCL ");
  int major = 0;
  if (!at || sscanf(at, "PoCL %d", &major) != 1) return 0;
  return major == 4 || major == 5;
}

/* Whether the device's compiler has sub-groups (the prelude's
 * cls_warp_size() then reads the sub-group size). */
static int cls__has_subgroups(cl_device_id id) {
  size_t n = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS ||
      !n)
    return 0;
  char *ext = malloc(n + 1);
  int has =
      ext &&
      clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS &&
      (ext[n] = '\0', strstr(ext, "cl_khr_subgroups") != NULL);
  free(ext);
  return has;
}

void cls__facts_read(cls__ocl_device *d) {
  cls__ocl_facts *f = &d->facts;
  f->version = cls__facts_version(d->plat->id, d->id);
  f->simulator = cls__facts_simulator(d->plat->name, d->name);
  int svm = f->version >= 20 && (d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
  if (!svm) d->svm = 0; /* never make an SVM call on this device */
  if (cls__force_coarse()) d->svm &= CL_DEVICE_SVM_COARSE_GRAIN_BUFFER;
  f->buffers = !svm || cls__force_buffers();
  f->flush_runs = cls__has_word(d->plat->name, "oclgrind");
  f->flush_together = cls__has_word(d->plat->name, "rusticl");
  const char *hi = cls__setting(CLS__SET_HOST_INLINE);
  f->host_inline = f->flush_runs || (hi && !strcmp(hi, "1"));
  int nvidia = strstr(d->plat->name, "NVIDIA") != NULL;
  f->flush_to_start =
      !nvidia && !strstr(d->plat->name, "Portable Computing Language");
  const char *fw = cls__setting(CLS__SET_FLUSH_WAITED);
  f->flush_waited = f->flush_to_start ||
                    (fw && (*fw == '0' || *fw == '1') ? *fw == '1' : !nvidia);
  const char *ce = cls__setting(CLS__SET_COMMAND_EVENTS);
  f->command_events = ce && (*ce == '0' || *ce == '1') ? *ce == '1' : !nvidia;
  /* No device has measured command buffers to pay (above), whether or
   * not it has the extension (d->ident.command_buffer). */
  f->replay_command_buffers = 0;
  const char *kg = cls__setting(CLS__SET_KERNEL_CACHE_GUARD);
  f->kc_guard = kg && (*kg == '0' || *kg == '1')
                    ? *kg == '1'
                    : cls__pocl_cache_bug(d->plat->id);
  char pv[256] = "";
  if (clGetPlatformInfo(d->plat->id, CL_PLATFORM_VERSION, sizeof pv - 1, pv,
                        NULL) != CL_SUCCESS)
    pv[0] = '\0';
  f->warp_const = cls__facts_warp_const(pv, cls__has_subgroups(d->id));
  cl_uint bits = 0;
  if (clGetDeviceInfo(d->id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                      NULL) != CL_SUCCESS ||
      bits < 8)
    bits = 1024; /* 128 bytes, the largest seen */
  f->base_align = bits / 8;
}

void cls__facts_svm_args(cls__ocl_device *d, int seen) {
  d->facts.svm_args_stick = seen != 0;
  if (seen && cls__log_enabled())
    fprintf(stderr,
            "clstream: device %d (%s): a kernel argument that held an SVM "
            "pointer %s a buffer; such launches use a second kernel "
            "object\n",
            d->index, d->name, "refuses");
}

/* ---- Facts decided when the device is opened ---------------------------- */

/* Checks once that markers are stamped on the same clock as device work,
 * and not before the work they follow: a marker after a fill, a marker on
 * an idle queue, and a marker held by a user event, each against fills.
 * Where a driver gets any of this wrong (early stamps, or host-clock
 * stamps for markers that do no device work), timed records use a tiny
 * fill command instead, and timed events never stand on markers. */
static void cls__set_marker_facts(cls__ocl_device *d, int work, int gate) {
  d->markers_after_work = work;
  d->markers_after_gate = work && gate;
  d->timing_fallback = !work ? 1 : !gate ? 2 : 0;
}

/* Whether the prelude and a kernel reading cls_clock64() build on d with
 * `options`.  Only a build: nothing runs. */
static int cls__clock_builds(cls__ocl_device *d, const char *options) {
  static const char probe[] =
      "\nCLS_KERNEL void cls__clock_probe(CLS_GLOBAL ulong *out) {\n"
      "  out[0] = cls_clock64();\n"
      "}\n";
  size_t plen = strlen(cls__prelude);
  char *src = malloc(plen + sizeof probe);
  if (!src) return 0;
  memcpy(src, cls__prelude, plen);
  memcpy(src + plen, probe, sizeof probe);
  const char *text = src;
  cl_int err;
  cl_program p = clCreateProgramWithSource(d->ctx, 1, &text, NULL, &err);
  int ok = p && err == CL_SUCCESS &&
           clBuildProgram(p, 1, &d->id, options, NULL, NULL) == CL_SUCCESS;
  if (p) clReleaseProgram(p);
  free(src);
  return ok;
}

/* Which clock cls_clock64() reads on d (see the list at the top). */
static void cls__probe_clock(cls__ocl_device *d) {
  d->facts.clock_ptx = 0;
  d->facts.kernel_clock = 0;
  /* A simulator has no clock, and each failed probe build would be one
   * more of its API-error reports (Oclgrind's type claims every kind). */
  if (d->facts.simulator) return;
  if ((d->type & CL_DEVICE_TYPE_GPU) && !(d->type & CL_DEVICE_TYPE_CPU) &&
      cls__clock_builds(d, "-DCLS__CLOCK_PTX=1")) {
    d->facts.clock_ptx = 1;
    d->facts.kernel_clock = 1;
  } else if (((d->type & CL_DEVICE_TYPE_CPU) ||
              cls__predefined(d, "cl_khr_kernel_clock")) &&
             cls__clock_builds(d, "")) {
    /* Only where the prelude can have a clock without PTX: a kernel
     * clock extension, or a compiler for the CPU (a failed build prints
     * its errors on some drivers' stderr: rusticl's). */
    d->facts.kernel_clock = cls__predefined(d, "cl_khr_kernel_clock") ? 2 : 3;
  }
}

void cls__facts_open(cls__ocl_device *d, const cls__timing_seen *m) {
  cls__probe_clock(d);
  cls__set_marker_facts(d, 1, 1); /* where the check could not run */
  if (m->ran) {
    cls__set_marker_facts(d, m->work, m->gate);
    int ok = m->work && m->gate;
    d->facts.no_timestamps =
        !cls__facts_can_time(d->timer_res_ns, m->fill_timed);
    d->facts.host_clock = m->host_clock;
    if (d->facts.no_timestamps) cls__set_marker_facts(d, 1, 1);
    if (d->facts.no_timestamps && cls__log_enabled())
      fprintf(stderr,
              "clstream: device %d (%s): profiling timestamps cannot time "
              "work (resolution %zu ns); clsEventElapsedTime returns "
              "clsErrorNotSupported\n",
              d->index, d->name, d->timer_res_ns);
    if (!ok && !d->facts.no_timestamps && cls__log_enabled())
      fprintf(stderr,
              "clstream: device %d (%s): marker timestamps disagree with "
              "device work%s; those timed records use a 4-byte copy\n",
              d->index, d->name,
              m->work ? " behind a user event (host functions, bridged waits)"
                      : "");
  }
  /* CLSTREAM_TIMING_FALLBACK=1 forces the fallback (so that CI on a
   * driver with good marker timestamps still exercises it), =0 forbids it
   * (to measure what it costs), =gate uses it only behind user events. */
  const char *force = cls__setting(CLS__SET_TIMING_FALLBACK);
  if (force && (!strcmp(force, "0") || !strcmp(force, "1")))
    cls__set_marker_facts(d, *force == '0', *force == '0');
  else if (force && !strcmp(force, "gate")) /* what NVIDIA's driver does */
    cls__set_marker_facts(d, 1, 0);
  /* A forced fallback stands for a driver whose clock is not the host's
   * (NVIDIA's); CLSTREAM_HOST_CLOCK=0 turns the host clock off alone, so
   * that CI runs idle-stream records as markers too. */
  const char *hc = cls__setting(CLS__SET_HOST_CLOCK);
  if ((force && strcmp(force, "0") != 0) || (hc && !strcmp(hc, "0")))
    d->facts.host_clock = 0;
}
