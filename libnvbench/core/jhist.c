/*
 * A job's grouped latency histogram (jhist.h): its arena, the first write
 * of a group, the ramp's reset and the merge into a dense histogram.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/jhist.h"
#include "util/util.h"

int nvb__jarena_init(struct nvb__jarena *a, uint64_t groups)
{
    memset(a, 0, sizeof *a);
    if (groups > UINT32_MAX)
        return -ENOMEM;
    /* calloc: a large block comes zeroed from the system, its pages
     * touched only where groups are written */
    a->base = calloc(groups ? (size_t)groups * NVB__JH_G : 1, sizeof *a->base);
    if (!a->base)
        return -ENOMEM;
    a->cap = (uint32_t)groups;
    return 0;
}

void nvb__jarena_free(struct nvb__jarena *a)
{
    free(a->base);
    memset(a, 0, sizeof *a);
}

void nvb__jhist_init(struct nvb__jhist *h, struct nvb__jarena *a)
{
    h->min = UINT64_MAX;
    h->arena = a;
}

/* The arena was sized for every group of every histogram it serves
 * (nvb__jarena_groups), and a group is taken once: used never passes cap. */
uintptr_t nvb__jhist_take(struct nvb__jhist *h, unsigned g)
{
    const uint64_t *first = h->arena->base + (size_t)h->arena->used++ * NVB__JH_G;
    const uintptr_t a = (uintptr_t)first - (uintptr_t)g * NVB__JH_G * sizeof(uint64_t);
    __atomic_store_n(&h->gp[g], a, __ATOMIC_RELEASE);
    return a;
}

void nvb__jhist_reset_live(struct nvb__jhist *h)
{
    for (unsigned g = 0; g < NVB__JH_NGRP; g++) {
        uint64_t *c = nvb__jhist_group(h, g);
        for (unsigned q = 0; c && q < NVB__JH_G; q++)
            __atomic_store_n(&c[q], 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&h->min, UINT64_MAX, __ATOMIC_RELAXED);
    __atomic_store_n(&h->max, 0, __ATOMIC_RELAXED);
    h->count = 0;
    h->sum = h->sumsq = 0;
    h->sumsq_hi = 0;
}

int nvb__jhist_merge(struct nvb__hist **pa, const struct nvb__jhist *b)
{
    if (!*pa) {
        if (!(*pa = malloc(sizeof **pa)))
            return -ENOMEM;
        nvb__hist_init(*pa);
    }
    struct nvb__hist *a = *pa;
    if (b->count == 0)
        return 0;
    if (a->count > UINT64_MAX - b->count)
        return -EOVERFLOW;
    for (unsigned g = 0; g < NVB__JH_NGRP; g++) {
        const uint64_t *src = nvb__jhist_group(b, g);
        for (unsigned q = 0; src && q < NVB__JH_G; q++)
            a->buckets[g * NVB__JH_G + q] += src[q];
    }
    if (a->sumsq_rounded) /* a loaded one's rounded sum of squares (hist.h) */
        a->sumsq_dbl += (double)b->sumsq_hi * 0x1p128 + nvb__u128d(b->sumsq);
    NVB__HIST_SUMS_MERGE(a, b);
    return 0;
}
