/*
 * Jobs: one thread each, set up on its own thread (job_setup.c), then the
 * measurement loop, then teardown.
 *
 * The hot loop (job_loop) takes no locks, allocates nothing and makes no
 * system calls beyond the engine's own and the vDSO clock: two clock reads
 * per submission batch (before and after the engine's submit call: slat and
 * clat, engines that complete I/O inside submit need only the first) and
 * one per completion batch. Every completion
 * harvested by one reap() call is stamped with the time that call returned:
 * those completions were all observed at that instant, so a per-completion
 * clock read would only add the harvest loop's own time to their latency.
 * Counters are per job and merged when the jobs have finished (aggregate.c);
 * the live figures the calling thread reads for the time series are
 * single-writer relaxed atomics. Everything the loop calls per I/O is in
 * this file (and core/loopmix.h, core/loopverify.h), so that the compiler
 * can inline it. The loop is built once per feature set (loop_run): a plain
 * run, one target and direction without verify, bssplit, a rate, think
 * time, fault injection or a distribution, runs an instance in which every
 * feature's test is a constant.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)nvb__splitmix64(s) * n) >> 64);
}

#include "core/loopverify.h"

/* The loop counts completions by direction in the live counters
 * themselves (j->live: the job the only writer, the sampler reading them
 * as they go), so that nothing is copied there per completion: *p += v. */
static inline void live_add(uint64_t *p, uint64_t v)
{
    nvb__u64_bump(p, v); /* the job is the only writer (run.h) */
}

/* What the loop reads and never changes, set once from the workload. */
struct loop_cfg {
    unsigned qd, sbatch, cbatch, rwmix;
    unsigned tmix;   /* rwmixtrim: percent of a mix's I/Os that are trims */
    int      rnd;    /* 0 sequential, else random: NVB__RND_UNIFORM or NVB__RND_DIST (core/dist.h) */
    int      mixed, wdir, verify;
    int      open;   /* open-loop rate: latency from each I/O's intended start */
    int      split;  /* the engine's submit call is timed on its own (slat) */
    int      one;    /* one target, one direction: every batch is one run (slat) */
    uint32_t bs;
    uint64_t seed;
    const struct nvb__data *data; /* fresh content for every write (core/data.h), or NULL */
    int      wfill;              /* writes get content: a verification block, or data */
    int      mix;                /* bssplit: sizes and offsets from j->mix (core/loopmix.h) */
    int      pat;                /* sequential offsets from j->opat (core/offpat.h) */
    int      rate;               /* rate_iops: a schedule paces the job */
    int      flow;               /* flow: the job keeps to its share of its flow's I/Os (core/flow.c) */
    int      vtrack;             /* j->vtrack: blocks in flight tracked (verify with writes) */
    int      fault;              /* the fault wrapper is in the loop (j->fault) */
    int      zbd;                /* zone_mode=zbd: each I/O placed by its target's zones (core/zbd.c) */
    int      estamp;             /* the engine stamps t_sub and t_done itself (NVB__ENG_STAMPS) */
    int      nooff;              /* no offsets drawn: the I/Os are NOPs (io_uring.nop=1), which read none */
    unsigned nt;                 /* targets (j->nt) */
    int      plain;              /* the plain instance (loop_run): one target and direction, no feature */
    unsigned ndir;               /* the directions the workload uses are below this */
    /* one target and direction (one): its histograms, not looked up per I/O */
    struct nvb__jhist *lat1, *clat1, *slat1;
    struct nvb__clk clk;         /* the clock, read without a call (platform.h) */
    const volatile int *cancel;  /* the run's cancel flag, or without one its stop flag (never NULL: one test) */
    unsigned think_blocks;       /* thinktime_blocks */
    uint64_t think_ns, io_timeout, scan_ns, end_ns, meas_ns;
};

/* The loop's per-I/O steps are named functions the compiler must inline:
 * steps of one loop, not calls per I/O. */
#define LOOP_STEP static inline __attribute__((always_inline))

#include "core/loopmix.h"

/* Up to room I/Os into j->batch: target, block, direction, and with verify
 * the block's contents. Returns how many: fewer when verify finds the next
 * block in flight (the loop then waits for completions). */
