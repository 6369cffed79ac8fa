/*
 * OpenCL backend: what a module's functions are (cls__bfunction,
 * cls__bmodule), shared by the module (module.c), its functions
 * (function.c) and launches (launch.c).  Internal to the commands layer.
 */
#ifndef CLSTREAM_OPENCL_FUNCTION_H
#define CLSTREAM_OPENCL_FUNCTION_H

#include "command.h"
#include "kernel_rw.h"
#include "modbuild.h"

#include <stdint.h>

enum cls__arg_kind {
  CLS__ARG_POINTER = 1, /* cls__ocl_set_pointer_arg(*(void **)args[i]) */
  CLS__ARG_VALUE = 2,   /* clSetKernelArg(size, args[i]) */
  CLS__ARG_VEC3 = 3,    /* a 3-element vector: see below */
  CLS__ARG_UNSUPPORTED = 4,
  CLS__ARG_HIDDEN = 5 /* added by the rewrite (kernel_rw.c): set by launch.c */
};

/* An OpenCL 3-element vector occupies 4 elements, but the host value the
 * caller points to may hold only 3 (a CUDA-style int3 is 12 bytes), so a
 * launch copies the 3 elements into a zeroed 4-element buffer rather than
 * read past the caller's object. */
#define CLS__VEC3_MAX 32 /* double3, long3 and ulong3 */

/* What the kernel object holds for an argument since the last launch
 * set it (under the function's lock): a launch that passes the same value
 * again makes no clSetKernelArg call, since a cl_kernel keeps its
 * arguments between enqueues.  A pointer is trusted only while the
 * allocation table's generation is unchanged (no free since it was
 * checked), and only when it went to the driver as an SVM pointer or as
 * NULL: a buffer or sub-buffer argument is a cl_mem that a free or the
 * sub-buffer cache may release.  Values of 1, 2, 4, 8 or 16 bytes (every
 * scalar and vector of up to CLS__ARG_KEEP bytes), kept zero-padded in
 * `last` so that a compare is two integer compares. */
#define CLS__ARG_KEEP 16
typedef struct cls__argcache {
  int held;     /* `last` is what the kernel object holds */
  int svm;      /* the last pointer set went as an SVM pointer (see below) */
  int svm_ever; /* the kernel object's argument has held an SVM pointer */
  size_t gen;
  uint64_t last[2]; /* the value, or the pointer in last[0] */
} cls__argcache;

/* How a launch sets an argument, decided when the function is created:
 * the kind, and for a value the cache may skip (with the function's
 * keep_args) its size, so that the launch path makes one dispatch. */
enum cls__arg_op {
  CLS__OP_POINTER,
  CLS__OP_KEEP1,
  CLS__OP_KEEP2,
  CLS__OP_KEEP4,
  CLS__OP_KEEP8,
  CLS__OP_KEEP16,
  CLS__OP_VALUE, /* a value the cache does not keep */
  CLS__OP_VEC3,
  CLS__OP_PTR_OFF /* a pointer passed as a buffer and an offset argument */
};

/* A function's other kernel object (see cls__bfunction's `other`): the
 * kernel object, and what it holds of the arguments (held[i] for
 * argument i, the dynamic shared size), swapped with the function's own
 * when a launch moves to it. */
typedef struct cls__kobj {
  cl_kernel k;
  size_t dyn_held;
  cls__argcache *held; /* nargs entries; NULL until first need */
} cls__kobj;

typedef struct cls__oarg {
  size_t size; /* bytes passed to clSetKernelArg */
  size_t copy; /* bytes read from args[i], for CLS__ARG_VEC3 */
  int kind;
  int op;          /* enum cls__arg_op (for a supported kind) */
  cl_uint off_arg; /* CLS__OP_PTR_OFF: the index of its offset argument */
  cls__argcache held;
} cls__oarg;

