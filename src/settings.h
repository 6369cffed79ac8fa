/* Private to the front: what settings.c tells the front alone, beside
 * cls__setting (the seam's front services, backend_services.h), which every
 * layer reads. */
#ifndef CLSTREAM_SETTINGS_H
#define CLSTREAM_SETTINGS_H

#include "backend.h"

/* The name of setting `id`; *meaning and *unset get its meaning and what
 * holds when it is unset (for clsGetSetting, device.c). */
const char *cls__setting_about(enum cls__setting_id id, const char **meaning,
                               const char **unset);

#endif /* CLSTREAM_SETTINGS_H */
