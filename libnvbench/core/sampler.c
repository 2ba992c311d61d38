/*
 * The measured window as the calling thread sees it: it releases the jobs,
 * samples the time series and the progress figures at each tick, runs the
 * caller's poll hook and notices cancel requests, and samples CPU time
 * (system, process, per thread) at the start and the end of the measured
 * window (after the ramp). The process's CPU, which cpu_us_per_io and
 * process_cores divide, is read exactly at the window's edges by whichever
 * thread is there (nvb__cpu_edge): not before the jobs are released, not
 * after they drained the I/O still in flight (docs/cpu-accounting.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/ihist.h"

static void threads_fill(struct nvb_result *res, struct nvb__thread_cpu *a, int na, struct nvb__thread_cpu *b, int nb)
{
    if (nb <= 0)
        return;
    res->threads = calloc((size_t)nb, sizeof *res->threads);
    if (!res->threads)
        return;
    for (int i = 0; i < nb; i++) {
        struct nvb__thread_row *row = &res->threads[res->nthreads];
        uint64_t u = b[i].user_ns, s = b[i].sys_ns, rn = b[i].run_ns;
        for (int k = 0; k < na; k++)
            if (a[k].tid == b[i].tid) {
                u = u > a[k].user_ns ? u - a[k].user_ns : 0;
                s = s > a[k].sys_ns ? s - a[k].sys_ns : 0;
                rn = rn > a[k].run_ns ? rn - a[k].run_ns : 0;
                break;
            }
        row->tid = b[i].tid;
        snprintf(row->name, sizeof row->name, "%s", b[i].name);
        row->user_s = (double)u / 1e9;
        row->sys_s = (double)s / 1e9;
        row->run_s = (double)rn / 1e9;
        res->nthreads++;
    }
}

/* The counts of job histogram h's groups lo..hi not yet seen (prev, the
 * copy of its arena's) into acc. */
static void ts_hist_groups(const struct nvb__jhist *h, unsigned lo, unsigned hi, uint64_t *prev, uint64_t *acc)
{
    for (unsigned g = lo; g <= hi; g++) {
        const uint64_t *src = nvb__jhist_group(h, g);
        if (!src)
            continue;
        const size_t at = (size_t)(src - h->arena->base); /* prev mirrors the arena */
        for (unsigned q = 0, i = g * NVB__JH_G; q < NVB__JH_G; q++, i++) {
            uint64_t c = nvb__live_load(&src[q]);
            if (c != prev[at + q]) {
                acc[i] += c > prev[at + q] ? c - prev[at + q] : c; /* below: the histogram restarted */
                prev[at + q] = c;
            }
        }
    }
}

/* The interval's latency histograms, by direction: each job's cumulative
 * lat buckets less those seen at the last sample, over the groups between
 * its min's and max's that it wrote (the jobs write them, this reads them
 * racily but whole: a count missed now is caught at the next tick, and the
 * last sample, once the jobs have left their loops, sees them all, so the
 * intervals add up to the run's histograms exactly). Nothing per I/O. */