LOOP_STEP unsigned job_prepare(struct job *j, const struct loop_cfg *c, unsigned room, unsigned *nfree_p,
                               unsigned *tnext_p, int measuring)
{
    const int rnd = c->rnd, mixed = c->mixed, wdir = c->wdir, verify = c->verify;
    const unsigned rwmix = c->rwmix;
    const uint32_t bs = c->bs;
    const uint64_t seed = c->seed;
    unsigned nfree = *nfree_p, tnext = *tnext_p, n = 0;
    /* the plain instance (loop_run: one target and direction, no
     * bssplit) leaves target, dir and len as the loop's start set them */
    const int fixed = c->plain;
    uint64_t rng = j->rng; /* in a register, not reloaded after each store through io */
    struct nvb__opat opat_was;
    while (n < room) {
        struct nvb__io *io = j->freel[--nfree];
        unsigned t = 0;
        if (c->nt > 1) {
            t = tnext;
            if (++tnext == c->nt)
                tnext = 0;
        }
        if (!fixed)
            io->target = (uint16_t)t;
        if (c->mix) { /* bssplit: direction, size and offset of its own */
            if (bsmix_place(j, c, io, t, measuring, &rng))
                goto placed;
            j->freel[nfree++] = io; /* io_limit reached */
            tnext = t;
            break;
        }
        if (!c->nooff) { /* (a NOP reads no offset: none is drawn) */
            uint64_t blk;
            if (rnd) {
                blk = nvb__dist_block(rnd, j->dist, t, j->nblocks[t], &rng);
                for (int tries = 0; c->vtrack && !j->dist[t].map && vset_has(j, vkey_of(t, blk)) && tries < 16; tries++)
                    blk = nvb__dist_block(rnd, j->dist, t, j->nblocks[t], &rng);
            } else if (c->pat) { /* an offset; in whole blocks with verify (nvb__opat_check) */
                if (c->vtrack) /* taken back when the block is busy */
                    opat_was = j->opat[t];
                blk = c->vtrack ? nvb__opat_next(&j->opat[t]) / bs : nvb__opat_next(&j->opat[t]);
            } else {
                blk = j->seqpos[t];
            }
            if (c->vtrack) {
                if (vset_has(j, vkey_of(t, blk))) {
                    if (rnd)
                        nvb__dist_unget(&j->dist[t]); /* random_map: this block comes next again */
                    else if (c->pat)
                        j->opat[t] = opat_was;
                    j->freel[nfree++] = io; /* busy: wait for completions */
                    break;
                }
                j->vkey[io->slot] = vkey_of(t, blk);
                vset_add(j, j->vkey[io->slot]);
                blk = j->vrank[t] + j->vstride[t] * blk;
            }
            if (!rnd && !c->pat && ++j->seqpos[t] == j->nblocks[t])
                j->seqpos[t] = 0;
            io->off = j->st[t].region_off + (c->pat && !c->vtrack ? blk : blk * bs);
        }
        if (!fixed) {
            io->dir = (uint8_t)(mixed ? (rng_below(&rng, 100) < rwmix ? NVB_READ : NVB_WRITE) : wdir);
            if (c->tmix && rng_below(&rng, 100) < c->tmix) /* rwmixtrim: a trim instead */
                io->dir = NVB_TRIM;
            io->len = bs;
        }
        if (c->zbd && nvb__zbd_place(j->run->zbd, j->tmap[t], io, rnd, j->st[t].region_off, &j->seqpos[t],
                                     j->nblocks[t], &j->zone_resets) < 0) {
            j->freel[nfree++] = io; /* no zone holds data to read or trim: the job's I/O ends, as fio's */
            j->zbd_eof = 1;
            tnext = t;
            break;
        }
    placed:
        io->flags = (measuring ? 0 : NVB__IOF_RAMP) | NVB__IOF_INFLIGHT;
        io->res = 0;
        if (c->estamp) /* (the others' t_done stays 0: loop_done_at) */
            io->t_done = 0;
        if (c->wfill && io->dir == NVB_WRITE) { /* the block's content: one test per I/O when there is none */
            const uint64_t seq = (uint64_t)(j->idx + 1) << 40 | ++j->wseq;
            if (verify)
                nvb__vblock_fill_pat(io->buf, bs, seed, j->tmap[t], io->off, seq, &j->run->w->vpat);
            else
                nvb__data_fill(c->data, io->buf, io->len, io->off, seq);
        }
        j->batch[n++] = io;
    }
    j->rng = rng;
    *nfree_p = nfree;
    *tnext_p = tnext;
    return n;
}

/* submit() failed (fatal): the batch goes back to the free list and the
 * run stops. Returns the free list's new length (a value, not a pointer to
 * the loop's counter: its address escaping into a call that is not inlined
 * would keep it in memory for every I/O). */
static unsigned job_submit_failed(struct job *j, int rc, unsigned n, unsigned nfree)
{
    j->rc = rc;
    snprintf(j->why, sizeof j->why, "engine %s: submit failed: %s", j->run->p->eng->name, nvb_strerror(rc));
    __atomic_store_n(&j->run->stop, 1, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < n; i++) {
        if (j->vtrack)
            vset_del(j, j->vkey[j->batch[i]->slot]);
        j->batch[i]->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
        j->freel[nfree++] = j->batch[i];
    }
    return nfree;
}

/* When an I/O completed: the engine's stamp where it takes one
 * (NVB__ENG_STAMPS; 0: none), else now, the end of the reap that returned
 * it. */
LOOP_STEP uint64_t loop_done_at(const struct loop_cfg *c, const struct nvb__io *io, uint64_t now)
{
    return c->estamp && io->t_done ? io->t_done : now;
}

