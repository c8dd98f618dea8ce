/* SPDX-License-Identifier: MIT */
/* No-op user-region API (libretime-region): the tracer's versions override these when present. */
#include "retime/region.h"

/* Both functions are deliberately empty: an untraced program pays one call per region and the
 * dynamic linker binds the tracer's definitions instead when libretime-trace is loaded first. */
void rt_region_begin(const char *name)
{
    (void)name;
}

void rt_region_end(void)
{
}
