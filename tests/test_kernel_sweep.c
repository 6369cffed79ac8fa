/* The kernel sweep (issue 9, point 4): builds every kernel module of the
 * source tree and launches every kernel in it, so that a kernel one driver
 * rejects is caught by running the suite on that driver.
 *
 * Where the modules come from (the file list is globbed by
 * tests/CMakeLists.txt when the build is configured; the files are read
 * here at run time, so nothing is copied into a table that could rot):
 *  - each .cl file of tests/ and examples/ (the test kernels in
 *    tests/kernels/, the examples' examples/arith.cl) is one module;
 *  - in the C and C++ files of tests/, examples/, bench/ and tools/, every
 *    string literal (adjacent literals concatenated across white space,
 *    comments and line breaks, escapes decoded) that contains CLS_KERNEL is
 *    one module.  A source that appears more than once (the same text and
 *    options) is built once.
 *
 * Marker comments written inside a module's source tell the sweep what
 * the source is for:
 *   cls-sweep: expect build error   it must fail to build (InvalidSource);
 *   cls-sweep: options OPTS         it is built with the options OPTS;
 *   cls-sweep: opencl only          it is skipped on the CUDA build.
 * Every other module must build.  A module that fails to build and uses
 * double on a device without fp64, or cls_clock64() on a device without a
 * clock (build probes say so), is skipped with a SKIP line.
 *
 * Each kernel of a built module (found by scanning the source, with a
 * small preprocessor, for CLS_KERNEL [attributes] void NAME(params), where
 * the attributes and the parameter list may be behind macros; a source
 * with function-like macros is read after the host C compiler's
 * preprocessor, so that HIP-style templates such as VECTOR_ADD(T) are
 * found) is launched with
 * a grid of one block of one thread, then with a block of 64 threads where the
 * device allows it (a kernel with a reqd_work_group_size gets only that block),
 * each followed by clsDeviceSynchronize.  Pointer parameters get separate
 * zeroed device buffers of 64 KiB; every other parameter is zero.  A launch
 * refused with InvalidValue is accepted (with a NOTE) only for a kernel that
 * has a parameter whose type is not a built-in scalar or vector: the OpenCL
 * build refuses samplers (and types it cannot measure) by design.
 *
 * Failures are collected, each naming the file, the module and the
 * kernel, so that one run on a driver lists everything that driver
 * rejects. */
#include "support.h"
#include "kernel_sweep_files.h"

#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
  SWEEP_BUF_BYTES = 64 * 1024, /* each pointer parameter's buffer */
  SWEEP_MAX_PARAMS = 64,
  /* Host bytes behind each value parameter: 64 covers every built-in type
   * up to float16 and int16; 128 also covers long16 and double16. */
  SWEEP_VALUE_BYTES = 128,
  SWEEP_LOG_CHARS = 800, /* how much of a build log a failure prints */
};

/* ---- Small helpers ------------------------------------------------------ */

/* A growable NUL-terminated string. */
typedef struct strbuf {
  char *s;
  size_t n, cap;
} strbuf;

static void sb_putc(strbuf *b, char c) {
  if (b->n + 2 > b->cap) {
    b->cap = b->cap ? 2 * b->cap : 256;
    b->s = realloc(b->s, b->cap);
    ck_assert_ptr_nonnull(b->s);
  }
  b->s[b->n++] = c;
  b->s[b->n] = '\0';
}

static void sb_puts(strbuf *b, const char *s, size_t len) {
  for (size_t i = 0; i < len; ++i) sb_putc(b, s[i]);
}

/* Reads a whole file; NULL if it cannot be read. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  strbuf b = {0};
  char chunk[4096];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sb_puts(&b, chunk, k);
  fclose(f);
  if (!b.s) b.s = calloc(1, 1);
  return b.s;
}

static int is_ident_start(int c) { return isalpha(c) || c == '_'; }
static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* Removes backslash-newline pairs (C's line splicing, done before
 * anything else), recording for each kept character its line number
 * (from 1) in *lines when lines is not NULL. */
static char *splice_lines(const char *text, int **lines) {
  size_t n = strlen(text);
  char *out = malloc(n + 1);
  int *ln = lines ? malloc((n + 1) * sizeof *ln) : NULL;
  ck_assert_ptr_nonnull(out);
  ck_assert(!lines || ln);
  size_t o = 0;
  int line = 1;
  for (size_t i = 0; i < n; ++i) {
    if (text[i] == '\\' && text[i + 1] == '\n') {
      ++i, ++line;
      continue;
    }
    if (text[i] == '\\' && text[i + 1] == '\r' && text[i + 2] == '\n') {
      i += 2, ++line;
      continue;
    }
    if (ln) ln[o] = line;
    out[o++] = text[i];
    if (text[i] == '\n') ++line;
  }
  out[o] = '\0';
  if (ln) ln[o] = line;
  if (lines) *lines = ln;
  return out;
}

/* ---- Module sources ---------------------------------------------------- */

/* One module source, as found in a file. */
typedef struct sweep_src {
  const char *file; /* relative to the source tree */
  int line;         /* line of its first literal (1 for a .cl file) */
  int index;        /* its index among the file's modules, from 0 */
  char *text;
} sweep_src;

typedef struct src_list {
  sweep_src *v;
  size_t n, cap;
} src_list;

static void src_add(src_list *l, const char *file, int line, char *text) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    ck_assert_ptr_nonnull(l->v);
  }
  int index = 0;
  for (size_t i = 0; i < l->n; ++i)
    if (strcmp(l->v[i].file, file) == 0) ++index;
  l->v[l->n++] = (sweep_src){file, line, index, text};
}

static void src_free(src_list *l) {
  for (size_t i = 0; i < l->n; ++i) free(l->v[i].text);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes the body of a string literal starting at s[i] (just after the
 * opening quote) into b; returns the index after the closing quote (or of
 * the line end, for an unterminated literal). */
static size_t decode_literal(const char *s, size_t i, strbuf *b) {
  while (s[i] && s[i] != '"' && s[i] != '\n') {
    char c = s[i++];
    if (c != '\\') {
      sb_putc(b, c);
      continue;
    }
    c = s[i++];
    switch (c) {
    case 'n':
      sb_putc(b, '\n');
      break;
    case 't':
      sb_putc(b, '\t');
      break;
    case 'r':
      sb_putc(b, '\r');
      break;
    case 'a':
      sb_putc(b, '\a');
      break;
    case 'b':
      sb_putc(b, '\b');
      break;
    case 'f':
      sb_putc(b, '\f');
      break;
    case 'v':
      sb_putc(b, '\v');
      break;
    case 'x': {
      int v = 0, d;
      while ((d = hexval((unsigned char)s[i])) >= 0) v = v * 16 + d, ++i;
      sb_putc(b, (char)v);
      break;
    }
    case '\0':
      --i;
      break;
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0';
        for (int k = 0; k < 2 && s[i] >= '0' && s[i] <= '7'; ++k)
          v = v * 8 + (s[i++] - '0');
        sb_putc(b, (char)v);
      } else {
        sb_putc(b, c); /* \" \' \\ \? */
      }
    }
  }
  return s[i] == '"' ? i + 1 : i;
}

