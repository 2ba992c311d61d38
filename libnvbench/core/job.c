/*
 * Jobs: one thread each, set up on its own thread (buffers, descriptors,
 * the engine's state), then the measurement loop, then teardown.
 *
 * The hot loop (job_loop) takes no locks, allocates nothing and makes no
 * system calls beyond the engine's own and the vDSO clock: one clock read
 * per submission batch and one per completion batch. Every completion
 * harvested by one reap() call is stamped with the time that call returned:
 * those completions were all observed at that instant, so a per-completion
 * clock read would only add the harvest loop's own time to their latency.
 * Counters are per job and merged when the jobs have finished (aggregate.c);
 * the live figures the calling thread reads for the time series are
 * single-writer relaxed atomics. Everything the loop calls per I/O is in
 * this file, so that the compiler can inline it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)nvb__rng_next(s) * n) >> 64);
}

/* The set of blocks a job has in flight (verify=1 with writes): linear
 * probing, deletion by backward shift, so no tombstones; at most qd keys in
 * 2*qd or more slots. */
static inline unsigned vset_slot(uint64_t key, unsigned mask)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int vset_has(const struct job *j, uint64_t key)
{
    for (unsigned i = vset_slot(key, j->vmask);; i = (i + 1) & j->vmask) {
        if (j->vset[i] == key)
            return 1;
        if (!j->vset[i])
            return 0;
    }
}

static void vset_add(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i])
        i = (i + 1) & j->vmask;
    j->vset[i] = key;
}

static void vset_del(struct job *j, uint64_t key)
{
    unsigned i = vset_slot(key, j->vmask);
    while (j->vset[i] != key) {
        if (!j->vset[i])
            return;
        i = (i + 1) & j->vmask;
    }
    for (unsigned k = (i + 1) & j->vmask; j->vset[k]; k = (k + 1) & j->vmask) {
        unsigned home = vset_slot(j->vset[k], j->vmask);
        /* move k into the hole at i unless its home lies cyclically in (i, k] */
        if (((k - home) & j->vmask) >= ((k - i) & j->vmask)) {
            j->vset[i] = j->vset[k];
            i = k;
        }
    }
    j->vset[i] = 0;
}

static inline uint64_t vkey_of(unsigned t, uint64_t blk) { return ((uint64_t)t << 48 | blk) + 1; }

static void job_publish(struct job *j, const uint64_t ios[2], const uint64_t bytes[2], const uint64_t lat[2])
{
    for (int d = 0; d < 2; d++) {
        nvb__live_store(&j->live.ios[d], ios[d]);
        nvb__live_store(&j->live.bytes[d], bytes[d]);
        nvb__live_store(&j->live.lat_sum[d], lat[d]);
    }
    nvb__live_store(&j->live.errors, j->errors);
}

static void job_reset_stats(struct job *j)
{
    for (unsigned t = 0; t < j->nt; t++)
        for (int d = 0; d < 2; d++) {
            j->st[t].d[d].ios = j->st[t].d[d].bytes = 0;
            if (j->st[t].d[d].hist)
                nvb__hist_init(j->st[t].d[d].hist);
        }
    j->st[0].errors = 0;
    memset(j->by_errno, 0, sizeof j->by_errno);
    j->errors = j->short_ios = 0;
    for (int d = 0; d < 2; d++)
        j->errors_dir[d] = j->fault_err[d] = j->fault_short[d] = j->fault_delayed[d] = 0;
    j->verify_checked = j->verify_mismatches = 0;
    memset(j->verify_by_field, 0, sizeof j->verify_by_field);
    j->nfirst_mm = 0;
    for (unsigned t = 0; t < j->nt; t++)
        j->st[t].errors = 0;
}

/* A blocking reap() returns after this long at most (or io_timeout when
 * shorter) so that a job notices its watchdog and stop requests. */
#define WAIT_SLICE_NS 100000000ull

/* Of the job's I/Os in flight, those the engine still has, which the
 * device may yet write into: completions the fault wrapper holds back are
 * done. */
