/* CUDA backend: kernels compiled at run time with NVRTC, loaded with the
 * runtime's library API and launched with cudaLaunchKernel. */
#include "cuda_be.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- NVRTC's architectures ------------------------------------------- */

static pthread_once_t cls__nvrtc_once = PTHREAD_ONCE_INIT;
static int *cls__nvrtc_archs; /* ascending, e.g. 75 80 ... 90 ... 120 */
static int cls__nvrtc_narchs;

static void cls__nvrtc_archs_once(void) {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return;
  int *a = malloc((size_t)n * sizeof *a);
  if (!a) return;
  if (nvrtcGetSupportedArchs(a) != NVRTC_SUCCESS) {
    free(a);
    return;
  }
  cls__nvrtc_archs = a;
  cls__nvrtc_narchs = n;
}

/* Picks the compile target for a device of compute capability `arch`
 * (major * 10 + minor): real machine code (CUBIN) when this NVRTC knows
 * the architecture, as CUDA's minor version compatibility lets a newer
 * NVRTC's CUBIN run on an older driver of the same major version; else
 * PTX for the newest virtual architecture below the device's, which the
 * driver compiles (that needs a driver at least as new as NVRTC).
 * Returns 0 when NVRTC supports nothing at or below `arch`. */
static int cls__nvrtc_target(int arch, int *cubin) {
  pthread_once(&cls__nvrtc_once, cls__nvrtc_archs_once);
  int best = 0;
  for (int i = 0; i < cls__nvrtc_narchs; ++i) {
    if (cls__nvrtc_archs[i] == arch) {
      *cubin = 1;
      return arch;
    }
    if (cls__nvrtc_archs[i] < arch && cls__nvrtc_archs[i] > best)
      best = cls__nvrtc_archs[i];
  }
  *cubin = 0;
  return best;
}

/* ---- Compiler options ------------------------------------------------- */

typedef struct cls__opts {
  char *buf;   /* the user's options, split in place */
  char **argv; /* NVRTC's options */
  int argc, cap;
  char *joined; /* storage for "-D" "X" -> "-DX" and the like */
  size_t jlen, jcap;
} cls__opts;

static int cls__opts_push(cls__opts *o, char *arg) {
  if (o->argc == o->cap) {
    int cap = o->cap ? 2 * o->cap : 16;
    char **a = realloc(o->argv, (size_t)cap * sizeof *a);
    if (!a) return -1;
    o->argv = a;
    o->cap = cap;
  }
  o->argv[o->argc++] = arg;
  return 0;
}

