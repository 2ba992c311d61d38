/*
 * Setting a job up and tearing it down: its arrays, its descriptors
 * (opened again through the run's hold), the verify stripes, the buffers,
 * the histograms and the engine's state; and, before the threads start,
 * the jobs themselves (targets dealt, budgets and rates split, CPUs).
 * The loop that runs between the two is in job.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/iomode.h"
#include "core/sprandom.h"

void nvb__job_release(struct job *j)
{
    const struct nvb__engine *e = j->run->p->eng;
    nvb__fault_free(j->fault);
    j->fault = NULL;
    if (j->est) {
        if (!j->abandoned)
            e->teardown(j->est);
        else if (e->abandon)
            e->abandon(j->est);
        j->est = NULL;
    }
    if (j->abandoned) {
        /* The device may still complete the abandoned I/Os into these
         * (DMA into freed heap memory would corrupt whatever reuses it):
         * they stay allocated until the process exits. */
        j->bufmem = NULL;
        j->ios = NULL;
    }
    if (j->fds) {
        for (unsigned t = 0; t < j->nt; t++)
            if (j->fds[t] >= 0)
                nvb__target_close(j->fds[t]);
        free(j->fds);
        j->fds = NULL;
    }
    if (j->bufmem && j->bound) /* the heap's pages go back to the default policy before reuse */
        (void)nvb__mem_bind_node(j->bufmem, j->bound, -1);
    j->bound = 0;
    nvb__free_aligned(j->bufmem);
    j->bufmem = NULL;
    /* the job's own arrays, freed and forgotten (a job may be freed twice) */
    for (unsigned t = 0; j->dist && t < j->nt; t++) {
        nvb__spr_free(j->dist[t].spr);
        j->dist[t].spr = NULL;
    }
#define JOB_FREE(x) (free(j->x), j->x = NULL)
    JOB_FREE(bufs), JOB_FREE(ios), JOB_FREE(freel), JOB_FREE(batch), JOB_FREE(done), JOB_FREE(seqpos);
    JOB_FREE(nblocks), JOB_FREE(dist), JOB_FREE(vset), JOB_FREE(vkey), JOB_FREE(vstride), JOB_FREE(vrank);
    JOB_FREE(vmap), JOB_FREE(vmapo), JOB_FREE(vall), JOB_FREE(opat), JOB_FREE(blog);
    JOB_FREE(eopts);
#undef JOB_FREE
    nvb__bsmix_job_free(j);
}

/* The job's arrays: descriptors, positions, slots and lists. */
static int job_alloc(struct job *j)
{
    struct run *r = j->run;
    struct plan *p = r->p;
    unsigned qd = p->qd;
    j->fds = malloc(j->nt * sizeof *j->fds);
    j->seqpos = calloc(j->nt, sizeof *j->seqpos);
    j->nblocks = calloc(j->nt, sizeof *j->nblocks);
    j->bufs = calloc(qd, sizeof *j->bufs);
    j->ios = calloc(qd, sizeof *j->ios);
    j->freel = calloc(qd, sizeof *j->freel);
    j->batch = calloc(qd, sizeof *j->batch);
    j->done = calloc(qd, sizeof *j->done);
    j->eopts = calloc(NVB__ENGINE_MAX_OPTS, sizeof *j->eopts);
    if (!j->fds || !j->seqpos || !j->nblocks || !j->bufs || !j->ios || !j->freel || !j->batch || !j->done || !j->eopts) {
        snprintf(j->why, sizeof j->why, "out of memory setting up job %u", j->idx);
        return -ENOMEM;
    }
    for (unsigned t = 0; t < j->nt; t++)
        j->fds[t] = -1;
    return 0;
}

/* Each target opened again through the run's hold, and where in it this
 * job starts. */
