/*
 * Each target's device utilisation over the run, as fio's disk_util: the
 * share of the window in which the block device under the target had at
 * least one I/O in flight, from its io_ticks before and after (the kernel's
 * count in milliseconds, of every process's I/O to that device). Taken
 * around the sampler: from the jobs' release to their end (the ramp, when
 * there is one, included). null with the reason where there is no figure:
 * no block device under a file (tmpfs, overlay), NVMe passthrough, the null
 * engine, another OS, or a window too short for a count in milliseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"

/* Below this the millisecond counter says too little (one tick is 1 %). */
#define UTIL_MIN_WINDOW_NS 100000000ull

static void no_util(struct nvb__tstat *ts, const char *why)
{
    ts->util.state = 2;
    snprintf(ts->util.why, sizeof ts->util.why, "%s", why);
}

void nvb__diskutil_begin(struct run *r, struct nvb_result *res, uint64_t *t0)
{
    for (unsigned t = 0; t < res->ntargets; t++) {
        struct nvb__tstat *ts = &res->tg[t];
        memset(&ts->util, 0, sizeof ts->util);
        if (nvb__engine_flags(r->p->eng, r->p->eopts) & NVB__ENG_NO_FILES) {
            no_util(ts, "the null engine does no I/O to a device");
            continue;
        }
        const char *path = ts->file ? ts->file : ts->path;
        if (!path) { /* a phase whose result names no target (preconditioning's) */
            no_util(ts, "no target named in this phase's result");
            continue;
        }
        char why[sizeof ts->util.why];
        if (nvb__disk_io_ticks(path, ts->util.dev, sizeof ts->util.dev, &ts->util.ticks0,
                               why, sizeof why) < 0) {
            no_util(ts, why);
            continue;
        }
        ts->util.state = 1;
    }
    nvb__irq_begin(res); /* the interrupts over the same window (explain_irq.c) */
    *t0 = nvb__now_ns();
}

void nvb__diskutil_end(struct nvb_result *res, uint64_t t0)
{
    uint64_t dt = nvb__now_ns() - t0;
    nvb__irq_end(res);
    for (unsigned t = 0; t < res->ntargets; t++) {
        struct nvb__tstat *ts = &res->tg[t];
        if (ts->util.state != 1)
            continue;
        char name[sizeof ts->util.dev], why[sizeof ts->util.why];
        uint64_t ticks1 = 0;
        if (nvb__disk_io_ticks(ts->file ? ts->file : ts->path, name, sizeof name, &ticks1, why, sizeof why) < 0) {
            no_util(ts, why);
            continue;
        }
        if (strcmp(name, ts->util.dev) != 0) {
            no_util(ts, "the target's device changed during the run");
            continue;
        }
        if (dt < UTIL_MIN_WINDOW_NS) {
            no_util(ts, "the run was shorter than 0.1 s: io_ticks counts milliseconds");
            continue;
        }
        double pct = ticks1 >= ts->util.ticks0 ? 100.0 * (double)(ticks1 - ts->util.ticks0) * 1e6 / (double)dt : 0;
        ts->util.pct = pct > 100.0 ? 100.0 : pct;
    }
}