/* Finds the C string literals of `text` (the contents of `file`) and adds
 * each concatenated literal that contains CLS_KERNEL to `out`.  Comments,
 * character constants and line splices are understood; the preprocessor
 * is not (a literal is taken wherever it is written).  Returns how many
 * were added. */
static size_t scan_literals(const char *text, const char *file, src_list *out) {
  int *lines = NULL;
  char *s = splice_lines(text, &lines);
  size_t added = 0, i = 0;
  strbuf run = {0};
  int in_run = 0, run_line = 0;
  for (;;) {
    char c = s[i];
    int ends_run = 0;
    if (c == '\0') {
      ends_run = 1;
    } else if (c == '/' && s[i + 1] == '/') {
      while (s[i] && s[i] != '\n') ++i;
    } else if (c == '/' && s[i + 1] == '*') {
      char *e = strstr(s + i + 2, "*/");
      i = e ? (size_t)(e - s) + 2 : strlen(s);
    } else if (c == '"') {
      if (!in_run) {
        in_run = 1;
        run_line = lines[i];
        run.n = 0;
        if (run.s) run.s[0] = '\0';
      }
      i = decode_literal(s, i + 1, &run);
    } else if (c == '\'') {
      /* A character constant: skipped (so that '"' starts nothing). */
      ++i;
      while (s[i] && s[i] != '\'' && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
      if (s[i] == '\'') ++i;
      ends_run = 1;
    } else if (isspace((unsigned char)c)) {
      ++i;
    } else {
      ++i;
      ends_run = 1;
    }
    if (ends_run && in_run) {
      in_run = 0;
      if (run.s && strstr(run.s, "CLS_KERNEL")) {
        src_add(out, file, run_line, strdup(run.s));
        ++added;
      }
    }
    if (c == '\0') break;
  }
  free(run.s);
  free(lines);
  free(s);
  return added;
}

/* ---- Markers ------------------------------------------------------------- */

typedef struct markers {
  int expect_error;
  int opencl_only;
  char options[512];
  char bad[128]; /* an unknown marker, "" if none */
} markers;

static void read_markers(const char *text, markers *m) {
  memset(m, 0, sizeof *m);
  static const char tag[] = "cls-sweep:";
  for (const char *p = strstr(text, tag); p; p = strstr(p, tag)) {
    p += sizeof tag - 1;
    while (*p == ' ' || *p == '\t') ++p;
    if (strncmp(p, "expect build error", 18) == 0) {
      m->expect_error = 1;
    } else if (strncmp(p, "opencl only", 11) == 0) {
      m->opencl_only = 1;
    } else if (strncmp(p, "options ", 8) == 0) {
      const char *v = p + 8, *e = v;
      while (*e && *e != '\n' && strncmp(e, "*/", 2) != 0) ++e;
      while (e > v && isspace((unsigned char)e[-1])) --e;
      size_t have = strlen(m->options), len = (size_t)(e - v);
      if (have + len + 2 < sizeof m->options) {
        if (have) m->options[have++] = ' ';
        memcpy(m->options + have, v, len);
        m->options[have + len] = '\0';
      }
    } else {
      snprintf(m->bad, sizeof m->bad, "%.60s", p);
      char *end = strstr(m->bad, "*/");
      if (end) *end = '\0';
      end = strchr(m->bad, '\n');
      if (end) *end = '\0';
      for (size_t n = strlen(m->bad); n && m->bad[n - 1] == ' ';)
        m->bad[--n] = 0;
    }
  }
}

/* ---- Kernel signatures -------------------------------------------------- */

typedef struct sweep_param {
  int pointer;   /* a pointer or array: gets a device buffer */
  int builtin;   /* a built-in scalar or vector type (or a pointer) */
  char text[96]; /* as written, for messages */
} sweep_param;

typedef struct sweep_kernel {
  char name[128];
  int line; /* in the module source, from 1 */
  int nparams;
  sweep_param p[SWEEP_MAX_PARAMS];
  unsigned reqd[3]; /* reqd_work_group_size, 0s if none */
} sweep_kernel;

typedef struct kernel_list {
  sweep_kernel *v;
  size_t n, cap;
  char error[256]; /* what the scanner could not read, "" if nothing */
} kernel_list;

static int word_is(const char *s, size_t len, const char *w) {
  return strlen(w) == len && strncmp(s, w, len) == 0;
}

/* Whether the identifier is a type name or qualifier that OpenCL C and
 * the dialect's CUDA branch both know: the scalar types and their vectors
 * (int4, float4, uchar16, ...). */
static int builtin_type_word(const char *s, size_t len) {
  static const char *const quals[] = {
      "const",     "volatile",  "restrict", "__restrict", "__restrict__",
      "__private", "private",   "unsigned", "signed",     "bool",
      "size_t",    "ptrdiff_t", "intptr_t", "uintptr_t",  NULL};
  static const char *const bases[] = {"char",  "uchar",  "short", "ushort",
                                      "int",   "uint",   "long",  "ulong",
                                      "float", "double", "half",  NULL};
  for (int i = 0; quals[i]; ++i)
    if (word_is(s, len, quals[i])) return 1;
  for (int i = 0; bases[i]; ++i) {
    size_t bl = strlen(bases[i]);
    if (len < bl || strncmp(s, bases[i], bl) != 0) continue;
    const char *v = s + bl;
    size_t vl = len - bl;
    if (vl == 0 || word_is(v, vl, "2") || word_is(v, vl, "3") ||
        word_is(v, vl, "4") || word_is(v, vl, "8") || word_is(v, vl, "16"))
      return 1;
  }
  return 0;
}

/* Classifies one parameter as written between commas. */
static void parse_param(const char *s, size_t len, sweep_param *p) {
  while (len && isspace((unsigned char)*s)) ++s, --len;
  while (len && isspace((unsigned char)s[len - 1])) --len;
  snprintf(p->text, sizeof p->text, "%.*s", (int)len, s);
  for (char *c = p->text; *c; ++c)
    if (isspace((unsigned char)*c)) *c = ' ';
  p->pointer = memchr(s, '*', len) != NULL || memchr(s, '[', len) != NULL;
  /* The type is every identifier but the last (the name), or the only
   * identifier of an unnamed parameter. */
  const char *w[32];
  size_t wl[32];
  int nw = 0;
  for (size_t i = 0; i < len;) {
    if (is_ident_start((unsigned char)s[i])) {
      size_t j = i;
      while (j < len && is_ident((unsigned char)s[j])) ++j;
      if (nw < 32) w[nw] = s + i, wl[nw] = j - i, ++nw;
      i = j;
    } else {
      ++i;
    }
  }
  int ntype = nw > 1 ? nw - 1 : nw;
  p->builtin = 1;
  if (p->pointer) return;
  for (int k = 0; k < ntype; ++k)
    if (!builtin_type_word(w[k], wl[k])) p->builtin = 0;
}

/* A very small preprocessor for the scanner: which lines are compiled,
 * and what object-like macros hold (for attributes behind a macro).
 * `#ifdef X`/`#ifndef X` are decided when X is defined in the source or
 * by a -D option, is the backend's compiler's own (__OPENCL_VERSION__ on
 * OpenCL, __CUDACC_RTC__ on CUDA, each undefined on the other), or is an
 * ordinary name (then it is not defined); other names beginning with two
 * underscores are unknown.  `#if 0`, `#if 1` and `#if [!]defined(X)` are
 * decided the same way; any other condition is unknown, and then both
 * branches are scanned. */
enum { PP_MAX = 128 };
typedef struct pp_names {
  char *name[PP_MAX]; /* NULL after #undef */
  char *body[PP_MAX];
  int n;
  int cuda; /* the CUDA build: NVRTC's predefined names */
} pp_names;

static void pp_define(pp_names *d, const char *s, size_t len, const char *body,
                      size_t blen) {
  if (d->n == PP_MAX) return;
  d->name[d->n] = strndup(s, len);
  d->body[d->n] = strndup(body, blen);
  ck_assert(d->name[d->n] && d->body[d->n]);
  ++d->n;
}

static void pp_free(pp_names *d) {
  for (int i = 0; i < d->n; ++i) free(d->name[i]), free(d->body[i]);
  d->n = 0;
}

/* The newest definition of the name, or -1. */
static int pp_find(const pp_names *d, const char *s, size_t len) {
  for (int i = d->n - 1; i >= 0; --i)
    if (d->name[i] && strlen(d->name[i]) == len &&
        strncmp(d->name[i], s, len) == 0)
      return i;
  return -1;
}

/* 1 defined, 0 not, -1 unknown. */
static int pp_defined(const pp_names *d, const char *s, size_t len) {
  static const char *const opencl[] = {"__OPENCL_VERSION__",
                                       "__OPENCL_C_VERSION__", NULL};
  static const char *const cuda[] = {"__CUDACC__", "__CUDACC_RTC__",
                                     "__CUDA_ARCH__", NULL};
  if (pp_find(d, s, len) >= 0) return 1;
  for (int i = 0; opencl[i]; ++i)
    if (word_is(s, len, opencl[i])) return !d->cuda;
  for (int i = 0; cuda[i]; ++i)
    if (word_is(s, len, cuda[i])) return d->cuda;
  if (len >= 2 && s[0] == '_' && s[1] == '_') return -1;
  return 0;
}

static const char *skip_blank(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
  return s;
}

static const char *ident_end(const char *s, const char *end) {
  while (s < end && is_ident((unsigned char)*s)) ++s;
  return s;
}

/* Evaluates an #if condition (s..end): 1, 0 or -1 (unknown). */
static int pp_eval(const pp_names *d, const char *s, const char *end) {
  s = skip_blank(s, end);
  while (end > s && isspace((unsigned char)end[-1])) --end;
  if (end - s == 1 && (*s == '0' || *s == '1')) return *s - '0';
  int neg = 0;
  if (s < end && *s == '!') neg = 1, s = skip_blank(s + 1, end);
  if (end - s > 7 && strncmp(s, "defined", 7) == 0) {
    s = skip_blank(s + 7, end);
    int paren = s < end && *s == '(';
    if (paren) s = skip_blank(s + 1, end);
    const char *e = ident_end(s, end);
    const char *after = skip_blank(e, end);
    if (paren) after = after < end && *after == ')' ? after + 1 : NULL;
    if (e == s || !after || skip_blank(after, end) != end) return -1;
    int v = pp_defined(d, s, (size_t)(e - s));
    return v < 0 ? -1 : (neg ? !v : v);
  }
  return -1;
}

/* Replaces comments with blanks (keeping line breaks) and lines that the
 * preprocessor would drop, and the directives themselves, with empty
 * lines; d receives the macros (from the source and from the -D options
 * in `options`). */
static char *active_code(const char *module, const char *options, pp_names *d) {
  char *s = splice_lines(module, NULL);
  /* Comments. */
  for (char *p = s; *p;) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') *p++ = ' ';
    } else if (p[0] == '/' && p[1] == '*') {
      *p++ = ' ';
      *p++ = ' ';
      while (*p && !(p[0] == '*' && p[1] == '/')) {
        if (*p != '\n') *p = ' ';
        ++p;
      }
      if (*p) *p++ = ' ', *p++ = ' ';
    } else if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (*p && *p != q && *p != '\n') p += (*p == '\\' && p[1]) ? 2 : 1;
      if (*p == q) ++p;
    } else {
      ++p;
    }
  }
  for (const char *o = options; o && (o = strstr(o, "-D"));) {
    o = skip_blank(o + 2, o + strlen(o));
    const char *e = ident_end(o, o + strlen(o));
    const char *b = *e == '=' ? e + 1 : e, *be = b;
    while (*be && !isspace((unsigned char)*be)) ++be;
    if (e > o)
      pp_define(d, o, (size_t)(e - o), *e == '=' ? b : "1",
                *e == '=' ? (size_t)(be - b) : 1);
    o = be;
  }
  /* Conditional stack: active, a branch already definitely taken, and
   * whether the enclosing region is active. */
  struct {
    int active, taken, parent;
  } st[64];
  int depth = 0, active = 1;
  for (char *line = s; *line;) {
    char *nl = strchr(line, '\n');
    char *end = nl ? nl : line + strlen(line);
    const char *p = skip_blank(line, end);
    if (p < end && *p == '#') {
      p = skip_blank(p + 1, end);
      const char *de = ident_end(p, end);
      size_t dl = (size_t)(de - p);
      const char *arg = skip_blank(de, end);
      if (word_is(p, dl, "define") && active) {
        const char *ne = ident_end(arg, end);
        const char *b = skip_blank(ne, end);
        if (ne > arg)
          pp_define(d, arg, (size_t)(ne - arg), b, (size_t)(end - b));
      } else if (word_is(p, dl, "undef") && active) {
        int i = pp_find(d, arg, (size_t)(ident_end(arg, end) - arg));
        if (i >= 0) free(d->name[i]), d->name[i] = NULL;
      } else if (word_is(p, dl, "ifdef") || word_is(p, dl, "ifndef") ||
                 word_is(p, dl, "if")) {
        int v;
        if (word_is(p, dl, "if")) {
          v = pp_eval(d, arg, end);
        } else {
          const char *ne = ident_end(arg, end);
          v = pp_defined(d, arg, (size_t)(ne - arg));
          if (v >= 0 && word_is(p, dl, "ifndef")) v = !v;
        }
        if (depth < 64) {
          st[depth].parent = active;
          st[depth].taken = v == 1;
          st[depth].active = active && v != 0;
          active = st[depth].active;
          ++depth;
        }
      } else if (word_is(p, dl, "elif") && depth > 0) {
        int v = st[depth - 1].taken ? 0 : pp_eval(d, arg, end);
        if (v == 1) st[depth - 1].taken = 1;
        active = st[depth - 1].active = st[depth - 1].parent && v != 0;
      } else if (word_is(p, dl, "else") && depth > 0) {
        active = st[depth - 1].active =
            st[depth - 1].parent && !st[depth - 1].taken;
      } else if (word_is(p, dl, "endif") && depth > 0) {
        --depth;
        active = st[depth].parent;
      }
      for (char *c = line; c < end; ++c) *c = ' ';
    } else if (!active) {
      for (char *c = line; c < end; ++c) *c = ' ';
    }
    line = nl ? nl + 1 : end;
  }
  return s;
}

