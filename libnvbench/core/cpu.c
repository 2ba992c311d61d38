/*
 * CPU arithmetic, portable: turns two system samples (whatever platform
 * produced them) into the figures of a result. Kept apart from the
 * sampling so it is tested on synthetic counters everywhere.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/internal.h"

static uint64_t sub(uint64_t b, uint64_t a) { return b >= a ? b - a : 0; }

void nvb__cpu_times_delta(const struct nvb__cpu_times *a, const struct nvb__cpu_times *b, struct nvb__cpu_times *d)
{
    /* A counter that went backwards (CPU hot-unplugged and back) counts 0. */
    d->user = sub(b->user, a->user);
    d->nice = sub(b->nice, a->nice);
    d->system = sub(b->system, a->system);
    d->idle = sub(b->idle, a->idle);
    d->iowait = sub(b->iowait, a->iowait);
    d->irq = sub(b->irq, a->irq);
    d->softirq = sub(b->softirq, a->softirq);
    d->steal = sub(b->steal, a->steal);
    d->guest = sub(b->guest, a->guest);
    d->guest_nice = sub(b->guest_nice, a->guest_nice);
}

uint64_t nvb__cpu_busy(const struct nvb__cpu_times *c)
{
    /* The kernel already counts guest time inside user (and guest_nice
     * inside nice): adding it again would count a VM's vCPU twice. */
    return c->user + c->nice + c->system + c->irq + c->softirq;
}

uint64_t nvb__cpu_total(const struct nvb__cpu_times *c)
{
    /* steal is time this machine wanted but did not get: part of the
     * elapsed total, never part of busy. */
    return nvb__cpu_busy(c) + c->idle + c->iowait + c->steal;
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

void nvb__cpu_split(const struct nvb__cpu_times *d, struct nvb__cpu_split *o)
{
    uint64_t t = nvb__cpu_total(d);
    o->busy = pct(nvb__cpu_busy(d), t);
    o->user = pct(d->user + d->nice, t);
    o->sys = pct(d->system, t);
    o->irq = pct(d->irq + d->softirq, t);
    o->iowait = pct(d->iowait, t);
    o->steal = pct(d->steal, t);
    o->idle = pct(d->idle, t);
}

int nvb__cpu_fill(struct nvb_result *res, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b)
{
    struct nvb__cpu_times d;
    struct nvb__cpu_split sp;
    nvb__cpu_times_delta(&a->total, &b->total, &d);
    nvb__cpu_split(&d, &sp);
    res->system_pct = sp.busy;
    res->user_pct = sp.user;
    res->sys_pct = sp.sys;
    res->irq_pct = sp.irq;
    res->iowait_pct = sp.iowait;
    res->steal_pct = sp.steal;
    res->idle_pct = sp.idle;
    res->cpu_valid = 1;
    free(res->cpu_pct);
    free(res->cpu_id);
    res->cpu_pct = NULL;
    res->cpu_id = NULL;
    res->ncpu = 0;
    if (b->ncpu <= 0 || !b->cpu)
        return 0;
    res->cpu_pct = calloc((size_t)b->ncpu, sizeof *res->cpu_pct);
    res->cpu_id = calloc((size_t)b->ncpu, sizeof *res->cpu_id);
    if (!res->cpu_pct || !res->cpu_id) {
        free(res->cpu_pct);
        free(res->cpu_id);
        res->cpu_pct = NULL;
        res->cpu_id = NULL;
        return -1;
    }
    /* Rows are matched by CPU number, not position: a CPU that came online
     * during the run has no start row and is left out. */
    for (int i = 0; i < b->ncpu; i++) {
        int id = b->cpu_id ? b->cpu_id[i] : i;
        const struct nvb__cpu_times *start = NULL;
        for (int k = 0; k < a->ncpu && a->cpu; k++)
            if ((a->cpu_id ? a->cpu_id[k] : k) == id) {
                start = &a->cpu[k];
                break;
            }
        if (!start)
            continue;
        struct nvb__cpu_times dc;
        nvb__cpu_times_delta(start, &b->cpu[i], &dc);
        res->cpu_pct[res->ncpu] = pct(nvb__cpu_busy(&dc), nvb__cpu_total(&dc));
        res->cpu_id[res->ncpu] = id;
        res->ncpu++;
    }
    return 0;
}

double nvb__cpu_busy_pct(const struct nvb__sys_sample *a, const struct nvb__sys_sample *b)
{
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a->total, &b->total, &d);
    return pct(nvb__cpu_busy(&d), nvb__cpu_total(&d));
}
