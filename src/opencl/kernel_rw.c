/*
 * OpenCL backend: the source rewrite a module goes through before its
 * build, for the dialect forms OpenCL C cannot spell as macros:
 *
 * - CLS_DYNAMIC_SHARED(type, name) in a kernel's body (CUDA's
 *   `extern __shared__ type name[]`): the kernel gains a hidden last
 *   parameter `__local ulong16 *cls__dyn_smem`, which launches size with
 *   clsLaunchKernel's sharedMem, and the form declares `name` as a
 *   pointer to it (the prelude's macro).
 * - Pointer parameters on the buffer path: each __global or __constant
 *   pointer parameter p is renamed cls__bp_p and gains a hidden
 *   `ulong cls__off<i>`; the body opens by declaring p as cls__bp_p plus
 *   that many bytes.  A launch passes the allocation's buffer and the
 *   pointer's offset in it, so any offset works (a sub-buffer needs one
 *   aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN).  Never done on SVM.
 * - CLS_DEVICE_GLOBAL(type, decl) and CLS_CONSTANT(type, decl) at program
 *   scope: OpenCL C 1.2 has no writable program-scope variables (PoCL 3.1
 *   and rusticl lack OpenCL C 2.0's too), so a module's globals live in
 *   device memory the module allocates (module.c), and every kernel gains
 *   a hidden `__global uchar *cls__gbase` aimed at it.  <name> is defined
 *   as the object at its offset there (each global starts on a 128-byte
 *   boundary after the previous one); an initializer becomes the
 *   __constant cls__init_<name>, which the helper kernel cls__ginit
 *   copies in once (the rest is zeroed).  So a global has a device
 *   address that kernels, copies and clsMemcpyToSymbol reach as any device
 *   memory.  Only kernels see cls__gbase: a CLS_DEVICE helper function
 *   that names a global does not compile (pass it a pointer instead).
 * - By-value parameters of types the library cannot size (structs,
 *   unions, typedefs): the helper kernel cls__meta writes their sizeof,
 *   and the globals', which module.c reads once per module.
 *
 * Hidden parameters come after the user's, so that args[] maps to the
 * first parameters unchanged.  Insertions keep the user's line numbers
 * (a global's added lines are followed by #line).  The rewrite reads the
 * preprocessed program (kernel_pp.c), so a kernel that a macro builds is
 * rewritten too: an edit inside a macro's expansion replaces the
 * invocation with the expansion, edited (kernel_edit.c).
 * Calls no driver, takes no lock.
 */
#include "kernel_rw.h"

#include "driver.h"
#include "kernel_edit.h"
#include "kernel_sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends the tokens [a, b) of pp, separated by spaces. */
static void cls__put_toks(cls__str *s, const cls__pp *pp, size_t a, size_t b) {
  for (size_t i = a; i < b; i++)
    cls__putf(s, "%s%.*s", i > a ? " " : "", (int)pp->toks[i].n, pp->toks[i].s);
}

/* ---- Kernels ------------------------------------------------------------- */

/* The most hidden parameters one kernel gets (offsets beyond are not
 * added: those pointers take the sub-buffer path). */
#define CLS__RW_MAX_HIDDEN 64

/* The index of the matching closer of the opener at toks[i], or ntoks. */
static size_t cls__match(const cls__pp *pp, size_t i, const char *open,
                         const char *close) {
  int d = 0;
  for (; i < pp->ntoks; i++) {
    if (cls__tok_eq(pp->toks[i], open))
      d++;
    else if (cls__tok_eq(pp->toks[i], close) && --d == 0)
      return i;
  }
  return pp->ntoks;
}

/* Records that kernel `kname` has `nuser` own parameters and the hidden
 * ones of roles[0, nhid). */
static void cls__rw_note(cls__rwstate *st, cls__rw *out, cls__tok kname,
                         int nuser, const int *roles, int nhid) {
  cls__rw_kernel *k =
      realloc(out->kernels, (size_t)(out->nkernels + 1) * sizeof *k);
  char *name = strndup(kname.s, kname.n);
  int *r = malloc((size_t)nhid * sizeof *r);
  if (k) out->kernels = k;
  if (!k || !name || !r) {
    free(name);
    free(r);
    st->oom = 1;
    return;
  }
  memcpy(r, roles, (size_t)nhid * sizeof *r);
  k[out->nkernels++] = (cls__rw_kernel){name, nuser, nhid, r};
}

/* Whether type name `t` is one of OpenCL C's opaque types, which sizeof
 * does not take (launches refuse them). */
static int cls__opaque(const char *t) {
  static const char *const opaque[] = {"sampler_t",   "event_t",     "queue_t",
                                       "pipe",        "image",       "bool",
                                       "clk_event_t", "reserve_id_t"};
  for (size_t i = 0; i < sizeof opaque / sizeof opaque[0]; i++)
    if (strstr(t, opaque[i])) return 1;
  return 0;
}

