/*
 * Fault injection (internal): a wrapper around any engine's submit/reap.
 *
 * The runner keeps calling the same two operations; when the workload sets
 * fault.* keys, each job's calls go through one struct nvb__fault that owns
 * the engine state it wraps. Per I/O, at submission, it decides with its own
 * seeded generator whether to
 *  - fail it: the slot completes with -errno without reaching the engine
 *    (and so without touching the device);
 *  - shorten it: the length is halved before the engine sees it (kept a
 *    multiple of the direct-I/O alignment), or, when half would not be
 *    aligned, the engine's result is cut to half afterwards; either way the
 *    runner sees res < len;
 *  - delay it: its completion is held back for fault.delay after the engine
 *    reported it.
 * Each decision is recorded in io->flags, so the runner counts a fault only
 * when it counts the I/O (never during the ramp, never twice).
 *
 * The hot path allocates nothing and takes no lock; the clock is read only
 * while delayed completions are pending.
 */
#ifndef NVB_CORE_FAULT_H
#define NVB_CORE_FAULT_H

#include <stdint.h>

#include "core/engine.h"

/* The wrapper records its decisions in io->flags: NVB__IOF_FAULT_* (core/engine.h). */

struct nvb__fault_cfg {
    double   rate;          /* probability of an injected error, 0..1 */
    int      err;           /* positive errno it completes with */
    double   short_rate;    /* probability of a short transfer */
    double   delay_rate;    /* probability of a delayed completion (when delay_ns) */
    uint64_t delay_ns;
    uint64_t seed;          /* of this job's generator */
    uint32_t align;         /* a shortened length stays a multiple of this (>= 1) */
    const uint64_t *wait_ns;/* the engine's wait bound (engine.h): reap() waits no longer either */
};

/* Does the workload ask for any fault? */
static inline int nvb__fault_wanted(const struct nvb__fault_cfg *c)
{
    return c->rate > 0 || c->short_rate > 0 || (c->delay_ns > 0 && c->delay_rate > 0);
}

struct nvb__fault;

/* Wrap inner (already set up, state inner_state) for a job of qd slots.
 * 0 or -ENOMEM. Freeing the wrapper does not tear down the engine. */
int  nvb__fault_new(const struct nvb__fault_cfg *cfg, const struct nvb__engine *inner, void *inner_state,
                    unsigned qd, struct nvb__fault **out);
void nvb__fault_free(struct nvb__fault *f);
/* The engine's submit/reap contract (engine.h), with faults applied, and
 * its signatures (state is the struct nvb__fault), so that a job picks
 * these or the engine's once at setup; one difference: while completions
 * are held back, reap() returns after at most 10 ms (or the wait bound,
 * when shorter) even with fewer than min, so that the caller can notice a
 * stop or its schedule (the runner loops); and one more: submit() returns
 * how many of the n I/Os it failed without handing them to the engine
 * (fault.rate, flagged NVB__IOF_FAULT_ERR), 0 when all went, so that the
 * runner counts as submissions (calls, slat, lag) only what reached the
 * engine, at no cost when none was failed. */
int  nvb__fault_submit(void *state, struct nvb__io **ios, unsigned n);
int  nvb__fault_reap(void *state, struct nvb__io **out, unsigned max, unsigned min);
/* I/Os handed to the engine and not yet returned by it (the rest of what
 * the caller has in flight is held back here, already complete). */
unsigned nvb__fault_in_engine(const struct nvb__fault *f);
/* Make every held-back completion due now (the run is stopping). */
void nvb__fault_expire(struct nvb__fault *f);

#endif