/* OpenCL C options with an NVRTC meaning. */
static const char *cls__opts_translate(const char *a) {
  static const struct {
    const char *cl, *nvrtc;
  } map[] = {
      {"-cl-fast-relaxed-math", "--use_fast_math"},
      {"-cl-denorms-are-zero", "--ftz=true"},
      {"-cl-mad-enable", "--fmad=true"},
      {"-g", "-lineinfo"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
    if (strcmp(a, map[i].cl) == 0) return map[i].nvrtc;
  return NULL;
}

/* Splits `options` on white space into NVRTC options: -D and -I (also
 * written "-D NAME", "-I DIR") and NVRTC's own options pass through;
 * OpenCL-only options (-cl-*, -Werror, -x LANG, -spir-std=...) are dropped
 * or translated.  Returns -1 when out of memory. */
static int cls__opts_parse(cls__opts *o, const char *options) {
  memset(o, 0, sizeof *o);
  if (!options) return 0;
  size_t len = strlen(options);
  o->buf = malloc(len + 1);
  /* Worst case: every "-D" "X" pair joined, each needing a NUL. */
  o->jcap = len + 1;
  o->joined = malloc(o->jcap);
  if (!o->buf || !o->joined) return -1;
  memcpy(o->buf, options, len + 1);

  char *save = NULL;
  for (char *t = strtok_r(o->buf, " \t\r\n", &save); t;
       t = strtok_r(NULL, " \t\r\n", &save)) {
    if ((strcmp(t, "-D") == 0 || strcmp(t, "-I") == 0)) {
      char *v = strtok_r(NULL, " \t\r\n", &save);
      if (!v) break; /* a dangling -D: nothing to define */
      size_t need = 2 + strlen(v) + 1;
      char *j = o->joined + o->jlen;
      memcpy(j, t, 2);
      memcpy(j + 2, v, need - 2);
      o->jlen += need;
      if (cls__opts_push(o, j)) return -1;
      continue;
    }
    if (strcmp(t, "-x") == 0) { /* -x spir / -x clc++: OpenCL only */
      (void)strtok_r(NULL, " \t\r\n", &save);
      continue;
    }
    const char *tr = cls__opts_translate(t);
    if (tr) {
      if (cls__opts_push(o, (char *)tr)) return -1;
      continue;
    }
    if (strncmp(t, "-cl-", 4) == 0 || strcmp(t, "-Werror") == 0 ||
        strncmp(t, "-spir-std=", 10) == 0 ||
        strcmp(t, "-create-library") == 0 ||
        strcmp(t, "-enable-link-options") == 0)
      continue;
    if (cls__opts_push(o, t)) return -1;
  }
  return 0;
}

static void cls__opts_free(cls__opts *o) {
  free(o->buf);
  free(o->argv);
  free(o->joined);
}

/* ---- Modules ---------------------------------------------------------- */

static char *cls__nvrtc_log(nvrtcProgram prog) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return NULL;
  char *log = malloc(n);
  if (!log) return NULL;
  if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  log[n - 1] = '\0';
  return log;
}

clsError_t cls__b_module_load(int dev, const char *source, const char *options,
                              cls__bmodule **out, char **log) {
  *log = NULL;
  cls__cuda_device *d = cls__cuda_device_get(dev);
  int cubin = 0;
  int target = cls__nvrtc_target(d->arch, &cubin);
  if (!target)
    return cls__reason(clsErrorInvalidKernelImage,
                       "NVRTC cannot compile for sm_%d (device %d, %s)",
                       d->arch, dev, d->prop.name);
  char arch_opt[48];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d",
           cubin ? "sm" : "compute", target);

  cls__opts o;
  nvrtcProgram prog = NULL;
  char *image = NULL;
  cls__bmodule *m = NULL;
  clsError_t e = clsSuccess;
  nvrtcResult nr;

  if (cls__opts_parse(&o, options) || cls__opts_push(&o, arch_opt)) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto done;
  }
  nr = nvrtcCreateProgram(&prog, source, "clstream_module.cu", 0, NULL, NULL);
  if (nr != NVRTC_SUCCESS) {
    e = cls__cuda_error(CLS__NVRTC, nr, "nvrtcCreateProgram");
    prog = NULL;
    goto done;
  }
  /* Blocks while compiling; NVRTC is thread-safe. */
  nr = nvrtcCompileProgram(prog, o.argc, (const char *const *)o.argv);
  *log = cls__nvrtc_log(prog);
  if (nr != NVRTC_SUCCESS) {
    e = cls__cuda_error(CLS__NVRTC, nr, "nvrtcCompileProgram");
    goto done;
  }
  size_t n = 0;
  nr = cubin ? nvrtcGetCUBINSize(prog, &n) : nvrtcGetPTXSize(prog, &n);
  if (nr != NVRTC_SUCCESS || n == 0) {
    e = nr != NVRTC_SUCCESS
            ? cls__cuda_error(CLS__NVRTC, nr, "nvrtcGetCUBINSize")
            : cls__reason(clsErrorInvalidKernelImage, "NVRTC made no code");
    goto done;
  }
  image = malloc(n);
  if (!image) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto done;
  }
  nr = cubin ? nvrtcGetCUBIN(prog, image) : nvrtcGetPTX(prog, image);
  if (nr != NVRTC_SUCCESS) {
    e = cls__cuda_error(CLS__NVRTC, nr, "nvrtcGetCUBIN");
    goto done;
  }

  m = calloc(1, sizeof *m);
  if (!m) {
    e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
    goto done;
  }
  m->dev = dev;
  e = cls__cuda_use(dev);
  /* A library is context-independent: the runtime loads it into the
   * device's primary context (at once, or at the first launch under lazy
   * loading). */
  if (e == clsSuccess)
    e = cls__cuda_rt(
        cudaLibraryLoadData(&m->lib, image, NULL, NULL, 0, NULL, NULL, 0),
        "cudaLibraryLoadData");
  if (e != clsSuccess) {
    free(m);
    m = NULL;
    goto done;
  }
  pthread_mutex_init(&m->lock, NULL);
  m->next_retired = NULL;
  *out = m;