static int line_at(const char *s, const char *p) {
  int line = 1;
  for (; s < p; ++s) line += *s == '\n';
  return line;
}

/* Finds the matching ')' of the '(' at p; NULL if there is none. */
static const char *close_paren(const char *p) {
  int depth = 0;
  for (; *p; ++p) {
    if (*p == '(') ++depth;
    if (*p == ')' && --depth == 0) return p;
  }
  return NULL;
}

static const char *skip_space(const char *p) {
  while (isspace((unsigned char)*p)) ++p;
  return p;
}

/* Reads reqd_work_group_size(x, y, z) from an attribute's text, or from
 * the macros it names (a few levels deep); 1 if found. */
static int find_reqd(const pp_names *d, const char *s, size_t len,
                     unsigned reqd[3], int depth) {
  const char *end = s + len;
  for (const char *p = s; p < end;) {
    if (!is_ident_start((unsigned char)*p)) {
      ++p;
      continue;
    }
    const char *e = ident_end(p, end);
    if (word_is(p, (size_t)(e - p), "reqd_work_group_size")) {
      const char *o = skip_space(e);
      if (sscanf(o, "( %u , %u , %u )", &reqd[0], &reqd[1], &reqd[2]) == 3)
        return 1;
    }
    int i = depth < 4 ? pp_find(d, p, (size_t)(e - p)) : -1;
    if (i >= 0 && find_reqd(d, d->body[i], strlen(d->body[i]), reqd, depth + 1))
      return 1;
    p = e;
  }
  return 0;
}

