/*
 * Summing up a run after its jobs were joined: per job per target -> per
 * target -> totals (exact sums, one histogram merge: nvb__dstat_add), the
 * ends of the measured window, the end-of-run warnings and the run's
 * status.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

/* dst += src; out of memory: the sums, without the histogram. A count
 * past 2^64 (not reachable by one run: 584 years at a billion I/Os per
 * second) is the run's error rather than a wrapped figure. */
static void dstat_sum(struct nvb_result *res, struct nvb__dstat *dst, const struct nvb__dstat *src)
{
    int rc = nvb__dstat_add(dst, src);
    /* a job's histograms (jhist.h; a result's have none of these) */
    if (!rc && src->jlat)
        rc = nvb__jhist_merge(&dst->hist, src->jlat);
    if (!rc && src->jslat)
        rc = nvb__jhist_merge(&dst->slat, src->jslat);
    if (!rc && src->jclat)
        rc = nvb__jhist_merge(&dst->clat, src->jclat);
    if (rc == -EOVERFLOW && !res->err)
        nvb__result_seterr(res, -EOVERFLOW, "an I/O, byte or latency-histogram count passed 2^64 - 1 when the "
                           "jobs' counters were added up");
}

/* One job's counters into the result. */
static void job_merge(struct run *r, struct nvb_result *res, unsigned i)
{
    const struct job *j = &r->jobs[i];
    for (unsigned t = 0; t < j->nt; t++) {
        struct nvb__tstat *dst = &res->tg[j->tmap[t]];
        for (int d = 0; d < NVB__NDIR; d++)
            dstat_sum(res, &dst->d[d], &j->st[t].d[d]);
        dst->errors += j->st[t].errors;
    }
    nvb__meter_add(&res->meter, &j->meter);
    for (unsigned k = 0; k < j->nfirst_mm && res->nfirst_mismatch < NVB__VERIFY_FIRST; k++)
        res->first_mismatch[res->nfirst_mismatch++] = j->first_mm[k];
    if (j->rc < 0 && !res->err)
        nvb__result_seterr(res, j->rc, j->why);
    if (j->note[0])
        nvb__result_warn(res, "engine %s, job %u: %s", r->p->eng->name, i, j->note);
    if (j->abandoned)
        nvb__result_warn(res, "watchdog: job %u abandoned %u I/O%s in flight; %u buffers of %" PRIu64
                         " bytes stay allocated until the process exits (the device may still write into them)",
                         i, j->abandoned, j->abandoned == 1 ? "" : "s", r->p->qd, r->w->bs);
}

/* The measured window: its length, and its wall-clock ends for merging
 * with other hosts' runs. */
static void window_ends(struct run *r, struct nvb_result *res)
{
    uint64_t t_end = r->meas_ns;
    for (unsigned i = 0; i < r->p->jobs; i++)
        if (r->jobs[i].t_end > t_end)
            t_end = r->jobs[i].t_end;
    res->duration_s = (double)(t_end - r->meas_ns) / 1e9;
    uint64_t t_first = t_end;
    for (unsigned i = 0; i < r->p->jobs; i++)
        if (r->jobs[i].t_end < t_first)
            t_first = r->jobs[i].t_end;
    res->end_wall_ns = res->start_wall_ns + (t_end - r->go_ns);
    res->first_done_wall_ns = res->start_wall_ns + (t_first - r->go_ns);
}

/* The share of the mean latency the job thread's own lateness may take
 * before a result warns that lat shows the host rather than the storage. */
#define LATE_SHARE_WARN 0.10

/* What a rate did to the figures: a closed loop hides the waiting behind
 * a stall; an open one may not have kept its schedule. */
static void rate_warnings(struct nvb_result *res, unsigned qd)
{
    if (!res->rate_set)
        return;
    if (res->rate_mode == NVB__RATE_CLOSED) {
        nvb__result_warn(res, "rate_mode=closed: an I/O is stamped when a free slot lets it go, so the time "
                         "I/Os wait behind a slow one is not counted (coordinated omission); rate_mode=open "
                         "counts latency from each I/O's intended start");
        return;
    }
    if (res->sub.lagged)
        nvb__result_warn(res, "open-loop rate: %" PRIu64 " of %" PRIu64 " I/Os were submitted an interval or more "
                         "after their intended start (at most %.3g ms late: %.3g ms waiting for a slot, the "
                         "queue (qd %u) full; %.3g ms the job thread late); their latency counts from the "
                         "intended start", res->sub.lagged, res->sub.ios, (double)res->sub.lag_max / 1e6,
                         (double)res->sub.qfull_max / 1e6, qd, (double)res->sub.late_max / 1e6);
    /* the thread's own lateness is no storage latency: say when it is a
     * large share of what lat shows */
    double n = 0, lsum = 0;
    for (int d = 0; d < NVB__NDIR; d++)
        if (res->tot[d].hist) {
            n += (double)res->tot[d].hist->count;
            lsum += nvb__u128d(res->tot[d].hist->sum);
        }
    const double late = res->sub.ios ? (double)res->sub.late_sum / (double)res->sub.ios : 0, mean = n ? lsum / n : 0;
    if (mean > 0 && late > LATE_SHARE_WARN * mean)
        nvb__result_warn(res, "open-loop rate: the job thread submitted I/Os %.3g us late on average "
                         "(rate.late_mean_ns), %.0f%% of the mean latency %.3g us: lat includes this lateness of the host, not the "
                         "storage (a busy machine, or timer wake-ups later than the spin covers)",
                         late / 1e3, 100.0 * late / mean, mean / 1e3);
    if (res->sub.unissued)
        nvb__result_warn(res, "open-loop rate: %" PRIu64 " I/Os due in the measured window were never submitted "
                         "(the queue stayed full to its end): the latency figures cannot include them",
                         res->sub.unissued);
}

