/*
 * OpenCL backend: kernel parameter types read from the source.
 *
 * Drivers give a kernel's parameter types only when the program was built
 * with -cl-kernel-arg-info, and that option is not always safe: NVIDIA's
 * driver (580) fails to build any program holding a kernel with an empty
 * (or dead) body when it is given.  module.c then builds without it, and
 * function.c asks this file instead, which reads the parameter lists from
 * the source itself.
 *
 * It first runs the C preprocessor of kernel_pp.c over the whole program,
 * the dialect's prelude included: macros of every kind are expanded, so a
 * kernel or parameter list that a macro builds (HIP's templates written as
 * `#define VECTOR_ADD(T) ... vectorADD_##T(...)`) reads as the compiler
 * sees it.  The macros an OpenCL C compiler predefines that kernels test
 * (__OPENCL_VERSION__, __OPENCL_C_VERSION__, CL_VERSION_x_y, the device's
 * extension names) come from the caller.  A parameter whose type is a
 * typedef of a pointer (`typedef __global float *fptr;`) reads as that
 * pointer.
 *
 * The result for each parameter is what clGetKernelArgInfo would have
 * said: address space, access qualifier (images), type name and name.
 */
#include "driver.h"

#include "kernel_pp.h"
#include "kernel_sig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Value types -----------------------------------------------------------
 */

static int cls__tok_is(const char *t, size_t n, const char *word) {
  return strlen(word) == n && memcmp(t, word, n) == 0;
}

/* The size in bytes of an OpenCL C scalar or vector type named `tn` (as
 * CL_KERNEL_ARG_TYPE_NAME gives it: "int", "uint", "float4", possibly
 * "unsigned int" or with qualifiers such as "const"), or 0 when it is not
 * one.  A 3-element vector takes the size of 4 elements; *elem gets the
 * size of one element and *lanes_out the number of elements (3 for a
 * 3-element vector). */
size_t cls__ocl_value_size(const char *tn, size_t *elem, size_t *lanes_out) {
  static const struct {
    const char *name;
    size_t size;
    int is_signed_int; /* may follow "unsigned" */
  } base[] = {
      {"char", 1, 1},  {"uchar", 1, 0},  {"short", 2, 1}, {"ushort", 2, 0},
      {"int", 4, 1},   {"uint", 4, 0},   {"long", 8, 1},  {"ulong", 8, 0},
      {"float", 4, 0}, {"double", 8, 0}, {"half", 2, 0},
  };
  char word[32];
  size_t wlen = 0;
  int uns = 0, sgn = 0;
  const char *p = tn;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *t = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t n = (size_t)(p - t);
    if (cls__tok_is(t, n, "const") || cls__tok_is(t, n, "__const") ||
        cls__tok_is(t, n, "volatile") || cls__tok_is(t, n, "__volatile") ||
        cls__tok_is(t, n, "restrict") || cls__tok_is(t, n, "__restrict") ||
        cls__tok_is(t, n, "__private") || cls__tok_is(t, n, "private"))
      continue;
    if (cls__tok_is(t, n, "unsigned")) {
      uns = 1;
      continue;
    }
    if (cls__tok_is(t, n, "signed")) {
      sgn = 1;
      continue;
    }
    if (wlen || n >= sizeof word) return 0; /* two type words: unknown */
    memcpy(word, t, n);
    word[n] = '\0';
    wlen = n;
  }
  if (!wlen) {
    if (!uns && !sgn) return 0;
    memcpy(word, "int", 4); /* "unsigned" alone */
    wlen = 3;
  }
  size_t b = wlen;
  while (b && isdigit((unsigned char)word[b - 1])) b--;
  size_t lanes = 1;
  if (b < wlen) {
    if (b == 0) return 0;
    lanes = (size_t)strtoul(word + b, NULL, 10);
    if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
      return 0;
    word[b] = '\0';
  }
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
    if (strcmp(word, base[i].name) != 0) continue;
    if ((uns || sgn) && (!base[i].is_signed_int || lanes != 1)) return 0;
    *elem = base[i].size;
    *lanes_out = lanes;
    return base[i].size * (lanes == 3 ? 4 : lanes);
  }
  return 0;
}

/* ---- Kernel signatures --------------------------------------------------- */

/* Skips __attribute__((...)) at toks[i]; returns the index after it. */
size_t cls__skip_attr(const cls__pp *pp, size_t i) {
  while (i < pp->ntoks && (cls__tok_eq(pp->toks[i], "__attribute__") ||
                           cls__tok_eq(pp->toks[i], "__attribute"))) {
    i++;
    int d = 0;
    do {
      if (i >= pp->ntoks) return i;
      if (cls__tok_eq(pp->toks[i], "("))
        d++;
      else if (cls__tok_eq(pp->toks[i], ")"))
        d--;
      i++;
    } while (d > 0);
  }
  return i;
}

