/* OpenCL backend: the decisions of facts.c that need no driver.
 *
 * facts.c measures a device (with driver calls) and decides its facts
 * from what it measured; where a decision is worth testing on its own,
 * it is a pure function here, from the measurements to the fact, which
 * facts.c calls and a test can include and call without a device.  (The
 * library exports only the public API, and facts.c needs the rest of the
 * backend to link, so a test cannot reach a function defined there.)
 * Nothing here calls the driver, allocates or takes a lock. */
#ifndef CLS_OPENCL_FACTS_H
#define CLS_OPENCL_FACTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One look at a candidate host clock: an idle marker enqueued between two
 * readings of that clock, and the marker's profiling stamps (ns). */
typedef struct cls__clock_sample {
  int ok;          /* every call for this sample succeeded */
  uint64_t before; /* the host clock just before the enqueue */
  uint64_t queued; /* the marker's CL_PROFILING_COMMAND_QUEUED */
  uint64_t end;    /* its CL_PROFILING_COMMAND_END */
  uint64_t after;  /* the host clock just after waiting for it */
} cls__clock_sample;

/* Whether the device's stamps of one sample lie on that host clock: the
 * marker was queued and ended, in that order, between the two readings. */
static inline int cls__clock_sample_fits(const cls__clock_sample *s) {
  return s->ok && s->before <= s->queued && s->queued <= s->end &&
         s->end <= s->after;
}

/* Which of `nclocks` candidate host clocks the device's profiling clock
 * is, from `nsamples` samples of each (samples[c * nsamples + i]: clock
 * c's sample i): the index of the one clock every sample of which fits,
 * or -1 where none does, and -1 too where more than one does.  Two host
 * clocks that both fit (CLOCK_MONOTONIC and its raw form agree to within
 * the window soon after boot) agree only for now: they drift apart as NTP
 * slews one of them, and a timed record read from the wrong one would
 * skew elapsed times against device-stamped work over a long run. */
static inline int cls__facts_pick_host_clock(const cls__clock_sample *samples,
                                             int nclocks, int nsamples) {
  int found = -1;
  for (int c = 0; c < nclocks; ++c) {
    int fits = nsamples > 0;
    for (int i = 0; i < nsamples && fits; ++i)
      fits = cls__clock_sample_fits(&samples[c * nsamples + i]);
    if (!fits) continue;
    if (found >= 0) return -1; /* two clocks fit: neither is taken */
    found = c;
  }
  return found;
}

/* What the start-up timestamp check (open.c) saw, from which
 * cls__facts_open (facts.c) decides the facts known only once a device
 * is opened.  All 0: the check could not run. */
typedef struct cls__timing_seen {
  int ran;        /* every command of the check ran */
  int work;       /* markers after device work and on an idle queue are
                     stamped on the device's clock, in order */
  int gate;       /* so are markers behind a user event */
  int fill_timed; /* the check's large fill took time */
  int host_clock; /* the host clock the stamps lie on (a clockid_t plus 1),
                     or 0: none, or not sampled */
} cls__timing_seen;

/* Whether profiling timestamps can time work: a resolution of 0 (rusticl)
 * or a large fill that took no time says they cannot. */
static inline int cls__facts_can_time(size_t timer_res_ns, int fill_timed) {
  return timer_res_ns != 0 && fill_timed;
}

/* Whether a platform whose CL_PLATFORM_VERSION is `version`, on a device
 * whose compiler has sub-groups, miscompiles a barrier in a loop whose
 * trip count comes from the sub-group size (cls_warp_size()): PoCL 4.0
 * to 6.x, whose uniformity analysis does not know the sub-group size is
 * uniform (PoCL's commit 14de379, first in 7.0, adds it; PoCL 3.1 has no
 * sub-groups).  Issue 35 met the crash on PoCL 5.0;
 * docs/repro/pocl5_local_reduce.c. */
static inline int cls__facts_warp_const(const char *version,
                                        int has_subgroups) {
  const char *at = version ? strstr(version, "PoCL ") : NULL;
  int major = 0;
  if (!has_subgroups || !at || sscanf(at, "PoCL %d", &major) != 1) return 0;
  return major >= 4 && major <= 6;
}

#endif /* CLS_OPENCL_FACTS_H */