/* A whole-machine share warns only beyond its threshold by more than two
 * ticks per CPU (a tick or two of another process is not a busy machine). */
static int beyond(const struct nvb_result *res, double v, double threshold)
{
    double slack = res->cpu_ticks > 0 ? 200.0 / res->cpu_ticks : 0;
    return v - slack > threshold;
}

static void end_warnings(const struct run *r, struct nvb_result *res)
{
    if (res->cpu_valid && beyond(res, res->steal_pct, 5.0))
        nvb__result_warn(res, "steal time %.1f%%: the hypervisor took CPU from this machine; figures are noisy",
                         res->steal_pct);
    if (res->cpu_valid) {
        struct nvb__cpu_derived cd;
        nvb__cpu_derive(res, &cd);
        if (beyond(res, cd.background_pct, 10.0))
            nvb__result_warn(res, "the machine was not quiet: %.1f%% of all CPU time was used by other "
                             "processes during the run", cd.background_pct);
        if (beyond(res, res->cpu_raised_pct, 0.0))
            nvb__result_warn(res, "cpu: the machine's tick counters saw %.1f%% of all CPU time less busy than this "
                             "process used over the same window; system_pct was raised to cover it",
                             res->cpu_raised_pct);
    } /* else: null, and cpu.system_null_reason says why (a short run is not a fault) */
    if (res->short_ios)
        nvb__result_warn(res, "%" PRIu64 " short transfers counted as errors (EIO)", res->short_ios);
    if (res->verify_mismatches) {
        const struct nvb__vmismatch *m = &res->first_mismatch[0];
        nvb__result_warn(res, "verify: %" PRIu64 " of %" PRIu64 " blocks read did not match what was written; "
                         "the first: target '%s' offset %" PRIu64 ", field '%s' (verify.first_mismatches "
                         "lists up to %u)", res->verify_mismatches, res->verify_checked,
                         res->nfirst_mismatch && m->target < r->p->nt ? r->p->t[m->target].path : "?",
                         m->offset, nvb__vfield_name(m->field), NVB__VERIFY_FIRST);
    }
    if (res->verify_unchecked)
        nvb__result_warn(res, "verify: %" PRIu64 " blocks read were not checked: this run had not written them "
                         "yet (verify.unchecked); a mixed run checks the blocks it wrote", res->verify_unchecked);
}

/* The run's error: a job's, the first I/O error, or a cancellation. */
static int run_status(struct run *r, struct nvb_result *res, int rc)
{
    if (r->io_err && !res->err) {
        nvb__result_seterr(res, r->io_err, r->io_err_msg);
        rc = r->io_err;
    }
    if (r->cancel && r->cancel->flag && !res->err) {
        res->cancelled = 1;
        nvb__result_seterr(res, -ECANCELED, "cancelled");
        rc = -ECANCELED;
    } else if (r->stop && !res->err && !r->io_err && !r->ss_stopped &&
               !__atomic_load_n(&r->exit_stopped, __ATOMIC_ACQUIRE)) {
        /* stopped by the progress or poll callback (not at steady state, ss.stop=1) */
        res->cancelled = 1;
        nvb__result_seterr(res, -ECANCELED, "cancelled by the caller's callback");
        rc = -ECANCELED;
    }
    if (res->err && rc == 0)
        rc = res->err;
    return rc;
}

int nvb__run_aggregate(struct run *r, struct nvb_result *res, int rc)
{
    for (unsigned i = 0; i < r->p->jobs; i++)
        job_merge(r, res, i);
    window_ends(r, res);
    res->trim = r->p->trims;
    res->lat_unknown = (r->p->eng->flags & NVB__ENG_SYNC) ? NVB__NO_SLAT : 0;
    res->sub.ext = 1;
    res->sub.batch_max = r->w->submit_batch && r->w->submit_batch < r->p->qd ? r->w->submit_batch : r->p->qd;
    res->sub.slat_scope = (r->p->eng->flags & NVB__ENG_SYNC) ? NVB__SLAT_NONE
                          : (r->p->eng->flags & NVB__ENG_SUBMIT_QUEUES) ? NVB__SLAT_QUEUE : NVB__SLAT_CALL;
    if (r->w->rate_iops) {
        res->rate_set = 1;
        res->rate_mode = r->w->rate_mode;
        res->rate_process = r->w->rate_process;
        res->rate_iops = r->w->rate_period_ns ? (uint64_t)((double)r->w->rate_iops * 1e9 / (double)r->w->rate_period_ns)
                                              : r->w->rate_iops;
    }
    for (unsigned t = 0; t < r->p->nt; t++)
        for (int d = 0; d < NVB__NDIR; d++)
            dstat_sum(res, &res->tot[d], &res->tg[t].d[d]);
    end_warnings(r, res);
    rate_warnings(res, r->p->qd);
    nvb__exitall_note(r, res);
    return run_status(r, res, rc);
}
