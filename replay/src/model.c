/* SPDX-License-Identifier: MIT */
/* The model registry: one line per model. */
#include <string.h>

#include "retime/model.h"

static const struct rt_model_ops *const registry[] = {
    &rt_model_hockney,
};

int rt_model_init(struct rt_model *m, const char *name, const struct rt_model_params *p, rt_error *err)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            int rc = registry[i]->validate(p, err);
            if (rc)
                return rc;
            m->ops = registry[i];
            m->params = *p;
            return RT_OK;
        }
    }
    return rt_error_set(err, RT_EINVAL, "unknown model '%s' (known: hockney)", name);
}