/* Whether the source defines a function-like macro ("#define NAME(").  */
static int has_function_macro(const char *s) {
  for (const char *p = s; (p = strstr(p, "define"));) {
    const char *q = p;
    while (q > s && (q[-1] == ' ' || q[-1] == '\t')) --q;
    p += 6;
    if (q == s || q[-1] != '#' || !isspace((unsigned char)*p)) continue;
    const char *n = skip_blank(p, p + strlen(p));
    const char *e = ident_end(n, n + strlen(n));
    if (e > n && *e == '(') return 1;
  }
  return 0;
}

/* The module after the host C compiler's preprocessor (CLS_SWEEP_CPP -E
 * -P: an implementation independent of the library's own), with the
 * backend's compiler's names and the -D options of `options` defined and
 * the prelude's names (CLS_KERNEL, CLS_GLOBAL, ...) left as they are, so
 * that kernels whose names and parameter lists function-like macros build
 * (HIP's templates) are found; NULL where that preprocessor fails. */
static char *host_preprocessed(const char *module, const char *options,
                               int cuda) {
  char path[] = "/tmp/cls_sweep_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(path);
    return NULL;
  }
  fputs(module, f);
  fclose(f);
  strbuf cmd = {0};
  const char *c = CLS_SWEEP_CPP " -E -P -x c -undef ";
  sb_puts(&cmd, c, strlen(c));
  c = cuda ? "-D__CUDACC_RTC__=1 "
           : "-D__OPENCL_VERSION__=120 -D__OPENCL_C_VERSION__=120 ";
  sb_puts(&cmd, c, strlen(c));
  for (const char *o = options; o && (o = strstr(o, "-D"));) {
    const char *e = o;
    while (*e && !isspace((unsigned char)*e)) ++e;
    sb_putc(&cmd, '\'');
    sb_puts(&cmd, o, (size_t)(e - o));
    sb_puts(&cmd, "' ", 2);
    o = e;
  }
  sb_puts(&cmd, path, strlen(path));
  sb_puts(&cmd, " 2>/dev/null", 12);
  FILE *in = popen(cmd.s, "r");
  strbuf out = {0};
  if (in) {
    int ch;
    while ((ch = fgetc(in)) != EOF) sb_putc(&out, (char)ch);
  }
  int rc = in ? pclose(in) : -1;
  unlink(path);
  free(cmd.s);
  if (rc != 0 || !out.s) {
    free(out.s);
    return NULL;
  }
  return out.s;
}

/* Scans a module source for kernel definitions:
 *   CLS_KERNEL [__attribute__((...)) or ATTRIBUTE_MACRO]... void NAME (
 *   params ) {
 * (a declaration, ending in ';', is not a kernel of its own).  `cuda`
 * says which compiler's predefined names hold. */
