/* Peer access (clsDeviceCanAccessPeer, clsDeviceEnablePeerAccess,
 * clsDeviceDisablePeerAccess) and copies between devices (clsMemcpyPeer,
 * clsMemcpyPeerAsync).  This file owns which device has enabled access to
 * which (one bit per ordered pair), CUDA's bookkeeping: on OpenCL devices
 * of one context reach each other's memory without it. */
#include "internal.h"
#include "device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static pthread_once_t cls__peer_once = PTHREAD_ONCE_INIT;
static atomic_uchar *cls__peer_on; /* [dev * n + peer] */
static int cls__peer_n;

static void cls__peer_init(void) {
  int n = cls__b_device_count();
  cls__peer_on =
      calloc(n > 0 ? (size_t)n * (size_t)n : 1, sizeof *cls__peer_on);
  if (cls__peer_on) cls__peer_n = n;
}

/* Initializes the library and checks both devices. */
static clsError_t cls__peer_devices(int a, int b) {
  clsError_t e = cls__init();
  if (e != clsSuccess) return e;
  pthread_once(&cls__peer_once, cls__peer_init);
  if (!cls__peer_on)
    return cls__reason(clsErrorMemoryAllocation, "out of host memory");
  if (a >= 0 && a < cls__peer_n && b >= 0 && b < cls__peer_n) return clsSuccess;
  return cls__reason(clsErrorInvalidDevice, "device %d is not in 0..%d",
                     a < 0 || a >= cls__peer_n ? a : b, cls__peer_n - 1);
}

clsError_t clsDeviceCanAccessPeer(int *canAccessPeer, int device,
                                  int peerDevice) {
  CLS__NOT_IN_HOST_FN();
  if (!canAccessPeer)
    CLS__RETURN(cls__reason(clsErrorInvalidValue, "canAccessPeer is NULL"));
  clsError_t e = cls__peer_devices(device, peerDevice);
  if (e != clsSuccess) CLS__RETURN(e);
  *canAccessPeer =
      device != peerDevice && cls__b_can_access_peer(device, peerDevice);
  CLS__RETURN(clsSuccess);
}

/* The checks the two calls share: the current device `*dev` and a valid
 * peer (the current device itself is checked by each call). */
static clsError_t cls__peer_common(int peer, int *dev) {
  clsError_t e = cls__current_device(dev);
  if (e == clsSuccess) e = cls__peer_devices(*dev, peer);
  return e;
}

clsError_t clsDeviceEnablePeerAccess(int peerDevice, unsigned flags) {
  CLS__NOT_IN_HOST_FN();
  if (flags)
    CLS__RETURN(
        cls__reason(clsErrorInvalidValue, "flags 0x%x is not 0", flags));
  int dev;
  clsError_t e = cls__peer_common(peerDevice, &dev);
  if (e != clsSuccess) CLS__RETURN(e);
  /* The current device itself is no peer: PeerAccessUnsupported, as
   * CUDA 13 answers (H200). */
  if (peerDevice == dev || !cls__b_can_access_peer(dev, peerDevice))
    CLS__RETURN(cls__reason(clsErrorPeerAccessUnsupported,
                            "device %d cannot reach device %d's memory (the "
                            "same device, or they share no context)",
                            dev, peerDevice));
  atomic_uchar *bit = &cls__peer_on[dev * cls__peer_n + peerDevice];
  unsigned char off = 0;
  if (!atomic_compare_exchange_strong(bit, &off, 2)) /* 2: being enabled */
    CLS__RETURN(cls__reason(clsErrorPeerAccessAlreadyEnabled,
                            "access from device %d to %d is already enabled",
                            dev, peerDevice));
  e = cls__b_peer_access(dev, peerDevice, 1);
  atomic_store(bit, e == clsSuccess ? 1 : 0);
  CLS__RETURN(e);
}