/* An I/O's latencies at its completion: lat from where its latency
 * counts (the submit call, or an open-loop rate's intended start), clat
 * from the end of the submit call (an engine's own completion stamp may
 * come earlier: clat is then 0). slat was taken at submission (job_slat).
 * Returns lat. */
LOOP_STEP uint64_t job_lat(struct nvb__dstat *ds, const struct loop_cfg *c, const struct nvb__io *io,
                           uint64_t t_done, struct nvb__hrun runs[2])
{
    const uint64_t from = c->open ? io->t_due : io->t_sub;
    const uint64_t l = t_done > from ? t_done - from : 0;
    /* the I/Os of one submit batch reaped together have equal latencies:
     * one add per run of them (hist.h) */
    const uint64_t cl = t_done > io->t_sent ? t_done - io->t_sent : 0;
    if (__builtin_expect(ds->jlat == runs[0].h && l == runs[0].v && cl == runs[1].v, 1)) {
        runs[0].n++; /* the usual case: both runs go on (clat's histogram is ds's, as lat's is) */
        runs[1].n++;
        return l;
    }
    nvb__hrun_add(&runs[0], ds->jlat, l);
    nvb__hrun_add(&runs[1], ds->jclat, cl);
    return l;
}

/* One completion of the measured window counted: latency, sums, the
 * verify check of a read, or the error with its errno. With one target
 * the target's I/O and byte counts are the loop's own (ios, bytes: the
 * loop stores them at its end, loop_run), so only more targets count them
 * per I/O. */
LOOP_STEP void job_count(struct job *j, const struct loop_cfg *c, struct nvb__io *io, uint64_t now,
                         struct live *lv, struct nvb__hrun runs[2])
{
    int d = io->dir;
    struct nvb__tstat *ts = &j->st[c->nt > 1 ? io->target : 0];
    if (c->fault && (io->flags & NVB__IOF_FAULT_DELAY))
        j->fault_delayed[d]++;
    const uint64_t t_done = loop_done_at(c, io, now);
    if (io->res == (int64_t)io->len) {
        uint64_t l = job_lat(&ts->d[d], c, io, t_done, runs);
        if (c->nt > 1) {
            ts->d[d].ios++;
            ts->d[d].bytes += io->len;
        }
        bsmix_count(c, &ts->d[d], io);
        live_add(&lv->ios[d], 1);
        live_add(&lv->bytes[d], io->len);
        live_add(&lv->lat_sum[d], l);
        if (c->verify && d == NVB_READ)
            job_verify_read(j, c->seed, io);
    } else {
        int en = io->res < 0 ? (int)-io->res : EIO;
        if (io->res >= 0)
            j->short_ios++;
        if (io->flags & NVB__IOF_FAULT_ERR)
            j->fault_err[d]++;
        else if ((io->flags & NVB__IOF_FAULT_SHORT) && io->res >= 0)
            j->fault_short[d]++;
        if (j->run->w->lat_include_errors)
            job_lat(&ts->d[d], c, io, t_done, runs);
        nvb__job_failed(j, ts, io, d, en);
    }
}

void nvb__job_readback_done(struct job *j, struct nvb__io *io)
{
    const unsigned t = io->target;
    /* its key names the block in this job's stripe, as a write's does */
    j->vkey[io->slot] = vkey_of(t, ((io->off - j->st[t].region_off) / io->len - j->vrank[t]) / j->vstride[t]);
    if (io->res == (int64_t)io->len) {
        job_verify_read(j, j->run->w->seed, io);
        return;
    }
    if (io->res >= 0)
        j->short_ios++;
    nvb__job_failed(j, &j->st[t], io, NVB_READ, io->res < 0 ? (int)-io->res : EIO);
}

/* slat of a measured batch: the submit call's time, one value for all its
 * I/Os, added once per run of consecutive I/Os of one target and
 * direction (the whole batch, with one target and direction), as fio
 * counts it: for every I/O submitted, known at submission; only those the
 * engine took (job_sub_partial), so its count is submissions.ios. */
LOOP_STEP void job_slat(struct job *j, const struct loop_cfg *c, unsigned n, uint64_t s)
{
    if (c->one) {
        if (n == 1) /* qd 1: the plain add (one multiply, add_n takes three) */
            nvb__jhist_add(c->slat1, s);
        else
            nvb__jhist_add_n(c->slat1, s, n);
        return;
    }
    for (unsigned i = 0, k; i < n; i = k) {
        const struct nvb__io *io = j->batch[i];
        for (k = i + 1; k < n && j->batch[k]->target == io->target && j->batch[k]->dir == io->dir; k++)
            ;
        nvb__jhist_add_n(j->st[io->target].d[io->dir].jslat, s, k - i);
    }
}

/* A measured submit call that did not hand its whole batch to the engine
 * (off the plain path: fault injection, or a fatal error). rc < 0: the
 * batch is taken back, nothing reached the engine. rc > 0: fault.rate
 * failed rc of the n I/Os before the engine (NVB__IOF_FAULT_ERR; counted
 * in fault.injected at their completion): they are not submissions, so no
 * slat, no lag, and a call that carried none of them to the engine is no
 * call. The batch array is scratch after the call: the I/Os that went are
 * moved to its front, in order, so that slat and lag take them as a batch. */
