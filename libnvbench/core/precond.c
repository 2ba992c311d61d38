/*
 * Preconditioning (precondition=N, docs/steady-state.md): before the
 * measured run, N sequential passes of writes over each target's whole
 * region, as SNIA PTS's workload-independent preconditioning does, so that
 * a drive is measured in use rather than fresh out of the box.
 *
 * It is a phase of its own, run by the same machinery as the measured run
 * (nvb__run_phase: jobs, sampler, aggregate) with a workload derived from
 * the user's: one job per target, rw=write, bs = the larger of 128 KiB and
 * the workload's bs (the workload's bs with verify=1, so that every block
 * carries the header the measured reads check), the workload's engine,
 * engine options and qd; no ramp, rate or fault injection. It writes into
 * a result of its own: the measured result's figures never include it, and
 * its bytes and duration go to the result's "precondition" object. The
 * guard and the hold treat it as the write it is (plan.c: p->prewrites).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

int nvb__precond_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    char b1[32];
    int files = !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES);
    uint64_t bs = w->verify && files ? w->bs : w->bs > NVB__PRECOND_BS ? w->bs : NVB__PRECOND_BS;
    uint64_t minlen = UINT64_MAX;
    for (unsigned t = 0; t < p->nt; t++)
        minlen = p->t[t].len < minlen ? p->t[t].len : minlen;
    if (bs > minlen) /* a region smaller than 128 KiB: whole blocks of bs */
        bs = minlen / w->bs * w->bs;
    p->pre_bs = bs;
    struct nvb__run_mem m;
    nvb__run_mem_estimate(bs, p->qd, p->nt, p->nt, 1, &m);
    uint64_t mem = nvb__mem_total();
    if (mem && m.total > mem) {
        snprintf(err, errlen, "precondition=%u: buffers of bs x qd x targets = %s x %u x %u bytes need %" PRIu64
                 " bytes, more than the %" PRIu64 " bytes of memory this process can have", w->precondition,
                 nvb__fmt_size(bs, b1, sizeof b1), p->qd, p->nt, m.total, mem);
        return -ENOMEM;
    }
    return 0;
}

/* The progress callback during the phase: the live figures are the
 * precondition's, the measured window has not started (elapsed 0, done 0). */
struct pre_progress {
    const struct nvb_run_opts *o;
    double total_s;
};

static int pre_progress(const struct nvb_progress *pg, void *arg)
{
    const struct pre_progress *pp = arg;
    struct nvb_progress q = *pg;
    q.elapsed_s = 0;
    q.total_s = pp->total_s;
    q.done_fraction = 0;
    return pp->o->progress(&q, pp->o->progress_arg);
}

/* The phase's workload, from a copy of the user's. */
static void pre_workload(struct nvb_workload *pw, const struct plan *p, uint64_t ios)
{
    pw->rw = NVB__RW_WRITE;
    pw->dist = (struct nvb__dist){0}; /* sequential: no offset distribution */
    pw->random_map = 0;
    pw->bs = p->pre_bs;
    pw->jobs = p->nt;
    pw->target_mode = NVB__TM_SPLIT; /* job t writes target t */
    pw->ios = ios;
    pw->io_limit = 0;
    pw->runtime_set = 0;
    pw->ramp_ns = 0;
    pw->rate_iops = 0;
    memset(&pw->bssplit, 0, sizeof pw->bssplit); /* whole passes of bs writes, no mix, no think time */
    pw->thinktime_ns = 0;
    pw->flow = 0;
    pw->align_interval = 0;
    pw->continue_on_error = 0; /* a failed precondition is a failed run */
    pw->fault_rate = pw->fault_short = pw->fault_delay_rate = 0;
    pw->fault_delay_ns = 0;
    pw->precondition = 0;
    pw->ss_metric = NVB__SS_OFF;
    pw->ss_stop = 0;
}

/* What the phase did, into the run's result. */
static int pre_report(struct nvb_result *res, const struct nvb_result *pres, int rc, char *err, size_t errlen)
{
    res->pre.bytes = pres->tot[NVB_WRITE].bytes;
    res->pre.duration_s = pres->duration_s;
    for (unsigned i = 0; i < pres->nwarn; i++)
        nvb__result_warn(res, "precondition: %s", pres->warn[i]);
    if (rc == 0 && pres->err)
        rc = pres->err;
    if (rc < 0) {
        snprintf(err, errlen, "precondition: %s", pres->err ? pres->errmsg : nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
        res->cancelled = pres->cancelled;
    }
    return rc;
}

int nvb__precond_run(struct run *r, struct nvb_result *res, char *err, size_t errlen)
{
    const struct nvb_workload *w = r->w;
    struct plan *p = r->p;
    const uint64_t bs = p->pre_bs;
    struct nvb_workload *pw = NULL;
    struct nvb_result *pres = nvb__result_new();
    uint64_t *ios = calloc(p->nt, sizeof *ios);
    int rc = pres && ios ? nvb__workload_copy(w, &pw) : -ENOMEM;
    if (rc == 0 && !(pres->tg = calloc(p->nt, sizeof *pres->tg)))
        rc = -ENOMEM;
    if (rc < 0) {
        nvb__result_seterr(res, rc, "out of memory");
        goto out;
    }
    pres->ntargets = p->nt;
    uint64_t total = 0;
    for (unsigned t = 0; t < p->nt; t++) {
        const struct ptarget *pt = &p->t[t];
        ios[t] = (uint64_t)w->precondition * (pt->len / bs);
        total += ios[t];
        if (pt->len % bs)
            nvb__result_warn(res, "precondition: the last %" PRIu64 " bytes of the region of target '%s' were not "
                             "written (the region is not a multiple of the precondition's block size, %" PRIu64
                             " bytes)", pt->len % bs, pt->path, bs);
    }
    pre_workload(pw, p, total);
    struct plan pp = *p; /* the same targets, holds and engine options */
    pp.nwarn = 0;
    pp.reads = 0;
    pp.writes = 1;
    pp.jobs = p->nt;
    pp.ios_total = total;
    pp.bytes_total = 0;
    pp.runtime_ns = 0;
    pp.job_ios = ios;
    struct pre_progress ppg = {r->opts, (double)p->runtime_ns / 1e9};
    struct nvb_run_opts o = *r->opts;
    o.point = NULL; /* its points are the precondition's, in no figure */
    if (o.progress) {
        o.progress = pre_progress;
        o.progress_arg = &ppg;
    }
    struct run pr;
    memset(&pr, 0, sizeof pr);
    pr.w = pw;
    pr.opts = &o;
    pr.cancel = r->cancel;
    pr.p = &pp;
    nvb__run_log(r->opts, 2, "precondition: %u sequential pass%s of %" PRIu64 "-byte writes at qd %u over %u "
                 "target%s", w->precondition, w->precondition == 1 ? "" : "es", bs, pp.qd, pp.nt,
                 pp.nt == 1 ? "" : "s");
    int no_barrier = 0; /* the start barrier is the measured run's */
    rc = pre_report(res, pres, nvb__run_phase(&pr, pres, &no_barrier, err, errlen), err, errlen);
    if (rc == 0)
        nvb__run_log(r->opts, 2, "precondition: wrote %" PRIu64 " bytes in %.3f s", res->pre.bytes,
                     res->pre.duration_s);
out:
    free(ios);
    nvb_result_free(pres);
    nvb_workload_free(pw);
    return rc;
}