static unsigned in_engine(const struct job *j, unsigned inflight)
{
    return j->fault ? nvb__fault_in_engine(j->fault) : inflight;
}

static int run_stopping(struct run *r)
{
    if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
        return 1;
    if (r->cancel && __atomic_load_n(&r->cancel->flag, __ATOMIC_RELAXED))
        return 1;
    return 0;
}

static void job_loop(struct job *j)
{
    struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    const struct nvb__engine *e = r->p->eng;
    const unsigned qd = r->p->qd;
    const unsigned sbatch = w->submit_batch && w->submit_batch < qd ? w->submit_batch : qd;
    const unsigned cbatch = w->complete_batch ? w->complete_batch : 1;
    const int rnd = nvb__rw_random(w->rw);
    const int mixed = w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW;
    const int wdir = nvb__rw_writes(w->rw) && !mixed ? NVB_WRITE : NVB_READ;
    const unsigned rwmix = w->rwmix;
    const uint32_t bs = (uint32_t)w->bs;
    const int verify = w->verify && !(e->flags & NVB__ENG_NO_FILES);
    const uint64_t seed = w->seed;
    const uint64_t end_ns = r->end_ns;
    const uint64_t meas_ns = r->meas_ns;
    int measuring = meas_ns <= r->go_ns;
    unsigned nfree = qd, inflight = 0, tnext = 0;
    uint64_t budget = j->budget, issued = 0;
    uint64_t ios[2] = {0, 0}, bytes[2] = {0, 0}, lat[2] = {0, 0};
    uint64_t now = nvb__now_ns(), last_done = now;
    const uint64_t t0 = now;
    const uint64_t io_timeout = w->io_timeout_ns;
    uint64_t wd_ref = now;  /* the watchdog's reference: last completion, or when the queue last filled from empty */
    /* and how often it looks at the age of each I/O in flight */
    const uint64_t scan_ns = io_timeout / 8 < WAIT_SLICE_NS ? io_timeout / 8 + 1 : WAIT_SLICE_NS;
    uint64_t next_scan = now + scan_ns;

    for (;;) {
        int stopping = run_stopping(r) || (end_ns && now >= end_ns);
        unsigned n = 0;
        if (!stopping && budget) {
            unsigned room = qd - inflight;
            if (room > sbatch)
                room = sbatch;
            if (budget != UINT64_MAX && room > budget)
                room = (unsigned)budget;
            if (j->rate_ns) {
                uint64_t allowed = (now - t0) / j->rate_ns + 1;
                uint64_t can = allowed > issued ? allowed - issued : 0;
                if (room > can)
                    room = (unsigned)can;
            }
            while (n < room) {
                struct nvb__io *io = j->freel[--nfree];
                unsigned t = tnext;
                if (++tnext == j->nt)
                    tnext = 0;
                uint64_t blk;
                if (rnd) {
                    blk = rng_below(&j->rng, j->nblocks[t]);
                    for (int tries = 0; j->vtrack && vset_has(j, vkey_of(t, blk)) && tries < 16; tries++)
                        blk = rng_below(&j->rng, j->nblocks[t]);
                } else {
                    blk = j->seqpos[t];
                }
                if (j->vtrack) {
                    if (vset_has(j, vkey_of(t, blk))) {
                        j->freel[nfree++] = io; /* busy: wait for completions */
                        break;
                    }
                    j->vkey[io->slot] = vkey_of(t, blk);
                    vset_add(j, j->vkey[io->slot]);
                    blk = j->vrank[t] + j->vstride[t] * blk;
                }
                if (!rnd && ++j->seqpos[t] == j->nblocks[t])
                    j->seqpos[t] = 0;
                io->off = j->st[t].region_off + blk * bs;
                io->target = (uint16_t)t;
                io->dir = (uint8_t)(mixed ? (rng_below(&j->rng, 100) < rwmix ? NVB_READ : NVB_WRITE) : wdir);
                io->len = bs;
                io->flags = (measuring ? 0 : NVB__IOF_RAMP) | NVB__IOF_INFLIGHT;
                io->res = 0;
                io->t_done = 0;
                if (verify && io->dir == NVB_WRITE)
                    nvb__vblock_fill(io->buf, bs, seed, j->tmap[t], io->off, (uint64_t)(j->idx + 1) << 40 | ++j->wseq);
                j->batch[n++] = io;
            }
            if (budget != UINT64_MAX && measuring)
                budget -= n;
            issued += n;
        }
        if (n) {
            uint64_t ts = nvb__now_ns();
            for (unsigned i = 0; i < n; i++)
                j->batch[i]->t_sub = ts;
            int rc = j->submit(j->io_state, j->batch, n);
            if (rc < 0) {
                j->rc = rc;
                snprintf(j->why, sizeof j->why, "engine %s: submit failed: %s", e->name, nvb_strerror(rc));
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
                for (unsigned i = 0; i < n; i++) {
                    if (j->vtrack)
                        vset_del(j, j->vkey[j->batch[i]->slot]);
                    j->batch[i]->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
                    j->freel[nfree++] = j->batch[i];
                }
                n = 0;
                stopping = 1;
            }
            if (!inflight)
                wd_ref = ts;
            inflight += n;
        }
        if (!inflight) {
            if (stopping || !budget)
                break;
            if (j->rate_ns) { /* ahead of the rate: sleep to the next slot */
                uint64_t next = t0 + issued * j->rate_ns;
                if (end_ns && next > end_ns)
                    next = end_ns;
                if (next > now)
                    nvb__sleep_ns(next - now);
            }
            now = nvb__now_ns();
            continue;
        }
        unsigned minw = 0;
        if (stopping || !budget || inflight >= qd || j->rate_ns || n == 0)
            minw = cbatch < inflight ? cbatch : inflight;
        if (stopping && j->fault)
            nvb__fault_expire(j->fault); /* held-back completions do not hold up the stop */
        int got = j->reap(j->io_state, j->done, qd, minw);
        if (got < 0) {
            if (got == -EINTR || got == -EAGAIN) {
                now = nvb__now_ns();
                continue;
            }
            j->rc = got;
            snprintf(j->why, sizeof j->why, "engine %s: reaping completions failed: %s", e->name, nvb_strerror(got));
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            break; /* in-flight I/O is abandoned to the engine's teardown */
        }
        now = nvb__now_ns();
        if (got > 0) {
            wd_ref = now;
        } else if (io_timeout && now - wd_ref >= io_timeout && !j->stalled) {
            /* The device has not answered for io_timeout: give up on what is
             * in flight rather than wait forever (a removed or hung device).
             * Its slots and buffers stay allocated: the kernel may still
             * write into them. */
            j->rc = -ETIMEDOUT;
            j->abandoned = in_engine(j, inflight);
            snprintf(j->why, sizeof j->why,
                     "watchdog: job %u had %u I/O%s in flight and none completed for %.3g s (io_timeout=%.3g s): "
                     "the device stopped answering; the run stops and abandons them",
                     j->idx, inflight, inflight == 1 ? "" : "s", (double)(now - wd_ref) / 1e9,
                     (double)io_timeout / 1e9);
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            break;
        }
        int count = !end_ns || now <= end_ns;
        for (int i = 0; i < got; i++) {
            struct nvb__io *io = j->done[i];
            io->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
            j->freel[nfree++] = io;
            if (j->vtrack)
                vset_del(j, j->vkey[io->slot]);
            if (!count || (io->flags & NVB__IOF_RAMP))
                continue;
            int d = io->dir;
            struct nvb__tstat *ts = &j->st[io->target];
            if (io->flags & NVB__IOF_FAULT_DELAY)
                j->fault_delayed[d]++;
            const uint64_t t_done = io->t_done ? io->t_done : now;
            if (io->res == (int64_t)io->len) {
                uint64_t l = t_done > io->t_sub ? t_done - io->t_sub : 0;
                nvb__hist_add(ts->d[d].hist, l);
                ts->d[d].ios++;
                ts->d[d].bytes += io->len;
                ios[d]++;
                bytes[d] += io->len;
                lat[d] += l;
                if (verify && d == NVB_READ) {
                    struct nvb__vmismatch mm;
                    j->verify_checked++;
                    int f = nvb__vblock_check(io->buf, io->len, seed, j->tmap[io->target], io->off, &mm);
                    if (f != NVB__VF_OK) {
                        if (j->nfirst_mm < NVB__VERIFY_FIRST)
                            j->first_mm[j->nfirst_mm++] = mm;
                        j->verify_by_field[f]++;
                        j->verify_mismatches++;
                    }
                }
                last_done = now;
            } else {
                int en = io->res < 0 ? (int)-io->res : EIO;
                if (io->res >= 0)
                    j->short_ios++;
                if (io->flags & NVB__IOF_FAULT_ERR)
                    j->fault_err[d]++;
                else if ((io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0)
                    j->fault_short[d]++;
                if (w->lat_include_errors)
                    nvb__hist_add(ts->d[d].hist, t_done > io->t_sub ? t_done - io->t_sub : 0);
                j->errors++;
                j->errors_dir[d]++;
                ts->errors++;
                j->by_errno[en < NVB__ERRNO_SLOTS ? en : NVB__ERRNO_SLOTS - 1]++;
                last_done = now;
                if (!w->continue_on_error && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
                    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
                    nvb__mutex_lock(r->mu); /* once per run, not in the steady state */
                    if (!r->io_err) {
                        r->io_err = io->res < 0 ? (int)io->res : -EIO;
                        snprintf(r->io_err_msg, sizeof r->io_err_msg,
                                 "%s error on target '%s' at offset %" PRIu64 " (%u bytes): %s%s",
                                 d == NVB_READ ? "read" : "write", r->p->t[j->tmap[io->target]].path, io->off,
                                 io->len, io->res < 0 ? nvb_strerror((int)io->res) : "short transfer",
                                 (io->flags & NVB__IOF_FAULT_ERR) ? " (injected: fault.rate)"
                                 : (io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0 ? " (injected: fault.short)" : "");
                    }
                    nvb__mutex_unlock(r->mu);
                }
            }
        }
        inflight -= (unsigned)got;
        job_publish(j, ios, bytes, lat);
        if (io_timeout && inflight && now >= next_scan) {
            /* One I/O the device never answers, while the others go on: find
             * it by its age (a scan of qd slots every scan_ns). The run stops;
             * what still completes is taken, and once only such stale I/Os
             * are left the job abandons them. */
            next_scan = now + scan_ns;
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
                         "I/Os still unanswered", j->idx, old->dir == NVB_WRITE ? "write" : "read",
                         r->p->t[j->tmap[old->target]].path, old->off, (double)(now - old->t_sub) / 1e9,
                         (double)io_timeout / 1e9);
                __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            }
            if (stale && stale >= inflight) {
                j->abandoned = in_engine(j, inflight);
                break;
            }
        }
        if (!measuring && now >= meas_ns) {
            /* ramp over: I/O submitted before now stays flagged and uncounted */
            measuring = 1;
            job_reset_stats(j);
            for (int d = 0; d < 2; d++)
                ios[d] = bytes[d] = lat[d] = 0;
        }
    }
    if (end_ns && !run_stopping(r) && now >= end_ns)
        j->t_end = end_ns;
    else
        j->t_end = last_done > meas_ns ? last_done : now;
    if (j->t_end < meas_ns)
        j->t_end = meas_ns;
    job_publish(j, ios, bytes, lat);
}