clsError_t clsDeviceDisablePeerAccess(int peerDevice) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  clsError_t e = cls__peer_common(peerDevice, &dev);
  if (e != clsSuccess) CLS__RETURN(e);
  /* Access to the current device itself was never enabled:
   * PeerAccessNotEnabled, as CUDA 13 answers (H200). */
  atomic_uchar *bit = &cls__peer_on[dev * cls__peer_n + peerDevice];
  unsigned char on = 1;
  if (!atomic_compare_exchange_strong(bit, &on, 2))
    CLS__RETURN(cls__reason(clsErrorPeerAccessNotEnabled,
                            "access from device %d to %d is not enabled", dev,
                            peerDevice));
  e = cls__b_peer_access(dev, peerDevice, 0);
  atomic_store(bit, e == clsSuccess ? 0 : 1);
  CLS__RETURN(e);
}

/* Checks that [p, p+n) is device memory of `dev`. */
static clsError_t cls__peer_side(const void *p, int dev, size_t n,
                                 const char *what) {
  if (!p) return cls__reason(clsErrorInvalidValue, "%s is NULL", what);
  void *base;
  size_t size;
  int owner;
  int kind = cls__mem_lookup(p, &base, &size, &owner);
  if (!CLS__MEM_ON_DEVICE(kind))
    return cls__reason(clsErrorInvalidValue,
                       "%s %p is not device memory of clstream's", what, p);
  if (owner != dev)
    return cls__reason(clsErrorInvalidValue,
                       "%s %p is memory of device %d, not of device %d", what,
                       p, owner, dev);
  if (n > size - (size_t)((uintptr_t)p - (uintptr_t)base))
    return cls__reason(clsErrorInvalidValue,
                       "%s: %zu bytes run past the end of the allocation", what,
                       n);
  return clsSuccess;
}

static clsError_t cls__peer_check(void *dst, int ddev, const void *src,
                                  int sdev, size_t n) {
  clsError_t e = cls__peer_devices(ddev, sdev);
  if (e == clsSuccess) e = cls__peer_side(dst, ddev, n, "dst");
  if (e == clsSuccess) e = cls__peer_side(src, sdev, n, "src");
  return e;
}

clsError_t clsMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                              int srcDevice, size_t count, clsStream_t s) {
  CLS__NOT_IN_HOST_FN();
  if (count == 0) CLS__RETURN(cls__peer_devices(dstDevice, srcDevice));
  clsError_t e = cls__peer_check(dst, dstDevice, src, srcDevice, count);
  if (e != clsSuccess) CLS__RETURN(e);
  /* Device to device in the stream's order; clsMemcpyAsync stages the
   * copy through host memory where a side is out of the stream's reach. */
  CLS__RETURN(clsMemcpyAsync(dst, src, count, clsMemcpyDeviceToDevice, s));
}

clsError_t clsMemcpyPeer(void *dst, int dstDevice, const void *src,
                         int srcDevice, size_t count) {
  CLS__NOT_IN_HOST_FN();
  if (count == 0) CLS__RETURN(cls__peer_devices(dstDevice, srcDevice));
  clsError_t e = cls__peer_check(dst, dstDevice, src, srcDevice, count);
  if (e != clsSuccess) CLS__RETURN(e);
  /* After the earlier work of both devices, on the legacy stream of the
   * source's device, and waited for; the current device stays. */
  int cur;
  e = cls__current_device(&cur);
  if (e != clsSuccess) CLS__RETURN(e);
  e = clsSetDevice(dstDevice);
  if (e == clsSuccess) e = clsDeviceSynchronize();
  if (e == clsSuccess) e = clsSetDevice(srcDevice);
  if (e == clsSuccess) e = clsDeviceSynchronize();
  if (e == clsSuccess)
    e = clsMemcpyAsync(dst, src, count, clsMemcpyDeviceToDevice, NULL);
  if (e == clsSuccess) e = clsStreamSynchronize(NULL);
  clsError_t r = clsSetDevice(cur);
  CLS__RETURN(e == clsSuccess ? r : e);
}
