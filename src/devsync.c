/* Device synchronization, clsDeviceSynchronize: refused while a stream of
 * the device captures (the capture hooks, graph.h), else the backend waits
 * for all of the device's work.  It has a file of its own because device.c
 * lies below the hooks (capture.c reads the current device) and so may not
 * call them. */
#include "device.h"
#include "graph.h"
#include "internal.h"

clsError_t clsDeviceSynchronize(void) {
  CLS__NOT_IN_HOST_FN();
  int dev;
  clsError_t e = cls__current_device(&dev);
  if (e != clsSuccess) CLS__RETURN(e);
  if (CLS__CAPTURING() && (e = cls__cap_device_sync(dev)) != clsSuccess)
    CLS__RETURN(e);
  CLS__RETURN(cls__b_device_sync(dev));
}