/* Rewrites the kernel whose parameter list opens at toks[lp]; `kname` is
 * its name.  Returns the index to continue from. */
static size_t cls__rw_one_kernel(cls__rwstate *st, cls__rw *out, size_t lp,
                                 cls__tok kname, int offsets) {
  const cls__pp *pp = &st->pp;
  size_t rp = cls__match(pp, lp, "(", ")");
  if (rp >= pp->ntoks) return rp;
  size_t body = cls__skip_attr(pp, rp + 1);
  if (body >= pp->ntoks || !cls__tok_eq(pp->toks[body], "{")) return rp;
  size_t end = cls__match(pp, body, "{", "}");
  cls__str hidden = {0}, prologue = {0};
  int n = 0, nhid = 0, roles[CLS__RW_MAX_HIDDEN];
  size_t voidtok = 0;
  /* The parameters, split at top-level commas. */
  for (size_t a = lp + 1, k = a; k <= rp; k++) {
    cls__tok t = pp->toks[k];
    if (cls__tok_eq(t, "(") || cls__tok_eq(t, "[")) {
      k = cls__match(pp, k, cls__tok_eq(t, "(") ? "(" : "[",
                     cls__tok_eq(t, "(") ? ")" : "]");
      continue;
    }
    if (!cls__tok_eq(t, ",") && k != rp) continue;
    if (k == a + 1 && k == rp && n == 0 && cls__tok_eq(pp->toks[a], "void")) {
      voidtok = a;
      break;
    }
    if (k == a) break; /* "()" */
    cls__kernel_param p;
    char why[160];
    if (cls__param(pp, a, k, &p, why, sizeof why) == 0) {
      int ptr = strchr(p.type, '*') != NULL;
      size_t el, ln;
      if (p.aq == CL_KERNEL_ARG_ADDRESS_PRIVATE &&
          p.acq == CL_KERNEL_ARG_ACCESS_NONE && !ptr &&
          !cls__ocl_value_size(p.type, &el, &ln) && !cls__opaque(p.type)) {
        cls__rw_size *s =
            realloc(out->sizes, (size_t)(out->nsizes + 1) * sizeof *s);
        char *kn = strndup(kname.s, kname.n);
        if (!s || !kn) {
          free(kn);
          st->oom = 1;
        } else {
          out->sizes = s;
          s[out->nsizes++] = (cls__rw_size){kn, n, 0};
          cls__putf(&st->tail, "  cls__o[%d] = sizeof(%s);\n",
                    2 * (out->nsizes - 1), p.type);
        }
      }
      int space = p.aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? 1
                  : p.aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? 2
                                                           : 0;
      if (offsets && space && ptr && p.acq == CL_KERNEL_ARG_ACCESS_NONE) {
        size_t nm = k;
        for (size_t j = a; j < k; j++)
          if (cls__tok_eq(pp->toks[j], p.name)) nm = j;
        if (nm < k && nhid < CLS__RW_MAX_HIDDEN - 2) {
          roles[nhid++] = n;
          cls__str pre = {0};
          cls__putf(&pre, "cls__bp_");
          cls__edit_tok(st, nm, 0, 0, &pre);
          cls__putf(&hidden, ", ulong " CLS__RW_OFF "%d", n);
          cls__putf(&prologue,
                    " __typeof__(cls__bp_%s) %s = (__typeof__(cls__bp_%s))"
                    "((%s const uchar *)cls__bp_%s + " CLS__RW_OFF "%d);",
                    p.name, p.name, p.name,
                    space == 1 ? "__global" : "__constant", p.name, n);
        }
      }
    }
    n++;
    a = k + 1;
  }
  if (st->globals) {
    cls__putf(&hidden, ", __global uchar *" CLS__RW_GBASE);
    roles[nhid++] = CLS__RW_ROLE_GBASE;
  }
  for (size_t j = body; j < end; j++)
    if (cls__tok_eq(pp->toks[j], "CLS_DYNAMIC_SHARED")) {
      cls__putf(&hidden, ", __local ulong16 *" CLS__RW_DYN);
      roles[nhid++] = CLS__RW_ROLE_DYN;
      break;
    }
  if (nhid) cls__rw_note(st, out, kname, n, roles, nhid);
  if (hidden.n) {
    /* Drop the leading ", " where the kernel has no parameters. */
    if (n == 0) {
      memmove(hidden.s, hidden.s + 2, hidden.n - 1);
      if (voidtok) {
        cls__str none = {0};
        cls__putf(&none, "%s", "");
        cls__edit_tok(st, voidtok, 0, 1, &none);
      }
    }
    cls__edit_tok(st, rp, 0, 0, &hidden);
    if (prologue.n)
      cls__edit_tok(st, body, 1, 0, &prologue);
    else
      free(prologue.s);
  } else {
    free(hidden.s);
    free(prologue.s);
  }
  return end < pp->ntoks ? end : rp;
}

