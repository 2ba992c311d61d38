/*
 * The runner: one nvb_run() as a list of steps, each in a file of its own
 * (core/run.h lists them): plan the workload, take the hold on the targets,
 * lay out scratch files, set up the jobs on their threads, pass the start
 * barrier, sample the measured window while the jobs run, sum up, clean up.
 * This file only orders the steps and carries each one's failure to the
 * result.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

void nvb__run_log(const struct nvb_run_opts *o, int level, const char *fmt, ...)
{
    if (!o->log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->log(level, buf, o->log_arg);
}

/* The start barrier is called exactly once per run that has one, on every
 * path: a collective barrier (MPI) must not wait for a process whose run
 * failed before reaching it. Returns what the callback returned. */
static int run_barrier(const struct nvb_run_opts *o, int *pending, int status)
{
    if (!*pending)
        return 0;
    *pending = 0;
    return o->start_barrier(status, o->start_barrier_arg);
}

int nvb__run_plan_error(struct nvb_result **out, const struct nvb_workload *w, int rc, const char *msg)
{
    if (!out)
        return rc;
    struct nvb_result *res = nvb__result_new();
    if (res) {
        nvb__hostname(res->host, sizeof res->host);
        snprintf(res->engine, sizeof res->engine, "%s", w->engine);
        nvb__workload_copy(w, &res->wl);
        nvb__result_seterr(res, rc, msg);
        nvb__result_warn_utf8(res, w);
    }
    *out = res;
    return rc;
}

static void measure_clock_cost(struct nvb_result *res)
{
    uint64_t a = nvb__now_ns(), b = a;
    for (int i = 0; i < 1000; i++)
        b = nvb__now_ns();
    res->clock_cost_ns = (double)(b - a) / 1000.0;
    snprintf(res->clock_source, sizeof res->clock_source, "%s", nvb__clock_source());
}

int nvb__run_result_begin(struct nvb_result *res, const struct nvb_workload *w, const struct plan *p)
{
    nvb__hostname(res->host, sizeof res->host);
    snprintf(res->engine, sizeof res->engine, "%s", w->engine);
    res->qd_effective = p->qd;
    res->verify_enabled = w->verify && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES);
    {
        struct nvb__fault_cfg fc = {.rate = w->fault_rate, .short_rate = w->fault_short,
                                    .delay_rate = w->fault_delay_rate, .delay_ns = w->fault_delay_ns};
        res->fault_enabled = nvb__fault_wanted(&fc);
        res->fault_errno = w->fault_errno;
    }
    res->ncpus_online = p->ncpus_online;
    nvb__ss_begin(res, w);
    res->pre.passes = w->precondition;
    res->pre.bs = w->precondition ? p->pre_bs : 0;
    res->pre.qd = w->precondition ? p->qd : 0;
    if (nvb__workload_copy(w, &res->wl) < 0) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    for (unsigned i = 0; i < p->nwarn; i++)
        nvb__result_warn(res, "%s", p->warn[i]);
    nvb__result_warn_utf8(res, w);
    measure_clock_cost(res);
    return 0;
}

/* One thread per job. Returns how many started; *rc is the failure to
 * start the next one, if any. */
static unsigned jobs_start(struct run *r, struct nvb_result *res, int *rc, char *err, size_t errlen)
{
    unsigned started = 0;
    *rc = 0;
    for (unsigned i = 0; i < r->p->jobs; i++) {
        char name[16];
        snprintf(name, sizeof name, "nvb-job-%u", i);
        *rc = nvb__thread_start(&r->jobs[i].thr, nvb__job_main, &r->jobs[i], name);
        if (*rc < 0) {
            snprintf(err, errlen, "cannot start job thread %u of %u: %s", i, r->p->jobs, nvb_strerror(*rc));
            nvb__result_seterr(res, *rc, err);
            break;
        }
        started++;
    }
    return started;
}

/* Waits until every started job has set up, then passes the start barrier.
 * Returns the setup status (rc: starting the threads); on failure the jobs
 * are told to abort and to go. */
static int jobs_wait_ready(struct run *r, struct nvb_result *res, unsigned started, int rc, int *barrier_pending,
                           char *err, size_t errlen)
{
    nvb__mutex_lock(r->mu);
    while (r->nready < started)
        nvb__cond_wait(r->cv, r->mu, 0);
    int setup_rc = rc;
    for (unsigned i = 0; i < started && setup_rc == 0; i++)
        if (r->jobs[i].rc < 0) {
            setup_rc = r->jobs[i].rc;
            nvb__result_seterr(res, setup_rc, r->jobs[i].why);
        }
    if (*barrier_pending) {
        /* Every job is ready (or the setup failed): the callback may block
         * on other processes, so not with the lock held. */
        nvb__mutex_unlock(r->mu);
        int b = run_barrier(r->opts, barrier_pending, setup_rc);
        if (b && setup_rc == 0) {
            setup_rc = -ECANCELED;
            res->cancelled = 1;
            snprintf(err, errlen, "cancelled at the start barrier: start_barrier returned %d", b);
            nvb__result_seterr(res, setup_rc, err);
        }
        nvb__mutex_lock(r->mu);
    }
    if (setup_rc < 0) {
        r->go = -1;
        r->release = 1;
        nvb__cond_signal_all(r->cv);
        nvb__mutex_unlock(r->mu);
        return setup_rc;
    }
    nvb__mutex_unlock(r->mu);
    for (unsigned i = 0; i < r->p->jobs; i++)
        if (r->jobs[i].used.n) {
            res->used = r->jobs[i].used;
            break;
        }
    return 0;
}

