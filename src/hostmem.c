/* Host memory the device knows about (clsHostAlloc, clsHostRegister,
 * clsHostGetDevicePointer) and managed memory (clsMallocManaged).  Each
 * allocation or registration is an entry of the allocation table
 * (memtab.c), which copies, sets and frees consult. */
#include "internal.h"
#include "device.h"
#include "managed.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define CLS__HOST_ALLOC_FLAGS                                                  \
  (clsHostAllocPortable | clsHostAllocMapped | clsHostAllocWriteCombined)
#define CLS__HOST_REGISTER_FLAGS                                               \
  (clsHostRegisterPortable | clsHostRegisterMapped | clsHostRegisterIoMemory | \
   clsHostRegisterReadOnly)

clsError_t clsHostAlloc(void **ptr, size_t size, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!ptr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "ptr is NULL"));
  if (flags & ~CLS__HOST_ALLOC_FLAGS)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "flags 0x%x: only clsHostAllocPortable (0x1), "
                            "Mapped (0x2) and WriteCombined (0x4) exist",
                            flags));
  if (size == 0) {
    *ptr = NULL;
    CLS__RETURN(clsSuccess);
  }
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  void *p = NULL;
  int kind = CLS__MEM_HOST;
  e = cls__b_host_alloc(dev, size, flags, &p, &kind);
  if (e != clsSuccess) CLS__RETURN(e);
  e = cls__mem_add(p, size, kind, dev);
  if (e != clsSuccess) {
    cls__mem_release(kind, dev, p, size);
    CLS__RETURN(e);
  }
  *ptr = p;
  CLS__RETURN(clsSuccess);
}

clsError_t clsHostGetDevicePointer(void **devPtr, void *hostPtr,
                                   unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!devPtr || !hostPtr)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "%s is NULL",
                            devPtr ? "hostPtr" : "devPtr"));
  if (flags != 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "flags is 0x%x; it must be 0",
                            flags));
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  int kind = cls__mem_lookup(hostPtr, NULL, NULL, NULL);
  if (kind != CLS__MEM_HOST && kind != CLS__MEM_HOST_MAPPED &&
      kind != CLS__MEM_REGISTERED)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "%p is not in memory from clsHostAlloc, "
                            "clsMallocHost or clsHostRegister",
                            hostPtr));
  CLS__RETURN(cls__b_host_device_pointer(dev, kind, hostPtr, devPtr));
}

/* Whether every page of [p, p+size) is mapped in this process, as
 * cudaHostRegister checks (it refuses a range running past the end of an
 * allocation): mincore fails with ENOMEM on a page that is not. */
static int cls__range_mapped(const void *p, size_t size) {
  long ps = sysconf(_SC_PAGESIZE);
  uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
  uintptr_t at = (uintptr_t)p & ~(page - 1);
  if ((uintptr_t)p + size < (uintptr_t)p) return 0; /* wraps around */
  uintptr_t end = (uintptr_t)p + size;
  enum { CHUNK = 4096 }; /* pages per call */
  unsigned char vec[CHUNK];
  while (at < end) {
    size_t len = end - at;
    if (len > (size_t)CHUNK * page) len = (size_t)CHUNK * page;
    if (mincore((void *)at, len, vec) != 0 && errno == ENOMEM) return 0;
    at += len;
  }
  return 1;
}

clsError_t clsHostRegister(void *ptr, size_t size, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!ptr || size == 0)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "%s",
                            ptr ? "size is 0" : "ptr is NULL"));
  if (flags & ~CLS__HOST_REGISTER_FLAGS)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "flags 0x%x: only clsHostRegisterPortable (0x1), "
                            "Mapped (0x2), IoMemory (0x4) and ReadOnly (0x8) "
                            "exist",
                            flags));
  if (!cls__range_mapped(ptr, size))
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "[%p, +%zu) is not all mapped memory of this "
                            "process",
                            ptr, size));
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  /* The table entry first: it finds overlaps before the backend acts. */
  e = cls__mem_add(ptr, size, CLS__MEM_REGISTERED, dev);
  if (e != clsSuccess) CLS__RETURN(e);
  e = cls__b_host_register(dev, ptr, size, flags);
  if (e != clsSuccess)
    cls__mem_remove(ptr, CLS__MEM_BIT(CLS__MEM_REGISTERED), NULL, NULL);
  CLS__RETURN(e);
}

clsError_t clsHostUnregister(void *ptr) {
  CLS__NOT_IN_HOST_FN();
  if (!ptr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "ptr is NULL"));
  clsError_t e = cls__init();
  if (e != clsSuccess) CLS__RETURN(e);
  int dev;
  if (cls__mem_remove(ptr, CLS__MEM_BIT(CLS__MEM_REGISTERED), &dev, NULL) ==
      CLS__MEM_NONE)
    CLS__RETURN(cls__reason(clsErrorHostMemoryNotRegistered,
                            "%p is not the base of a range registered with "
                            "clsHostRegister",
                            ptr));
  /* Kernels may still use the range: the device's work finishes first,
   * as before a free, so that it is the caller's plain memory again. */
  e = cls__b_free_wait(dev);
  clsError_t u = cls__b_host_unregister(dev, ptr);
  CLS__RETURN(e != clsSuccess ? e : u);
}

clsError_t clsMallocManaged(void **devPtr, size_t size, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (!devPtr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "devPtr is NULL"));
  if (flags != clsMemAttachGlobal && flags != clsMemAttachHost)
    CLS__RETURN(cls__reason(clsErrorInvalidValue,
                            "flags 0x%x: it must be clsMemAttachGlobal (0x1) "
                            "or clsMemAttachHost (0x2)",
                            flags));
  /* Unlike clsMalloc, CUDA refuses a managed allocation of 0 bytes. */
  if (size == 0) CLS__RETURN(cls__reason(clsErrorInvalidValue, "size is 0"));
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  void *p = NULL;
  e = cls__b_malloc_managed(dev, size, flags, &p);
  if (e != clsSuccess) CLS__RETURN(e);
  e = cls__mem_add(p, size, CLS__MEM_MANAGED, dev);
  if (e != clsSuccess) {
    cls__b_free_managed(dev, p);
    CLS__RETURN(e);
  }
  cls__advice_forget(p); /* an earlier allocation's, at this address */
  *devPtr = p;
  CLS__RETURN(clsSuccess);
}