/* ---- Globals ------------------------------------------------------------- */

/* The user's line number at source position p (1 before the prelude's
 * end: the prelude has no globals). */
static unsigned cls__line_at(const cls__rwstate *st, const char *p) {
  unsigned line = 1;
  for (const char *q = st->user; q < p; q++) line += *q == '\n';
  return line;
}

/* Rewrites the global whose form is toks[i] (its '(' follows).  Returns
 * the index to continue from, or 0 with `why`. */
static size_t cls__rw_one_global(cls__rwstate *st, cls__rw *out, size_t i,
                                 char *why, size_t nwhy) {
  const cls__pp *pp = &st->pp;
  size_t rp = cls__match(pp, i + 1, "(", ")"), comma = 0;
  for (size_t k = i + 2; k < rp && !comma; k++) {
    if (cls__tok_eq(pp->toks[k], "(")) k = cls__match(pp, k, "(", ")");
    if (k < rp && cls__tok_eq(pp->toks[k], ",")) comma = k;
  }
  size_t name = comma + 1;
  if (rp >= pp->ntoks || !comma || comma == i + 2 || name >= rp ||
      !cls__ident_start((unsigned char)pp->toks[name].s[0]) ||
      !cls__in_src(st, pp->toks[i]) || !cls__in_src(st, pp->toks[rp])) {
    snprintf(why, nwhy,
             "%.*s must read %.*s(type, name) or %.*s(type, name[size]) in "
             "the source itself",
             (int)pp->toks[i].n, pp->toks[i].s, (int)pp->toks[i].n,
             pp->toks[i].s, (int)pp->toks[i].n, pp->toks[i].s);
    return 0;
  }
  int init = rp + 1 < pp->ntoks && cls__tok_eq(pp->toks[rp + 1], "=");
  cls__tok nm = pp->toks[name];
  cls__rw_global *g =
      realloc(out->globals, (size_t)(out->nglobals + 1) * sizeof *g);
  char *gname = strndup(nm.s, nm.n);
  if (!g || !gname) {
    free(gname);
    if (g) out->globals = g;
    st->oom = 1;
    return rp;
  }
  out->globals = g;
  int k = out->nglobals++;
  g[k] = (cls__rw_global){gname, 0, 0};
  /* Its offset in the storage (the previous one's end, rounded up to 128
   * bytes, as module.c lays them out), the name's macro, the line back,
   * then the initial value in place of the form. */
  cls__str t = {0};
  if (k == 0)
    cls__putf(&t, "\n#define cls__goff_%s 0\n", gname);
  else
    cls__putf(&t,
              "\n#define cls__goff_%s ((cls__goff_%s + sizeof(%s) + 127) / "
              "128 * 128)\n",
              gname, g[k - 1].name, st->prev_type.s);
  cls__putf(&t, "#define %s (*(__global ", gname);
  cls__put_toks(&t, pp, i + 2, comma);
  cls__putf(&t, " (*)");
  cls__put_toks(&t, pp, name + 1, rp);
  cls__putf(&t, ")(" CLS__RW_GBASE " + cls__goff_%s))\n#line %u\n", gname,
            cls__line_at(st, pp->toks[i].s));
  if (init) {
    cls__putf(&t, "__constant ");
    cls__put_toks(&t, pp, i + 2, comma);
    cls__putf(&t, " cls__init_%s ", gname);
    cls__put_toks(&t, pp, name + 1, rp);
  }
  size_t pos = (size_t)(pp->toks[i].s - st->src);
  cls__edit_add(st, pos, (size_t)(pp->toks[rp].s + 1 - st->src) - pos, &t);
  /* The type as a type name, for sizeof: "float [256]". */
  st->prev_type.n = 0;
  cls__put_toks(&st->prev_type, pp, i + 2, comma);
  cls__putf(&st->prev_type, " ");
  cls__put_toks(&st->prev_type, pp, name + 1, rp);
  if (st->prev_type.oom) st->oom = 1;
  cls__putf(&st->tail, "  cls__o[%d] = sizeof(%s);\n", 2 * k + 1,
            st->prev_type.s ? st->prev_type.s : "char");
  /* Binding: the initial value, or zeros. */
  if (init)
    cls__putf(&st->ginit,
              "  for (ulong i = 0; i < sizeof(cls__init_%s); i++)\n"
              "    ((__global uchar *)&%s)[i] =\n"
              "        ((__constant uchar *)&cls__init_%s)[i];\n",
              gname, gname, gname);
  else
    cls__putf(&st->ginit,
              "  for (ulong i = 0; i < sizeof(%s); i++)\n"
              "    ((__global uchar *)&%s)[i] = 0;\n",
              gname, gname);
  return rp;
}