static __attribute__((noinline, cold)) void job_sub_partial(struct job *j, unsigned n, int rc, uint64_t ts,
                                                            uint64_t te, struct loop_cfg c)
{
    if (rc < 0 || (unsigned)rc >= n)
        return;
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (!(j->batch[i]->flags & NVB__IOF_FAULT_ERR))
            j->batch[m++] = j->batch[i];
    j->sub.calls++;
    j->sub.ios += m;
    if (c.split)
        job_slat(j, &c, m, te - ts);
    if (c.open)
        for (unsigned i = 0; i < m; i++)
            nvb__pace_lag(j, j->batch[i], ts);
}

/* The batch stamped and handed to the engine: t_sub, the clock before the
 * submit call, and t_sent, after it (one read each per batch; both stored
 * in one pass after the call, as no engine reads them, unless the engine
 * stamps t_sub itself: NVB__ENG_STAMPS), an open-loop
 * rate's intended starts. Returns the call's result (0, the I/Os fault
 * injection failed before the engine, or -errno); *ts and *te are the
 * clock before and after it. The I/Os that reached the engine are the
 * submissions (calls, ios, slat, lag): all of them on the plain path. */
LOOP_STEP int job_submit(struct job *j, const struct loop_cfg *c, int (*submit)(void *, struct nvb__io **, unsigned),
                         void *io_state, unsigned n, int measuring, uint64_t *ts_p, uint64_t *te_p)
{
    const uint64_t ts = nvb__clk_now(&c->clk);
    if (c->estamp)
        for (unsigned i = 0; i < n; i++)
            j->batch[i]->t_sub = ts;
    if (c->rate) { /* the arrivals the rate made: gaps between submit calls */
        if (measuring && j->last_sub) {
            const double g = (double)(ts - j->last_sub);
            j->sub.gaps += n;
            j->sub.gap_sum += ts - j->last_sub;
            j->sub.gap_sq += g * g;
        } else if (measuring) {
            j->sub.gaps += n - 1;
        }
        j->last_sub = ts;
    }
    int rc = submit(io_state, j->batch, n);
    const uint64_t te = c->split || c->open ? nvb__clk_now(&c->clk) : ts;
    const uint64_t sent = c->split ? te : ts;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = j->batch[i];
        if (!c->estamp)
            io->t_sub = ts;
        io->t_sent = sent;
    }
    /* the intended starts after the call (nothing reads them before the
     * next reap), so that the lag counts only what the engine took */
    if (c->open)
        nvb__pace_stamp(j, n, ts, measuring && rc == 0);
    if (measuring) {
        if (__builtin_expect(rc == 0, 1)) {
            j->sub.calls++;
            j->sub.ios += n;
            if (c->split)
                job_slat(j, c, n, te - ts);
        } else { /* a copy of c, not its address: escaping, it would stay in memory for every I/O */
            job_sub_partial(j, n, rc, ts, te, *c);
        }
    }
    *ts_p = ts;
    *te_p = te;
    return rc;
}

/* What the loop changes as it goes, in one place: its steps below take it
 * by address, and being inlined (LOOP_STEP) they leave it in registers. */
struct loop_state {
    unsigned nfree, inflight, tnext;
    unsigned think_left;        /* I/Os before the next think */
    int      measuring, past_end;
    uint64_t budget, now, te, last_done;
    uint64_t wd_ref;            /* the watchdog's reference: last completion, or when the queue last filled from empty */
    uint64_t next_scan;         /* and when it next looks at the age of each I/O in flight */
    struct live *lv;            /* the loop's counts by direction in the measured window (j->live: its
                                 * arrays, indexed by direction, kept out of this struct so that the
                                 * compiler keeps the rest in registers) */
    struct nvb__hrun runs[2];   /* lat and clat (hist.h) */
};

