/* OpenCL backend: what a device is in CUDA's terms (compute capability,
 * integrated memory, copy engines, what memory kernels can reach), read
 * once from the driver at enumeration.
 *
 * major.minor: an NVIDIA device (cl_nv_device_attribute_query) reports
 * its own compute capability.  Any other device has none, and host code
 * reads major.minor mostly to gate features ("requires SM 3.5") or to look
 * up cores per multiprocessor.  Such a device reports 7.5, the oldest
 * compute capability CUDA 13 supports: clstream gives CUDA 13's runtime
 * semantics, and what the device can really do is in the feature fields,
 * which say so honestly (managedMemory, canMapHostMemory, ...). */
#include "driver.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLS__NOMINAL_MAJOR = 7, CLS__NOMINAL_MINOR = 5 };

static cl_uint cls__uint_info(cl_device_id id, cl_device_info what,
                              cl_uint fallback) {
  cl_uint v = 0;
  return clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS ? v
                                                                     : fallback;
}

static cl_ulong cls__ulong_info(cl_device_id id, cl_device_info what) {
  cl_ulong v = 0;
  return clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

int cls__ocl_has_extension(cl_device_id id, const char *name) {
  size_t n = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS ||
      n == 0)
    return 0;
  char *ext = malloc(n + 1);
  if (!ext) return 0;
  int found = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS) {
    ext[n] = '\0';
    size_t len = strlen(name);
    for (const char *p = strstr(ext, name); p && !found;
         p = strstr(p + 1, name))
      found = (p == ext || p[-1] == ' ') && (p[len] == ' ' || !p[len]);
  }
  free(ext);
  return found;
}

/* NVIDIA's PCI queries (cl_nv_device_attribute_query). */
enum {
  CLS__PCI_BUS_ID_NV = 0x4008,
  CLS__PCI_SLOT_ID_NV = 0x4009,
  CLS__PCI_DOMAIN_ID_NV = 0x400A
};

/* What the rest of CUDA 13's cudaDeviceProp needs: PCI location, UUID and
 * LUID, and whether global memory is cached. */
static void cls__identify_more(cls__ocl_device *d, cls__ocl_ident *id) {
  if (cls__ocl_has_extension(d->id, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr pci;
    if (clGetDeviceInfo(d->id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci,
                        NULL) == CL_SUCCESS) {
      id->pci_domain = (int)pci.pci_domain;
      id->pci_bus = (int)pci.pci_bus;
      id->pci_dev = (int)pci.pci_device;
    }
  } else if (id->nvidia) {
    id->pci_bus = (int)cls__uint_info(d->id, CLS__PCI_BUS_ID_NV, 0);
    id->pci_dev = (int)cls__uint_info(d->id, CLS__PCI_SLOT_ID_NV, 0);
    id->pci_domain = (int)cls__uint_info(d->id, CLS__PCI_DOMAIN_ID_NV, 0);
  }
  if (cls__ocl_has_extension(d->id, "cl_khr_device_uuid")) {
    if (clGetDeviceInfo(d->id, CL_DEVICE_UUID_KHR, sizeof id->uuid, id->uuid,
                        NULL) != CL_SUCCESS)
      memset(id->uuid, 0, sizeof id->uuid);
    cl_bool valid = CL_FALSE;
    if (clGetDeviceInfo(d->id, CL_DEVICE_LUID_VALID_KHR, sizeof valid, &valid,
                        NULL) == CL_SUCCESS &&
        valid) {
      if (clGetDeviceInfo(d->id, CL_DEVICE_LUID_KHR, sizeof id->luid, id->luid,
                          NULL) != CL_SUCCESS)
        memset(id->luid, 0, sizeof id->luid);
      id->node_mask = cls__uint_info(d->id, CL_DEVICE_NODE_MASK_KHR, 0);
    }
  }
  cl_device_mem_cache_type cache = CL_NONE;
  if (clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, sizeof cache,
                      &cache, NULL) != CL_SUCCESS)
    cache = CL_NONE;
  id->global_cache = cache != CL_NONE;
}

