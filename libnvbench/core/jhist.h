/*
 * A job's latency histogram (internal): hist.h's buckets and exact sums,
 * with the buckets kept in groups of NVB__JH_G taken from the job's arena
 * the first time one of the group's buckets is written.
 *
 * Why: a job has lat, clat and slat histograms per target and direction
 * (64 targets: 192 of them), each holding a few dozen buckets spread over
 * the whole range (a preempted I/O lands far out). Dense, each was 20 KB
 * touched wherever a latency fell, and merging read every page of it; with
 * 64 jobs x 64 targets that was most of 290 MB. Grouped, the groups written
 * lie side by side in the arena and nothing reads a group never written.
 *
 * The counts are those hist.h's adds give, bucket for bucket: merged into
 * a dense nvb__hist (nvb__jhist_merge) at the run's end, and read by the
 * sampler (group by group) while the job runs.
 */
#ifndef NVB_CORE_JHIST_H
#define NVB_CORE_JHIST_H

#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"

#define NVB__JH_GBITS 4
#define NVB__JH_G (1u << NVB__JH_GBITS) /* buckets per group: 128 bytes */
#define NVB__JH_NGRP (NVB__HIST_BUCKETS / NVB__JH_G)
_Static_assert(NVB__HIST_BUCKETS % NVB__JH_G == 0, "groups tile the buckets");

/* Room for cap groups, zeroed by calloc: a page of it is touched when a
 * group in it is first written, never before. One job writes it. */
struct nvb__jarena {
    uint64_t *base;
    uint32_t used, cap;
};

struct nvb__jhist {
    uint64_t count;
    uint64_t min;                /* UINT64_MAX when empty */
    uint64_t max;
    unsigned __int128 sum;
    unsigned __int128 sumsq;     /* low 128 bits of the sum of squares */
    uint64_t sumsq_hi;           /* and bits 128..191 */
    struct nvb__jarena *arena;
    /* Group g's place in the arena as the address of bucket 0 had the
     * group been there (its first bucket's address less g * NVB__JH_G
     * buckets): bucket i's count is at gp[i / NVB__JH_G] + 8 i, one add on
     * the hot path. 0: none of its buckets written yet. Set once (release),
     * read by the sampler (acquire). */
    uintptr_t gp[NVB__JH_NGRP];
};

/* Groups an arena needs for n histograms at most (each could fill all). */
static inline uint64_t nvb__jarena_groups(uint64_t n)
{
    return n * NVB__JH_NGRP;
}
/* 0, or -ENOMEM. The arena holds room for `groups` groups. */
int nvb__jarena_init(struct nvb__jarena *a, uint64_t groups);
void nvb__jarena_free(struct nvb__jarena *a);
/* An empty histogram taking its groups from a (h zeroed, as by calloc). */
void nvb__jhist_init(struct nvb__jhist *h, struct nvb__jarena *a);
/* Group g of h from its arena, zeroed (not inline: once per group);
 * returns gp[g]. */
uintptr_t nvb__jhist_take(struct nvb__jhist *h, unsigned g);
/* Group g's NVB__JH_G counts, or NULL when none was written (any thread). */
static inline uint64_t *nvb__jhist_group(const struct nvb__jhist *h, unsigned g)
{
    const uintptr_t a = __atomic_load_n(&h->gp[g], __ATOMIC_ACQUIRE);
    return a ? (uint64_t *)(a + (uintptr_t)g * NVB__JH_G * sizeof(uint64_t)) : NULL;
}
/* nvb__jhist_init on a histogram the sampler may be reading (the ramp's
 * end): the groups it has stay, their buckets zeroed. */
void nvb__jhist_reset_live(struct nvb__jhist *h);
/* *a += b, exact; 0, -ENOMEM (a missing) or -EOVERFLOW (count past 2^64 - 1).
 * *a allocated when NULL. Reads only b's groups. */
int nvb__jhist_merge(struct nvb__hist **a, const struct nvb__jhist *b);

static inline __attribute__((always_inline)) uint64_t *nvb__jhist_slot(struct nvb__jhist *h, unsigned i)
{
    uintptr_t a = h->gp[i >> NVB__JH_GBITS];
    if (__builtin_expect(!a, 0))
        a = nvb__jhist_take(h, i >> NVB__JH_GBITS);
    return (uint64_t *)(a + (uintptr_t)i * sizeof(uint64_t));
}
static inline void nvb__jhist_add_n(struct nvb__jhist *h, uint64_t v, uint64_t n)
{
    uint64_t *b = nvb__jhist_slot(h, nvb__hist_index(v));
    nvb__u64_bump(b, n);
    NVB__HIST_SUMS_ADD_N(h, v, n);
}
static inline void nvb__jhist_add(struct nvb__jhist *h, uint64_t v)
{
    uint64_t *b = nvb__jhist_slot(h, nvb__hist_index(v));
    nvb__u64_bump(b, 1);
    NVB__HIST_SUMS_ADD(h, v);
}

/*
 * A run of equal values, added once: completions reaped together from one
 * submit batch share their stamps, so their latencies are equal, and
 * adding n of them at once gives the histogram (buckets, count, min, max
 * and the exact sums) that n adds give, byte for byte. A value that is not
 * the run's (or goes to another histogram) ends the run; the caller ends
 * the last with nvb__hrun_flush before anybody reads the histogram.
 */
struct nvb__hrun {
    struct nvb__jhist *h; /* NULL: no run */
    uint64_t v, n;
};
static inline __attribute__((always_inline)) void nvb__hrun_flush(struct nvb__hrun *r)
{
    if (r->n == 1) /* a run of one (qd 1): the plain add */
        nvb__jhist_add(r->h, r->v);
    else if (r->h)
        nvb__jhist_add_n(r->h, r->v, r->n);
    r->n = 0;
    r->h = NULL;
}
static inline __attribute__((always_inline)) void nvb__hrun_add(struct nvb__hrun *r, struct nvb__jhist *h,
                                                                uint64_t v)
{
    if (h == r->h && v == r->v) {
        r->n++;
        return;
    }
    nvb__hrun_flush(r);
    r->h = h;
    r->v = v;
    r->n = 1;
}

#endif
