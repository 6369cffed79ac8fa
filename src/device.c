/* Devices: library initialization, the per-thread current device, device
 * queries, and the public view of the settings (clsGetSetting; settings.c
 * reads them) and of CLSTREAM_DEVICE's rule (clsDeviceMatchesName). */
#include "device.h"

#include "internal.h"
#include "settings.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t cls__once = PTHREAD_ONCE_INIT;
static clsError_t cls__init_result = clsErrorInitializationError;
static int cls__ndevices;
static int cls__default_dev = -1;
static cls__limits *cls__limit_table;

/* The thread's current device, opened; -1 until set or first used (then
 * the default applies). */
_Thread_local int cls__current CLS__TLS_FAST = -1;

/* ---- How CLSTREAM_DEVICE names a device -------------------------------- */

/* Whether s is all decimal digits (an index rather than a name). */
static int cls__all_digits(const char *s) {
  for (; *s; ++s)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* Whether `hay` contains `needle`, ignoring ASCII case. */
static int cls__contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; ++hay) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == n) return 1;
  }
  return n == 0;
}

/* Whether CLSTREAM_DEVICE=value, not all digits, names the device `name`
 * of `platform`. */
static int cls__names_device(const char *name, const char *platform,
                             const char *value) {
  return cls__contains_nocase(name, value) ||
         cls__contains_nocase(platform, value);
}

/* The default device, the same way on every backend: CLSTREAM_DEVICE as
 * an index (digits only) or a case-insensitive substring of a device's or
 * its platform's name, else the first selectable device.  -1, with a
 * reason, when CLSTREAM_DEVICE names no device. */
static int cls__pick_default(int n, const clsDeviceProp *props) {
  const char *v = cls__setting(CLS__SET_DEVICE);
  if (!v || !*v) {
    for (int d = 0; d < n; ++d)
      if (props[d].selectable) return d;
    return 0; /* opening it reports why it cannot be used */
  }
  if (cls__all_digits(v)) {
    long d = strtol(v, NULL, 10);
    if (d >= 0 && d < n) return (int)d;
    cls__reason(clsErrorInvalidDevice,
                "CLSTREAM_DEVICE=%s: there are %d "
                "devices",
                v, n);
    return -1;
  }
  for (int d = 0; d < n; ++d)
    if (cls__names_device(props[d].name, props[d].platformName, v)) return d;
  cls__reason(clsErrorInvalidDevice,
              "CLSTREAM_DEVICE=%s matches no device or platform name", v);
  return -1;
}

static void cls__init_once(void) {
  clsError_t e = cls__b_init();
  if (e != clsSuccess) {
    cls__init_result = e;
    return;
  }
  cls__ndevices = cls__b_device_count();
  cls__limit_table = calloc(cls__ndevices ? (size_t)cls__ndevices : 1,
                            sizeof *cls__limit_table);
  if (!cls__limit_table) {
    cls__init_result = clsErrorMemoryAllocation;
    return;
  }
  clsDeviceProp *props =
      calloc(cls__ndevices ? (size_t)cls__ndevices : 1, sizeof *props);
  if (!props) {
    cls__init_result = clsErrorMemoryAllocation;
    return;
  }
  for (int d = 0; d < cls__ndevices; ++d) {
    const clsDeviceProp *p = &props[d];
    if (cls__b_device_props(d, &props[d]) != clsSuccess) continue;
    cls__limits *l = &cls__limit_table[d];
    l->max_threads_per_block = p->maxThreadsPerBlock;
    memcpy(l->max_threads_dim, p->maxThreadsDim, sizeof l->max_threads_dim);
    memcpy(l->max_grid, p->maxGridSize, sizeof l->max_grid);
    l->shared_mem_per_block = p->sharedMemPerBlock;
  }
  cls__default_dev = cls__pick_default(cls__ndevices, props);
  free(props);
  cls__init_result = clsSuccess;
}

clsError_t cls__init(void) {
  pthread_once(&cls__once, cls__init_once);
  if (CLS__UNLIKELY(cls__init_result != clsSuccess))
    return cls__reason(cls__init_result, "library initialization failed");
  return clsSuccess;
}

const cls__limits *cls__device_limits(int dev) {
  return &cls__limit_table[dev];
}

