/* OpenCL backend, layer 2 (devices): what the backend knows of its
 * devices and their drivers, read once at enumeration and never changed
 * after (device.c, facts.c, identity.c), the parameter lists read from a
 * kernel's source (kernel_sig.c) and the timeline trace (trace.c).  The
 * layers and what each offers: docs/design.md, "The OpenCL backend". */
#ifndef CLSTREAM_OPENCL_DRIVER_H
#define CLSTREAM_OPENCL_DRIVER_H

#include "ocl.h"

/* Device `dev` (index checked by the front). */
cls__ocl_device *cls__ocl_device_get(int dev);

/* Fills d->facts (d's other fields described already). */
void cls__facts_read(cls__ocl_device *d);
/* Decides the facts known only once d is opened (no_timestamps,
 * host_clock and the marker facts: markers_after_work,
 * markers_after_gate, timing_fallback) from what the start-up check saw
 * (open.c), then applies CLSTREAM_TIMING_FALLBACK and
 * CLSTREAM_HOST_CLOCK.  Called once, by the thread opening d under
 * d->open_lock. */
struct cls__timing_seen;
void cls__facts_open(cls__ocl_device *d, const struct cls__timing_seen *m);

/* Decides svm_args_stick from the argument-form probe's answer `seen`
 * (formprobe.c: 1 refused, 0 taken).  Called once per device, under
 * formprobe.c's lock. */
void cls__facts_svm_args(cls__ocl_device *d, int seen);

/* The OpenCL version calls to device d of platform p may use (12, 20,
 * 30): the lower of the platform's and the device's. */
int cls__facts_version(cl_platform_id p, cl_device_id d);

/* Whether clCreateSubDevices can split d equally (checked before any call
 * to it: some drivers lack the entry point). */
int cls__facts_can_split(cl_platform_id p, cl_device_id d);

/* Whether device id lists extension `name` in CL_DEVICE_EXTENSIONS
 * (identity.c). */
int cls__ocl_has_extension(cl_device_id id, const char *name);

/* Whether the named device is a simulator (ranked last). */
int cls__facts_simulator(const char *platform, const char *device);

/* Fills d->ident from the driver (identity.c; at enumeration). */
void cls__ocl_identify(cls__ocl_device *d);

/* Copies what d->ident decides into *p: major.minor and the fields CUDA's
 * properties have for features (identity.c). */
void cls__ocl_identity_props(const cls__ocl_device *d, clsDeviceProp *p);

/* One kernel parameter, as clGetKernelArgInfo describes it. */
typedef struct cls__kernel_param {
  cl_kernel_arg_address_qualifier aq;
  cl_kernel_arg_access_qualifier acq;
  char type[128]; /* type words, qualifiers dropped; "*" ends a pointer */
  char name[64];
} cls__kernel_param;

/* Reads the parameters of kernel `kernel` from the program source (after
 * the build options' -D/-U and the `predefined` macros, "NAME" or
 * "NAME=VALUE", NULL-terminated), into out[0..max).  Returns how many
 * there are, or -1 with `why` saying what could not be read. */
int cls__kernel_params(const char *source, const char *options,
                       const char *const *predefined, const char *kernel,
                       cls__kernel_param *out, int max, char *why, size_t nwhy);

/* The size in bytes of the OpenCL C scalar or vector type named `tn`
 * (a 3-element vector takes 4 elements), or 0 when it is not one; *elem
 * gets one element's size and *lanes the element count (kernel_sig.c). */
size_t cls__ocl_value_size(const char *tn, size_t *elem, size_t *lanes);

/* Non-zero when CLSTREAM_TRACE names a file (set by cls__b_init). */
extern int cls__trace_on;

void cls__trace_init(void);

/* Names a stream's lane. */
void cls__trace_stream(cls__bstream *s);

/* Records a command enqueued on s (from cls__ocl_end). */
void cls__trace_command(cls__bstream *s, cl_event ev, const cls__ocl_batch *b);

/* Writes the trace file with every command completed so far. */
void cls__trace_write(void);

#endif /* CLSTREAM_OPENCL_DRIVER_H */
