/*
 * What a run will take from the machine, checked before anything is
 * created: memory (buffers, latency histograms, the sampler's interval
 * state, the per-job tables, the time series) and descriptors. One plan's
 * needs are checked by nvb__plan_build; job groups add theirs up and the
 * sum is checked again (core/groups.c), since the groups run at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/bsmix.h"
#include "core/dist.h"
#include "core/hist.h"
#include "core/ihist.h"
#include "core/jhist.h"
#include "core/run.h"

/* A time-series point in the result's JSON, without its histograms: at
 * least this much (the figures' keys and short numbers) ... */
#define TS_JSON_MIN_FIXED 96u
#define TS_JSON_MIN_DIR 160u
/* ... and at most this much (every number at its longest), plus per
 * bucket of its histograms "[2495,18446744073709551615]," */
#define TS_JSON_MAX_FIXED 512u
#define TS_JSON_MAX_DIR 512u
#define TS_JSON_MAX_BUCKET 28u

static uint64_t sat(unsigned __int128 v)
{
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* floor: what is written before or during the run whatever its latencies
 * (buffers, histograms, tables, the points themselves); total: also the
 * sampler's copy (touched where latencies fall), the result's JSON and the
 * series' histograms at their largest. */
static void mem_sum(struct nvb__run_mem *m)
{
    unsigned __int128 base = (unsigned __int128)m->buffers + m->hist_bytes + m->table_bytes + m->vmap_bytes;
    m->floor = sat(base + m->series_min);
    m->total = sat(base + m->sampler_bytes + m->json_bytes + m->series_max);
}

void nvb__run_mem_estimate(uint64_t bs, unsigned qd, unsigned jobs, unsigned nt, int ndirs, struct nvb__run_mem *m)
{
    memset(m, 0, sizeof *m);
    /* saturating: a product past 2^64 is "too much" all the same */
    const unsigned __int128 pairs = (unsigned __int128)jobs * nt;
    unsigned __int128 n = (pairs + nt + 1) * (unsigned)ndirs * NVB__LAT_KINDS;
    m->buffers = sat((unsigned __int128)bs * qd * jobs);
    m->histograms = sat(n);
    /* a job's (jhist.h) with room for every bucket, touched only where
     * written; the result's per target and in total, dense */
    m->hist_bytes = sat(pairs * (unsigned)ndirs * NVB__LAT_KINDS *
                            (sizeof(struct nvb__jhist) + NVB__HIST_BUCKETS * sizeof(uint64_t)) +
                        (unsigned __int128)(nt + 1) * (unsigned)ndirs * NVB__LAT_KINDS * sizeof(struct nvb__hist));
    /* the sampler's copy of every job's lat arena (room for every bucket
     * of each direction used) and its sums, for the interval histograms */
    m->sampler_bytes = sat((pairs * (unsigned)ndirs + NVB__NDIR) * NVB__HIST_BUCKETS * sizeof(uint64_t));
    /* per job and target: its figures, offset generator, block-size-mix
     * offsets (both directions) and descriptors */
    m->table_bytes = sat(pairs * (sizeof(struct nvb__tstat) + sizeof(struct nvb__dgen) +
                                  2 * NVB__BSSPLIT_MAX * sizeof(uint64_t) + 4 * sizeof(uint64_t)));
    /* the result's JSON: the merged histograms (per target, total) with
     * every bucket, in a buffer that may be twice its text */
    m->json_bytes = sat((unsigned __int128)(nt + 1) * (unsigned)ndirs * NVB__LAT_KINDS * NVB__HIST_BUCKETS *
                        TS_JSON_MAX_BUCKET * 2);
    mem_sum(m);
}

void nvb__run_mem_series(struct nvb__run_mem *m, uint64_t span_ns, uint64_t interval_ns, int ndirs, uint64_t cap)
{
    /* one point per interval, a partial last one, one a late sampler may add;
     * at most cap (timeseries_max merges neighbours beyond, series.c) */
    m->series_points = span_ns && interval_ns ? span_ns / interval_ns + 2 : 0;
    if (cap && m->series_points > cap)
        m->series_points = cap;
    const unsigned __int128 pts = m->series_points;
    const unsigned d = (unsigned)ndirs;
    /* at least: the point and its JSON without histograms */
    m->series_min = sat(pts * (sizeof(struct nvb__tsample) + TS_JSON_MIN_FIXED + TS_JSON_MIN_DIR * d));
    /* at most: a histogram of every bucket per direction, in memory and in
     * the JSON, whose buffer may be twice its text while it grows */
    const unsigned __int128 hist = sizeof(struct nvb__ihist) + NVB__HIST_BUCKETS * sizeof(struct nvb__ibkt);
    const unsigned __int128 json = TS_JSON_MAX_FIXED + d * (TS_JSON_MAX_DIR + NVB__HIST_BUCKETS * TS_JSON_MAX_BUCKET);
    m->series_max = sat(pts * (sizeof(struct nvb__tsample) + d * hist + 2 * json));
    mem_sum(m);
}

void nvb__run_mem_add(struct nvb__run_mem *a, const struct nvb__run_mem *b)
{
    a->buffers = sat((unsigned __int128)a->buffers + b->buffers);
    a->histograms = sat((unsigned __int128)a->histograms + b->histograms);
    a->hist_bytes = sat((unsigned __int128)a->hist_bytes + b->hist_bytes);
    a->sampler_bytes = sat((unsigned __int128)a->sampler_bytes + b->sampler_bytes);
    a->table_bytes = sat((unsigned __int128)a->table_bytes + b->table_bytes);
    a->json_bytes = sat((unsigned __int128)a->json_bytes + b->json_bytes);
    a->vmap_bytes = sat((unsigned __int128)a->vmap_bytes + b->vmap_bytes);
    a->series_points = sat((unsigned __int128)a->series_points + b->series_points);
    a->series_min = sat((unsigned __int128)a->series_min + b->series_min);
    a->series_max = sat((unsigned __int128)a->series_max + b->series_max);
    mem_sum(a);
}

void nvb__plan_need(const struct nvb_workload *w, const struct plan *p, struct nvb__need *n)
{
    memset(n, 0, sizeof *n);
    const int ndirs = p->reads + p->writes + p->trims;
    /* buffers hold bssplit's largest size */
    nvb__run_mem_estimate(nvb__bs_largest(w), p->qd, p->jobs, p->nt, ndirs, &n->mem);
    /* the series spans the ramp and the measured window; a run bounded by
     * I/Os alone has no known length, and its series is not counted */
    if (p->runtime_ns)
        nvb__run_mem_series(&n->mem, p->runtime_ns + w->ramp_ns, w->interval_ns, ndirs,
                            /* kept, steady state's rounds as measured, the newest not yet final */
                            (uint64_t)w->ts_max + (w->ss_metric ? nvb__ss_rounds(w) + 1 : 0) + 4);
    n->groups = 1;
    if (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES)
        return;
    /* verify=1 with writes: a bit per block of each target (the jobs
     * sharing it split its blocks), each job's slice rounded up to words
     * (job_setup.c: job_verify_stripes) */
    if (w->verify && p->writes && w->bs) {
        unsigned __int128 v = 0;
        for (unsigned t = 0; t < p->nt; t++)
            v += p->t[t].len / w->bs / 8 + 8ull * p->jobs + 8;
        n->mem.vmap_bytes = sat(v);
        mem_sum(&n->mem);
    }
    /* Descriptors: each job opens every target it drives, the hold keeps
     * each target open (and reopens it for a layout), and a ring engine
     * has one per job. */
    const uint64_t per_job = w->target_mode == NVB__TM_SPLIT ? (p->nt + p->jobs - 1) / p->jobs : p->nt;
    n->jobs = p->jobs;
    n->per_job = per_job;
    n->job_fds = (uint64_t)p->jobs * per_job;
    n->held_fds = 2ull * p->nt;
    n->engine_fds = p->jobs;
}

void nvb__need_add(struct nvb__need *a, const struct nvb__need *b)
{
    nvb__run_mem_add(&a->mem, &b->mem);
    a->job_fds += b->job_fds;
    a->held_fds += b->held_fds;
    a->engine_fds += b->engine_fds;
    a->groups += b->groups;
}

#define FAIL(rc, ...) do { snprintf(err + off, errlen - off, __VA_ARGS__); return (rc); } while (0)

int nvb__need_check(const struct nvb__need *n, struct plan *p, char *err, size_t errlen)
{
    const struct nvb__run_mem *m = &n->mem;
    size_t off = 0;
    if (n->groups > 1) {
        int k = snprintf(err, errlen, "the %u job groups together: ", n->groups);
        off = k > 0 && (size_t)k < errlen ? (size_t)k : 0;
    }
    uint64_t mem = nvb__mem_total();
    if (mem && m->floor > mem)
        FAIL(-ENOMEM, "the run needs at least %" PRIu64 " bytes of memory, more than the %" PRIu64 " bytes this "
             "process can have: buffers (bs x qd x jobs) %" PRIu64 ", %" PRIu64 " latency histograms (lat, slat "
             "and clat per job per target per direction) of %zu bytes %" PRIu64 ", the sampler's interval "
             "state %" PRIu64 ", per-job tables %" PRIu64 " and %" PRIu64 " time-series points (runtime / interval) "
             "%" PRIu64 ", verify=1's maps of written blocks (a bit per block of bs) %" PRIu64 "; fewer jobs, "
             "targets or qd, a longer interval, a smaller timeseries_max or a larger bs need less",
             m->floor, mem, m->buffers, m->histograms, sizeof(struct nvb__hist), m->hist_bytes, m->sampler_bytes,
             m->table_bytes, m->series_points, m->series_min, m->vmap_bytes);
    if (mem && m->total > mem / 2)
        nvb__plan_warn(p, "%sthe run may take up to %" PRIu64 " of the %" PRIu64 " bytes of memory (buffers %" PRIu64
                       ", latency histograms %" PRIu64 ", interval state %" PRIu64 ", %" PRIu64 " time-series points "
                       "up to %" PRIu64 "): a bound, not a forecast (a point holds only the latency buckets its "
                       "interval filled, rarely all); a longer interval or a smaller timeseries_max needs fewer points", n->groups > 1 ? "job groups: " : "", m->total, mem, m->buffers,
                       m->hist_bytes, m->sampler_bytes, m->series_points, m->series_max);
    else if (m->hist_bytes + m->sampler_bytes > NVB__HIST_WARN_BYTES)
        nvb__plan_warn(p, "%" PRIu64 " latency histograms (lat, slat and clat per job per target per direction, up "
                       "to %zu bytes each, of which only the buckets latencies reach are touched) and the sampler's "
                       "interval state may take up to %" PRIu64 " MiB; target_mode=split or fewer jobs need fewer",
                       m->histograms, sizeof(struct nvb__jhist) + NVB__HIST_BUCKETS * sizeof(uint64_t),
                       (m->hist_bytes + m->sampler_bytes) >> 20);
    uint64_t limit, open_now;
    const uint64_t need = n->job_fds + n->held_fds + n->engine_fds + 8;
    if ((n->job_fds || n->held_fds) && nvb__fd_budget(&limit, &open_now) == 0 && need + open_now > limit) {
        char jobs[96];
        if (n->groups > 1)
            snprintf(jobs, sizeof jobs, "%" PRIu64 " for the groups' jobs x targets per job", n->job_fds);
        else
            snprintf(jobs, sizeof jobs, "jobs x targets per job = %u x %" PRIu64, n->jobs, n->per_job);
        FAIL(-EMFILE, "the run needs about %" PRIu64 " file descriptors (%s, %" PRIu64 " held by the run, %" PRIu64
             " for the engines, and %" PRIu64 " this process has open), more than its limit of %" PRIu64
             " (RLIMIT_NOFILE): raise it (ulimit -n %" PRIu64 ") or use fewer jobs or targets", need + open_now, jobs,
             n->held_fds, n->engine_fds + 8, open_now, limit, need + open_now);
    }
    return 0;
}
#undef FAIL
