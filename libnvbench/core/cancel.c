/*
 * Cancel handles: a flag a signal handler or another thread sets and the
 * run polls (the sampler, each job's loop, the scratch layout).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/run.h"

NVB_API int nvb_cancel_new(struct nvb_cancel **out)
{
    if (!out)
        return -EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : -ENOMEM;
}

NVB_API void nvb_cancel_free(struct nvb_cancel *c) { free(c); }

NVB_API void nvb_cancel_request(struct nvb_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 1, __ATOMIC_RELAXED);
}

NVB_API int nvb_cancel_requested(const struct nvb_cancel *c)
{
    return c ? __atomic_load_n(&c->flag, __ATOMIC_RELAXED) : 0;
}

NVB_API void nvb_cancel_reset(struct nvb_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 0, __ATOMIC_RELAXED);
}