static void cls__append(char *buf, size_t cap, cls__tok t) {
  size_t n = strlen(buf);
  if (n && n + 1 < cap && cls__ident_char((unsigned char)buf[n - 1]) &&
      cls__ident_char((unsigned char)t.s[0]))
    buf[n++] = ' ';
  size_t k = t.n < cap - 1 - n ? t.n : cap - 1 - n;
  memcpy(buf + n, t.s, k);
  buf[n + k] = '\0';
}

/* The definition [*da, *db) of typedef `name` declared before toks[at]
 * at file scope, when it has no braces (not a struct body): 1, or 0. */
static int cls__typedef(const cls__pp *pp, size_t at, cls__tok name, size_t *da,
                        size_t *db) {
  int depth = 0, found = 0;
  for (size_t i = 0; i < at; i++) {
    cls__tok t = pp->toks[i];
    if (cls__tok_eq(t, "{")) depth++;
    if (cls__tok_eq(t, "}")) depth--;
    if (depth || !cls__tok_eq(t, "typedef")) continue;
    size_t j = i + 1;
    int braces = 0;
    while (j < at && !cls__tok_eq(pp->toks[j], ";"))
      braces |= cls__tok_eq(pp->toks[j++], "{");
    if (j < at && j > i + 2 && !braces && pp->toks[j - 1].n == name.n &&
        memcmp(pp->toks[j - 1].s, name.s, name.n) == 0) {
      *da = i + 1;
      *db = j - 1;
      found = 1;
    }
    if (!braces) i = j;
  }
  return found;
}

/* Reads the words of toks[a, b) into *out, but for the name at index
 * `last`: address space, access qualifier, '*' (in *ptr) and the type's
 * words, a typedef of a pointer read as its definition. */
static int cls__param_words(const cls__pp *pp, size_t a, size_t b, size_t last,
                            cls__kernel_param *out, int *ptr, int depth,
                            char *why, size_t nwhy) {
  for (size_t i = a; i < b; i++) {
    i = cls__skip_attr(pp, i);
    if (i >= b) break;
    cls__tok t = pp->toks[i];
    if (cls__tok_eq(t, "[")) break;
    if (i == last) {
      size_t k = t.n < sizeof out->name - 1 ? t.n : sizeof out->name - 1;
      memcpy(out->name, t.s, k);
      continue;
    }
    size_t da, db;
    if (cls__tok_eq(t, "__global") || cls__tok_eq(t, "global"))
      out->aq = CL_KERNEL_ARG_ADDRESS_GLOBAL;
    else if (cls__tok_eq(t, "__constant") || cls__tok_eq(t, "constant"))
      out->aq = CL_KERNEL_ARG_ADDRESS_CONSTANT;
    else if (cls__tok_eq(t, "__local") || cls__tok_eq(t, "local"))
      out->aq = CL_KERNEL_ARG_ADDRESS_LOCAL;
    else if (cls__tok_eq(t, "__private") || cls__tok_eq(t, "private"))
      out->aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    else if (cls__tok_eq(t, "__read_only") || cls__tok_eq(t, "read_only"))
      out->acq = CL_KERNEL_ARG_ACCESS_READ_ONLY;
    else if (cls__tok_eq(t, "__write_only") || cls__tok_eq(t, "write_only"))
      out->acq = CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
    else if (cls__tok_eq(t, "__read_write") || cls__tok_eq(t, "read_write"))
      out->acq = CL_KERNEL_ARG_ACCESS_READ_WRITE;
    else if (cls__tok_eq(t, "*"))
      *ptr = 1;
    else if (cls__tok_eq(t, "(") || cls__tok_eq(t, ")")) {
      snprintf(why, nwhy, "parameter '%s' is a function pointer", out->name);
      return -1;
    } else if (cls__ident_start((unsigned char)t.s[0])) {
      int p2 = 0;
      cls__kernel_param inner = *out;
      inner.type[0] = '\0';
      /* A typedef naming a pointer: its definition's words instead. */
      if (depth < 8 && cls__typedef(pp, a, t, &da, &db) &&
          cls__param_words(pp, da, db, (size_t)-1, &inner, &p2, depth + 1, why,
                           nwhy) == 0 &&
          p2) {
        out->aq = inner.aq;
        out->acq = inner.acq;
        for (const char *w = inner.type; *w;) {
          const char *e = w;
          while (*e && *e != ' ') e++;
          cls__append(out->type, sizeof out->type,
                      (cls__tok){w, (unsigned)(e - w), 0, 0});
          w = *e ? e + 1 : e;
        }
        *ptr = 1;
      } else {
        cls__append(out->type, sizeof out->type, t);
      }
    }
  }
  return 0;
}

