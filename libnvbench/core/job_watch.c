/*
 * The job loop's watchdog (io_timeout): a job whose device stops answering
 * gives up on what it has in flight instead of waiting forever. Called
 * from the loop (job.c) after a reap, never per I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/run.h"

/* Of the job's I/Os in flight, those the engine still has, which the
 * device may yet write into: completions the fault wrapper holds back are
 * done. */
static unsigned in_engine(const struct job *j, unsigned inflight)
{
    return j->fault ? nvb__fault_in_engine(j->fault) : inflight;
}

/* The device has not answered for io_timeout: give up on what is in
 * flight rather than wait forever (a removed or hung device). Its slots
 * and buffers stay allocated: the kernel may still write into them. */
void nvb__watch_stalled(struct job *j, uint64_t now, uint64_t wd_ref, unsigned inflight, uint64_t io_timeout)
{
    j->rc = -ETIMEDOUT;
    j->abandoned = in_engine(j, inflight);
    snprintf(j->why, sizeof j->why,
             "watchdog: job %u had %u I/O%s in flight and none completed for %.3g s (io_timeout=%.3g s): "
             "the device stopped answering; the run stops and abandons them",
             j->idx, inflight, inflight == 1 ? "" : "s", (double)(now - wd_ref) / 1e9,
             (double)io_timeout / 1e9);
    __atomic_store_n(&j->run->stop, 1, __ATOMIC_RELAXED);
}

/* Returns 1 when only I/Os older than io_timeout are left in flight: the
 * job abandons them. */
int nvb__watch_scan(struct job *j, uint64_t now, unsigned inflight, uint64_t io_timeout)
{
    struct run *r = j->run;
    const unsigned qd = r->p->qd;
    /* One I/O the device never answers, while the others go on: find
     * it by its age (a scan of qd slots every scan_ns). The run stops;
     * what still completes is taken, and once only such stale I/Os
     * are left the job abandons them. */
    unsigned stale = 0;
    const struct nvb__io *old = NULL;
    for (unsigned s = 0; s < qd; s++) {
        const struct nvb__io *x = &j->ios[s];
        if (!(x->flags & NVB__IOF_INFLIGHT) || now - x->t_sub < io_timeout)
            continue;
        stale++;
        if (!old || x->t_sub < old->t_sub)
            old = x;
    }
    if (stale && !j->stalled) {
        j->stalled = 1;
        j->rc = -ETIMEDOUT;
        snprintf(j->why, sizeof j->why,
                 "watchdog: job %u: a %s of target '%s' at offset %" PRIu64 " was in flight for %.3g s "
                 "(io_timeout=%.3g s): the device stopped answering it; the run stops and abandons the "
                 "I/Os still unanswered", j->idx, nvb__dir_names[old->dir],
                 r->p->t[j->tmap[old->target]].path, old->off, (double)(now - old->t_sub) / 1e9,
                 (double)io_timeout / 1e9);
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    }
    if (stale && stale >= inflight) {
        j->abandoned = in_engine(j, inflight);
        return 1;
    }
    return 0;
}