int nvb__run_phase(struct run *r, struct nvb_result *res, int *barrier_pending, char *err, size_t errlen)
{
    struct nvb__sampler sm;
    nvb__sampler_init(&sm);
    unsigned started = 0;
    int rc, setup_rc;
    if ((rc = nvb__mutex_new(&r->mu)) < 0 || (rc = nvb__cond_new(&r->cv)) < 0) {
        nvb__result_seterr(res, rc, "cannot create synchronisation objects");
        goto out;
    }
    if ((rc = nvb__jobs_new(r, res)) < 0)
        goto out;
    nvb__flow_join(r);
    /* before the jobs: the counters follow the threads started after them */
    if (nvb__perf_open(&r->perf, r->perf_why, sizeof r->perf_why) < 0)
        r->perf = NULL;
    started = jobs_start(r, res, &rc, err, errlen);
    setup_rc = jobs_wait_ready(r, res, started, rc, barrier_pending, err, errlen);
    if (setup_rc == 0) {
        uint64_t util_t0;
        struct nvb__rapl rapl0; /* what the device and the packages did: devlog.c, energy.c */
        nvb__devlog_begin(res, (r->p->eng->flags & NVB__ENG_NO_FILES) != 0);
        nvb__energy_begin(res, NVB__POWERCAP_ROOT, &rapl0);
        nvb__diskutil_begin(r, res, &util_t0);
        nvb__sampler_run(&sm, r, res);
        nvb__diskutil_end(res, util_t0);
        nvb__energy_end(res, NVB__POWERCAP_ROOT, &rapl0);
        nvb__devlog_end(res);
    } else
        rc = setup_rc;
    for (unsigned i = 0; i < started; i++)
        nvb__thread_join(r->jobs[i].thr);
    if (setup_rc == 0 && started == r->p->jobs)
        rc = nvb__run_aggregate(r, res, rc);
out:
    nvb__jobs_free(r, started);
    nvb__perf_close(r->perf);
    r->perf = NULL;
    if (r->cv)
        nvb__cond_free(r->cv);
    if (r->mu)
        nvb__mutex_free(r->mu);
    r->cv = NULL;
    r->mu = NULL;
    nvb__sampler_free(&sm);
    return rc;
}

int nvb__run_finish(struct run *r, struct nvb_result *res, int *barrier_pending, int rc)
{
    const struct nvb_run_opts *o = r->opts;
    run_barrier(o, barrier_pending, rc < 0 ? rc : -ECANCELED);
    nvb__layout_remove(r->p, res); /* first: its warnings are logged below */
    if (o->log) {
        for (unsigned i = 0; i < res->nwarn; i++)
            o->log(1, res->warn[i], o->log_arg);
        if (res->err)
            o->log(0, res->errmsg, o->log_arg);
    }
    nvb__data_free(&r->data);
    nvb__plan_free(r->p);
    if (rc == 0 && res->err)
        rc = res->err;
    return rc;
}

int nvb__run_prepare(struct run *r, struct nvb_result *res, char *err, size_t errlen)
{
    int rc;
    if ((rc = nvb__plan_hold(r->p, res->verify_enabled, r->opts, err, errlen)) < 0) {
        nvb__result_seterr(res, rc, err);
        return rc;
    }
    /* Scratch files: created only now that everything else checked out,
     * and laid out with the data the run writes. */
    if ((rc = nvb__run_data(r, res)) < 0 || (rc = nvb__layout_targets(r, res, err, errlen)) < 0)
        return rc;
    /* precondition=N: its own phase, before the start barrier (so that
     * hosts start measuring together) and outside the figures. */
    if (r->w->precondition && (rc = nvb__precond_run(r, res, err, errlen)) < 0)
        return rc;
    /* What the targets hold now (page cache, holes): after the
     * precondition wrote them, before the measured run reads them. */
    nvb__targets_examine(r, res);
    return 0;
}

NVB_API int nvb_run(const struct nvb_workload *w, const struct nvb_run_opts *opts, struct nvb_result **out)
{
    if (out)
        *out = NULL;
    if (!w || !out)
        return -EINVAL;
    struct nvb_run_opts o;
    memset(&o, 0, sizeof o);
    if (opts) {
        size_t n = opts->size < sizeof o ? opts->size : sizeof o;
        memcpy(&o, opts, n);
    }
    int barrier_pending = o.start_barrier != NULL;
    struct plan p;
    char err[1024];
    int rc = nvb__plan_build(w, &p, err, sizeof err);
    if (rc < 0) {
        nvb__run_log(&o, 0, "%s", err);
        run_barrier(&o, &barrier_pending, rc);
        return nvb__run_plan_error(out, w, rc, err);
    }
    struct nvb_result *res = nvb__result_new();
    if (!res) {
        nvb__plan_free(&p);
        run_barrier(&o, &barrier_pending, -ENOMEM);
        return -ENOMEM;
    }
    *out = res;
    if ((rc = nvb__run_result_begin(res, w, &p)) < 0) {
        nvb__plan_free(&p);
        run_barrier(&o, &barrier_pending, rc);
        return rc;
    }

    struct run r;
    memset(&r, 0, sizeof r);
    r.w = w;
    r.opts = &o;
    r.cancel = o.cancel;
    r.p = &p;
    if ((rc = nvb__run_prepare(&r, res, err, sizeof err)) == 0)
        rc = nvb__run_phase(&r, res, &barrier_pending, err, sizeof err);
    return nvb__run_finish(&r, res, &barrier_pending, rc);
}