static void ts_hists(struct nvb__sampler *sm, struct run *r, struct nvb__tsample *s)
{
    if (!sm->hprev) {
        s->lh_unknown = 1;
        return;
    }
    uint64_t *prev = sm->hprev;
    unsigned lo[NVB__NDIR], hi[NVB__NDIR];
    for (int d = 0; d < NVB__NDIR; d++)
        lo[d] = NVB__HIST_BUCKETS, hi[d] = 0;
    for (unsigned k = 0; k < r->p->jobs; prev += nvb__job_lat_groups(r->p, r->jobs[k].nt) * NVB__JH_G, k++) {
        const struct job *j = &r->jobs[k];
        for (unsigned t = 0; t < j->nt; t++)
            for (int d = 0; d < NVB__NDIR; d++) {
                const struct nvb__jhist *h = j->st[t].d[d].jlat;
                const uint64_t mn = h ? nvb__live_load(&h->min) : 1, mx = h ? nvb__live_load(&h->max) : 0;
                if (mn > mx)
                    continue;
                const unsigned a = nvb__hist_index(mn), b = nvb__hist_index(mx);
                ts_hist_groups(h, a / NVB__JH_G, b / NVB__JH_G, prev, sm->hacc + (size_t)d * NVB__HIST_BUCKETS);
                lo[d] = a < lo[d] ? a : lo[d];
                hi[d] = b > hi[d] ? b : hi[d];
            }
    }
    for (int d = 0; d < NVB__NDIR; d++) {
        int oom = 0;
        s->lh[d] = lo[d] <= hi[d] ? nvb__ihist_take(sm->hacc + (size_t)d * NVB__HIST_BUCKETS, lo[d], hi[d], &oom) : NULL;
        if (oom) /* the percentiles of this point are unknown (null) */
            sm->hists_lost = s->lh_unknown = 1;
    }
    if (s->lh_unknown)
        nvb__ihists_free(s->lh);
}

/* One point of the time series, the interval since the last one, and the
 * progress figures when pg is given. */
static void ts_sample(struct nvb__sampler *sm, struct run *r, struct nvb_result *res, struct nvb_progress *pg,
                      uint64_t t_unix)
{
    struct live *prev = &sm->prev;
    uint64_t *prev_ns = &sm->prev_ns;
    struct nvb__sys_sample *prev_sys = &sm->sys_iv;
    const int have_sys = sm->have_sys;
    struct live cur;
    struct nvb__tsample s;
    memset(&cur, 0, sizeof cur);
    memset(&s, 0, sizeof s);
    for (unsigned i = 0; i < r->p->jobs; i++) {
        struct job *j = &r->jobs[i];
        for (int d = 0; d < NVB__NDIR; d++) {
            cur.ios[d] += nvb__live_load(&j->live.ios[d]);
            cur.bytes[d] += nvb__live_load(&j->live.bytes[d]);
            /* per job, modulo 2^64 (run.h), summed exactly */
            uint64_t lat = nvb__live_load(&j->live.lat_sum[d]);
            s.lat_sum[d] += lat - j->ts_lat_prev[d];
            j->ts_lat_prev[d] = lat;
        }
        cur.errors += nvb__live_load(&j->live.errors);
    }
    uint64_t now = nvb__now_ns();
    s.t_s = (double)((int64_t)now - (int64_t)r->meas_ns) / 1e9;
    s.dt_s = (double)(now - *prev_ns) / 1e9;
    s.t_unix_ns = t_unix;
    for (int d = 0; d < NVB__NDIR; d++) {
        /* live counters restart at the end of the ramp */
        s.ios[d] = cur.ios[d] >= prev->ios[d] ? cur.ios[d] - prev->ios[d] : cur.ios[d];
        s.bytes[d] = cur.bytes[d] >= prev->bytes[d] ? cur.bytes[d] - prev->bytes[d] : cur.bytes[d];
    }
    s.errors = cur.errors >= prev->errors ? cur.errors - prev->errors : cur.errors;
    s.system_pct = -1;
    if (have_sys) {
        struct nvb__sys_sample ss;
        memset(&ss, 0, sizeof ss);
        if (nvb__sys_sample(&ss) == 0) {
            s.system_pct = nvb__cpu_busy_pct(prev_sys, &ss);
            nvb__sys_sample_free(prev_sys);
            *prev_sys = ss;
        }
    }
    ts_hists(sm, r, &s);
    if (!(s.t_s > 0) || nvb__result_ts_push(res, &s)) {
        /* not kept: its counts go to the next point */
        for (int d = 0; d < NVB__NDIR; d++)
            if (s.lh[d]) {
                for (unsigned i = 0; i < s.lh[d]->n; i++)
                    sm->hacc[(size_t)d * NVB__HIST_BUCKETS + s.lh[d]->b[i].i] += s.lh[d]->b[i].c;
                free(s.lh[d]);
            }
    }
    if (pg) {
        memset(pg, 0, sizeof *pg);
        pg->size = sizeof *pg;
        pg->elapsed_s = s.t_s;
        pg->total_s = (double)r->p->runtime_ns / 1e9;
        for (int d = 0; d < 2; d++) {
            pg->ios[d] = cur.ios[d];
            pg->bytes[d] = cur.bytes[d];
            pg->iops[d] = s.dt_s > 0 ? (double)s.ios[d] / s.dt_s : 0;
            pg->bw_bytes_s[d] = s.dt_s > 0 ? (double)s.bytes[d] / s.dt_s : 0;
            pg->lat_mean_ns[d] = s.ios[d] ? nvb__u128d(s.lat_sum[d]) / (double)s.ios[d] : 0;
        }
        pg->errors = cur.errors;
        double f = 0;
        if (r->p->runtime_ns)
            f = s.t_s / ((double)r->p->runtime_ns / 1e9);
        if (r->p->ios_total) {
            double g = (double)(cur.ios[0] + cur.ios[1] + cur.ios[NVB_TRIM]) / (double)r->p->ios_total;
            f = f > g ? f : g;
        } else if (r->p->bytes_total) {
            double g = (double)(cur.bytes[0] + cur.bytes[1] + cur.bytes[NVB_TRIM]) / (double)r->p->bytes_total;
            f = f > g ? f : g;
        }
        pg->done_fraction = f < 0 ? 0 : f > 1 ? 1 : f;
    }
    *prev = cur;
    *prev_ns = now;
    nvb__series_pushed(&sm->ser, r, res, cur.ios[0] + cur.ios[1] + cur.ios[NVB_TRIM] + cur.errors);
}

