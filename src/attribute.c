/* Device attributes (clsDeviceGetAttribute) and the profiler switches
 * (clsProfilerStart, clsProfilerStop). */
#include "internal.h"
#include "device.h"

clsError_t clsDeviceGetAttribute(int *value, clsDeviceAttr attr, int device) {
  CLS__NOT_IN_HOST_FN();
  if (!value) CLS__RETURN(cls__reason(clsErrorInvalidValue, "value is NULL"));
  clsError_t e = cls__init();
  if (e != clsSuccess) CLS__RETURN(e);
  int n = cls__b_device_count();
  if (device < 0 || device >= n)
    CLS__RETURN(cls__reason(clsErrorInvalidDevice, "device %d is not in 0..%d",
                            device, n - 1));
  /* The backend knows which attributes exist (CUDA's runtime itself on
   * the CUDA build): anything else is clsErrorInvalidValue. */
  CLS__RETURN(cls__b_device_attribute(device, (int)attr, value));
}

clsError_t clsProfilerStart(void) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e = cls__init();
  if (e != clsSuccess) CLS__RETURN(e);
  CLS__RETURN(cls__b_profiler(1));
}

clsError_t clsProfilerStop(void) {
  CLS__NOT_IN_HOST_FN();
  clsError_t e = cls__init();
  if (e != clsSuccess) CLS__RETURN(e);
  CLS__RETURN(cls__b_profiler(0));
}