done:
  free(image);
  if (prog) nvrtcDestroyProgram(&prog);
  cls__opts_free(&o);
  return e;
}

clsError_t cls__b_module_function(cls__bmodule *m, const char *name,
                                  cls__bfunction **out) {
  clsError_t e = cls__cuda_use(m->dev); /* the context to load into */
  if (e != clsSuccess) return e;
  pthread_mutex_lock(&m->lock);
  cls__bfunction *f = m->fns;
  while (f && strcmp(f->name, name) != 0) f = f->next;
  if (!f) {
    cudaKernel_t k;
    cudaError_t r = cudaLibraryGetKernel(&k, m->lib, name);
    if (r == cudaErrorSymbolNotFound) {
      (void)cudaGetLastError();
      e = cls__reason(clsErrorSymbolNotFound,
                      "the module has no kernel named \"%s\"", name);
    } else if (r != cudaSuccess) {
      e = cls__cuda_error(CLS__CUDART, (int)r, "cudaLibraryGetKernel");
    } else {
      /* Loads the kernel into the context now (see cls__b_init on lazy
       * loading), not at its first launch. */
      struct cudaFuncAttributes attr;
      if (cudaFuncGetAttributes(&attr, (const void *)k) != cudaSuccess)
        (void)cudaGetLastError();
      size_t len = strlen(name);
      f = malloc(sizeof *f + len + 1);
      if (!f) {
        e = cls__reason(clsErrorMemoryAllocation, "out of host memory");
      } else {
        f->mod = m;
        f->kernel = k;
        memcpy(f->name, name, len + 1);
        f->next = m->fns;
        m->fns = f;
      }
    }
  }
  pthread_mutex_unlock(&m->lock);
  if (e == clsSuccess) *out = f;
  return e;
}

clsError_t cls__b_launch(cls__bfunction *f, clsDim3 grid, clsDim3 block,
                         void **args, size_t sharedMem, cls__bstream *s) {
  clsError_t e = cls__cuda_use(s->dev);
  if (e != clsSuccess) return e;
  dim3 g = {grid.x, grid.y, grid.z};
  dim3 b = {block.x, block.y, block.z};
  /* The runtime accepts a cudaKernel_t where it takes a kernel symbol. */
  return cls__cuda_rt(
      cudaLaunchKernel((const void *)f->kernel, g, b, args, sharedMem, s->s),
      "cudaLaunchKernel");
}

/* ---- Module globals ---------------------------------------------------- */

clsError_t cls__b_module_global(cls__bmodule *m, const char *name, void **ptr,
                                size_t *size) {
  clsError_t e = cls__cuda_use(m->dev);
  if (e != clsSuccess) return e;
  /* A __device__ or __constant__ variable at namespace scope keeps its
   * name in the image (C++ does not mangle it). */
  cudaError_t r = cudaLibraryGetGlobal(ptr, size, m->lib, name);
  if (r == cudaErrorSymbolNotFound || r == cudaErrorInvalidSymbol) {
    (void)cudaGetLastError();
    return cls__reason(clsErrorSymbolNotFound,
                       "no module global named '%s' (declared with "
                       "CLS_DEVICE_GLOBAL or CLS_CONSTANT) in the module",
                       name);
  }
  return cls__cuda_rt(r, "cudaLibraryGetGlobal");
}