static void scan_kernels(const char *module, const char *options, int cuda,
                         kernel_list *out) {
  memset(out, 0, sizeof *out);
  pp_names d = {.n = 0, .cuda = cuda};
  char *pre = has_function_macro(module)
                  ? host_preprocessed(module, options, cuda)
                  : NULL;
  char *code = active_code(pre ? pre : module, options, &d);
  free(pre);
  for (const char *p = code; (p = strstr(p, "CLS_KERNEL"));) {
    const char *start = p;
    p += 10;
    if ((start > code && is_ident((unsigned char)start[-1])) ||
        is_ident((unsigned char)*p))
      continue;
    int line = line_at(code, start);
    unsigned reqd[3] = {0, 0, 0};
    /* Attributes, written out or behind macros of the source. */
    for (p = skip_space(p); is_ident_start((unsigned char)*p);) {
      const char *e = ident_end(p, p + strlen(p));
      size_t len = (size_t)(e - p);
      if (word_is(p, len, "void")) break;
      int attr = word_is(p, len, "__attribute__");
      if (!attr && pp_find(&d, p, len) < 0) break; /* not an attribute */
      const char *q = skip_space(e);
      const char *close = *q == '(' ? close_paren(q) : NULL;
      if (attr && !close) break;
      const char *after = close ? close + 1 : e;
      if (!reqd[0] && !find_reqd(&d, p, (size_t)(after - p), reqd, 0))
        reqd[0] = reqd[1] = reqd[2] = 0;
      p = skip_space(after);
    }
    const char *name = NULL, *name_end = NULL, *open = NULL, *rest = NULL;
    if (strncmp(p, "void", 4) == 0 && !is_ident((unsigned char)p[4])) {
      name = skip_space(p + 4);
      name_end = ident_end(name, name + strlen(name));
      open = skip_space(name_end);
      /* A parameter list behind an object-like macro of the source. */
      if (is_ident_start((unsigned char)*open)) {
        const char *me = ident_end(open, open + strlen(open));
        int i = pp_find(&d, open, (size_t)(me - open));
        if (i >= 0) {
          rest = me;
          open = skip_space(d.body[i]);
        }
      }
    }
    const char *close = open && *open == '(' ? close_paren(open) : NULL;
    if (!name || name_end == name || !close) {
      snprintf(out->error, sizeof out->error,
               "line %d: cannot read the kernel after CLS_KERNEL", line);
      break;
    }
    p = skip_space(rest ? rest : close + 1);
    if (*p == ';') continue; /* a declaration */
    if (*p != '{') {
      snprintf(out->error, sizeof out->error,
               "line %d: no body after the parameters of %.*s", line,
               (int)(name_end - name), name);
      break;
    }
    if (out->n == out->cap) {
      out->cap = out->cap ? 2 * out->cap : 8;
      out->v = realloc(out->v, out->cap * sizeof *out->v);
      ck_assert_ptr_nonnull(out->v);
    }
    sweep_kernel *k = &out->v[out->n];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%.*s", (int)(name_end - name), name);
    k->line = line;
    memcpy(k->reqd, reqd, sizeof reqd);
    /* Parameters: split at the commas outside parentheses and brackets. */
    const char *a = open + 1;
    int depth = 0;
    for (const char *c = a; c <= close; ++c) {
      if (*c == '(' || *c == '[') ++depth;
      if ((*c == ')' || *c == ']') && c != close) --depth;
      if ((*c == ',' && depth == 0) || c == close) {
        if (k->nparams == SWEEP_MAX_PARAMS) {
          snprintf(out->error, sizeof out->error, "%s: more than %d parameters",
                   k->name, SWEEP_MAX_PARAMS);
          break;
        }
        parse_param(a, (size_t)(c - a), &k->p[k->nparams++]);
        a = c + 1;
      }
    }
    /* "(void)" and "()" have no parameters. */
    if (k->nparams == 1 &&
        (strcmp(k->p[0].text, "void") == 0 || k->p[0].text[0] == '\0'))
      k->nparams = 0;
    for (size_t j = 0; j < out->n; ++j)
      if (strcmp(out->v[j].name, k->name) == 0)
        snprintf(out->error, sizeof out->error,
                 "kernel %s defined twice (lines %d and %d); the sweep "
                 "cannot tell which one is compiled",
                 k->name, out->v[j].line, k->line);
    ++out->n;
    p = close + 1;
  }
  free(code);
  pp_free(&d);
}

/* ---- The sweep ----------------------------------------------------------- */

typedef struct sweep {
  clsDeviceProp prop;
  int cuda;    /* the CUDA build */
  int fp64;    /* -1 not probed yet, 0 no, 1 yes */
  int clock64; /* the same for cls_clock64() */
  void *buf[SWEEP_MAX_PARAMS];
  int failures;
  char first[1024]; /* the first failure, for the assertion message */
  /* Counts. */
  int modules, repeats, built, expected_errors;
  int skipped; /* modules and kernels */
  int kernels, launched, refused;
} sweep;

static void sweep_fail(sweep *w, const sweep_src *m, const char *kernel,
                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char where[256];
  snprintf(where, sizeof where, "%s:%d (module %d)%s%s", m->file, m->line,
           m->index, kernel ? " kernel " : "", kernel ? kernel : "");
  printf("FAIL kernel sweep: %s: %s\n", where, msg);
  if (w->failures++ == 0)
    snprintf(w->first, sizeof w->first, "%s: %.500s", where, msg);
}

/* The first lines of the thread's last build log, on one line. */
static void log_head(char *out, size_t outsz, int max_lines) {
  const char *log = clsGetLastBuildLog();
  size_t o = 0;
  int lines = 0;
  for (const char *p = log; *p && o + 4 < outsz; ++p) {
    if (*p == '\n') {
      if (++lines == max_lines) break;
      if (o) out[o++] = ' ', out[o++] = '|', out[o++] = ' ';
      continue;
    }
    out[o++] = *p;
  }
  out[o] = '\0';
}

/* Whether a probe source builds on the device (cached in *known: -1 not
 * probed yet, 0 no, 1 yes). */
static int device_builds(int *known, const char *probe) {
  if (*known < 0) {
    clsModule_t m;
    clsError_t r = clsModuleLoadData(&m, probe, NULL);
    *known = r == clsSuccess;
    if (r == clsSuccess)
      CK_OK(clsModuleUnload(m));
    else
      (void)clsGetLastError();
  }
  return *known;
}

static int device_has_fp64(sweep *w) {
  return device_builds(
      &w->fp64, "CLS_KERNEL void cls_sweep_fp64(CLS_GLOBAL double *p) {\n"
                "  p[0] = 0.5 * p[0];\n"
                "}\n");
}