struct cls__bfunction {
  cl_kernel k;
  /* The program k comes from: the module's, or in an offset variant the
   * variant's; fresh kernel objects are made from it. */
  cl_program prog;
  cls__lock lock; /* held while the kernel's arguments are set */
  cl_uint nargs;
  cl_uint nuser; /* the parameters args[] sets: those before the hidden */
  /* The hidden __local argument of CLS_DYNAMIC_SHARED (-1: none), the
   * size it holds (0: none set), and the kernel's own local memory. */
  int dyn;
  size_t dyn_held;
  int gbase; /* the hidden argument of the module globals' base (-1: none) */
  cl_ulong static_local;
  int bad;        /* index of the first unsupported parameter, or -1 */
  char *bad_msg;  /* why it is unsupported (when bad >= 0) */
  size_t hint_wg; /* CL_KERNEL_WORK_GROUP_SIZE (for messages only) */
  int keep_args;  /* skip arguments the kernel holds (CLSTREAM_ARG_CACHE=0:
                     never, to rule the cache out when a driver misbehaves) */
  char *name;
  struct cls__bfunction *next; /* the module's list */
  struct cls__bmodule *mod;    /* its module */
  /* The offset variant (SVM-memory devices only): the same kernel built
   * from the module's source rewritten with an offset argument per
   * pointer parameter (cls__ocl_offvar_get, modbuild.c), with its own kernel
   * object, arguments and lock.  Made on the first launch that passes a
   * host buffer at an offset no sub-buffer takes; such launches run it
   * instead (launch.c).  Read and written under `lock`; NULL until then,
   * and always in a variant itself. */
  struct cls__bfunction *alt;
  /* Where the device's driver refuses a buffer on an argument that once
   * held an SVM pointer (facts.svm_args_stick), the function keeps two
   * kernel objects of its kernel, k and `other`, and a launch whose
   * buffer meets such an argument of k swaps them and sets its arguments
   * on the other one (cls__ocl_function_swap, function.c), whose own
   * argument cache then holds.  Launches alternating between device
   * memory (SVM pointers) and host buffers thus settle on one object per
   * form; an object whose arguments took both forms is made again.
   * Under `lock`. */
  cls__kobj other;
  cls__oarg args[];
};

struct cls__bmodule {
  cls__ocl_device *dev;
  cl_program prog;
  pthread_mutex_t lock; /* guards fns */
  struct cls__bfunction *fns;
  /* The source as built and its options, from which parameter types are
   * read where the driver gives none: the module was built without
   * -cl-kernel-arg-info (arg_info 0), or the driver answers
   * CL_KERNEL_ARG_INFO_NOT_AVAILABLE. */
  char *source;
  char *options;
  int arg_info;
  /* What the rewrite found (kernel_rw.c; rw.source is not kept): the
   * measured sizes of by-value structs, and the globals, which live in
   * `gstore` (device memory of gbytes bytes, or NULL). */
  cls__rw rw;
  void *gstore;
  size_t gbytes;
  /* SVM-memory devices: the offset variant (modbuild.h), under `lock`. */
  cls__offvar off;
};

/* Measures what m's rewrite asked for and sets up its globals
 * (modmeta.c). */
clsError_t cls__ocl_module_meta(cls__bmodule *m);

/* f's offset variant (see cls__bfunction), made on first need, under
 * f->lock.  On failure the driver's code with `why` (function.c). */
cl_int cls__ocl_function_offsets(cls__bfunction *f, cls__bfunction **out,
                                 char *why, size_t nwhy);

/* A fresh kernel object of f's kernel (for f's other object, or a graph
 * node's own), with the one hidden argument set once for good: the
 * module globals' base.  NULL with *err on failure (function.c). */
cl_kernel cls__ocl_function_kernel(const cls__bfunction *f, cl_int *err);
/* Sets pointer parameter i of kernel object k to ptr as the buffer path
 * passes pointers: its buffer, and in hidden argument off_arg its offset
 * there; *svm says which form it took (launch.c, for replay.c too). */
cl_int cls__ocl_set_ptr_off_arg(cls__ocl_device *d, cl_kernel k, cl_uint i,
                                cl_uint off_arg, void *ptr, const char **what,
                                int *svm);
/* Makes f's other kernel object f's own (see cls__bfunction's `other`),
 * made on first need, under f->lock, for a launch whose pointer argument
 * i goes as a buffer where f's kernel object once held an SVM pointer;
 * where the other object's argument i has held one too, or `again` (the
 * launch moved once already), that object is made again first.  Returns
 * CL_SUCCESS or the driver's error (function.c). */
cl_int cls__ocl_function_swap(cls__bfunction *f, cl_uint i, int again);

/* Why a launch of f was refused, as CUDA's code with its reason
 * (launcherr.c): setting parameter i stopped it (i < f->nuser), or the
 * enqueue of a block of `threads` (i == f->nuser), with the driver's err
 * and `what`, the call or rule that refused (NULL: args[i] is NULL). */
clsError_t cls__ocl_launch_error(const cls__bfunction *f, cl_int err, cl_uint i,
                                 const char *what, size_t threads);
/* Why sharedMem bytes of dynamic shared memory do not fit beside f's own
 * local memory in the device's local_mem (CUDA's launch check,
 * launcherr.c). */
clsError_t cls__ocl_shared_error(const cls__bfunction *f, size_t sharedMem,
                                 cl_ulong local_mem);

/* Frees f, which no launch can reach any more (function.c). */
void cls__ocl_function_free(cls__bfunction *f);
/* Calls free_fn(obj) once the work pending on d now (every stream's, live
 * or destroyed) is over: at once where there is none, else from a watch
 * thread (module.c).  For objects whose driver objects launches already
 * enqueued may use: NVIDIA's driver misbehaves when a program is released
 * under its pending launches (docs/drivers.md). */
void cls__ocl_free_after_pending(cls__ocl_device *d, void (*free_fn)(void *),
                                 void *obj);

#endif /* CLSTREAM_OPENCL_FUNCTION_H */