static int job_open_targets(struct job *j)
{
    struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    struct plan *p = r->p;
    const struct nvb__engine *e = p->eng;
    int nofiles = (nvb__engine_flags(e, p->eopts) & NVB__ENG_NO_FILES) != 0;
    /* A character device refuses O_DIRECT; passthrough I/O is direct anyway. */
    int odirect = w->direct && !(e->flags & NVB__ENG_CHARDEV);
    unsigned jobs_here = 0, rank = 0;
    for (unsigned t = 0; t < j->nt; t++) {
        const struct ptarget *pt = &p->t[j->tmap[t]];
        if (!nofiles) {
            int fd = nvb__hold_reopen(&pt->hold, (p->writes || p->trims ? NVB__O_WRITE : 0) | (odirect ? NVB__O_DIRECT : 0));
            if (fd == -ESTALE) {
                snprintf(j->why, sizeof j->why, "target '%s' is no longer the file or device that was checked and "
                         "opened for this run: refusing to write to it", pt->path);
                return fd;
            }
            if (fd < 0) {
                int hint = odirect && fd == -EINVAL;
                snprintf(j->why, sizeof j->why, "cannot open target '%s'%s%s%s: %s%s", pt->path,
                         strcmp(pt->file, pt->path) ? " as " : "", strcmp(pt->file, pt->path) ? pt->file : "",
                         odirect ? " with O_DIRECT" : "", nvb_strerror(fd),
                         hint ? " (the file system may not support O_DIRECT: try direct=0)"
                         : fd == -EMFILE || fd == -ENFILE ? " (raise the descriptor limit, ulimit -n)" : "");
                return fd;
            }
            j->fds[t] = fd;
        }
        j->nblocks[t] = pt->len / w->bs;
        /* Sequential jobs sharing a target start at staggered offsets. */
        jobs_here = w->target_mode == NVB__TM_SPLIT || w->seq_start == NVB__SEQ_SAME ? 1 : p->jobs;
        rank = jobs_here == 1 ? 0 : j->idx;
        j->seqpos[t] = j->nblocks[t] * rank / jobs_here;
    }
    return 0;
}

/* verify=1 with writes: the in-flight set, each job's own stripe of the
 * targets it shares, and the map of the stripe's blocks it has written.
 * Sequential jobs take one contiguous slice each, starting where a job of
 * that rank starts without verify (job_open_targets), so that a read-back
 * run of the same jobs reads exactly the blocks each wrote; random jobs
 * take every stride-th block. */
static int job_verify_stripes(struct job *j)
{
    const struct nvb_workload *w = j->run->w;
    const struct plan *p = j->run->p;
    const unsigned qd = p->qd;
    const int seq = !nvb__rw_random(w->rw);
    j->vtrack = w->verify && p->writes && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES);
    if (!j->vtrack)
        return 0;
    unsigned cap = 2;
    while (cap < 2 * qd)
        cap <<= 1;
    j->vmask = cap - 1;
    j->vset = calloc(cap, sizeof *j->vset);
    j->vkey = calloc(qd, sizeof *j->vkey);
    j->vstride = calloc(j->nt, sizeof *j->vstride);
    j->vrank = calloc(j->nt, sizeof *j->vrank);
    j->vmapo = calloc(j->nt, sizeof *j->vmapo);
    j->vall = calloc(j->nt, sizeof *j->vall);
    if (!j->vset || !j->vkey || !j->vstride || !j->vrank || !j->vmapo || !j->vall) {
        snprintf(j->why, sizeof j->why, "out of memory setting up job %u", j->idx);
        return -ENOMEM;
    }
    uint64_t words = 0;
    for (unsigned t = 0; t < j->nt; t++) {
        /* Jobs that share this target, and this job's rank among them
         * (assign_targets() deals the targets). */
        uint64_t stride = p->jobs, rk = j->idx;
        if (w->target_mode == NVB__TM_SPLIT) {
            unsigned ti = j->tmap[t];
            stride = p->jobs >= p->nt ? p->jobs / p->nt + (ti < p->jobs % p->nt) : 1;
            rk = p->jobs >= p->nt ? j->idx / p->nt : 0;
        }
        const uint64_t nb = j->nblocks[t];
        if (seq) { /* blocks [nb * rk / stride, nb * (rk + 1) / stride) */
            /* rk < stride: both quotients fit 64 bits, and no 128-bit division
             * reaches libgcc_s (which a mingw DLL would then import) */
            unsigned __int128 a = (unsigned __int128)nb * rk, b = (unsigned __int128)nb * (rk + 1);
            uint64_t lo = nvb__div128((uint64_t)(a >> 64), (uint64_t)a, stride, NULL);
            uint64_t hi = nvb__div128((uint64_t)(b >> 64), (uint64_t)b, stride, NULL);
            j->vrank[t] = lo;
            j->vstride[t] = 1;
            j->nblocks[t] = hi - lo;
        } else {
            j->vstride[t] = stride;
            j->vrank[t] = rk;
            j->nblocks[t] = nb > rk ? (nb - rk + stride - 1) / stride : 0;
        }
        j->seqpos[t] = 0;
        if (!j->nblocks[t]) {
            snprintf(j->why, sizeof j->why, "verify=1: target '%s' has fewer blocks of bs than jobs writing it "
                     "(each job verifies its own stripe)", p->t[j->tmap[t]].path);
            return -EINVAL;
        }
        const struct ptarget *pt = &p->t[j->tmap[t]];
        j->vall[t] = pt->laid_out || w->precondition;
        j->vmapo[t] = words;
        words += (j->nblocks[t] + 63) / 64;
    }
    /* counted in the run's memory (budget.c: vmap_bytes) */
    j->vmap = calloc(words ? words : 1, sizeof *j->vmap);
    if (!j->vmap) {
        snprintf(j->why, sizeof j->why, "out of memory for job %u's map of the blocks it writes (verify=1: %" PRIu64
                 " bytes)", j->idx, words * 8);
        return -ENOMEM;
    }
    j->blog_max = w->verify_backlog;
    if (j->blog_max && !(j->blog = calloc(j->blog_max, sizeof *j->blog))) {
        snprintf(j->why, sizeof j->why, "out of memory for job %u's verify_backlog of %" PRIu64 " blocks", j->idx,
                 j->blog_max);
        return -ENOMEM;
    }
    return 0;
}

