/*
 * An open-loop rate's schedule (internal): the intended start of each of a
 * job's I/Os (rate_iops with rate_mode=open). job.c takes I/Os off it as
 * they become due; everything here is a few integer operations per I/O
 * (uniform) or one logarithm (poisson).
 *
 * Uniform: I/O k (k = 1, 2, ...) is due at start + floor(k x P), P = jobs x
 * 1e9 / rate_iops ns, kept exact by carrying the remainder of the division,
 * so no window of T ns holds more than (T + 1) x rate / 1e9 intended starts
 * over all jobs: the first is one period after the start, not at it.
 * Poisson: exponential gaps of mean P, drawn from the schedule's own
 * generator (seeded from the workload seed and the job), so the arrivals
 * are the same in every run with that seed.
 */
#ifndef NVB_CORE_SCHED_H
#define NVB_CORE_SCHED_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/rand.h"

struct sched {
    uint64_t next;               /* intended start of the next I/O (ns) */
    uint64_t step, rem, den, acc;
    uint64_t period_ns;          /* the mean gap, at least 1: an I/O this late or later counts as lagged */
    double   mean_ns;
    uint64_t rng;
    int      poisson;
};

/* Job `job`'s schedule of rate_iops / jobs I/Os per period_ns (0: per
 * second) from start. */
static inline void nvb__sched_init(struct sched *s, uint64_t rate_iops, uint64_t period_ns, unsigned jobs,
                                   unsigned job, int poisson, uint64_t seed)
{
    uint64_t num = (uint64_t)jobs * (period_ns ? period_ns : 1000000000ull); /* ns per I/O = num / rate_iops */
    memset(s, 0, sizeof *s);
    s->step = num / rate_iops;
    s->rem = num % rate_iops;
    s->den = rate_iops;
    s->period_ns = s->step ? s->step : 1;
    s->mean_ns = (double)num / (double)rate_iops;
    s->poisson = poisson;
    s->rng = seed ^ (0x5851f42d4c957f2dull * (job + 1)) ^ 0xa0761d6478bd642full;
}

/* The next intended start, one I/O on. */
static inline void nvb__sched_step(struct sched *s)
{
    if (s->poisson) {
        /* u in (0, 1] from 53 random bits: the gap -ln(u) x mean is finite */
        double u = (double)((nvb__splitmix64(&s->rng) >> 11) + 1) * 0x1p-53;
        s->next += (uint64_t)llround(-log(u) * s->mean_ns);
        return;
    }
    s->next += s->step;
    s->acc += s->rem;
    if (s->acc >= s->den) {
        s->acc -= s->den;
        s->next++;
    }
}

/* The schedule from start: its first I/O one gap on. */
static inline void nvb__sched_start(struct sched *s, uint64_t start)
{
    s->next = start;
    nvb__sched_step(s);
}

/* How many of up to room I/Os are due at now (the schedule stays). */
static inline unsigned nvb__sched_due(const struct sched *s, uint64_t now, unsigned room)
{
    struct sched c = *s;
    unsigned n = 0;
    while (n < room && c.next <= now) {
        n++;
        nvb__sched_step(&c);
    }
    return n;
}

/* I/Os due in [from, until] that were never taken: the run ended with them
 * waiting for a slot (at most cap, and at most 2^26 steps). */
static inline uint64_t nvb__sched_missed(struct sched *s, uint64_t from, uint64_t until, uint64_t cap)
{
    uint64_t n = 0;
    for (uint64_t steps = 0; s->next <= until && n < cap && steps < (1ull << 26); steps++) {
        if (s->next >= from)
            n++;
        nvb__sched_step(s);
    }
    return n;
}

#endif