/* The loop's constants, set once from the workload and the job. */
static struct loop_cfg loop_cfg_of(const struct job *j)
{
    const struct run *r = j->run;
    const struct nvb_workload *w = r->w;
    const struct nvb__engine *e = r->p->eng;
    const unsigned qd = r->p->qd;
    const int mixed = w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW;
    const uint64_t io_timeout = w->io_timeout_ns;
    return (struct loop_cfg){
        .qd = qd,
        .sbatch = w->submit_batch && w->submit_batch < qd ? w->submit_batch : qd,
        .cbatch = w->complete_batch ? w->complete_batch : 1,
        .rwmix = w->rwmix,
        .tmix = mixed ? w->rwmixtrim : 0,
        .rnd = nvb__rw_random(w->rw) ? nvb__dist_rnd(&w->dist, w->random_map || w->sprandom) : 0,
        .mixed = mixed,
        .wdir = nvb__rw_trims(w->rw) ? NVB_TRIM : nvb__rw_writes(w->rw) && !mixed ? NVB_WRITE : NVB_READ,
        .verify = w->verify && !(e->flags & NVB__ENG_NO_FILES),
        .bs = (uint32_t)w->bs,
        .seed = w->seed,
        .open = j->open,
        .split = !(e->flags & NVB__ENG_SYNC),
        .one = j->nt == 1 && !mixed,
        .data = r->scramble ? &r->data : NULL,
        .wfill = (w->verify && !(e->flags & NVB__ENG_NO_FILES)) || r->scramble,
        .mix = j->mix != NULL,
        .pat = j->opat != NULL,
        .rate = j->rate_ns != 0,
        .flow = r->flow != NULL,
        .vtrack = j->vtrack,
        .fault = j->fault != NULL,
        .zbd = r->zbd != NULL,
        .estamp = (e->flags & NVB__ENG_STAMPS) != 0,
        .nooff = (nvb__engine_flags(e, r->p->eopts) & ~e->flags & NVB__ENG_NO_FILES) != 0,
        .nt = j->nt,
        .ndir = mixed ? (w->rwmixtrim ? NVB_TRIM : NVB_WRITE) + 1u
                      : (nvb__rw_trims(w->rw) ? NVB_TRIM : nvb__rw_writes(w->rw) ? NVB_WRITE : NVB_READ) + 1u,
        .think_ns = w->thinktime_ns,
        .think_blocks = w->thinktime_blocks,
        .io_timeout = io_timeout,
        .scan_ns = io_timeout / 8 < WAIT_SLICE_NS ? io_timeout / 8 + 1 : WAIT_SLICE_NS,
        .end_ns = r->end_ns,
        .meas_ns = r->meas_ns,
        .cancel = r->cancel ? &r->cancel->flag : &r->stop,
    };
}

/* Whether the loop stops submitting: a stop, or the window's end (the
 * first job to see that reads the CPU there, before anybody drains what
 * is still in flight). */
LOOP_STEP int loop_stopping(struct job *j, const struct loop_cfg *c, struct loop_state *s)
{
    const int at_end = c->end_ns && s->now >= c->end_ns;
    if (at_end && !s->past_end) {
        s->past_end = 1;
        nvb__cpu_edge(j->run, NVB__EDGE_END);
    }
    /* nvb__run_stopping, the cancel flag's address taken once */
    return __atomic_load_n(&j->run->stop, __ATOMIC_RELAXED) ||
           __atomic_load_n(c->cancel, __ATOMIC_RELAXED) || at_end;
}

/* The pacer's part before a submit call: how many I/Os may go now (free
 * slots, submit_batch, the budget, a rate's schedule, think time), and
 * those prepared. */
LOOP_STEP unsigned loop_pace(struct job *j, const struct loop_cfg *c, struct loop_state *s)
{
    unsigned room = c->qd - s->inflight;
    if (room > c->sbatch)
        room = c->sbatch;
    if (s->budget != UINT64_MAX && room > s->budget)
        room = (unsigned)s->budget;
    if (c->rate)
        room = nvb__sched_due(&j->sched, s->now, room);
    room = think_room(c->think_ns, room, s->think_left);
    if (c->flow)
        room = nvb__flow_room(j, room);
    if (c->vtrack && j->blog_max && j->blog_max - j->blog_n < (uint64_t)room + s->inflight) /* verify_backlog */
        room = j->blog_max - j->blog_n > s->inflight ? (unsigned)(j->blog_max - j->blog_n - s->inflight) : 0;
    const unsigned n = job_prepare(j, c, room, &s->nfree, &s->tnext, s->measuring);
    if (c->rate && !c->open) /* closed: the schedule paces, its starts are not stamped */
        for (unsigned i = 0; i < n; i++)
            nvb__sched_step(&j->sched);
    s->think_left -= c->think_ns ? n : 0;
    if (s->budget != UINT64_MAX && s->measuring)
        s->budget -= n;
    if (__builtin_expect(c->mix != 0, 0) && j->mix->spent)
        s->budget = 0; /* io_limit with bssplit: the job's bytes are issued */
    if (__builtin_expect(c->zbd != 0, 0) && j->zbd_eof)
        s->budget = 0;
    return n;
}

/* n prepared I/Os submitted. Returns 1 when the loop should submit again
 * at once (submit_batch below the free slots, until every free slot is
 * filled or nothing is due); *n and *stopping become 0 and 1 when the
 * engine refused the batch. */
LOOP_STEP int loop_submit(struct job *j, const struct loop_cfg *c, struct loop_state *s,
                          int (*submit)(void *, struct nvb__io **, unsigned), void *io_state, unsigned *n,
                          int *stopping)
{
    uint64_t ts;
    const int rc = job_submit(j, c, submit, io_state, *n, s->measuring, &ts, &s->te);
    if (rc < 0) {
        s->nfree = job_submit_failed(j, rc, *n, s->nfree);
        *n = 0;
        *stopping = 1;
    }
    if (!s->inflight)
        s->wd_ref = ts;
    s->inflight += *n;
    if (s->inflight == c->qd)
        j->full_since = s->te;
    if (*n == c->sbatch && s->inflight < c->qd && !*stopping && s->budget) {
        s->now = s->te;
        return 1;
    }
    return 0;
}