/* cls_clock64() exists only where the device has a clock (the dialect). */
static int device_has_clock64(sweep *w) {
  return device_builds(&w->clock64,
                       "#if !CLS_HAS_CLOCK64\n"
                       "#error no device clock\n"
                       "#endif\n"
                       "CLS_KERNEL void cls_sweep_clock(void) {}\n");
}

/* ---- Crashes ---------------------------------------------------------- */

/* What the sweep is doing, so that a kernel that crashes the process (as a
 * wild store does on a CPU device) is named before Check reports the
 * signal. */
static char sweep_doing[512];
static const int sweep_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction sweep_old[4];

static void sweep_crashed(int sig) {
  static const char msg[] = "FAIL kernel sweep: crashed while ";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  ignored = write(STDERR_FILENO, sweep_doing, strlen(sweep_doing));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void sweep_doing_set(const sweep_src *m, const char *fmt, ...) {
  int n = snprintf(sweep_doing, sizeof sweep_doing,
                   "%s:%d (module %d): ", m->file, m->line, m->index);
  if (n < 0 || (size_t)n >= sizeof sweep_doing) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sweep_doing + n, sizeof sweep_doing - (size_t)n, fmt, ap);
  va_end(ap);
}

static void sweep_catch_crashes(int on) {
  for (int i = 0; i < 4; ++i) {
    if (on) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = sweep_crashed;
      sigemptyset(&sa.sa_mask);
      sigaction(sweep_signals[i], &sa, &sweep_old[i]);
    } else {
      sigaction(sweep_signals[i], &sweep_old[i], NULL);
    }
  }
}

/* Launches one kernel with the given block; 0 on success, 1 when refused
 * by design (NOTE printed), -1 on failure (reported). */
static int launch_once(sweep *w, const sweep_src *m, clsFunction_t f,
                       const sweep_kernel *k, clsDim3 block) {
  static const unsigned char zeros[SWEEP_VALUE_BYTES];
  void *ptrs[SWEEP_MAX_PARAMS];
  void *args[SWEEP_MAX_PARAMS];
  int nonbuiltin = -1;
  for (int i = 0; i < k->nparams; ++i) {
    if (k->p[i].pointer) {
      if (!w->buf[i]) CK_OK(clsMalloc(&w->buf[i], SWEEP_BUF_BYTES));
      CK_OK(clsMemset(w->buf[i], 0, SWEEP_BUF_BYTES));
      ptrs[i] = w->buf[i];
      args[i] = &ptrs[i];
    } else {
      args[i] = (void *)zeros;
      if (!k->p[i].builtin && nonbuiltin < 0) nonbuiltin = i;
    }
  }
  clsDim3 grid = {1, 1, 1};
  sweep_doing_set(m, "launching kernel %s with a block of %ux%ux%u", k->name,
                  block.x, block.y, block.z);
  clsError_t r =
      clsLaunchKernel(f, grid, block, k->nparams ? args : NULL, 0, NULL);
  if (r == clsErrorInvalidValue && nonbuiltin >= 0) {
    (void)clsGetLastError();
    printf("NOTE kernel sweep: %s:%d (module %d) kernel %s: launch refused "
           "(InvalidValue) for parameter %d '%s', not a built-in scalar or "
           "vector type\n",
           m->file, m->line, m->index, k->name, nonbuiltin,
           k->p[nonbuiltin].text);
    return 1;
  }
  if (r != clsSuccess) {
    sweep_fail(w, m, k->name, "clsLaunchKernel with a block of %ux%ux%u: %s",
               block.x, block.y, block.z, clsGetErrorName(r));
    (void)clsGetLastError();
    return -1;
  }
  r = clsDeviceSynchronize();
  if (r != clsSuccess) {
    sweep_fail(w, m, k->name,
               "clsDeviceSynchronize after a block of %ux%ux%u: %s", block.x,
               block.y, block.z, clsGetErrorName(r));
    (void)clsGetLastError();
    return -1;
  }
  return 0;
}

/* Launches every kernel of a built module. */
static void sweep_kernels(sweep *w, const sweep_src *m, clsModule_t mod,
                          const kernel_list *kl, int *launched_here) {
  for (size_t i = 0; i < kl->n; ++i) {
    const sweep_kernel *k = &kl->v[i];
    ++w->kernels;
    clsFunction_t f = NULL;
    clsError_t r = clsModuleGetFunction(&f, mod, k->name);
    if (r != clsSuccess) {
      sweep_fail(w, m, k->name, "clsModuleGetFunction: %s", clsGetErrorName(r));
      (void)clsGetLastError();
      continue;
    }
    /* A block of one thread, then one of 64 where the device allows; a
     * kernel with a reqd_work_group_size gets only that block. */
    clsDim3 blocks[2] = {{1, 1, 1}, {64, 1, 1}};
    int nblocks = 2;
    if (k->reqd[0]) {
      blocks[0] = (clsDim3){k->reqd[0], k->reqd[1], k->reqd[2]};
      nblocks = 1;
    }
    int rc = 0, tried = 0;
    for (int b = 0; b < nblocks && rc == 0; ++b) {
      clsDim3 bl = blocks[b];
      unsigned threads = bl.x * bl.y * bl.z;
      if (threads > (unsigned)w->prop.maxThreadsPerBlock ||
          bl.x > (unsigned)w->prop.maxThreadsDim[0] ||
          bl.y > (unsigned)w->prop.maxThreadsDim[1] ||
          bl.z > (unsigned)w->prop.maxThreadsDim[2])
        continue;
      rc = launch_once(w, m, f, k, bl);
      ++tried;
    }
    if (rc == 1) ++w->refused;
    if (rc != 0) continue;
    if (!tried) {
      printf("SKIP kernel sweep: %s:%d (module %d) kernel %s: its required "
             "block %ux%ux%u exceeds the device's limits\n",
             m->file, m->line, m->index, k->name, k->reqd[0], k->reqd[1],
             k->reqd[2]);
      ++w->skipped;
      continue;
    }
    ++w->launched;
    ++*launched_here;
  }
}

