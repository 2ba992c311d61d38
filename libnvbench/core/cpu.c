/*
 * CPU arithmetic, portable: turns two system samples (whatever platform
 * produced them) into the figures of a result. Kept apart from the
 * sampling so it is tested on synthetic counters everywhere.
 */
#include <stdio.h>
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

/* Ticks per CPU between two samples; 0 when the resolution is unknown
 * (samples that do not say it). */
double nvb__cpu_ticks(const struct nvb__sys_sample *a, const struct nvb__sys_sample *b, int ncpus)
{
    if (!b->tick_ns)
        return 0;
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a->total, &b->total, &d);
    int nc = b->ncpu > 0 ? b->ncpu : (ncpus > 0 ? ncpus : 1);
    return (double)nvb__cpu_total(&d) / (double)b->tick_ns / nc;
}

static int too_few_ticks(const struct nvb__sys_sample *b, double ticks)
{
    return b->tick_ns && ticks < NVB__CPU_MIN_TICKS;
}

/* The process's own CPU (precise) is busy time of the machine: where the
 * ticks counted less busy time than that over the same window, the
 * difference was counted idle (a tick samples one moment of each CPU).
 * Moves it from idle, then iowait, into user and system in the process's
 * proportion. -1 when even that cannot cover it. */
static int reconcile(struct nvb__cpu_times *d, uint64_t own_user, uint64_t own_sys, uint64_t *raised)
{
    uint64_t own = own_user + own_sys, busy = nvb__cpu_busy(d);
    *raised = 0;
    if (own <= busy)
        return 0;
    uint64_t need = own - busy;
    if (need > d->idle + d->iowait)
        return -1;
    uint64_t from_idle = need < d->idle ? need : d->idle;
    d->idle -= from_idle;
    d->iowait -= need - from_idle;
    unsigned __int128 nu = (unsigned __int128)need * own_user; /* own_user <= own: the share fits */
    uint64_t to_user = nvb__div128((uint64_t)(nu >> 64), (uint64_t)nu, own, NULL);
    d->user += to_user;
    d->system += need - to_user;
    *raised = need;
    return 0;
}

int nvb__cpu_fill(struct nvb_result *res, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b,
                  uint64_t own_user_ns, uint64_t own_sys_ns)
{
    struct nvb__cpu_times d;
    struct nvb__cpu_split sp;
    free(res->cpu_pct);
    free(res->cpu_id);
    res->cpu_pct = NULL;
    res->cpu_id = NULL;
    res->ncpu = 0;
    res->cpu_valid = 0;
    res->cpu_raised_pct = 0;
    res->cpu_null_reason[0] = 0;
    nvb__cpu_times_delta(&a->total, &b->total, &d);
    double ticks = nvb__cpu_ticks(a, b, res->ncpus_online);
    res->cpu_tick_s = (double)b->tick_ns / 1e9;
    res->cpu_ticks = ticks;
    if (too_few_ticks(b, ticks)) {
        /* One tick more or less is a share of 1/ticks of each CPU: from a
         * tick or two a share reads 0 or 100 % (docs/cpu-accounting.md). */
        snprintf(res->cpu_null_reason, sizeof res->cpu_null_reason,
                 "not measured: the whole-machine counters advance in ticks of %.3g ms (USER_HZ %.0f), and the "
                 "window had %.1f per CPU; a share needs at least %d (a window of %.3g ms or longer)",
                 (double)b->tick_ns / 1e6, 1e9 / (double)b->tick_ns, ticks, NVB__CPU_MIN_TICKS,
                 NVB__CPU_MIN_TICKS * (double)b->tick_ns / 1e6);
        return 0;
    }
    uint64_t raised;
    if (reconcile(&d, own_user_ns, own_sys_ns, &raised)) {
        snprintf(res->cpu_null_reason, sizeof res->cpu_null_reason,
                 "not measured: the process used %.6f s of CPU, more than the whole-machine counters saw elapse "
                 "(%.6f s over all CPUs): the two were not read over one window",
                 (double)(own_user_ns + own_sys_ns) / 1e9, (double)nvb__cpu_total(&d) / 1e9);
        return 0;
    }
    nvb__cpu_split(&d, &sp);
    res->cpu_raised_pct = nvb__cpu_total(&d) ? 100.0 * (double)raised / (double)nvb__cpu_total(&d) : 0;
    res->system_pct = sp.busy;
    res->user_pct = sp.user;
    res->sys_pct = sp.sys;
    res->irq_pct = sp.irq;
    res->iowait_pct = sp.iowait;
    res->steal_pct = sp.steal;
    res->idle_pct = sp.idle;
    res->cpu_valid = 1;
    if (b->ncpu <= 0 || !b->cpu)
        return 0;
    void *pcts, *ids;
    if (nvb__calloc2((size_t)b->ncpu, sizeof *res->cpu_pct, sizeof *res->cpu_id, &pcts, &ids) < 0)
        return -1;
    res->cpu_pct = pcts;
    res->cpu_id = ids;
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
    if (too_few_ticks(b, nvb__cpu_ticks(a, b, 0)))
        return -1;
    struct nvb__cpu_times d;
    nvb__cpu_times_delta(&a->total, &b->total, &d);
    return pct(nvb__cpu_busy(&d), nvb__cpu_total(&d));
}
