/*
 * The install test's consumer: uses only the installed header and library.
 * Runs a kernel in a created stream, records an event behind it, waits for
 * the event and checks the result.  Prints "consumer: ok" on success.
 */
#include <clstream.h>
#include <clstream_cuda.h> /* installed too; must not clash with clstream.h */

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    clsError_t check_err_ = (call);                                            \
    if (check_err_ != clsSuccess) {                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              clsGetErrorName(check_err_));                                    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static const char source[] =
    "CLS_KERNEL void axpb(CLS_GLOBAL int *t, int a, int b, unsigned n) {\n"
    "  unsigned i = cls_global_id(0);\n"
    "  if (i < n) t[i] = a * t[i] + b;\n"
    "}\n";

int main(void) {
  enum { N = 1000 };
  static int host[N];
  int *dev, a = 3, b = 4;
  unsigned n = N;
  clsModule_t mod;
  clsFunction_t axpb;
  clsStream_t stream;
  clsEvent_t done;

  printf("clstream %d.%d.%d\n", CLSTREAM_VERSION_MAJOR, CLSTREAM_VERSION_MINOR,
         CLSTREAM_VERSION_PATCH);
  for (int i = 0; i < N; ++i) host[i] = i;
  CHECK(clsModuleLoadData(&mod, source, NULL));
  CHECK(clsModuleGetFunction(&axpb, mod, "axpb"));
  CHECK(clsStreamCreate(&stream));
  CHECK(clsEventCreate(&done));
  CHECK(clsMalloc((void **)&dev, sizeof host));

  void *args[] = {&dev, &a, &b, &n};
  CHECK(clsMemcpyAsync(dev, host, sizeof host, clsMemcpyHostToDevice, stream));
  CHECK(clsLaunchKernel(axpb, (clsDim3){(N + 127) / 128, 1, 1},
                        (clsDim3){128, 1, 1}, args, 0, stream));
  CHECK(clsMemcpyAsync(host, dev, sizeof host, clsMemcpyDeviceToHost, stream));
  CHECK(clsEventRecord(done, stream));
  CHECK(clsEventSynchronize(done));
  CHECK(clsEventQuery(done));

  for (int i = 0; i < N; ++i) {
    if (host[i] != 3 * i + 4) {
      fprintf(stderr, "consumer: host[%d] = %d, expected %d\n", i, host[i],
              3 * i + 4);
      return 1;
    }
  }
  CHECK(clsFree(dev));
  CHECK(clsEventDestroy(done));
  CHECK(clsStreamDestroy(stream));
  CHECK(clsModuleUnload(mod));
  printf("consumer: ok\n");
  return 0;
}