/* Builds one module source and launches its kernels. */
static void sweep_module(sweep *w, const src_list *all, size_t at,
                         int *kernels_here, int *launched_here) {
  const sweep_src *m = &all->v[at];
  markers mk;
  read_markers(m->text, &mk);
  if (mk.bad[0]) {
    sweep_fail(w, m, NULL, "unknown marker 'cls-sweep: %s'", mk.bad);
    return;
  }
  /* The same source with the same options, seen before: built once. */
  for (size_t j = 0; j < at; ++j) {
    if (strcmp(all->v[j].text, m->text) != 0) continue;
    ++w->repeats;
    return;
  }
  ++w->modules;
  kernel_list kl;
  scan_kernels(m->text, mk.options, w->cuda, &kl);
  *kernels_here += (int)kl.n;
  if (mk.opencl_only && w->cuda) {
    printf("SKIP kernel sweep: %s:%d (module %d): marked opencl only\n",
           m->file, m->line, m->index);
    ++w->skipped;
    goto done;
  }
  clsModule_t mod = NULL;
  sweep_doing_set(m, "building the module");
  clsError_t r =
      clsModuleLoadData(&mod, m->text, mk.options[0] ? mk.options : NULL);
  if (mk.expect_error) {
    if (r == clsSuccess) {
      sweep_fail(w, m, NULL, "built, but is marked 'expect build error'");
      CK_OK(clsModuleUnload(mod));
    } else if (r != clsErrorInvalidSource) {
      sweep_fail(w, m, NULL, "expected InvalidSource from the build, got %s",
                 clsGetErrorName(r));
    } else {
      ++w->expected_errors;
    }
    (void)clsGetLastError();
    goto done;
  }
  if (r != clsSuccess) {
    /* Read the log before the fp64 probe replaces it. */
    char head[SWEEP_LOG_CHARS], line1[SWEEP_LOG_CHARS];
    log_head(head, sizeof head, 8);
    log_head(line1, sizeof line1, 1);
    (void)clsGetLastError();
    if (strstr(m->text, "double") && !device_has_fp64(w)) {
      printf("SKIP kernel sweep: %s:%d (module %d): uses double, device has "
             "no fp64: %s\n",
             m->file, m->line, m->index, line1);
      ++w->skipped;
      goto done;
    }
    if (strstr(m->text, "cls_clock64") && !device_has_clock64(w)) {
      printf("SKIP kernel sweep: %s:%d (module %d): uses cls_clock64(), "
             "device has no clock: %s\n",
             m->file, m->line, m->index, line1);
      ++w->skipped;
      goto done;
    }
    sweep_fail(w, m, NULL, "build failed (%s%s%s): %s", clsGetErrorName(r),
               mk.options[0] ? ", options " : "", mk.options, head);
    goto done;
  }
  ++w->built;
  if (kl.error[0]) {
    sweep_fail(w, m, NULL, "kernel scanner: %s", kl.error);
  } else {
    sweep_kernels(w, m, mod, &kl, launched_here);
  }
  CK_OK(clsModuleUnload(mod));
done:
  free(kl.v);
}

/* Whether REL names a kernel file (.cl), which is one module as a whole. */
static int is_cl_file(const char *rel) {
  size_t len = strlen(rel);
  return len > 3 && strcmp(rel + len - 3, ".cl") == 0;
}

/* Collects the module sources of one file: a .cl file is one module, a C
 * or C++ file has one per kernel literal. */
static size_t collect(const char *rel, src_list *out, int *readable) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", CLS_SWEEP_SOURCE_DIR, rel);
  char *text = read_text(path);
  *readable = text != NULL;
  if (!text) return 0;
  if (is_cl_file(rel)) {
    src_add(out, rel, 1, text);
    return 1;
  }
  size_t n = scan_literals(text, rel, out);
  free(text);
  return n;
}

