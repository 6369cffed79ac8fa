/*
 * Module globals: clsModuleGetGlobal and the symbol calls
 * (clsMemcpyToSymbol and clsMemcpyFromSymbol with their Async forms,
 * clsGetSymbolAddress, clsGetSymbolSize), the front.
 *
 * CUDA's runtime names a global by its host shadow variable; a module
 * loaded at run time has none, so a symbol here is the device address
 * clsModuleGetGlobal returns (as cuModuleGetGlobal does).  Each global it
 * hands out is kept in a list, so that the symbol calls check the symbol
 * and the range as CUDA does, and in the allocation table, so that the
 * address is device memory to copies, sets and launches.  A copy to or
 * from a symbol is then an ordinary copy at symbol + offset, in stream
 * order.  Unloading the module drops its globals (module.c).  The list
 * itself is symtab.c's, below module.c, which adds to it and drops from
 * it; this file calls module.c and the copies (memory.c).
 */
#include "internal.h"
#include "device.h"

#include <stdint.h>

/* Checks a copy of `count` bytes at `offset` into symbol `sym` in
 * direction `kind` (`to`: into the symbol), as CUDA does. */
static clsError_t cls__symbol_check(const void *sym, size_t count,
                                    size_t offset, clsMemcpyKind kind, int to) {
  size_t size = 0;
  clsError_t err = cls__symbol_size(sym, &size);
  if (err != clsSuccess) return err;
  int ok = kind == clsMemcpyDeviceToDevice || kind == clsMemcpyDefault ||
           kind == (to ? clsMemcpyHostToDevice : clsMemcpyDeviceToHost);
  if (!ok)
    return cls__reason(clsErrorInvalidMemcpyDirection,
                       "kind %d is not a direction a copy %s a symbol takes",
                       (int)kind, to ? "to" : "from");
  if (offset > size || count > size - offset)
    return cls__reason(clsErrorInvalidValue,
                       "%zu bytes at offset %zu run past the symbol's %zu "
                       "bytes",
                       count, offset, size);
  return clsSuccess;
}

clsError_t clsMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                             size_t offset, clsMemcpyKind kind) {
  CLS__NOT_IN_HOST_FN();
  clsError_t err = cls__symbol_check(symbol, count, offset, kind, 1);
  if (err != clsSuccess) CLS__RETURN(err);
  return clsMemcpy((char *)(uintptr_t)symbol + offset, src, count, kind);
}

clsError_t clsMemcpyToSymbolAsync(const void *symbol, const void *src,
                                  size_t count, size_t offset,
                                  clsMemcpyKind kind, clsStream_t stream) {
  CLS__NOT_IN_HOST_FN();
  clsError_t err = cls__symbol_check(symbol, count, offset, kind, 1);
  if (err != clsSuccess) CLS__RETURN(err);
  return clsMemcpyAsync((char *)(uintptr_t)symbol + offset, src, count, kind,
                        stream);
}

clsError_t clsMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                               size_t offset, clsMemcpyKind kind) {
  CLS__NOT_IN_HOST_FN();
  clsError_t err = cls__symbol_check(symbol, count, offset, kind, 0);
  if (err != clsSuccess) CLS__RETURN(err);
  return clsMemcpy(dst, (const char *)symbol + offset, count, kind);
}

clsError_t clsMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                    size_t offset, clsMemcpyKind kind,
                                    clsStream_t stream) {
  CLS__NOT_IN_HOST_FN();
  clsError_t err = cls__symbol_check(symbol, count, offset, kind, 0);
  if (err != clsSuccess) CLS__RETURN(err);
  return clsMemcpyAsync(dst, (const char *)symbol + offset, count, kind,
                        stream);
}

clsError_t clsGetSymbolAddress(void **devPtr, const void *symbol) {
  CLS__NOT_IN_HOST_FN();
  if (!devPtr) CLS__RETURN(cls__reason(clsErrorInvalidValue, "devPtr is NULL"));
  size_t size;
  clsError_t err = cls__symbol_size(symbol, &size);
  if (err != clsSuccess) CLS__RETURN(err);
  *devPtr = (void *)(uintptr_t)symbol;
  CLS__RETURN(clsSuccess);
}

clsError_t clsGetSymbolSize(size_t *size, const void *symbol) {
  CLS__NOT_IN_HOST_FN();
  if (!size) CLS__RETURN(cls__reason(clsErrorInvalidValue, "size is NULL"));
  size_t n = 0;
  clsError_t err = cls__symbol_size(symbol, &n);
  if (err != clsSuccess) CLS__RETURN(err);
  *size = n;
  CLS__RETURN(clsSuccess);
}

clsError_t clsModuleGetGlobal(void **dptr, size_t *bytes, clsModule_t m,
                              const char *name) {
  CLS__NOT_IN_HOST_FN();
  if (!name) CLS__RETURN(cls__reason(clsErrorInvalidValue, "name is NULL"));
  int dev;
  clsError_t err = cls__current_device(&dev);
  void *p = NULL;
  size_t n = 0;
  if (err == clsSuccess) err = cls__module_global(m, dev, name, &p, &n);
  if (err != clsSuccess) CLS__RETURN(err);
  if (dptr) *dptr = p;
  if (bytes) *bytes = n;
  CLS__RETURN(clsSuccess);
}