void cls__ocl_identify(cls__ocl_device *d) {
  cls__ocl_ident *id = &d->ident;
  memset(id, 0, sizeof *id);
  char version[128] = "";
  clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
  if (sscanf(version, "OpenCL %d.%d", &id->cl_major, &id->cl_minor) != 2)
    id->cl_major = id->cl_minor = 0;
  id->nvidia = cls__ocl_has_extension(d->id, "cl_nv_device_attribute_query");
  id->command_buffer = cls__ocl_has_extension(d->id, "cl_khr_command_buffer");
  if (id->nvidia) {
    id->cc_major =
        (int)cls__uint_info(d->id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, 0);
    id->cc_minor =
        (int)cls__uint_info(d->id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, 0);
    id->cc_native = id->cc_major > 0;
    id->warp = (int)cls__uint_info(d->id, CL_DEVICE_WARP_SIZE_NV, 0);
    id->overlap = cls__uint_info(d->id, CL_DEVICE_GPU_OVERLAP_NV, 0) != 0;
    id->integrated =
        cls__uint_info(d->id, CL_DEVICE_INTEGRATED_MEMORY_NV, 0) != 0;
    id->regs_per_block =
        (int)cls__uint_info(d->id, CL_DEVICE_REGISTERS_PER_BLOCK_NV, 0);
    id->exec_timeout =
        cls__uint_info(d->id, CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV, 0) != 0;
  } else {
    /* CL_DEVICE_HOST_UNIFIED_MEMORY is deprecated but still answered;
     * a CPU device shares the host's memory whatever it says. */
    id->integrated =
        (d->type & CL_DEVICE_TYPE_CPU) ||
        cls__uint_info(d->id, CL_DEVICE_HOST_UNIFIED_MEMORY, CL_FALSE);
  }
  if (!id->cc_native) {
    id->cc_major = CLS__NOMINAL_MAJOR;
    id->cc_minor = CLS__NOMINAL_MINOR;
  }
  /* Where the driver names no warp: 32, what cls_warp_size() gives
   * kernels without sub-groups (cl/clstream_kernel.h). */
  if (id->warp <= 0) id->warp = 32;
  cls__identify_more(d, id);
  id->ecc = cls__uint_info(d->id, CL_DEVICE_ERROR_CORRECTION_SUPPORT, 0) != 0;
  id->fine_grain = (d->svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  id->system_svm = (d->svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) != 0;
  id->l2 = cls__ulong_info(d->id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  id->const_mem = cls__ulong_info(d->id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  id->max_alloc = cls__ulong_info(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
}

static int cls__clamp_int(cl_ulong v) { return v > INT_MAX ? INT_MAX : (int)v; }

/* The rest of CUDA 13's cudaDeviceProp (clstream.h says where each comes
 * from); the fields of features clstream does not offer stay 0. */
static void cls__identity_props_cuda13(const cls__ocl_device *d,
                                       clsDeviceProp *p) {
  const cls__ocl_ident *id = &d->ident;
  memcpy(p->uuid.bytes, id->uuid, sizeof p->uuid.bytes);
  memcpy(p->luid, id->luid, sizeof p->luid);
  p->luidDeviceNodeMask = id->node_mask;
  p->regsPerBlock = id->regs_per_block;
  /* CUDA 13 reports the pitch limit as INT_MAX (memPitch and
   * cudaDevAttrMaxPitch, measured on the H100): a pitch is an int there,
   * whatever the device could allocate. */
  p->memPitch = (size_t)cls__clamp_int(id->max_alloc);
  p->totalConstMem = (size_t)id->const_mem;
  p->kernelExecTimeoutEnabled = id->exec_timeout;
  p->ECCEnabled = id->ecc;
  p->pciBusID = id->pci_bus;
  p->pciDeviceID = id->pci_dev;
  p->pciDomainID = id->pci_domain;
  p->l2CacheSize = cls__clamp_int(id->l2);
  /* A compute unit holds at least one work-group of the largest size;
   * OpenCL says nothing of more. */
  p->maxThreadsPerMultiProcessor = p->maxThreadsPerBlock;
  p->globalL1CacheSupported = id->global_cache;
  p->sharedMemPerMultiprocessor = p->sharedMemPerBlock;
  p->hostNativeAtomicSupported =
      id->fine_grain && (d->svm & CL_DEVICE_SVM_ATOMICS) != 0;
  p->canUseHostPointerForRegisteredMem = p->pageableMemoryAccess;
  p->sharedMemPerBlockOptin = p->sharedMemPerBlock;
  p->pageableMemoryAccessUsesHostPageTables = p->pageableMemoryAccess;
  p->directManagedMemAccessFromHost = p->managedMemory;
  int warp = p->warpSize > 0 ? p->warpSize : 32;
  p->maxBlocksPerMultiProcessor = p->maxThreadsPerMultiProcessor / warp;
  if (p->maxBlocksPerMultiProcessor < 1) p->maxBlocksPerMultiProcessor = 1;
  p->hostRegisterReadOnlySupported = p->hostRegisterSupported;
}

void cls__ocl_identity_props(const cls__ocl_device *d, clsDeviceProp *p) {
  const cls__ocl_ident *id = &d->ident;
  int usable = (d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
  p->major = id->cc_major;
  p->minor = id->cc_minor;
  p->computeCapabilityNative = id->cc_native;
  p->clVersionMajor = id->cl_major;
  p->clVersionMinor = id->cl_minor;
  p->warpSize = id->warp;
  p->integrated = id->integrated;
  /* Host memory reaches kernels on every device: a fine-grained SVM
   * buffer, or a host buffer (opencl/hostmem.c). */
  p->canMapHostMemory = 1;
  /* An out-of-order copy engine is not something OpenCL exposes; an
   * NVIDIA device says whether copies overlap kernels, and a CPU device's
   * copies and kernels share the same cores.  Streams (queues) still run
   * independently everywhere. */
  p->deviceOverlap = id->nvidia ? id->overlap : 0;
  p->asyncEngineCount = p->deviceOverlap ? 1 : 0;
  p->computeMode = clsComputeModeDefault;
  /* Managed memory exists everywhere; the host and running kernels may
   * share it only where it is fine-grained SVM (opencl/hostmem.c). */
  p->managedMemory = 1;
  p->concurrentManagedAccess = usable && id->fine_grain && !d->facts.buffers;
  p->pageableMemoryAccess = usable && id->system_svm;
  p->hostRegisterSupported = 1;
  p->memoryPoolsSupported = usable;
  p->streamPrioritiesSupported = p->streamPriorities;
  cls__identity_props_cuda13(d, p);
}