/* The thread's current device without opening it. */
static clsError_t cls__current_index(int *dev) {
  *dev = 0;
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  int d = cls__current;
  if (CLS__LIKELY(d >= 0)) {
    *dev = d;
    return clsSuccess;
  }
  if (cls__ndevices == 0)
    return cls__reason(clsErrorNoDevice, "no OpenCL or CUDA device found");
  if (cls__default_dev < 0)
    return cls__reason(clsErrorInvalidDevice,
                       "CLSTREAM_DEVICE names no device");
  *dev = cls__default_dev;
  return clsSuccess;
}

clsError_t cls__current_device_open(int *dev) {
  /* cls__current is set only once its device is open: the hot path
   * (device.h) is one TLS read. */
  clsError_t e = cls__current_index(dev);
  if (e == clsSuccess) e = cls__b_device_open(*dev);
  /* As in CUDA, the default device becomes the thread's current one. */
  if (e == clsSuccess) cls__current = *dev;
  return e;
}

/* Initializes the library and checks that `device` is one of its devices. */
static clsError_t cls__valid_device(int device) {
  clsError_t e = cls__init();
  if (e == clsSuccess && (device < 0 || device >= cls__ndevices))
    e = cls__reason(clsErrorInvalidDevice, "device %d is not in 0..%d", device,
                    cls__ndevices - 1);
  return e;
}

clsError_t clsGetDeviceCount(int *count) {
  CLS__NOT_IN_HOST_FN();
  if (!count) CLS__RETURN(cls__reason(clsErrorInvalidValue, "count is NULL"));
  clsError_t e = cls__init();
  if (e == clsSuccess && cls__ndevices == 0)
    e = cls__reason(clsErrorNoDevice, "no OpenCL or CUDA device found");
  *count = e == clsSuccess ? cls__ndevices : 0;
  CLS__RETURN(e);
}

clsError_t clsSetDevice(int device) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e = cls__valid_device(device);
  if (e != clsSuccess) CLS__RETURN(e);
  e = cls__b_device_open(device);
  if (e == clsSuccess) cls__current = device;
  CLS__RETURN(e);
}

clsError_t clsGetDevice(int *device) {
  CLS__NOT_IN_HOST_FN();
  if (!device) CLS__RETURN(cls__reason(clsErrorInvalidValue, "device is NULL"));
  CLS__RETURN(cls__current_index(device));
}

clsError_t clsGetDeviceProperties(clsDeviceProp *prop, int device) {
  CLS__NOT_IN_HOST_FN();
  if (!prop) CLS__RETURN(cls__reason(clsErrorInvalidValue, "prop is NULL"));
  clsError_t e = cls__valid_device(device);
  if (e != clsSuccess) CLS__RETURN(e);
  CLS__RETURN(cls__b_device_props(device, prop));
}

clsError_t clsDeviceGetStreamPriorityRange(int *least, int *greatest) {
  CLS__NOT_IN_HOST_FN();
  int dev, l, g;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  cls__b_priority_range(dev, &l, &g);
  if (least) *least = l;
  if (greatest) *greatest = g;
  CLS__RETURN(clsSuccess);
}

/* ---- Which devices a CLSTREAM_DEVICE value names ---------------------- */

clsError_t clsDeviceMatchesName(int *match, int device, const char *value) {
  CLS__NOT_IN_HOST_FN();
  if (!match) CLS__RETURN(cls__reason(clsErrorInvalidValue, "match is NULL"));
  if (!value) CLS__RETURN(cls__reason(clsErrorInvalidValue, "value is NULL"));
  clsError_t e = cls__valid_device(device);
  if (e != clsSuccess) CLS__RETURN(e);
  if (!*value) {
    *match = 0; /* an empty CLSTREAM_DEVICE leaves the default */
    CLS__RETURN(clsSuccess);
  }
  if (cls__all_digits(value)) {
    *match = strtol(value, NULL, 10) == device;
    CLS__RETURN(clsSuccess);
  }
  clsDeviceProp p;
  e = cls__b_device_props(device, &p);
  if (e == clsSuccess)
    *match = cls__names_device(p.name, p.platformName, value);
  CLS__RETURN(e);
}

/* ---- Settings in force (settings.c reads them) -----------------------------
 */

clsError_t clsGetSetting(clsSetting *setting, int index) {
  if (!setting)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "setting is NULL"));
  if (index < 0 || index >= CLS__SET_COUNT)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "setting %d: there are %d settings", index,
                            (int)CLS__SET_COUNT));
  enum cls__setting_id id = (enum cls__setting_id)index;
  setting->name =
      cls__setting_about(id, &setting->meaning, &setting->whenUnset);
  setting->value = cls__setting(id);
  CLS__RETURN(clsSuccess);
}
