/* CUDA backend: device attributes, device flags and the profiler switches,
 * forwarded to the CUDA runtime. */
#include "cuda_be.h"

#include <cuda_profiler_api.h>

clsError_t cls__b_device_attribute(int dev, int attr, int *value) {
  /* Reads the device's attributes; creates no context. */
  return cls__cuda_rt(
      cudaDeviceGetAttribute(value, (enum cudaDeviceAttr)attr, dev),
      "cudaDeviceGetAttribute");
}

clsError_t cls__b_device_set_flags(int dev, unsigned flags) {
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaSetDeviceFlags(flags), "cudaSetDeviceFlags");
}

clsError_t cls__b_device_get_flags(int dev, unsigned set, unsigned *flags) {
  (void)set; /* the runtime knows the flags, with what it adds itself */
  clsError_t e = cls__cuda_use(dev);
  if (e != clsSuccess) return e;
  return cls__cuda_rt(cudaGetDeviceFlags(flags), "cudaGetDeviceFlags");
}

clsError_t cls__b_profiler(int start) {
  return start ? cls__cuda_rt(cudaProfilerStart(), "cudaProfilerStart")
               : cls__cuda_rt(cudaProfilerStop(), "cudaProfilerStop");
}
