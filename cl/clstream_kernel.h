/*
 * The clstream kernel dialect: prepended by clsModuleLoadData to every
 * module, so that one kernel source compiles with the OpenCL C compiler and
 * with NVRTC.
 *
 *   CLS_KERNEL        a kernel entry point
 *   CLS_GLOBAL        qualifies a pointer to device memory
 *   CLS_LOCAL         qualifies work-group (shared) memory declared in a kernel
 *   CLS_DEVICE        a helper function called from kernels
 *   cls_global_id(d)  cls_local_id(d)  cls_group_id(d)
 *   cls_local_size(d) cls_num_groups(d)          (d = 0, 1 or 2; unsigned)
 *   cls_barrier()     work-group barrier over local and global memory
 *   cls_warp_size()   CUDA's warpSize: 32 on NVIDIA devices, the largest
 *                     sub-group size where OpenCL C has sub-groups of more
 *                     than one work-item, and 32 elsewhere (PoCL 5's CPU
 *                     device has sub-groups of one: 32 there too);
 *                     docs/porting-from-cuda.md says why: code written
 *                     for warps of 32 stays correct where every step it
 *                     relies on is separated by cls_barrier()
 *   cls_clock64()     a counter that advances while a kernel runs (CUDA's
 *                     clock64(), a ulong), where the device has one; which
 *                     one is CLS_CLOCK64_KIND (the same numbers as
 *                     clsDeviceProp's kernelClock):
 *                     1 the multiprocessor's cycle counter: CUDA, and
 *                       NVIDIA's OpenCL through inline PTX (%clock64),
 *                       where the library's probe found that its compiler
 *                       builds it and passed -DCLS__CLOCK_PTX=1;
 *                     2 the device clock of cl_khr_kernel_clock
 *                       (clock_read_device(): the driver's unit);
 *                     3 the host CPU's time-stamp counter, on a device
 *                       whose kernels compile for the CPU (PoCL), through
 *                       __builtin_readcyclecounter: ticks at the CPU's
 *                       nominal rate.
 *                     Not NVIDIA's OpenCL without the probe's -D (the
 *                     builtin reads 0 there), nor compilers that go through
 *                     SPIR-V (rusticl's translator aborts on the builtin).
 * CLS_HAS_CLOCK64 is 1 where there is a clock and 0 elsewhere (rusticl,
 * Oclgrind: no cycle counter and no timer reaches OpenCL C there), where
 * using cls_clock64() is a build error that names it
 * (clsErrorInvalidSource, the log in clsGetLastBuildLog), never a counter
 * that does not advance; clstream-info says which clock each device has.
 *
 * size_t as a kernel parameter type is a host size_t: OpenCL C forbids
 * size_t parameters (its width is the device's), so in OpenCL kernel source
 * size_t and ptrdiff_t mean ulong and long, 64 bits like the host's
 * (clstream's hosts are 64-bit).
 *
 * Kernel parameters and module globals (kparams):
 *   CLS_DYNAMIC_SHARED(type, name);  in a kernel's body: CUDA's
 *                     `extern __shared__ type name[]`, the work-group's
 *                     array of clsLaunchKernel's sharedMem bytes
 *   CLS_DEVICE_GLOBAL(type, name)    at program scope: CUDA's __device__
 *   CLS_CONSTANT(type, name)         at program scope: CUDA's __constant__
 *                     (name may carry array bounds, and an initializer may
 *                     follow; the host reaches them through
 *                     clsModuleGetGlobal and clsMemcpyToSymbol).  Only
 *                     kernels, not CLS_DEVICE helpers, may name a global.
 *   Structs, unions and typedefs pass by value as kernel parameters.
 *
 * Kernel sources are C as OpenCL C accepts it; on CUDA they compile as
 * C++ (NVRTC), so the CUDA branch also maps C99's `restrict` and OpenCL C's
 * short unsigned type names (uchar, ushort, uint, ulong).
 */
#ifndef CLSTREAM_KERNEL_H
#define CLSTREAM_KERNEL_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)

#define CLS_KERNEL __kernel
#define CLS_GLOBAL __global
#define CLS_LOCAL __local
#define CLS_DEVICE
#define cls_global_id(d) ((unsigned)get_global_id(d))
#define cls_local_id(d) ((unsigned)get_local_id(d))
#define cls_group_id(d) ((unsigned)get_group_id(d))
#define cls_local_size(d) ((unsigned)get_local_size(d))
#define cls_num_groups(d) ((unsigned)get_num_groups(d))
#define cls_barrier() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

/* Kernel parameters of the host's size_t and ptrdiff_t (see above).  The
 * built-in functions were declared before this point and keep their own
 * types. */
#define size_t ulong
#define ptrdiff_t long

