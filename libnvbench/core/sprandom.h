/*
 * Random preconditioning with planned invalidation (precondition=random,
 * sprandom=1; docs/steady-state.md): the write sequence that leaves a
 * drive's flash in the random-write steady state after about one pass.
 *
 * The stream of writes is cut into regions as the drive would fill its
 * erase blocks with it (a log). Each region is written with fresh blocks
 * (every logical block once, in a keyed random order) and with rewrites of
 * blocks picked in the region before: a rewrite makes the older copy
 * invalid, so region r ends with k_r invalid blocks out of its writes.
 * k_r follows the steady-state distribution of valid data under greedy
 * garbage collection (Desnoyers, ACM TOS 8(2), 2012: validity times the
 * share of the drive at that validity is constant), oldest region most
 * invalid, the last one all valid, and the k_r add up to exactly the writes
 * past the logical blocks, so that the pass is the physical size (logical
 * size x (1 + op)) and every logical block is written.
 *
 * The plan is arithmetic (nvb__spr_plan); the generator (nvb__spr_next)
 * streams the blocks in order with memory for the picks of two regions.
 */
#ifndef NVB_CORE_SPRANDOM_H
#define NVB_CORE_SPRANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "core/dist.h"

#define NVB__SPR_MAX_REGIONS 1000000u

struct nvb__spr_plan {
    uint64_t n;          /* logical blocks: len / bs */
    uint64_t total;      /* writes: the physical size in blocks, (len + ceil(len x op)) / bs */
    uint64_t per_region; /* writes of every region but the last, which also takes the remainder */
    unsigned regions;
    int      defer;      /* sprandom.cache set: a region's rewrites come at the end of the next one */
    uint64_t *k;         /* per region: its writes made invalid by rewrites in the next region */
    uint64_t kmax;
};

/* The plan for a region of len bytes written in blocks of bs, with
 * over-provisioning op (0 < op < 1), regions regions and a device cache of
 * cache bytes (0: none). 0, or -EINVAL / -ENOMEM with the reason, naming
 * the key and its value, in why. pl->k is allocated: nvb__spr_plan_free. */
int  nvb__spr_plan(struct nvb__spr_plan *pl, uint64_t len, uint64_t bs, double op, unsigned regions,
                   uint64_t cache, char *why, size_t wl);
void nvb__spr_plan_free(struct nvb__spr_plan *pl);
/* Writes of region r. */
uint64_t nvb__spr_region_writes(const struct nvb__spr_plan *pl, unsigned r);
/* The model's invalid share of region r before the plan's rounding to
 * whole blocks (what k_r / writes of region r approximates). */
double nvb__spr_model_invalid(unsigned r, unsigned regions, double op);

/* The generator: the plan's writes in order, then the same plan again
 * with another order (a caller asking for more than total). */
struct nvb__spr {
    struct nvb__spr_plan pl;
    struct nvb__perm order; /* fresh blocks: a keyed bijection of [0, n) */
    uint64_t key, pass;
    uint64_t fresh;         /* fresh blocks given */
    uint64_t *ring;         /* picked blocks waiting for their rewrite, oldest first */
    uint64_t cap, head, len;
    unsigned r;             /* region now written */
    uint64_t pos;           /* writes given in it */
    uint64_t picks_left;    /* of region r's k_r */
    uint64_t rng;
    uint64_t last;
    int      again;         /* nvb__spr_unget: give last again */
};

/* A generator over the plan pl (taken over: freed by nvb__spr_free), keyed
 * by seed. NULL when out of memory (pl freed). */
struct nvb__spr *nvb__spr_new(struct nvb__spr_plan *pl, uint64_t seed);
void nvb__spr_free(struct nvb__spr *s);
uint64_t nvb__spr_next(struct nvb__spr *s);
/* nvb__spr_unget (dist.h): the block just given comes again next. */

#endif
