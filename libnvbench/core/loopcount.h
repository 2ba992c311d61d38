/*
 * The loop's steps that count completions on the plain path (one target
 * and direction, no feature: loop_run's plain instances): included by
 * core/job.c alone, after its LOOP_STEP, struct loop_cfg, struct
 * loop_state, live_add and job_count, so that the compiler inlines them
 * into the loop.
 */
#ifndef NVB_CORE_LOOPCOUNT_H
#define NVB_CORE_LOOPCOUNT_H

/* A run of rn completions of equal lat and clat l, cl, added (one
 * target and direction). */
LOOP_STEP void loop_add_run(const struct loop_cfg *c, uint64_t l, uint64_t cl, unsigned rn)
{
    if (rn == 1) { /* a run of one: the plain adds */
        nvb__jhist_add(c->lat1, l);
        nvb__jhist_add(c->clat1, cl);
    } else {
        nvb__jhist_add_n(c->lat1, l, rn);
        nvb__jhist_add_n(c->clat1, cl, rn);
    }
}

/* The flags of a completion that is not counted: one of the ramp, or
 * any once the window closed (count 0; every I/O reaped carries
 * NVB__IOF_INFLIGHT): one test per I/O instead of two. */
LOOP_STEP unsigned loop_skip_mask(int count)
{
    return count ? NVB__IOF_RAMP : NVB__IOF_INFLIGHT | NVB__IOF_RAMP;
}

/* loop_count_fixed at qd 1: the one completion reap can return. */
LOOP_STEP unsigned loop_count_one(struct job *j, const struct loop_cfg *c, struct loop_state *s, int got,
                                  int count)
{
    if (!got)
        return 0;
    struct nvb__io *io = j->done[0];
    const uint8_t fl = io->flags; /* (NVB__IOF_INFLIGHT stays: nvb__watch_scan) */
    j->freel[s->nfree++] = io;
    if (fl & loop_skip_mask(count))
        return 0;
    if (__builtin_expect(io->res != (int64_t)c->bs, 0)) {
        job_count(j, c, io, s->now, s->lv, s->runs);
        return 1;
    }
    const uint64_t t_done = loop_done_at(c, io, s->now);
    const uint64_t l = t_done > io->t_sub ? t_done - io->t_sub : 0;
    const uint64_t cl = t_done > io->t_sent ? t_done - io->t_sent : 0;
    nvb__jhist_add(c->lat1, l);
    nvb__jhist_add(c->clat1, cl);
    const int d = c->wdir;
    live_add(&s->lv->ios[d], 1);
    live_add(&s->lv->bytes[d], c->bs);
    live_add(&s->lv->lat_sum[d], l);
    return 1;
}

/* loop_complete's completions with one target and direction, without
 * bssplit, verify, fault injection or an open-loop rate (the plain
 * instance): the I/Os of one submit batch reaped together carry the same
 * stamps, so one compare of the stamps continues their run of equal
 * latencies (added once, as hist.h's runs are) without computing them
 * again. An I/O that failed is job_count's. Returns how many were
 * counted. */
LOOP_STEP unsigned loop_count_fixed(struct job *j, const struct loop_cfg *c, struct loop_state *s, int got,
                                    int count)
{
    const int d = c->wdir;
    const uint64_t now = s->now;
    if (c->qd == 1) /* at most one completion (reap's max): no runs */
        return loop_count_one(j, c, s, got, count);
    const unsigned skip = loop_skip_mask(count);
    uint64_t sub = 0, sent = 0, done = 0, l = 0, cl = 0, latsum = 0, nok = 0;
    unsigned skipped = 0, rn = 0; /* rn: the current run's I/Os (stamps sub, sent, done) */
    for (int i = 0; i < got; i++) {
        struct nvb__io *io = j->done[i];
        const uint8_t fl = io->flags; /* (NVB__IOF_INFLIGHT stays: nvb__watch_scan) */
        j->freel[s->nfree++] = io;
        if (fl & skip) {
            skipped++; /* (the rare case counted: the others are got - skipped) */
            continue;
        }
        const uint64_t t_done = loop_done_at(c, io, now);
        if (__builtin_expect(io->res != (int64_t)c->bs, 0)) {
            job_count(j, c, io, now, s->lv, s->runs);
            continue;
        }
        /* (t_done is now for all of them unless the engine stamps it) */
        if (__builtin_expect(rn && io->t_sub == sub && io->t_sent == sent && (!c->estamp || t_done == done), 1)) {
            rn++;
            continue;
        }
        if (rn) {
            loop_add_run(c, l, cl, rn);
            latsum += l * rn;
            nok += rn;
        }
        sub = io->t_sub;
        sent = io->t_sent;
        done = t_done;
        l = t_done > sub ? t_done - sub : 0;
        cl = t_done > sent ? t_done - sent : 0;
        rn = 1;
    }
    if (rn) {
        loop_add_run(c, l, cl, rn);
        latsum += l * rn;
        nok += rn;
    }
    live_add(&s->lv->ios[d], nok);
    live_add(&s->lv->bytes[d], nok * c->bs);
    live_add(&s->lv->lat_sum[d], latsum);
    return (unsigned)got - skipped;
}

#endif