/* ---- The rewrite --------------------------------------------------------- */

/* The rewritten source (malloc'd) with the helper kernels after it, or
 * NULL when out of host memory. */
static char *cls__rw_source(cls__rwstate *st) {
  cls__str o = {0};
  cls__apply(st, &o);
  if (st->tail.n || st->ginit.n)
    cls__putf(&o,
              "\n__kernel void " CLS__RW_META "(__global ulong *cls__o) {\n"
              "%s}\n",
              st->tail.n ? st->tail.s : "");
  if (st->ginit.n)
    cls__putf(&o,
              "__kernel void " CLS__RW_GINIT "(__global uchar "
              "*" CLS__RW_GBASE ") {\n%s}\n",
              st->ginit.s);
  if (o.oom) {
    free(o.s);
    return NULL;
  }
  return o.s;
}

int cls__rewrite(const char *source, const char *options,
                 const char *const *predef, int offsets, cls__rw *out,
                 char *why, size_t nwhy) {
  memset(out, 0, sizeof *out);
  cls__rwstate st = {0};
  st.src = source;
  st.len = strlen(source);
  const char *u = strstr(source, "\n#line 1\n");
  st.user = u ? u + 9 : source;
  /* The dialect's forms stay as they are, for the rewrite to find. */
  static const char *const forms[] = {"CLS_DYNAMIC_SHARED", "CLS_DEVICE_GLOBAL",
                                      "CLS_CONSTANT", NULL};
  st.pp.keep = forms;
  for (; predef && *predef; predef++)
    cls__define_option(&st.pp, *predef, strlen(*predef));
  cls__options(&st.pp, options);
  cls__preprocess(&st.pp, source);
  const cls__pp *pp = &st.pp;
  int rc = 0, depth = 0;
  for (size_t i = 0; i < pp->ntoks; i++)
    st.globals |= cls__tok_eq(pp->toks[i], "CLS_DEVICE_GLOBAL") ||
                  cls__tok_eq(pp->toks[i], "CLS_CONSTANT");
  for (size_t i = 0; i < pp->ntoks && !pp->oom && !st.oom && rc == 0; i++) {
    cls__tok t = pp->toks[i];
    if (cls__tok_eq(t, "{")) depth++;
    if (cls__tok_eq(t, "}")) depth--;
    if (depth == 0 && i + 1 < pp->ntoks &&
        (cls__tok_eq(t, "CLS_DEVICE_GLOBAL") ||
         cls__tok_eq(t, "CLS_CONSTANT")) &&
        cls__tok_eq(pp->toks[i + 1], "(")) {
      size_t next = cls__rw_one_global(&st, out, i, why, nwhy);
      if (!next) rc = -1;
      i = next;
      continue;
    }
    if (!cls__tok_eq(t, "__kernel") && !cls__tok_eq(t, "kernel")) continue;
    size_t j = i + 1, name = 0;
    while (j < pp->ntoks) {
      j = cls__skip_attr(pp, j);
      if (j >= pp->ntoks || cls__tok_eq(pp->toks[j], "(") ||
          cls__tok_eq(pp->toks[j], ";") || cls__tok_eq(pp->toks[j], "{"))
        break;
      name = j++;
    }
    if (j >= pp->ntoks || !cls__tok_eq(pp->toks[j], "(") || !name) continue;
    i = cls__rw_one_kernel(&st, out, j, pp->toks[name], offsets);
  }
  if (!rc && (pp->oom || st.oom || st.tail.oom || st.ginit.oom)) {
    snprintf(why, nwhy, "out of host memory rewriting the kernel source");
    rc = -1;
  }
  if (!rc && (st.ned || st.nted || st.tail.n || st.ginit.n)) {
    out->source = cls__rw_source(&st);
    if (!out->source) {
      snprintf(why, nwhy, "out of host memory rewriting the kernel source");
      rc = -1;
    }
  }
  cls__edits_free(&st);
  cls__pp_free(&st.pp);
  if (rc) cls__rw_free(out);
  return rc;
}

void cls__rw_free(cls__rw *rw) {
  free(rw->source);
  for (int i = 0; i < rw->nsizes; i++) free(rw->sizes[i].kernel);
  for (int i = 0; i < rw->nglobals; i++) free(rw->globals[i].name);
  for (int i = 0; i < rw->nkernels; i++) {
    free(rw->kernels[i].name);
    free(rw->kernels[i].role);
  }
  free(rw->kernels);
  free(rw->sizes);
  free(rw->globals);
  memset(rw, 0, sizeof *rw);
}