/* Reads one parameter from toks[a, b). */
int cls__param(const cls__pp *pp, size_t a, size_t b, cls__kernel_param *out,
               char *why, size_t nwhy) {
  memset(out, 0, sizeof *out);
  out->aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  out->acq = CL_KERNEL_ARG_ACCESS_NONE;
  /* The name is the last identifier, unless the parameter is an array
   * ("int a[4]"), whose name precedes the brackets. */
  size_t last = b;
  int ptr = 0;
  for (size_t i = a; i < b; i++) {
    cls__tok t = pp->toks[i];
    if (cls__tok_eq(t, "[")) {
      ptr = 1;
      break;
    }
    if (cls__ident_start((unsigned char)t.s[0])) last = i;
  }
  if (last < b) {
    size_t k = pp->toks[last].n < sizeof out->name - 1 ? pp->toks[last].n
                                                       : sizeof out->name - 1;
    memcpy(out->name, pp->toks[last].s, k);
  }
  if (cls__param_words(pp, a, b, last, out, &ptr, 0, why, nwhy) != 0) return -1;
  if (ptr) cls__append(out->type, sizeof out->type, (cls__tok){"*", 1, 0, 0});
  if (!out->type[0]) {
    snprintf(why, nwhy, "a parameter has no type");
    return -1;
  }
  return 0;
}

int cls__kernel_params(const char *source, const char *options,
                       const char *const *predefined, const char *kernel,
                       cls__kernel_param *out, int max, char *why,
                       size_t nwhy) {
  cls__pp pp = {0};
  for (; predefined && *predefined; predefined++)
    cls__define_option(&pp, *predefined, strlen(*predefined));
  cls__options(&pp, options);
  cls__preprocess(&pp, source);
  int found = -2;
  snprintf(why, nwhy, "no kernel named '%s' found in the source", kernel);
  for (size_t i = 0; i < pp.ntoks && !pp.oom && found == -2; i++) {
    if (!cls__tok_eq(pp.toks[i], "__kernel") &&
        !cls__tok_eq(pp.toks[i], "kernel"))
      continue;
    /* __kernel [attributes] void [attributes] name ( ... ) */
    size_t j = i + 1, name = 0;
    while (j < pp.ntoks) {
      j = cls__skip_attr(&pp, j);
      if (j >= pp.ntoks || cls__tok_eq(pp.toks[j], "(") ||
          cls__tok_eq(pp.toks[j], ";") || cls__tok_eq(pp.toks[j], "{"))
        break;
      name = j++;
    }
    if (j >= pp.ntoks || !cls__tok_eq(pp.toks[j], "(") || !name ||
        !cls__tok_eq(pp.toks[name], kernel))
      continue;
    /* The parameters, split at top-level commas. */
    size_t a = j + 1, k = a;
    int depth = 0, n = 0;
    found = 0;
    for (; k < pp.ntoks; k++) {
      cls__tok t = pp.toks[k];
      if (cls__tok_eq(t, "(") || cls__tok_eq(t, "["))
        depth++;
      else if (depth && (cls__tok_eq(t, ")") || cls__tok_eq(t, "]")))
        depth--;
      else if (!depth && (cls__tok_eq(t, ",") || cls__tok_eq(t, ")"))) {
        int lone_void = k == a + 1 && n == 0 && cls__tok_eq(t, ")") &&
                        cls__tok_eq(pp.toks[a], "void");
        if (k > a && !lone_void) {
          if (n >= max) {
            snprintf(why, nwhy, "kernel '%s' has more than %d parameters",
                     kernel, max);
            found = -1;
            break;
          }
          if (cls__param(&pp, a, k, &out[n], why, nwhy) != 0) {
            found = -1;
            break;
          }
          n++;
        }
        a = k + 1;
        if (cls__tok_eq(t, ")")) break;
      }
    }
    if (found == 0) found = n;
  }
  if (pp.oom) {
    snprintf(why, nwhy,
             "out of host memory reading the kernel source (or its macros "
             "expand to more than %zu tokens)",
             CLS__MAX_TOKENS);
    found = -1;
  }
  cls__pp_free(&pp);
  return found == -2 ? -1 : found;
}