/* A sampler that woke late labels its sample with the latest tick passed,
 * which can lie after the moment the jobs ended (on a busy machine): such
 * points and the final one become one point that ends with the window, so
 * that the points stay in order and the last ends where the run did. Only
 * points still as measured fold (series.c): the kept ones ended before an
 * I/O counted after them, so before the window's end. */
static void ts_fold_late(struct nvb__series *ser, struct nvb_result *res, uint64_t end_unix)
{
    while (res->nts >= 2 && res->nts - 2 >= ser->ncomp && res->ts[res->nts - 2].t_unix_ns >= end_unix) {
        if (ser->seq0 + (res->nts - 2 - ser->ncomp) < ser->seq_del)
            ser->folded_given++;
        nvb__ts_add(&res->ts[res->nts - 2], &res->ts[res->nts - 1], 0);
        res->nts--;
    }
    if (res->nts && res->ts[res->nts - 1].t_unix_ns > end_unix) {
        const uint64_t before = res->nts >= 2 ? res->ts[res->nts - 2].t_unix_ns : 0;
        res->ts[res->nts - 1].t_unix_ns = end_unix > before ? end_unix : before;
    }
}

void nvb__cpu_edge(struct run *r, int edge)
{
    /* A window that ends before it began (stopped during the ramp) is
     * empty: its start is taken at its end. */
    if (edge == NVB__EDGE_END)
        nvb__cpu_edge(r, NVB__EDGE_START);
    int free_ = 0;
    if (!__atomic_compare_exchange_n(&r->cpu_edge[edge], &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    /* The machine's counters outside the process's, so that their window
     * holds the process's (cpu.c reconciles the two). */
    if (edge == NVB__EDGE_START)
        r->cpu_sys_ok[edge] = nvb__sys_sample(&r->cpu_sys[edge]) == 0;
    uint64_t a = nvb__now_ns();
    nvb__proc_sample(&r->cpu_pr[edge]);
    r->cpu_t[edge] = a + (nvb__now_ns() - a) / 2; /* when the counters were read, to half a system call */
    nvb__perf_enable(r->perf, edge == NVB__EDGE_START); /* the event counters count the same window */
    if (edge == NVB__EDGE_END)
        r->cpu_sys_ok[edge] = nvb__sys_sample(&r->cpu_sys[edge]) == 0;
    __atomic_store_n(&r->cpu_edge[edge], 2, __ATOMIC_RELEASE);
}

void nvb__sampler_init(struct nvb__sampler *s)
{
    memset(s, 0, sizeof *s);
}

void nvb__sampler_free(struct nvb__sampler *s)
{
    nvb__sys_sample_free(&s->sys0);
    nvb__sys_sample_free(&s->sys1);
    nvb__sys_sample_free(&s->sys_iv);
    free(s->th0);
    free(s->th1);
    s->th0 = s->th1 = NULL;
    free(s->ss_buf);
    s->ss_buf = NULL;
    free(s->hprev);
    free(s->hacc);
    s->hprev = s->hacc = NULL;
}

/* The per-interval histograms' state: a copy of each job's lat arena
 * (jhist.h: touched where the job's is), and the sums by direction. */
static void sampler_hists_alloc(struct nvb__sampler *s, struct run *r, struct nvb_result *res)
{
    size_t n = 0;
    for (unsigned k = 0; k < r->p->jobs; k++)
        n += (size_t)nvb__job_lat_groups(r->p, r->jobs[k].nt);
    s->hprev = calloc(n ? n * NVB__JH_G : 1, sizeof *s->hprev);
    s->hacc = calloc(NVB__NDIR * NVB__HIST_BUCKETS, sizeof *s->hacc);
    if (!s->hprev || !s->hacc) {
        free(s->hprev);
        free(s->hacc);
        s->hprev = s->hacc = NULL;
        nvb__result_warn(res, "timeseries percentiles not measured: out of memory for the copy of %zu histogram groups", n);
    }
}

/* The interval samples start from the window's system sample without owning
 * its arrays (ts_sample() replaces them with its own). */
static void sampler_iv_from_start(struct nvb__sampler *s)
{
    s->sys_iv = s->sys0;
    s->sys_iv.cpu = NULL;
    s->sys_iv.cpu_id = NULL;
}

/* Sample, then release the jobs. Returns with r->mu held. */
static void sampler_start(struct nvb__sampler *s, struct run *r, struct nvb_result *res)
{
    const struct nvb_workload *w = r->w;
    const struct nvb_run_opts *o = r->opts;
    s->have_sys = nvb__sys_sample(&s->sys0) == 0;
    s->nth0 = nvb__threads_sample(&s->th0);
    nvb__place_sample(res, 1); /* the jobs' migrations so far, their CPUs (explain_place.c) */
    sampler_hists_alloc(s, r, res);
    r->counting = r->p->jobs;
    if (!w->ramp_ns)
        nvb__cpu_edge(r, NVB__EDGE_START); /* the last thing before the release */
    res->start_wall_ns = nvb__wall_ns();
    nvb__mutex_lock(r->mu);
    r->go_ns = nvb__now_ns();
    r->meas_ns = r->go_ns + w->ramp_ns;
    r->end_ns = r->p->runtime_ns ? r->meas_ns + r->p->runtime_ns : 0;
    r->go = 1;
    nvb__cond_signal_all(r->cv);
    res->ramp_s = (double)w->ramp_ns / 1e9;

    s->ramp_pending = w->ramp_ns > 0;
    memset(&s->prev, 0, sizeof s->prev);
    s->prev_ns = r->meas_ns;
    s->next_tick = r->meas_ns + w->interval_ns;
    s->last_tick = r->meas_ns;
    if (w->align_interval) {
        /* Ticks on wall-clock multiples of interval, so that the samples of
         * hosts whose clocks agree (NTP/PTP) cover the same intervals; the
         * first interval is the part up to the first multiple. */
        uint64_t meas_wall = res->start_wall_ns + (r->meas_ns - r->go_ns);
        uint64_t first = (meas_wall / w->interval_ns + 1) * w->interval_ns;
        s->next_tick = r->meas_ns + (first - meas_wall);
    }
    /* steady state looks back over its rounds as measured (one more: a short first interval) */
    nvb__series_begin(&s->ser, w->ts_max, res->ss.metric ? res->ss.rounds + 1 : 0);
    if (res->ss.metric && !(s->ss_buf = malloc(res->ss.rounds * sizeof *s->ss_buf)))
        nvb__result_warn(res, "steady state not judged: out of memory for a window of %u rounds", res->ss.rounds);
    s->poll_ns = (o->poll_ms ? o->poll_ms : 100) * 1000000ull;
    s->next_poll = r->go_ns + s->poll_ns;
    if (s->have_sys && !s->ramp_pending)
        sampler_iv_from_start(s);
}

/* The ramp is over: the measured window starts here for the CPU figures.
 * Called and returns with r->mu held. */
static void sampler_ramp_over(struct nvb__sampler *s, struct run *r, struct nvb_result *res)
{
    s->ramp_pending = 0;
    nvb__mutex_unlock(r->mu);
    nvb__cpu_edge(r, NVB__EDGE_START); /* unless a job past the ramp took it */
    nvb__place_sample(res, 1);
    if (s->have_sys) {
        nvb__sys_sample_free(&s->sys0);
        s->have_sys = nvb__sys_sample(&s->sys0) == 0;
        sampler_iv_from_start(s);
    }
    free(s->th0);
    s->th0 = NULL;
    s->nth0 = nvb__threads_sample(&s->th0);
    memset(&s->prev, 0, sizeof s->prev);
    s->ser.ios_cand = 0; /* the live counters restart */
    for (unsigned i = 0; i < r->p->jobs; i++)
        memset(r->jobs[i].ts_lat_prev, 0, sizeof r->jobs[i].ts_lat_prev);
    s->prev_ns = r->meas_ns;
    nvb__mutex_lock(r->mu);
}

/* A tick passed: one point and the progress callback. Called and returns
 * with r->mu held. */
static void sampler_tick(struct nvb__sampler *s, struct run *r, struct nvb_result *res, uint64_t now)
{
    const struct nvb_workload *w = r->w;
    const struct nvb_run_opts *o = r->opts;
    nvb__mutex_unlock(r->mu);
    struct nvb_progress pg;
    /* Labelled with the latest tick passed (late samplers skip ticks). */
    uint64_t tick = s->next_tick;
    while (tick + w->interval_ns <= now)
        tick += w->interval_ns;
    s->last_tick = tick;
    ts_sample(s, r, res, o->progress ? &pg : NULL, res->start_wall_ns + (tick - r->go_ns));
    nvb__place_sample(res, 0);
    if (nvb__ss_update(res, w, s->ss_buf) && w->ss_stop) {
        /* before stop (release): the jobs and the run's status tell it from a cancellation */
        __atomic_store_n(&r->ss_stopped, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
    }
    while (s->next_tick <= now)
        s->next_tick += w->interval_ns;
    if (o->progress && o->progress(&pg, o->progress_arg))
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    nvb__mutex_lock(r->mu);
}

/* The window is over (a time-bounded one at its end, before the jobs
 * drained; otherwise when they all left their loops): the end's system and
 * per-thread samples, and the process's unless a job took it. Called
 * without r->mu. */
static void sampler_window_end(struct nvb__sampler *s, struct run *r)
{
    nvb__cpu_edge(r, NVB__EDGE_END);
    s->nth1 = nvb__threads_sample(&s->th1);
    s->ended = 1;
}

/* Each job's buffers' node, while they are alive (placement.jobs[]). */
static void place_buffers(struct run *r, struct nvb_result *res)
{
    long tids[64];
    void *bufs[64];
    for (unsigned i = 0; i < r->p->jobs; i += 64) {
        unsigned n = 0;
        for (; n < 64 && i + n < r->p->jobs; n++) {
            tids[n] = r->jobs[i + n].tid;
            bufs[n] = r->jobs[i + n].bufmem;
        }
        nvb__place_buffers(res, tids, bufs, n);
    }
}

/* cpu.counters: the event counters over the window, read while the job
 * threads are alive (their counts and those of threads that exited) */
static void perf_fill(struct run *r, struct nvb_result *res)
{
    struct nvb__perf_counts c;
    int rc = r->perf ? nvb__perf_read(r->perf, &c) : -ENOTSUP;
    if (rc < 0 && r->perf)
        snprintf(r->perf_why, sizeof r->perf_why, "reading the counters failed (errno %d)", -rc);
    nvb__explain_perf(res, rc == 0 ? &c : NULL, r->perf_why);
}

/* All jobs finished their loops: close the measured window, then let the
 * jobs go (they stayed alive for the per-thread CPU sample). */
static void sampler_finish(struct nvb__sampler *s, struct run *r, struct nvb_result *res)
{
    if (!s->ended)
        sampler_window_end(s, r);
    if (!s->ramp_pending) {
        /* the last, partial interval: it ends where the last job ended */
        uint64_t t_jobs = r->meas_ns;
        for (unsigned i = 0; i < r->p->jobs; i++)
            if (r->jobs[i].t_end > t_jobs)
                t_jobs = r->jobs[i].t_end;
        uint64_t t_last = s->last_tick > t_jobs ? s->last_tick : t_jobs;
        ts_sample(s, r, res, NULL, res->start_wall_ns + (t_last - r->go_ns));
        ts_fold_late(&s->ser, res, res->start_wall_ns + (t_jobs - r->go_ns));
        nvb__ss_update(res, r->w, s->ss_buf); /* the series' last window, whole */
    }
    nvb__series_end(&s->ser, r, res);
    res->ss.stopped = r->ss_stopped;
    if (s->hists_lost)
        nvb__result_warn(res, "timeseries: the percentiles of some intervals are null: out of memory for their histograms");
    nvb__place_jobs(res); /* the jobs' CPUs while they are alive (explain_place.c) */
    place_buffers(r, res);
    nvb__mutex_lock(r->mu);
    r->release = 1;
    nvb__cond_signal_all(r->cv);
    nvb__mutex_unlock(r->mu);

    const struct nvb__proc_sample *pr0 = &r->cpu_pr[NVB__EDGE_START], *pr1 = &r->cpu_pr[NVB__EDGE_END];
    const uint64_t t0 = r->cpu_t[NVB__EDGE_START], t1 = r->cpu_t[NVB__EDGE_END];
    double win = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
    const uint64_t own_user = pr1->user_ns - (pr0->user_ns < pr1->user_ns ? pr0->user_ns : pr1->user_ns);
    const uint64_t own_sys = pr1->sys_ns - (pr0->sys_ns < pr1->sys_ns ? pr0->sys_ns : pr1->sys_ns);
    if (r->cpu_sys_ok[NVB__EDGE_START] && r->cpu_sys_ok[NVB__EDGE_END])
        nvb__cpu_fill(res, &r->cpu_sys[NVB__EDGE_START], &r->cpu_sys[NVB__EDGE_END], own_user, own_sys);
    else
        snprintf(res->cpu_null_reason, sizeof res->cpu_null_reason,
                 "not measured: the whole machine's CPU counters could not be read");
    nvb__explain_run(res, r->cpu_sys_ok[NVB__EDGE_START] && r->cpu_sys_ok[NVB__EDGE_END] ? r->cpu_sys : NULL, r->cpu_sys_ok[NVB__EDGE_START] && r->cpu_sys_ok[NVB__EDGE_END] ? &r->cpu_sys[NVB__EDGE_END] : NULL);
    perf_fill(r, res);
    for (int e = 0; e < 2; e++)
        nvb__sys_sample_free(&r->cpu_sys[e]);
    res->process_user_s = (double)own_user / 1e9;
    res->process_sys_s = (double)own_sys / 1e9;
    nvb__explain_own_check(res);
    res->maxrss_kib = pr1->maxrss_kib;
    res->minflt = pr1->minflt - pr0->minflt;
    res->majflt = pr1->majflt - pr0->majflt;
    res->nvcsw = pr1->nvcsw - pr0->nvcsw;
    res->nivcsw = pr1->nivcsw - pr0->nivcsw;
    threads_fill(res, s->th0, s->nth0, s->th1, s->nth1);
    res->cpu_window_s = win;
}

/* startdelay: the jobs, set up and waiting at their barrier, are released
 * this long later; the CPU figures and the window start after it. A cancel,
 * a stop or the poll hook's answer ends the wait (the run then ends as a
 * cancelled one: released, the jobs see the stop at once). Only the run's
 * first phase waits. */
static void sampler_start_delay(struct run *r)
{
    const struct nvb_run_opts *o = r->opts;
    if (r->w->precondition)
        return; /* the run's first phase waited: the precondition's (its workload has precondition=0) */
    const uint64_t until = nvb__now_ns() + r->w->startdelay_ns;
    for (uint64_t now = nvb__now_ns(); now < until; now = nvb__now_ns()) {
        if ((r->cancel && r->cancel->flag) || __atomic_load_n(&r->stop, __ATOMIC_RELAXED))
            return;
        if (o->poll && o->poll(o->poll_arg)) {
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            return;
        }
        const uint64_t slice = o->poll && o->poll_ms && o->poll_ms < 50 ? o->poll_ms * 1000000ull : 50000000ull;
        nvb__sleep_ns(until - now < slice ? until - now : slice);
    }
}

void nvb__sampler_run(struct nvb__sampler *s, struct run *r, struct nvb_result *res)
{
    const struct nvb_run_opts *o = r->opts;
    const unsigned jobs = r->p->jobs;
    sampler_start_delay(r);
    sampler_start(s, r, res);
    while (r->ndone < jobs) {
        uint64_t now = nvb__now_ns();
        uint64_t until = s->ramp_pending ? r->meas_ns : s->next_tick;
        if (!s->ended && r->end_ns && r->end_ns < until)
            until = r->end_ns;
        if (now < until) {
            uint64_t wait = until - now;
            if (wait > 50000000ull && r->cancel)
                wait = 50000000ull; /* notice a signal handler's cancel request */
            if (o->poll && wait > s->poll_ns)
                wait = s->poll_ns;
            nvb__cond_wait(r->cv, r->mu, wait);
            nvb__exitall_fire(r);
            if (r->ndone >= jobs)
                break;
        }
        now = nvb__now_ns();
        if (o->poll && now >= s->next_poll) {
            nvb__mutex_unlock(r->mu);
            if (o->poll(o->poll_arg))
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            nvb__mutex_lock(r->mu);
            s->next_poll = nvb__now_ns() + s->poll_ns;
        }
        if (r->cancel && r->cancel->flag)
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
        if (s->ramp_pending && now >= r->meas_ns) {
            sampler_ramp_over(s, r, res);
            continue;
        }
        if (!s->ended && r->end_ns && now >= r->end_ns) {
            nvb__mutex_unlock(r->mu);
            sampler_window_end(s, r);
            nvb__mutex_lock(r->mu);
        }
        if (!s->ramp_pending && now >= s->next_tick)
            sampler_tick(s, r, res, now);
    }
    nvb__exitall_fire(r); /* the last job ended while the sampler was busy */
    nvb__mutex_unlock(r->mu);
    sampler_finish(s, r, res);
}