/* The pacer with nothing in flight: think (once the last think_left I/Os
 * completed), or sleep to a rate's next start and spin the last stretch
 * (open loop). */
LOOP_STEP void loop_idle(struct job *j, const struct loop_cfg *c, struct loop_state *s)
{
    if (c->vtrack && j->blog_max && j->blog_n >= j->blog_max)
        nvb__job_backlog(j); /* verify_backlog's check: nothing is in flight */
    if (c->think_ns && !s->think_left) {
        nvb__pace_think(j, c->rate, c->think_ns, c->end_ns);
        s->think_left = c->think_blocks;
        s->now = nvb__now_ns();
        return;
    }
    if (c->flow && (!c->rate || j->sched.next <= s->now)) { /* nothing due held back: the flow */
        nvb__flow_held(j);
        s->now = nvb__now_ns();
        return;
    }
    s->now = nvb__now_ns();
    if (!c->rate)
        return;
    uint64_t next = j->sched.next;
    if (c->end_ns && next > c->end_ns)
        next = c->end_ns;
    const uint64_t spin = c->open ? nvb__pace_spin(j) : 0;
    if (next > s->now + spin) {
        nvb__sleep_ns(next - spin - s->now);
        s->now = nvb__now_ns();
        nvb__pace_woke(j, next - spin, s->now);
    }
    const uint64_t s0 = s->now;
    while (s->now < next && !nvb__run_stopping(j->run))
        s->now = nvb__now_ns();
    if (s->measuring)
        j->sub.spin_ns += s->now - s0;
}

/* Waits for completions (how many: complete_batch when the loop cannot
 * submit, none while it can; a rate bounds the wait). Returns how many
 * came into j->done, -EINTR to go round again, or another negative errno:
 * the engine failed and the run stops. */
LOOP_STEP int loop_reap(struct job *j, const struct loop_cfg *c, struct loop_state *s,
                        int (*reap)(void *, struct nvb__io **, unsigned, unsigned), void *io_state, int stopping,
                        unsigned n)
{
    const int full = stopping || !s->budget || s->inflight >= c->qd;
    unsigned minw = 0;
    if (full || c->rate || n == 0)
        minw = c->cbatch < s->inflight ? c->cbatch : s->inflight;
    uint64_t wake_at = 0;
    int spinning = 0;
    if (c->rate)
        minw = nvb__pace_wait(j, minw, s->te, full, n, c->open ? nvb__pace_spin(j) : 0, &wake_at, &spinning);
    if (stopping && c->fault)
        nvb__fault_expire(j->fault); /* held-back completions do not hold up the stop */
    if (s->measuring && !stopping && s->budget) { /* the depth the loop keeps while it still submits */
        j->sub.waits++;
        j->sub.depth_sum += c->qd == 1 ? 1 : s->inflight; /* qd 1: what is in flight here is the one */
    }
    j->sub.reaps += s->measuring;
    const int got = reap(io_state, j->done, c->qd, minw);
    if (got < 0) {
        if (got == -EINTR || got == -EAGAIN) {
            s->now = nvb__now_ns();
            return -EINTR;
        }
        j->rc = got;
        snprintf(j->why, sizeof j->why, "engine %s: reaping completions failed: %s", j->run->p->eng->name,
                 nvb_strerror(got));
        __atomic_store_n(&j->run->stop, 1, __ATOMIC_RELAXED);
        return got; /* in-flight I/O is abandoned to the engine's teardown */
    }
    if (__builtin_expect(!got, 0))
        j->sub.empty_reaps += s->measuring;
    s->now = nvb__clk_now(&c->clk);
    if (spinning && s->measuring)
        j->sub.spin_ns += s->now - s->te;
    else if (wake_at && got == 0)
        nvb__pace_woke(j, wake_at, s->now);
    if (got > 0 && s->inflight == c->qd)
        j->freed_at = s->now;
    return got;
}

/* The watchdog after a reap: a completion renews its reference; io_timeout
 * without one abandons what is in flight. Returns 1 when the job stops. */
LOOP_STEP int loop_watchdog(struct job *j, const struct loop_cfg *c, struct loop_state *s, int got)
{
    if (got > 0)
        s->wd_ref = s->now;
    else if (c->io_timeout && s->now - s->wd_ref >= c->io_timeout && !j->stalled) {
        nvb__watch_stalled(j, s->now, s->wd_ref, s->inflight, c->io_timeout);
        return 1;
    }
    return 0;
}

#include "core/loopcount.h"

/* The got completions taken back into the free list and counted (those of
 * the measured window), the histograms made whole, the live counters
 * published. */