/* sprandom: target t's blocks follow the plan (core/sprandom.h), over
 * the target's whole region (the plan has one job per target). */
static int job_sprandom(struct job *j, unsigned t)
{
    const struct nvb_workload *w = j->run->w;
    struct nvb__spr_plan pl;
    int rc = nvb__spr_plan(&pl, j->run->p->t[j->tmap[t]].len, w->bs, w->spr_op, w->spr_regions, w->spr_cache, j->why,
                           sizeof j->why);
    if (rc < 0)
        return rc;
    if (pl.n != j->nblocks[t]) { /* the plan's checks keep one job per target */
        snprintf(j->why, sizeof j->why, "sprandom: the job draws from %llu of the region's %llu blocks",
                 (unsigned long long)j->nblocks[t], (unsigned long long)pl.n);
        nvb__spr_plan_free(&pl);
        return -EINVAL;
    }
    j->dist[t].spr = nvb__spr_new(&pl, w->seed ^ 0x2545f4914f6cdd1dull * (j->tmap[t] + 1));
    if (!j->dist[t].spr) {
        snprintf(j->why, sizeof j->why, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

/* Each target's offset generator (random_distribution, random_map), over
 * the blocks this job draws from (its stripe with verify=1). */
static int job_dist(struct job *j)
{
    const struct nvb_workload *w = j->run->w;
    j->dist = calloc(j->nt, sizeof *j->dist);
    if (!j->dist) {
        snprintf(j->why, sizeof j->why, "out of memory");
        return -ENOMEM;
    }
    for (unsigned t = 0; t < j->nt; t++) {
        int rc = nvb__dgen_init(&j->dist[t], &w->dist, w->random_map, j->nblocks[t], w->seed, j->tmap[t], j->idx,
                                j->why, sizeof j->why);
        if (rc == 0 && w->sprandom)
            rc = job_sprandom(j, t);
        if (rc < 0)
            return rc;
    }
    if (!nvb__opat_used(w) || nvb__rw_random(w->rw))
        return 0;
    j->opat = calloc(j->nt, sizeof *j->opat); /* sequential offsets with a pattern (core/offpat.h) */
    if (!j->opat) {
        snprintf(j->why, sizeof j->why, "out of memory");
        return -ENOMEM;
    }
    for (unsigned t = 0; t < j->nt; t++)
        nvb__opat_init(&j->opat[t], w, j->nblocks[t] * w->bs, j->seqpos[t] * w->bs);
    if (j->nt == 1 && j->budget < UINT64_MAX - 1) /* a bounded job counts passes over its region */
        j->budget = nvb__opat_budget(&j->opat[0], j->budget);
    return 0;
}

/* The qd buffers, filled (random or zero), and the slots on them. */
static int job_buffers(struct job *j)
{
    const struct nvb_workload *w = j->run->w;
    const struct plan *p = j->run->p;
    const unsigned qd = p->qd;
    size_t align = 4096;
    for (unsigned t = 0; t < j->nt; t++)
        if (p->t[j->tmap[t]].ti.mem_align > align)
            align = p->t[j->tmap[t]].ti.mem_align;
    uint64_t fs = w->seed ^ (0xa0761d6478bd642full * (j->idx + 1));
    /* One block for the job's qd buffers: an aligned allocation each would
     * cost up to an alignment unit of padding apiece (twice the memory for
     * 4 KiB buffers: measured in docs/reliability.md). */
    const uint64_t bs = nvb__bs_largest(w); /* bssplit: its largest size */
    size_t stride = ((size_t)bs + align - 1) / align * align;
    j->bufmem = nvb__alloc_aligned(align, stride * qd);
    if (!j->bufmem) {
        snprintf(j->why, sizeof j->why, "out of memory allocating %u buffers of %" PRIu64 " bytes (bs x qd)", qd, bs);
        return -ENOMEM;
    }
    if (j->run->local_node >= 0) /* cpus=local: on the device's node, before they are touched */
        j->bound = nvb__mem_bind_node(j->bufmem, stride * qd, j->run->local_node) == 0 ? stride * qd : 0;
    for (unsigned i = 0; i < qd; i++) {
        j->bufs[i] = (char *)j->bufmem + (size_t)i * stride;
        if (w->fill == NVB__FILL_ZERO) {
            memset(j->bufs[i], 0, (size_t)bs);
        } else {
            uint64_t *q = j->bufs[i];
            for (uint64_t k = 0; k < bs / 8; k++)
                q[k] = nvb__splitmix64(&fs);
            memset((char *)j->bufs[i] + (bs & ~7ull), 0x5a, (size_t)(bs & 7));
        }
        j->ios[i].buf = j->bufs[i];
        j->ios[i].slot = i;
        j->freel[i] = &j->ios[i];
    }
    return 0;
}

/* The groups of the job's lat histograms' arena: the sampler keeps a copy
 * of it of this size (sampler.c), whether or not the job got that far. */
uint64_t nvb__job_lat_groups(const struct plan *p, unsigned nt)
{
    return nvb__jarena_groups((uint64_t)nt * ((p->reads != 0) + (p->writes != 0) + (p->trims != 0)));
}

/* The latency histograms (lat, clat, and slat unless the engine completes
 * I/O inside its submit call) per target per direction the workload uses,
 * in one zeroed block (j->hists), their buckets in two arenas (lat's, and
 * clat's and slat's) of which only the groups written are ever touched
 * (jhist.h). */
static int job_histograms(struct job *j)
{
    struct run *r = j->run;
    struct plan *p = r->p;
    const int slat = !(p->eng->flags & NVB__ENG_SYNC);
    const unsigned ndir = (p->reads != 0) + (p->writes != 0) + (p->trims != 0);
    const size_t per = (size_t)j->nt * ndir, n = per * (slat ? 3 : 2);
    if (n && (!(j->hists = calloc(n, sizeof *j->hists)) ||
              nvb__jarena_init(&j->harena[0], nvb__job_lat_groups(p, j->nt)) < 0 ||
              nvb__jarena_init(&j->harena[1], nvb__jarena_groups(n - per)) < 0)) {
        snprintf(j->why, sizeof j->why, "out of memory for latency histograms");
        return -ENOMEM;
    }
    struct nvb__jhist *next = j->hists;
    for (unsigned t = 0; t < j->nt; t++) {
        j->st[t].region_off = p->t[j->tmap[t]].off;
        for (int d = 0; d < NVB__NDIR; d++) {
            struct nvb__dstat *ds = &j->st[t].d[d];
            if ((d == NVB_READ && !p->reads) || (d == NVB_WRITE && !p->writes) || (d == NVB_TRIM && !p->trims))
                continue;
            nvb__jhist_init(ds->jlat = next++, &j->harena[0]);
            nvb__jhist_init(ds->jclat = next++, &j->harena[1]);
            if (slat)
                nvb__jhist_init(ds->jslat = next++, &j->harena[1]);
        }
    }
    return 0;
}

/* The engine's state for this job, the fault wrapper around it when
 * fault.* keys ask for one, and the submit/reap pair the loop calls. */
static int job_engine(struct job *j)
{
    const struct nvb_workload *w = j->run->w;
    const struct plan *p = j->run->p;
    const struct nvb__engine *e = p->eng;
    const unsigned qd = p->qd;
    const int nofiles = (nvb__engine_flags(e, p->eopts) & NVB__ENG_NO_FILES) != 0;
    memcpy(j->eopts, p->eopts, sizeof p->eopts);
    for (unsigned k = 0; k < NVB__ENGINE_MAX_OPTS; k++)
        if (j->eopts[k] == NVB__OPT_LOCAL && e->opts[k].type == NVB__OPT_CPU && j->run->local_cpu >= 0)
            j->eopts[k] = j->run->local_cpu;
    j->wait_base = w->io_timeout_ns ? (w->io_timeout_ns < WAIT_SLICE_NS ? w->io_timeout_ns : WAIT_SLICE_NS) : 0;
    j->wait_ns = j->wait_base;
    struct nvb__engine_ctx ctx = {
        .qd = qd, .nfds = nofiles ? 0 : j->nt, .fds = j->fds, .direct = w->direct || (e->flags & NVB__ENG_CHARDEV),
        .writes = p->writes,
        .trims = p->trims,
        .bufs = j->bufs, .buf_len = (size_t)nvb__bs_largest(w), .cpu = j->cpu, .opts = j->eopts, .opts_set = p->eopts_set,
        .used = &j->used, .why = j->why, .why_len = sizeof j->why,
        .wait_ns = &j->wait_ns,
        .io_timeout_ns = w->io_timeout_ns,
        .rflags = nvb__iomode_flags(w, NVB_READ), .wflags = nvb__iomode_flags(w, NVB_WRITE), /* core/iomode.c */
    };
    nvb__pi_of(w, &ctx.pi); /* core/pi.c */
    ctx.zeroes = w->write_zeroes;
    j->why[0] = 0;
    int rc = nvb__prio_job(j, &ctx.prio); /* core/ioprio.c */
    if (rc < 0)
        return rc;
    rc = e->setup(&ctx, &j->est);
    if (rc == -ETIMEDOUT)
        j->abandoned = 1; /* an I/O of setup()'s may still land in a buffer */
    if (rc < 0) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", j->why);
        snprintf(j->why, sizeof j->why, "engine %s: %s", e->name, tmp[0] ? tmp : nvb_strerror(rc));
        j->est = NULL;
        return rc;
    }
    struct nvb__fault_cfg fc = {
        .rate = w->fault_rate, .err = w->fault_errno, .short_rate = w->fault_short,
        .delay_rate = w->fault_delay_rate, .delay_ns = w->fault_delay_ns,
        .seed = (w->fault_seed_set ? w->fault_seed : w->seed ^ 0xfa017fa017fa017full) ^
                (0xd6e8feb86659fd93ull * (j->idx + 1)),
        .align = 1,
        .wait_ns = &j->wait_ns,
    };
    if (w->direct)
        for (unsigned t = 0; t < j->nt; t++)
            if (p->t[j->tmap[t]].ti.lbs > fc.align)
                fc.align = p->t[j->tmap[t]].ti.lbs;
    if (nvb__fault_wanted(&fc) && (rc = nvb__fault_new(&fc, e, j->est, qd, &j->fault)) < 0) {
        snprintf(j->why, sizeof j->why, "out of memory for fault injection in job %u", j->idx);
        return rc;
    }
    j->submit = j->fault ? nvb__fault_submit : e->submit;
    j->reap = j->fault ? nvb__fault_reap : e->reap;
    j->io_state = j->fault ? (void *)j->fault : j->est;
    return 0;
}

static void hist_reset(struct nvb__jhist *h)
{
    if (h)
        nvb__jhist_reset_live(h);
}

/* The ramp's end: the job's counts and histograms start again, the live
 * counters too (the loop counts in them). */
void nvb__job_reset_stats(struct job *j)
{
    for (unsigned t = 0; t < j->nt; t++)
        for (int d = 0; d < NVB__NDIR; d++) {
            j->st[t].d[d].ios = j->st[t].d[d].bytes = 0;
            hist_reset(j->st[t].d[d].jlat);
            hist_reset(j->st[t].d[d].jslat);
            hist_reset(j->st[t].d[d].jclat);
            if (j->st[t].d[d].bsc)
                memset(j->st[t].d[d].bsc->count, 0, sizeof j->st[t].d[d].bsc->count);
        }
    memset(&j->meter, 0, sizeof j->meter); /* every counter of the meter (internal.h) */
    j->nfirst_mm = 0;
    for (unsigned t = 0; t < j->nt; t++)
        j->st[t].errors = 0;
    for (int d = 0; d < NVB__NDIR; d++) {
        nvb__live_store(&j->live.ios[d], 0);
        nvb__live_store(&j->live.bytes[d], 0);
        nvb__live_store(&j->live.lat_sum[d], 0);
    }
    nvb__live_store(&j->live.errors, 0);
}

int nvb__job_setup(struct job *j)
{
    j->tid = nvb__thread_id();
    if (j->cpu >= 0) {
        int rc = nvb__thread_pin(j->cpu);
        if (rc < 0) {
            snprintf(j->why, sizeof j->why, "cannot pin job %u to CPU %d (key 'cpus'): %s", j->idx, j->cpu,
                     nvb_strerror(rc));
            return rc;
        }
    }
    if (j->open)
        nvb__thread_precise_timers();
    int rc;
    if ((rc = job_alloc(j)) < 0 || (rc = job_open_targets(j)) < 0 || (rc = job_verify_stripes(j)) < 0 ||
        (rc = job_dist(j)) < 0 ||
        (rc = job_buffers(j)) < 0 || (rc = job_histograms(j)) < 0 || (rc = nvb__bsmix_job(j)) < 0 || (rc = job_engine(j)) < 0)
        return rc;
    j->rng = j->run->w->seed ^ (0x8bb84b93962eacc9ull * (j->idx + 1));
    return 0;
}

static void assign_targets(const struct nvb_workload *w, const struct plan *p, struct job *j, unsigned nt_all)
{
    if (w->target_mode == NVB__TM_SPLIT) {
        if (p->jobs >= nt_all) {
            j->nt = 1;
            j->tmap[0] = j->idx % nt_all;
        } else {
            j->nt = 0;
            for (unsigned t = j->idx; t < nt_all; t += p->jobs)
                j->tmap[j->nt++] = t;
        }
    } else {
        j->nt = nt_all;
        for (unsigned t = 0; t < nt_all; t++)
            j->tmap[t] = t;
    }
}

/* An engine option's CPU given as "local" (io_uring.sqpoll_cpu=local): one
 * CPU for the run, chosen once the jobs have theirs (explain_place.c). */
static void engine_local_cpu(struct run *r, struct nvb_result *res)
{
    const struct nvb__engine *e = r->p->eng;
    r->local_cpu = -1;
    for (unsigned k = 0; k < NVB__ENGINE_MAX_OPTS && e->opts && e->opts[k].name; k++) {
        if (e->opts[k].type != NVB__OPT_CPU || r->p->eopts[k] != NVB__OPT_LOCAL)
            continue;
        uint64_t taken[NVB__MAX_CPUS / 64] = {0};
        for (unsigned i = 0; i < r->p->jobs; i++)
            if (r->jobs[i].cpu >= 0 && r->jobs[i].cpu < NVB__MAX_CPUS)
                taken[r->jobs[i].cpu / 64] |= 1ull << (r->jobs[i].cpu % 64);
        char key[96];
        snprintf(key, sizeof key, "%s.%s", e->name, e->opts[k].name);
        r->local_cpu = nvb__cpu_local(res, key, taken);
        return;
    }
}

int nvb__jobs_new(struct run *r, struct nvb_result *res)
{
    const struct nvb_workload *w = r->w;
    const struct plan *p = r->p;
    r->jobs = calloc(p->jobs, sizeof *r->jobs);
    if (!r->jobs) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    /* every job knows its run before any can fail: nvb__jobs_free() needs it */
    for (unsigned i = 0; i < p->jobs; i++)
        r->jobs[i].run = r;
    /* Budgets and rates split exactly over the jobs. */
    unsigned cpu_list[NVB__MAX_CPUS], ncpu_list = 0;
    uint64_t local[NVB__MAX_CPUS / 64];
    r->local_node = -1;
    const uint64_t *pin =
        !strcmp(w->cpus_text, "local") && nvb__cpus_local(res, local, &r->local_node) == 0 ? local : w->cpus;
    for (unsigned c = 0; c < NVB__MAX_CPUS; c++)
        if ((pin[c / 64] >> (c % 64)) & 1)
            cpu_list[ncpu_list++] = c;
    for (unsigned i = 0; i < p->jobs; i++) {
        struct job *j = &r->jobs[i];
        j->idx = i;
        j->cpu = ncpu_list ? (int)cpu_list[i % ncpu_list] : -1;
        j->tmap = calloc(p->nt, sizeof *j->tmap);
        j->st = calloc(p->nt, sizeof *j->st);
        if (!j->tmap || !j->st) {
            nvb__result_seterr(res, -ENOMEM, "out of memory");
            return -ENOMEM;
        }
        assign_targets(w, p, j, p->nt);
        if (p->job_ios)
            j->budget = p->job_ios[i];
        else if (p->ios_total)
            j->budget = p->ios_total / p->jobs + (i < p->ios_total % p->jobs ? 1 : 0);
        else if (p->bytes_total)
            j->budget = UINT64_MAX - 1; /* counted, never reached: the mix's byte budget ends the job */
        else
            j->budget = UINT64_MAX;
        if (w->rate_iops) {
            double per = (double)w->rate_iops / p->jobs;
            j->rate_ns = per > 0 ? (uint64_t)((w->rate_period_ns ? (double)w->rate_period_ns : 1e9) / per) : 0;
            if (!j->rate_ns)
                j->rate_ns = 1;
            j->open = w->rate_mode == NVB__RATE_OPEN;
            nvb__sched_init(&j->sched, w->rate_iops, w->rate_period_ns, p->jobs, i, w->rate_process == NVB__RATE_POISSON, w->seed);
        }
    }
    engine_local_cpu(r, res);
    if (w->zone_mode && nvb__zbd_new(r) < 0) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

void nvb__jobs_free(struct run *r, unsigned started)
{
    if (!r->jobs)
        return;
    for (unsigned i = 0; i < r->p->jobs; i++) {
        struct job *j = &r->jobs[i];
        if (i >= started)
            nvb__job_release(j);
        if (j->st) {
            for (unsigned t = 0; t < r->p->nt; t++)
                for (int d = 0; d < NVB__NDIR; d++) {
                    struct nvb__dstat *ds = &j->st[t].d[d];
                    ds->jlat = ds->jslat = ds->jclat = NULL; /* j->hists' */
                    nvb__dstat_free(ds);
                }
            free(j->st);
        }
        free(j->hists);
        j->hists = NULL;
        nvb__jarena_free(&j->harena[0]);
        nvb__jarena_free(&j->harena[1]);
        free(j->tmap);
    }
    free(r->jobs);
    r->jobs = NULL;
    nvb__zbd_free(r->zbd);
    r->zbd = NULL;
}

