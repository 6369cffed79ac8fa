/* OpenCL backend: the timeline trace.  With CLSTREAM_TRACE=path.json every
 * command (kernel, copy, set, marker, wait, host function) is remembered
 * with its stream, and the file is (re)written in the Chrome trace event
 * format at clsDeviceSynchronize and at exit, with the device's START/END
 * timestamps.  One event per line; lanes are streams (tid), processes are
 * devices (pid).  A stream is an in-order queue, so no command starts
 * before the previous one of its lane ends: spans are kept in that order,
 * and a command whose timestamps the device does not get right is drawn
 * where its stream had got to, with no duration.  Tracing takes a global lock
 * per command: it is a debugging aid, off by default, and costs nothing when
 * off. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cls__trace_on;
static char *cls__trace_path;
static pthread_mutex_t cls__trace_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct cls__tcmd {
  cl_event ev, from;
  int dev;
  unsigned sid;
  unsigned waits;
  int stamped; /* the device stamps this command right (see below) */
  char *what;
  const char *cat;
} cls__tcmd;

typedef struct cls__tlane {
  int dev;
  unsigned sid;
  char name[64];
} cls__tlane;

static cls__tcmd *cls__cmds;
static size_t cls__ncmds, cls__capcmds;
static cls__tlane *cls__lanes;
static size_t cls__nlanes, cls__caplanes;

#define CLS__TRACE_MAX ((size_t)1 << 22) /* commands kept at most */

static void cls__trace_atexit(void) { cls__trace_write(); }

void cls__trace_init(void) {
  const char *p = cls__setting(CLS__SET_TRACE);
  if (!p || !*p) return;
  cls__trace_path = strdup(p);
  if (!cls__trace_path) return;
  cls__trace_on = 1;
  atexit(cls__trace_atexit);
}

static int cls__reserve(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t c = *cap ? *cap * 2 : 256;
  void *p = realloc(*arr, c * elem);
  if (!p) return 0;
  *arr = p;
  *cap = c;
  return 1;
}

void cls__trace_stream(cls__bstream *s) {
  pthread_mutex_lock(&cls__trace_lock);
  if (cls__reserve((void **)&cls__lanes, &cls__caplanes, cls__nlanes + 1,
                   sizeof *cls__lanes)) {
    cls__tlane *l = &cls__lanes[cls__nlanes++];
    l->dev = s->dev->index;
    l->sid = s->id;
    if (s->role == CLS__ROLE_LEGACY)
      snprintf(l->name, sizeof l->name, "legacy default stream");
    else if (s->role == CLS__ROLE_PER_THREAD)
      snprintf(l->name, sizeof l->name, "per-thread stream %u", s->id);
    else
      snprintf(l->name, sizeof l->name, "stream %u%s", s->id,
               s->blocking ? "" : " (non-blocking)");
  }
  pthread_mutex_unlock(&cls__trace_lock);
}

void cls__trace_command(cls__bstream *s, cl_event ev, const cls__ocl_batch *b) {
  pthread_mutex_lock(&cls__trace_lock);
  if (cls__ncmds < CLS__TRACE_MAX &&
      cls__reserve((void **)&cls__cmds, &cls__capcmds, cls__ncmds + 1,
                   sizeof *cls__cmds)) {
    cls__tcmd *c = &cls__cmds[cls__ncmds];
    c->what = strdup(b->what ? b->what : "command");
    if (c->what) {
      clRetainEvent(ev);
      c->ev = ev;
      c->from = b->from;
      if (c->from) clRetainEvent(c->from);
      c->dev = s->dev->index;
      c->sid = s->id;
      c->waits = b->n;
      /* Device work is stamped right everywhere; markers (records, waits,
       * host-function gates) only where the device passed the start-up
       * timestamp check (NVIDIA's OpenCL stamps them on another clock). */
      c->stamped = b->work || !s->dev->timing_fallback;
      c->cat = b->cat ? b->cat : "command";
      cls__ncmds++;
    }
  }
  pthread_mutex_unlock(&cls__trace_lock);
}

static int cls__times(cl_event ev, cl_ulong *start, cl_ulong *end) {
  cl_int st = 1;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  if (st != CL_COMPLETE) return 0;
  return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof *start,
                                 start, NULL) == CL_SUCCESS &&
         clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *end, end,
                                 NULL) == CL_SUCCESS;
}

/* Writes s as a JSON string body (quotes and control characters escaped). */
static void cls__json_str(FILE *f, const char *s) {
  for (; *s; ++s) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
}

/* A command's span [*a, *z] in device nanoseconds, or 0 if it has none
 * yet.  `cursor` is where its lane had got to. */
static int cls__cmd_span(const cls__tcmd *c, cl_ulong cursor, cl_ulong *a,
                         cl_ulong *z) {
  cl_ulong fa, fz;
  if (!cls__times(c->ev, a, z)) return 0;
  if (!c->stamped) {
    *a = *z = cursor;
    return 1;
  }
  /* A host function spans from its trigger's END to its gate's END. */
  if (c->from && cls__times(c->from, &fa, &fz)) *a = fz;
  if (*a < cursor) *a = cursor;
  if (*z < *a) *z = *a;
  return 1;
}

void cls__trace_write(void) {
  if (!cls__trace_on) return;
  pthread_mutex_lock(&cls__trace_lock);
  cl_ulong base = ~(cl_ulong)0;
  for (size_t i = 0; i < cls__ncmds; ++i) {
    cl_ulong a, z;
    if (cls__cmds[i].stamped && cls__cmd_span(&cls__cmds[i], 0, &a, &z) &&
        a < base)
      base = a;
  }
  if (base == ~(cl_ulong)0) base = 0;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", cls__trace_path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    pthread_mutex_unlock(&cls__trace_lock);
    return;
  }
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  int first = 1;
  for (size_t i = 0; i < cls__nlanes; ++i) {
    fprintf(f,
            "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,"
            "\"args\":{\"name\":\"",
            first ? "" : ",\n", cls__lanes[i].dev, cls__lanes[i].sid);
    cls__json_str(f, cls__lanes[i].name);
    fprintf(f, "\"}}");
    first = 0;
  }
  /* Each lane's cursor: the END of its newest command written so far. */
  cl_ulong *cursor = calloc(cls__nlanes ? cls__nlanes : 1, sizeof *cursor);
  for (size_t i = 0; cursor && i < cls__ncmds; ++i) {
    cls__tcmd *c = &cls__cmds[i];
    size_t l = 0;
    while (l < cls__nlanes &&
           (cls__lanes[l].dev != c->dev || cls__lanes[l].sid != c->sid))
      ++l;
    cl_ulong a, z, at = l < cls__nlanes && cursor[l] ? cursor[l] : base;
    if (!cls__cmd_span(c, at, &a, &z)) continue;
    if (a < base) a = base;
    if (z < a) z = a;
    if (l < cls__nlanes) cursor[l] = z;
    fprintf(f, "%s{\"name\":\"", first ? "" : ",\n");
    cls__json_str(f, c->what);
    fprintf(f,
            "\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,"
            "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"waits\":%u}}",
            c->cat, c->dev, c->sid, (double)(a - base) / 1e3,
            (double)(z - a) / 1e3, c->waits);
    first = 0;
  }
  free(cursor);
  fprintf(f, "\n]}\n");
  int ok = fclose(f) == 0;
  if (ok) rename(tmp, cls__trace_path);
  pthread_mutex_unlock(&cls__trace_lock);
}
