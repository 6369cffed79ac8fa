/* How CLSTREAM_DEVICE matches a device, shared by the library
 * (src/device.c) and clstream-info (which prints the values that select
 * each device), so that the two cannot disagree.  Header-only. */
#ifndef CLSTREAM_DEVICE_MATCH_H
#define CLSTREAM_DEVICE_MATCH_H

#include <ctype.h>
#include <string.h>

/* Whether s is all decimal digits (an index rather than a name). */
static inline int cls__all_digits(const char *s) {
  for (; *s; ++s)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* Whether `hay` contains `needle`, ignoring ASCII case. */
static inline int cls__contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; ++hay) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      ++i;
    if (i == n) return 1;
  }
  return n == 0;
}

/* Whether CLSTREAM_DEVICE=value names the device `name` of `platform`. */
static inline int cls__names_device(const char *name, const char *platform,
                                    const char *value) {
  return cls__contains_nocase(name, value) ||
         cls__contains_nocase(platform, value);
}

#endif /* CLSTREAM_DEVICE_MATCH_H */
