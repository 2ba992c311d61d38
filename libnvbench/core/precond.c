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
 *
 * precondition=random (precondition.mode=random) is one pass of the
 * planned-invalidation sequence instead (core/sprandom.h), in the
 * workload's bs: the same phase, with rw=randwrite and sprandom=1; each
 * job writes its target's plan, total writes, once. sprandom=1 on the
 * measured workload is the same sequence measured (fio's sprandom).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/sprandom.h"

/* The writes of target t's plan, or negative errno (message in err). */
static int64_t spr_total(const struct nvb_workload *w, const struct plan *p, unsigned t, char *err, size_t errlen)
{
    struct nvb__spr_plan pl;
    char why[320];
    int rc = nvb__spr_plan(&pl, p->t[t].len, w->bs, w->spr_op, w->spr_regions, w->spr_cache, why, sizeof why);
    if (rc < 0) {
        snprintf(err, errlen, "%s (target '%s')", why, p->t[t].path);
        return rc;
    }
    nvb__spr_plan_free(&pl);
    /* the generator keeps the picks of two regions (core/sprandom.c) */
    const uint64_t mem = nvb__mem_total(), need = (2 * pl.kmax + 1) * sizeof(uint64_t);
    if (mem && need > mem) {
        snprintf(err, errlen, "sprandom.regions=%u: the plan of target '%s' keeps %" PRIu64 " bytes of picked "
                 "blocks, more than the %" PRIu64 " bytes of memory this process can have (more regions need less)",
                 w->spr_regions, p->t[t].path, need, mem);
        return -ENOMEM;
    }
    return (int64_t)pl.total;
}

/* sprandom=1 on the measured workload: one randwrite job on one target,
 * bounded by the plan (its I/O count is the plan's, within runtime). */
int nvb__sprandom_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    const char *why = w->rw != NVB__RW_RANDWRITE ? "rw=randwrite (the plan is a sequence of writes)"
                      : p->jobs != 1 || p->nt != 1 ? "one job on one target (each target's plan is one sequence)"
                      : w->bssplit.set ? "one bs, not a bssplit (the plan's blocks are of bs)"
                      : w->io_limit || w->ios ? "no io_limit or ios (the plan's length is the job's)"
                      : NULL;
    if (why) {
        snprintf(err, errlen, "sprandom=1 needs %s", why);
        return -EINVAL;
    }
    int64_t total = spr_total(w, p, 0, err, errlen);
    if (total < 0)
        return (int)total;
    p->ios_total = (uint64_t)total;
    return 0;
}

int nvb__precond_plan(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    char b1[32];
    int files = !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES);
    const int rnd = w->precond_mode == NVB__PRECOND_RANDOM;
    if (rnd && w->precondition != 1) {
        snprintf(err, errlen, "precondition=%u with precondition.mode=random: the random preconditioning is one "
                 "pass (precondition=1, or precondition=random)", w->precondition);
        return -EINVAL;
    }
    for (unsigned t = 0; rnd && t < p->nt; t++) {
        int64_t total = spr_total(w, p, t, err, errlen);
        if (total < 0)
            return (int)total;
    }
    uint64_t bs = rnd || (w->verify && files) ? w->bs : w->bs > NVB__PRECOND_BS ? w->bs : NVB__PRECOND_BS;
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
    const int rnd = pw->precond_mode == NVB__PRECOND_RANDOM;
    pw->rw = rnd ? NVB__RW_RANDWRITE : NVB__RW_WRITE;
    pw->sprandom = rnd; /* the plan's sequence (core/sprandom.h), or sequential passes */
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
    pw->exitall = NVB__EXIT_OFF; /* its jobs each write their part: all of them to the end */
    pw->fault_rate = pw->fault_short = pw->fault_delay_rate = 0;
    pw->fault_delay_ns = 0;
    pw->precondition = 0;
    pw->precond_mode = NVB__PRECOND_SEQ;
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
    const int rnd = w->precond_mode == NVB__PRECOND_RANDOM;
    for (unsigned t = 0; t < p->nt; t++) {
        const struct ptarget *pt = &p->t[t];
        int64_t planned = rnd ? spr_total(w, p, t, err, errlen) : 0; /* the plan was checked: not negative */
        ios[t] = rnd ? (uint64_t)planned : (uint64_t)w->precondition * (pt->len / bs);
        if (rnd) { /* the writes past one of each block: the planned invalidations */
            res->pre.regions = w->spr_regions;
            res->pre.rewrites += ios[t] - pt->len / bs;
        }
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
    if (rnd)
        nvb__run_log(r->opts, 2, "precondition: random, %" PRIu64 " %" PRIu64 "-byte writes with planned "
                     "invalidation (op %g, %u regions) at qd %u over %u target%s", total, bs, w->spr_op,
                     w->spr_regions, pp.qd, pp.nt, pp.nt == 1 ? "" : "s");
    else
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
