/*
 * The job loop's watchdog (io_timeout): a job whose device stops answering
 * gives up on what it has in flight instead of waiting forever. Called
 * from the loop (job.c) after a reap, never per I/O. Also the loop's other
 * ends, off its steady path: a failed I/O (and the run stopped at it), the
 * end of a job's measured window.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
 * job abandons them. The free list's nfree I/Os are not in flight: the
 * loop's plain instances leave NVB__IOF_INFLIGHT set as they take I/Os
 * back (three instructions per I/O saved), so it is cleared here first,
 * where it is read. */
int nvb__watch_scan(struct job *j, uint64_t now, unsigned inflight, unsigned nfree, uint64_t io_timeout)
{
    struct run *r = j->run;
    const unsigned qd = r->p->qd;
    for (unsigned i = 0; i < nfree; i++)
        j->freel[i]->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
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

int nvb__parse_errno_set(const char *s, uint64_t *bits)
{
    memset(bits, 0, NVB__ERRNO_SLOTS / 8);
    char one[32];
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ":");
        int en;
        if (n == 0 || n >= sizeof one)
            return -EINVAL;
        memcpy(one, p, n);
        one[n] = 0;
        if (nvb__parse_errno(one, &en) < 0)
            return -EINVAL;
        bits[en / 64] |= 1ull << (en % 64);
        p += n + (p[n] == ':');
    }
    return 0;
}

/* Does the run go on after errno en (continue_on_error, continue_errnos)? */
static int goes_on(const struct nvb_workload *w, int en)
{
    if (!w->continue_on_error)
        return 0;
    uint64_t any = 0;
    for (unsigned i = 0; i < NVB__ERRNO_SLOTS / 64; i++)
        any |= w->cont_errs[i];
    return !any || (en > 0 && en < NVB__ERRNO_SLOTS && (w->cont_errs[en / 64] >> (en % 64) & 1));
}

/* An I/O failed (errno en) in a run that stops at it: the run stops, and
 * the first such error is the run's. */
static void stop_at_error(struct job *j, const struct nvb__io *io, int d, int en)
{
    struct run *r = j->run;
    if (goes_on(r->w, en) || __atomic_load_n(&r->stop, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    nvb__mutex_lock(r->mu); /* once per run, not in the steady state */
    if (!r->io_err) {
        r->io_err = io->res < 0 ? (int)io->res : -EIO;
        snprintf(r->io_err_msg, sizeof r->io_err_msg,
                 "%s error on target '%s' at offset %" PRIu64 " (%u bytes): %s%s",
                 nvb__dir_names[d], r->p->t[j->tmap[io->target]].path, io->off,
                 io->len, io->res < 0 ? nvb_strerror((int)io->res) : "short transfer",
                 (io->flags & NVB__IOF_FAULT_ERR) ? " (injected: fault.rate)"
                 : (io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0 ? " (injected: fault.short)" : "");
    }
    nvb__mutex_unlock(r->mu);
}

/* A failed I/O counted (errno en), the run stopped unless it continues. */
void nvb__job_failed(struct job *j, struct nvb__tstat *ts, const struct nvb__io *io, int d, int en)
{
    j->errors++;
    nvb__live_store(&j->live.errors, j->errors);
    j->errors_dir[d]++;
    ts->errors++;
    j->by_errno[en < NVB__ERRNO_SLOTS ? en : NVB__ERRNO_SLOTS - 1]++;
    stop_at_error(j, io, d, en);
}

/* The end of this job's measured window (the run's end when it ran to it,
 * else its last counted completion), and what an open-loop schedule left
 * unissued in it. */
void nvb__job_end(struct job *j, int open, uint64_t now, uint64_t last_done, uint64_t budget)
{
    const struct run *r = j->run;
    const int to_end = r->end_ns && now >= r->end_ns && !nvb__run_stopping(j->run);
    j->by_stop = !to_end && nvb__run_stopping(j->run);
    if (to_end)
        j->t_end = r->end_ns;
    else if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && __atomic_load_n(&r->ss_stopped, __ATOMIC_RELAXED))
        j->t_end = nvb__now_ns(); /* ss.stop=1: the window ends when steady state stopped it */
    else
        j->t_end = last_done > r->meas_ns ? last_done : now;
    if (j->t_end < r->meas_ns)
        j->t_end = r->meas_ns;
    if (open && to_end)
        j->sub.unissued = nvb__sched_missed(&j->sched, r->meas_ns, j->t_end, budget);
}