LOOP_STEP void loop_complete(struct job *j, const struct loop_cfg *c, struct loop_state *s, int got)
{
    const int ngot = got;
    const int count = !c->end_ns || s->now <= c->end_ns;
    if (c->plain) {
        if (loop_count_fixed(j, c, s, got, count))
            s->last_done = s->now;
        got = 0; /* all taken */
    }
    for (int i = 0; i < got; i++) {
        struct nvb__io *io = j->done[i];
        io->flags &= (uint8_t)~NVB__IOF_INFLIGHT;
        j->freel[s->nfree++] = io;
        if (c->vtrack) {
            vset_del(j, j->vkey[io->slot]);
            if (io->dir == NVB_WRITE)
                vmap_note(j, io);
        }
        if (!count || (io->flags & NVB__IOF_RAMP))
            continue;
        job_count(j, c, io, s->now, s->lv, s->runs);
        s->last_done = s->now;
    }
    nvb__hrun_flush(&s->runs[0]); /* the histograms whole before anybody reads them */
    nvb__hrun_flush(&s->runs[1]);
    s->inflight -= (unsigned)ngot;
}

/* After the completions: the watchdog's scan for one stale I/O (returns 1
 * when the job abandons what is left), and the ramp's end. */
LOOP_STEP int loop_after(struct job *j, const struct loop_cfg *c, struct loop_state *s)
{
    if (s->now >= s->next_scan && s->inflight) { /* (never without io_timeout: next_scan is UINT64_MAX) */
        s->next_scan = s->now + c->scan_ns;
        if (nvb__watch_scan(j, s->now, s->inflight, s->nfree, c->io_timeout))
            return 1;
    }
    if (!s->measuring && s->now >= c->meas_ns) {
        /* ramp over: I/O submitted before now stays flagged and uncounted */
        s->measuring = 1;
        nvb__cpu_edge(j->run, NVB__EDGE_START);
        nvb__job_reset_stats(j);
    }
    return 0;
}

/* The features a loop instance is built for (loop_run): with a bit clear,
 * every test of that feature is a constant and folds away, so that a plain
 * run pays for none of them. */
enum {
    LF_MULTI = 1,   /* more than one target, or mixed directions (rwmixread, rwmixtrim) */
    LF_VERIFY = 2,  /* verify=1, written contents (data scrambling), blocks in flight tracked */
    LF_MIX = 4,     /* bssplit */
    LF_PACE = 8,    /* rate_iops (open or closed), think time, flow */
    LF_FAULT = 16,  /* fault injection */
    LF_DIST = 32,   /* a random distribution other than uniform (random_distribution, random_map), an offset pattern */
    LF_ZBD = 64,    /* emulated zones (zone_mode=zbd) */
    LF_STAMPS = 128, /* the engine stamps its I/Os' t_sub and t_done (NVB__ENG_STAMPS) */
    LF_NOOFF = 256, /* no offsets drawn: NOPs (io_uring.nop=1); alone, the plain loop without them */
    LF_ALL = 511,
    LF_QD1 = 512    /* (with no other) qd 1: one I/O per submit and reap, every batch and run of one */
};

static unsigned loop_features(const struct loop_cfg *c)
{
    return (c->nt > 1 || c->mixed || c->tmix ? LF_MULTI : 0) | (c->verify || c->wfill || c->vtrack ? LF_VERIFY : 0) |
           (c->mix ? LF_MIX : 0) | (c->rate || c->open || c->think_ns || c->flow ? LF_PACE : 0) |
           (c->fault ? LF_FAULT : 0) | (c->rnd && c->rnd != NVB__RND_UNIFORM ? LF_DIST : 0) | (c->pat ? LF_DIST : 0) |
           (c->zbd ? LF_ZBD : 0) | (c->estamp ? LF_STAMPS : 0) | (c->nooff ? LF_NOOFF : 0);
}

/* The loop, built for the features f (a constant at each call): c's
 * fields of the features f leaves out are set to what they are in a run
 * without them, constants the compiler folds. */