START_TEST(sweep_every_kernel) {
  sweep w;
  memset(&w, 0, sizeof w);
  w.fp64 = -1;
  w.clock64 = -1;
  int dev = 0;
  CK_OK(clsGetDevice(&dev));
  CK_OK(clsGetDeviceProperties(&w.prop, dev));
  w.cuda = strcmp(w.prop.platformName, "CUDA") == 0;
  /* Each line out at once, so that a crash loses none. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  sweep_catch_crashes(1);

  src_list all = {0};
  int in_cl = 0, in_test_module = 0;
  for (size_t f = 0; cls_sweep_files[f]; ++f) {
    const char *rel = cls_sweep_files[f];
    size_t first = all.n;
    int readable = 0;
    size_t found = collect(rel, &all, &readable);
    ck_assert_msg(readable, "cannot read %s/%s", CLS_SWEEP_SOURCE_DIR, rel);
    if (is_cl_file(rel)) in_cl += (int)found;
    if (strcmp(rel, "tests/test_module.c") == 0) in_test_module += (int)found;
    if (!found) continue;
    int kernels_here = 0, launched_here = 0, repeats_before = w.repeats;
    for (size_t i = first; i < all.n; ++i)
      sweep_module(&w, &all, i, &kernels_here, &launched_here);
    printf("kernel sweep: %s: %zu kernel sources (%d repeats), %d kernels, "
           "%d launched\n",
           rel, found, w.repeats - repeats_before, kernels_here, launched_here);
  }
  for (int i = 0; i < SWEEP_MAX_PARAMS; ++i)
    if (w.buf[i]) CK_OK(clsFree(w.buf[i]));
  src_free(&all);
  sweep_catch_crashes(0);

  printf("kernel sweep: %d modules, %d kernels built and launched on %s "
         "(%d modules built, %d failed to build as marked, %d skips, %d "
         "repeats not rebuilt; %d kernels in built modules, %d refused by "
         "design)\n",
         w.modules, w.launched, w.prop.name, w.built, w.expected_errors,
         w.skipped, w.repeats, w.kernels, w.refused);
  fflush(stdout);
  ck_assert_msg(in_cl > 0, "the sweep found no .cl file");
  ck_assert_msg(in_test_module > 0,
                "the sweep found no kernel source in tests/test_module.c");
  ck_assert_msg(w.launched > 0, "the sweep launched no kernel");
  ck_assert_msg(w.failures == 0, "%d failures (listed above); first: %s",
                w.failures, w.first);
}
END_TEST

/* ---- The scanners' own tests --------------------------------------------- */

/* The literal scanner: escapes, concatenation across white space, comments
 * and line splices; character constants; literals without CLS_KERNEL are
 * not modules. */
START_TEST(literal_scanner) {
  const char *c_text =
      "#include \"not_a_kernel.h\"\n"
      "static const char *a = \"CLS_KERNEL void one(int x) {\\n\"\n"
      "    /* a comment between */ \"  x += '\\\\'; \\\"q\\\"\\t}\\n\"\n"
      "    // a line comment\n"
      "    \"/* tail */\";\n"
      "char q = '\"'; const char *b = \"plain text\";\n"
      "#define SRC \\\n"
      "  \"CLS_KERNEL void two\" \\\n"
      "  \"(void) {}\"\n"
      "const char *c = \"\\x41\\101\\?\" \"CLS_KERNEL\";\n";
  src_list l = {0};
  ck_assert_uint_eq(scan_literals(c_text, "x.c", &l), 3);
  ck_assert_str_eq(l.v[0].text, "CLS_KERNEL void one(int x) {\n"
                                "  x += '\\'; \"q\"\t}\n/* tail */");
  ck_assert_int_eq(l.v[0].line, 2);
  ck_assert_int_eq(l.v[0].index, 0);
  ck_assert_str_eq(l.v[1].text, "CLS_KERNEL void two(void) {}");
  ck_assert_int_eq(l.v[1].line, 8);
  ck_assert_int_eq(l.v[1].index, 1);
  ck_assert_str_eq(l.v[2].text, "AA?CLS_KERNEL");
  src_free(&l);

  markers mk;
  read_markers("/* cls-sweep: options -DA=1 */ /* cls-sweep: options -DB */"
               "/* cls-sweep: expect build error */",
               &mk);
  ck_assert_str_eq(mk.options, "-DA=1 -DB");
  ck_assert_int_eq(mk.expect_error, 1);
  ck_assert_int_eq(mk.opencl_only, 0);
  ck_assert_str_eq(mk.bad, "");
  read_markers("// cls-sweep: opencl only\n// cls-sweep: expect errors\n", &mk);
  ck_assert_int_eq(mk.opencl_only, 1);
  ck_assert_str_eq(mk.bad, "expect errors");
}
END_TEST

/* The kernel scanner: attributes, vectors, qualifiers, pointers and
 * arrays, comments, declarations, and kernels the preprocessor drops. */
START_TEST(kernel_scanner) {
  const char *src =
      "#define T float\n"
      "#ifdef NOT_DEFINED\n"
      "CLS_KERNEL void k(int dropped) {}\n"
      "#elif defined(OPT)\n"
      "CLS_KERNEL void opt_only(void) {}\n"
      "#else\n"
      "CLS_KERNEL void k(int dropped_too) {}\n"
      "#endif\n"
      "/* CLS_KERNEL void k(float in_a_comment) {} */\n"
      "CLS_KERNEL void decl(int a);\n"
      "CLS_KERNEL __attribute__((reqd_work_group_size(8, 2, 1)))\n"
      "void k(CLS_GLOBAL const float *restrict a, int4 v, unsigned u,\n"
      "       const unsigned char c, uchar16 w, T t, myint m,\n"
      "       CLS_GLOBAL int arr[], __constant int *cst, unsigned) {\n"
      "  a[0] = 0;\n"
      "}\n"
      "CLS_KERNEL void none(void) {}\n"
      "CLS_KERNEL void empty() {}\n";
  kernel_list kl;
  scan_kernels(src, "-DOPT", 0, &kl);
  ck_assert_str_eq(kl.error, "");
  ck_assert_uint_eq(kl.n, 4);
  ck_assert_str_eq(kl.v[0].name, "opt_only");
  ck_assert_int_eq(kl.v[0].nparams, 0);
  const sweep_kernel *k = &kl.v[1];
  ck_assert_str_eq(k->name, "k");
  ck_assert_int_eq(k->line, 11);
  ck_assert_uint_eq(k->reqd[0], 8);
  ck_assert_uint_eq(k->reqd[1], 2);
  ck_assert_uint_eq(k->reqd[2], 1);
  ck_assert_int_eq(k->nparams, 10);
  static const int pointer[10] = {1, 0, 0, 0, 0, 0, 0, 1, 1, 0};
  static const int builtin[10] = {1, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  for (int i = 0; i < 10; ++i) {
    ck_assert_msg(k->p[i].pointer == pointer[i], "param %d '%s' pointer", i,
                  k->p[i].text);
    ck_assert_msg(k->p[i].builtin == builtin[i], "param %d '%s' builtin", i,
                  k->p[i].text);
  }
  ck_assert_str_eq(k->p[1].text, "int4 v");
  ck_assert_str_eq(kl.v[2].name, "none");
  ck_assert_int_eq(kl.v[2].nparams, 0);
  ck_assert_str_eq(kl.v[3].name, "empty");
  ck_assert_int_eq(kl.v[3].nparams, 0);
  free(kl.v);

  /* Without -DOPT the #else branch's k is compiled: defined twice. */
  scan_kernels(src, NULL, 0, &kl);
  ck_assert_msg(strstr(kl.error, "defined twice") != NULL, "error: '%s'",
                kl.error);
  free(kl.v);
  /* A condition the scanner cannot decide scans both branches. */
  scan_kernels("#if X > 1\nCLS_KERNEL void a(void) {}\n#else\n"
               "CLS_KERNEL void b(void) {}\n#endif\n",
               NULL, 0, &kl);
  ck_assert_uint_eq(kl.n, 2);
  free(kl.v);
  /* An attribute behind macros, chosen by the backend's predefined names. */
  const char *wrapped =
      "#ifdef __OPENCL_VERSION__\n"
      "#define ONE __attribute__((reqd_work_group_size(2, 1, 1)))\n"
      "#else\n"
      "#define ONE\n"
      "#endif\n"
      "#define WRAP ONE\n"
      "CLS_KERNEL WRAP void w(CLS_GLOBAL int *p) {}\n";
  for (int cuda = 0; cuda < 2; ++cuda) {
    scan_kernels(wrapped, NULL, cuda, &kl);
    ck_assert_str_eq(kl.error, "");
    ck_assert_uint_eq(kl.n, 1);
    ck_assert_str_eq(kl.v[0].name, "w");
    ck_assert_uint_eq(kl.v[0].reqd[0], cuda ? 0 : 2);
    free(kl.v);
  }
  scan_kernels("CLS_KERNEL int bad(void) {}", NULL, 0, &kl);
  ck_assert_msg(strstr(kl.error, "cannot read") != NULL, "error: '%s'",
                kl.error);
  free(kl.v);
}
END_TEST

int main(void) {
  Suite *s = suite_create("kernel_sweep");
  TCase *scan = tcase_timed("scanners", 30);
  tcase_add_test(scan, literal_scanner);
  tcase_add_test(scan, kernel_scanner);
  suite_add_tcase(s, scan);
  TCase *tc = tcase_timed("sweep", 300);
  tcase_add_test(tc, sweep_every_kernel);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