static void job_release_resources(struct job *j)
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
    nvb__free_aligned(j->bufmem);
    j->bufmem = NULL;
    free(j->bufs);
    j->bufs = NULL;
    free(j->ios);
    free(j->freel);
    free(j->batch);
    free(j->done);
    free(j->seqpos);
    free(j->nblocks);
    free(j->vset);
    free(j->vkey);
    free(j->vstride);
    free(j->vrank);
    j->vset = j->vkey = j->vstride = j->vrank = NULL;
    free(j->eopts);
    j->ios = NULL;
    j->freel = j->batch = j->done = NULL;
    j->seqpos = j->nblocks = NULL;
    j->eopts = NULL;
}

static int job_setup(struct job *j)
{
    struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    struct plan *p = r->p;
    const struct nvb__engine *e = p->eng;
    unsigned qd = p->qd;
    if (j->cpu >= 0) {
        int rc = nvb__thread_pin(j->cpu);
        if (rc < 0) {
            snprintf(j->why, sizeof j->why, "cannot pin job %u to CPU %d (key 'cpus'): %s", j->idx, j->cpu,
                     nvb_strerror(rc));
            return rc;
        }
    }
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
    int nofiles = (e->flags & NVB__ENG_NO_FILES) != 0;
    /* A character device refuses O_DIRECT; passthrough I/O is direct anyway. */
    int odirect = w->direct && !(e->flags & NVB__ENG_CHARDEV);
    unsigned jobs_here = 0, rank = 0;
    for (unsigned t = 0; t < j->nt; t++) {
        const struct ptarget *pt = &p->t[j->tmap[t]];
        if (!nofiles) {
            int fd = nvb__hold_reopen(&pt->hold, (p->writes ? NVB__O_WRITE : 0) | (odirect ? NVB__O_DIRECT : 0));
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
        jobs_here = w->target_mode == NVB__TM_SPLIT ? 1 : p->jobs;
        rank = w->target_mode == NVB__TM_SPLIT ? 0 : j->idx;
        j->seqpos[t] = j->nblocks[t] * rank / jobs_here;
    }
    j->vtrack = w->verify && p->writes && !nofiles;
    if (j->vtrack) {
        unsigned cap = 2;
        while (cap < 2 * qd)
            cap <<= 1;
        j->vmask = cap - 1;
        j->vset = calloc(cap, sizeof *j->vset);
        j->vkey = calloc(qd, sizeof *j->vkey);
        j->vstride = calloc(j->nt, sizeof *j->vstride);
        j->vrank = calloc(j->nt, sizeof *j->vrank);
        if (!j->vset || !j->vkey || !j->vstride || !j->vrank) {
            snprintf(j->why, sizeof j->why, "out of memory setting up job %u", j->idx);
            return -ENOMEM;
        }
        for (unsigned t = 0; t < j->nt; t++) {
            /* Jobs that share this target, and this job's rank among them
             * (assign_targets() deals the targets). */
            uint64_t stride = p->jobs, rk = j->idx;
            if (w->target_mode == NVB__TM_SPLIT) {
                unsigned ti = j->tmap[t];
                stride = p->jobs >= p->nt ? p->jobs / p->nt + (ti < p->jobs % p->nt) : 1;
                rk = p->jobs >= p->nt ? j->idx / p->nt : 0;
            }
            j->vstride[t] = stride;
            j->vrank[t] = rk;
            j->nblocks[t] = j->nblocks[t] > rk ? (j->nblocks[t] - rk + stride - 1) / stride : 0;
            j->seqpos[t] = 0;
            if (!j->nblocks[t]) {
                snprintf(j->why, sizeof j->why, "verify=1: target '%s' has fewer blocks of bs than jobs writing it "
                         "(each job verifies its own stripe)", p->t[j->tmap[t]].path);
                return -EINVAL;
            }
        }
    }
    size_t align = 4096;
    for (unsigned t = 0; t < j->nt; t++)
        if (p->t[j->tmap[t]].ti.mem_align > align)
            align = p->t[j->tmap[t]].ti.mem_align;
    uint64_t fs = w->seed ^ (0xa0761d6478bd642full * (j->idx + 1));
    /* One block for the job's qd buffers: an aligned allocation each would
     * cost up to an alignment unit of padding apiece (twice the memory for
     * 4 KiB buffers: measured in docs/reliability.md). */
    size_t stride = ((size_t)w->bs + align - 1) / align * align;
    j->bufmem = nvb__alloc_aligned(align, stride * qd);
    if (!j->bufmem) {
        snprintf(j->why, sizeof j->why, "out of memory allocating %u buffers of %" PRIu64 " bytes (bs x qd)", qd, w->bs);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < qd; i++) {
        j->bufs[i] = (char *)j->bufmem + (size_t)i * stride;
        if (w->fill == NVB__FILL_ZERO) {
            memset(j->bufs[i], 0, (size_t)w->bs);
        } else {
            uint64_t *q = j->bufs[i];
            for (uint64_t k = 0; k < w->bs / 8; k++)
                q[k] = nvb__rng_next(&fs);
            memset((char *)j->bufs[i] + (w->bs & ~7ull), 0x5a, (size_t)(w->bs & 7));
        }
        j->ios[i].buf = j->bufs[i];
        j->ios[i].slot = i;
        j->freel[i] = &j->ios[i];
    }
    for (unsigned t = 0; t < j->nt; t++) {
        j->st[t].region_off = p->t[j->tmap[t]].off;
        for (int d = 0; d < 2; d++) {
            if ((d == NVB_READ && !p->reads) || (d == NVB_WRITE && !p->writes))
                continue;
            j->st[t].d[d].hist = malloc(sizeof(struct nvb__hist));
            if (!j->st[t].d[d].hist) {
                snprintf(j->why, sizeof j->why, "out of memory for latency histograms");
                return -ENOMEM;
            }
            nvb__hist_init(j->st[t].d[d].hist);
        }
    }
    memcpy(j->eopts, p->eopts, sizeof p->eopts);
    struct nvb__engine_ctx ctx = {
        .qd = qd, .nfds = nofiles ? 0 : j->nt, .fds = j->fds, .direct = w->direct || (e->flags & NVB__ENG_CHARDEV),
        .writes = p->writes,
        .bufs = j->bufs, .buf_len = (size_t)w->bs, .cpu = j->cpu, .opts = j->eopts, .opts_set = p->eopts_set,
        .used = &j->used, .why = j->why, .why_len = sizeof j->why,
        .wait_ns = w->io_timeout_ns ? (w->io_timeout_ns < WAIT_SLICE_NS ? w->io_timeout_ns : WAIT_SLICE_NS) : 0,
        .io_timeout_ns = w->io_timeout_ns,
    };
    j->why[0] = 0;
    int rc = e->setup(&ctx, &j->est);
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
    j->rng = w->seed ^ (0x8bb84b93962eacc9ull * (j->idx + 1));
    return 0;
}

void *nvb__job_main(void *arg)
{
    struct job *j = arg;
    struct run *r = j->run;
    int rc = job_setup(j);
    nvb__mutex_lock(r->mu);
    j->rc = rc;
    r->nready++;
    nvb__cond_signal_all(r->cv);
    while (!r->go)
        nvb__cond_wait(r->cv, r->mu, 0);
    int go = r->go;
    nvb__mutex_unlock(r->mu);
    if (go > 0 && rc == 0) {
        job_loop(j);
        if (r->p->eng->note && j->est)
            r->p->eng->note(j->est, j->note, sizeof j->note);
    }
    nvb__mutex_lock(r->mu);
    r->ndone++;
    nvb__cond_signal_all(r->cv);
    /* Stay alive until the runner has sampled per-thread CPU. */
    while (!r->release)
        nvb__cond_wait(r->cv, r->mu, 0);
    nvb__mutex_unlock(r->mu);
    job_release_resources(j);
    return NULL;
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
    for (unsigned c = 0; c < NVB__MAX_CPUS; c++)
        if ((w->cpus[c / 64] >> (c % 64)) & 1)
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
        if (p->ios_total)
            j->budget = p->ios_total / p->jobs + (i < p->ios_total % p->jobs ? 1 : 0);
        else
            j->budget = UINT64_MAX;
        if (w->rate_iops) {
            double per = (double)w->rate_iops / p->jobs;
            j->rate_ns = per > 0 ? (uint64_t)(1e9 / per) : 0;
            if (!j->rate_ns)
                j->rate_ns = 1;
        }
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
            job_release_resources(j);
        if (j->st) {
            for (unsigned t = 0; t < r->p->nt; t++)
                for (int d = 0; d < 2; d++)
                    free(j->st[t].d[d].hist);
            free(j->st);
        }
        free(j->tmap);
    }
    free(r->jobs);
    r->jobs = NULL;
}