LOOP_STEP void loop_run(struct job *j, struct loop_cfg c, const unsigned f)
{
    struct run *r = j->run;
    if (!(f & LF_MULTI)) {
        c.nt = 1;
        c.mixed = 0;
        c.tmix = 0;
        c.one = 1;
    }
    if (!(f & LF_VERIFY)) {
        c.verify = c.wfill = c.vtrack = 0;
        c.data = NULL;
    }
    if (!(f & LF_MIX))
        c.mix = 0;
    if (!(f & LF_PACE)) {
        c.rate = c.open = c.flow = 0;
        c.think_ns = 0;
        c.think_blocks = 0;
    }
    if (!(f & LF_FAULT))
        c.fault = 0;
    if (!(f & LF_ZBD))
        c.zbd = 0;
    if (!(f & LF_STAMPS))
        c.estamp = 0;
    if (!(f & LF_NOOFF))
        c.nooff = 0;
    else if (f != LF_ALL) /* (an instance for NOPs is only chosen for them: a constant) */
        c.nooff = 1;
    if (!(f & LF_DIST) && c.rnd)
        c.rnd = NVB__RND_UNIFORM;
    if (!(f & LF_DIST))
        c.pat = 0;
    if (f & LF_QD1)
        c.qd = c.sbatch = c.cbatch = 1;
    c.plain = (f & ~(LF_QD1 | LF_NOOFF)) == 0;
    c.clk = nvb__clock_get(); /* by value: c's address must not escape */
    if (c.one) {
        c.lat1 = j->st[0].d[c.wdir].jlat;
        c.clat1 = j->st[0].d[c.wdir].jclat;
        c.slat1 = j->st[0].d[c.wdir].jslat;
    }
    if (c.plain) /* what job_prepare then leaves as it is */
        for (unsigned i = 0; i < c.qd; i++) {
            j->ios[i].target = 0;
            j->ios[i].dir = (uint8_t)c.wdir;
            j->ios[i].len = c.bs;
        }
    /* chosen once per job (the engine's, or fault injection's): kept in
     * registers, not reloaded through j around every call */
    int (*const submit)(void *, struct nvb__io **, unsigned) = j->submit;
    int (*const reap)(void *, struct nvb__io **, unsigned, unsigned) = j->reap;
    void *const io_state = j->io_state;
    struct loop_state s = {
        .lv = &j->live, .nfree = c.qd, .think_left = c.think_blocks, .measuring = c.meas_ns <= r->go_ns, .budget = j->budget,
        .now = nvb__now_ns(),
    };
    s.last_done = s.wd_ref = s.now;
    s.next_scan = c.io_timeout ? s.now + c.scan_ns : UINT64_MAX;
    if (c.rate) /* open or closed, the rate's arrivals come from its schedule (uniform or poisson) */
        nvb__sched_start(&j->sched, r->go_ns);

    for (;;) {
        int stopping = loop_stopping(j, &c, &s);
        unsigned n = !stopping && s.budget ? loop_pace(j, &c, &s) : 0;
        s.te = s.now;
        if (n && loop_submit(j, &c, &s, submit, io_state, &n, &stopping))
            continue;
        if (!s.inflight) {
            if (stopping || !s.budget)
                break;
            loop_idle(j, &c, &s);
            continue;
        }
        const int got = loop_reap(j, &c, &s, reap, io_state, stopping, n);
        if (got == -EINTR)
            continue;
        if (got < 0 || loop_watchdog(j, &c, &s, got))
            break;
        loop_complete(j, &c, &s, got);
        if (loop_after(j, &c, &s))
            break;
    }
    if (c.nt == 1) /* the target's counts are the loop's (job_count) */
        for (int d = 0; d < NVB__NDIR; d++) {
            j->st[0].d[d].ios = j->live.ios[d];
            j->st[0].d[d].bytes = j->live.bytes[d];
        }
    nvb__job_end(j, c.open, s.now, s.last_done, s.budget);
    if (c.flow)
        nvb__flow_leave(j);
}

/* The instances, each a function of its own: the registers of one are
 * not allotted around the code of the others. */
#define LOOP_INSTANCE(name, f)                                                                                     \
    static __attribute__((noinline)) void name(struct job *j, struct loop_cfg c) { loop_run(j, c, f); }
LOOP_INSTANCE(loop_qd1, LF_QD1)
LOOP_INSTANCE(loop_plain, 0)
LOOP_INSTANCE(loop_nop, LF_NOOFF)
LOOP_INSTANCE(loop_multi, LF_MULTI)
LOOP_INSTANCE(loop_all, LF_ALL)

static void job_loop(struct job *j)
{
    struct run *r = j->run;
    const struct loop_cfg c = loop_cfg_of(j);
    const unsigned f = loop_features(&c);
    if (f == 0 && c.qd == 1)
        loop_qd1(j, c);
    else if (f == 0)
        loop_plain(j, c);
    else if (f == LF_NOOFF) /* NOPs: the plain loop, no offsets drawn */
        loop_nop(j, c);
    else if (f == LF_MULTI) /* targets and directions, nothing else */
        loop_multi(j, c);
    else
        loop_all(j, c);
    /* the last job out had the window's last counted completion */
    if (__atomic_sub_fetch(&r->counting, 1, __ATOMIC_ACQ_REL) == 0)
        nvb__cpu_edge(r, NVB__EDGE_END);
    if (j->blog_n && !j->rc && !j->stalled)
        nvb__job_backlog(j); /* the writes since the last check */
    if (r->w->verify_readback && j->vtrack && !j->rc && !j->stalled)
        nvb__job_readback(j); /* after the window: the figures are the writes' */
}

void *nvb__job_main(void *arg)
{
    struct job *j = arg;
    struct run *r = j->run;
    int rc = nvb__job_setup(j);
    nvb__mutex_lock(r->mu);
    j->rc = rc;
    int go = nvb__arrive_and_wait(r->mu, r->cv, &r->nready, &r->go);
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
    nvb__job_release(j);
    return NULL;
}