#if defined(CLS__WARP_CONST)
/* PoCL 4.0 to 6.x with sub-groups (facts.c, warp_const): a barrier loop
 * bounded by the sub-group size is miscompiled there (PoCL 5.0 crashed;
 * docs/repro/pocl5_local_reduce.c), and their sub-group is the block's X
 * dimension, no warp: 32, as the host's warpSize says. */
#define cls_warp_size() 32u
#elif defined(__opencl_c_subgroups) || defined(cl_khr_subgroups)
/* A sub-group of one work-item (PoCL 5's CPU device) is no warp: 32, as
 * for devices without sub-groups and as the host's warpSize says. */
#define cls_warp_size()                                                        \
  (get_max_sub_group_size() > 1u ? (unsigned)get_max_sub_group_size() : 32u)
#else
/* NVIDIA's OpenCL compiler (a warp), and every device without sub-groups:
 * 32, the width CUDA code is written for (see above). */
#define cls_warp_size() 32u
#endif

#if defined(CLS__CLOCK_PTX)
/* Passed by the library where its probe built this on the device
 * (src/opencl/facts.c): NVIDIA's OpenCL compiler takes inline PTX. */
#define CLS_HAS_CLOCK64 1
#define CLS_CLOCK64_KIND 1
ulong cls__clock64_ptx(void) {
  ulong t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}
#define cls_clock64() cls__clock64_ptx()
#elif defined(__opencl_c_kernel_clock_scope_device)
#define CLS_HAS_CLOCK64 1
#define CLS_CLOCK64_KIND 2
#define cls_clock64() ((ulong)clock_read_device())
#elif !defined(cl_nv_pragma_unroll) &&                                         \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) ||       \
     defined(__arm__) || defined(__powerpc64__) || defined(__riscv))
/* Only where the kernel compiles for a CPU (PoCL): NVIDIA's OpenCL
 * compiler has the builtin, but it reads 0 (seen on the H200, driver 580),
 * and compilers that go through SPIR-V (rusticl) have it too, but their
 * translator aborts the process on it. */
#ifdef __has_builtin
#if __has_builtin(__builtin_readcyclecounter)
#define CLS_HAS_CLOCK64 1
#define CLS_CLOCK64_KIND 3
#define cls_clock64() ((ulong)__builtin_readcyclecounter())
#endif
#endif
#endif
#ifndef CLS_HAS_CLOCK64
#define CLS_HAS_CLOCK64 0
#define CLS_CLOCK64_KIND 0
#define cls_clock64() cls_clock64_is_not_available_on_this_device()
#endif

/* ---- Kernel parameters and module globals (kparams) ----
 * The library rewrites these forms before the build (kernel_rw.c): a
 * kernel using CLS_DYNAMIC_SHARED gains a hidden __local parameter
 * cls__dyn_smem sized by clsLaunchKernel's sharedMem; module globals live
 * in device memory the module allocates, reached through a hidden
 * parameter cls__gbase (OpenCL C 1.2 has no writable program-scope
 * variables). */
#define CLS_DYNAMIC_SHARED(type, name)                                         \
  __local type *const name = (__local type *)cls__dyn_smem
#define CLS_DEVICE_GLOBAL(type, decl) __global type decl
#define CLS_CONSTANT(type, decl) __global type decl

#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)

#define CLS_KERNEL extern "C" __global__
#define CLS_DEVICE __device__
#define CLS_GLOBAL
#define CLS_LOCAL __shared__
/* C99 and OpenCL C spell it `restrict`; C++ has no such keyword. */
#define restrict __restrict__
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;
__device__ __forceinline__ unsigned cls__dim(const uint3 v, int d) {
  return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
__device__ __forceinline__ unsigned cls__dim3(const dim3 v, int d) {
  return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
#define cls_local_id(d) cls__dim(threadIdx, (d))
#define cls_group_id(d) cls__dim(blockIdx, (d))
#define cls_local_size(d) cls__dim3(blockDim, (d))
#define cls_num_groups(d) cls__dim3(gridDim, (d))
#define cls_global_id(d) (cls_group_id(d) * cls_local_size(d) + cls_local_id(d))
#define cls_barrier() __syncthreads()
#define cls_warp_size() ((unsigned)warpSize)
#define CLS_HAS_CLOCK64 1
#define CLS_CLOCK64_KIND 1
#define cls_clock64() ((ulong)clock64())

/* ---- Kernel parameters and module globals (kparams) ---- */
#define CLS_DYNAMIC_SHARED(type, name)                                         \
  extern __shared__ __align__(16) type name[]
#define CLS_DEVICE_GLOBAL(type, decl) __device__ type decl
#define CLS_CONSTANT(type, decl) __constant__ type decl

#else
#error "clstream_kernel.h: neither OpenCL C nor CUDA"
#endif

#endif /* CLSTREAM_KERNEL_H */
