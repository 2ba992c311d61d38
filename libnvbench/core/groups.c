/*
 * Job groups (nvb_run_groups): several workloads in one run, each with its
 * own plan, hold, jobs and sampler, started together and reported per group
 * and in total.
 *
 *  - Planning: every group is planned before anything is opened; a target
 *    written by one group and verified by another (or written by two, one
 *    of which verifies or plans zones: groups_conflict) is refused
 *    (-EBUSY) naming both groups, and so are two targets that
 *    share data through the storage stack (a loop device and what it is
 *    backed by, at any depth; a partition and its disk).
 *  - The hold: groups that write take theirs first; a group naming a target
 *    another group already holds shares that hold (the same descriptor: a
 *    block device held with O_EXCL is opened once), so a reader and a
 *    writer on one device work.
 *  - The start: each group's phase runs on a thread of its own; its start
 *    barrier is the internal one below, which waits for every group and
 *    then calls the caller's start_barrier once, on the calling thread.
 *    All jobs are released at that moment; each group then ends on its own
 *    bound (runtime, ios), and the run ends with the last one.
 *  - The calling thread meanwhile runs the caller's poll, progress (the
 *    groups' snapshots summed) and cancellation; a cancel reaches every
 *    group through one shared handle.
 *  - The result: the groups' results under "groups", the totals at the top
 *    (merge.c, as one run that did all the I/O; the process CPU once).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "util/json.h"

struct groups;

/* A group's time-series point on its way to the calling thread: the
 * point's text with the group's name as its first key. */
struct gpoint {
    struct gpoint *next;
    size_t len;
    char *s;
};

struct grp {
    struct groups *G;
    const struct nvb_workload *w;
    char name[64];
    int level;                   /* NVB__HOLD_* this group holds its targets at */
    struct plan p;
    int planned;
    struct run r;
    struct nvb_run_opts o;
    struct nvb_result *res;
    struct nvb__flow flow;       /* its flow_id's flow, when it is the step's first group of that flow */
    struct nvb__thread *thr;
    int barrier_pending;
    int finished;                /* its phase has returned (under G->mu) */
    int rc;
    struct nvb_progress last;    /* its latest progress snapshot */
    int have_last;
    char err[1024];
};

struct groups {
    struct grp *g;
    size_t n;
    struct nvb_run_opts uo;      /* the caller's */
    struct nvb_cancel cancel;    /* every group's, set by the calling thread */
    struct nvb__mutex *mu;
    struct nvb__cond *cv;
    unsigned arrived;            /* groups at the start barrier */
    size_t ndone;
    int status;                  /* the first setup failure at the barrier */
    int decided, go;             /* the barrier's answer: 0 to start */
    int fresh;                   /* a new progress snapshot */
    struct gpoint *ph, **pt;     /* points queued by the groups' threads (uo.point) */
    uint64_t pfailed;            /* points the caller's callback answered nonzero */
    int pfirst_rc;
};

/* ---- planning: names, plans, conflicts ---- */

/* Two groups on one target where one writes and the other writes or
 * verifies: their data would clash. */
/* Two groups that write one target (the same file or device, by whatever
 * name: one identity) may run together, as fio runs two jobs writing one
 * file: the guard still holds the target once for the step (the first
 * writer takes the hold, exclusive, before any group starts; the other
 * shares its descriptor: groups_prepare), so nothing outside the run can
 * write it meanwhile, and the writes themselves are the benchmark's. What
 * stays refused: a group that checks what it wrote (verify: the other's
 * writes would be mismatches), and a group that plans the target's blocks
 * as its own (emulated zones' write pointers, sprandom's invalidation);
 * targets that share data only through the storage stack (two holds). */
static int writers_share(const struct grp *a, const struct grp *b)
{
    const struct nvb_workload *x = a->w, *y = b->w;
    return a->level == NVB__HOLD_WRITE && b->level == NVB__HOLD_WRITE && !x->verify && !y->verify &&
           !x->zone_mode && !y->zone_mode && !x->sprandom && !y->sprandom;
}

static int groups_conflict(const struct grp *a, const struct grp *b, char *err, size_t errlen)
{
    /* a missing target two groups name (plan_create) is created once, by
     * the first group prepared (groups_prepare); the same name is the
     * same target below, so two writers of it are refused all the same */
    if (a->level + b->level < NVB__HOLD_WRITE + NVB__HOLD_VERIFY)
        return 0;
    const char *mism = a->level == NVB__HOLD_VERIFY || b->level == NVB__HOLD_VERIFY
                           ? " (and verification would report the other's writes as mismatches)" : "";
    const char *as = a->level == NVB__HOLD_WRITE ? "written" : "verified";
    const char *bs = b->level == NVB__HOLD_WRITE ? "written" : "verified";
    for (unsigned i = 0; i < a->p.nt; i++)
        for (unsigned k = 0; k < b->p.nt; k++) {
            char why[1200];
            if (!nvb__plan_share_data(&a->p, &a->p.t[i], &b->p, &b->p.t[k], why, sizeof why))
                continue;
            if (!why[0] && writers_share(a, b))
                continue;
            if (!why[0])
                snprintf(err, errlen, "target '%s' is %s by group '%s' and %s by group '%s' of the same run: "
                         "they would overwrite each other's data%s; writing groups share a target only without "
                         "verify, zone_mode and sprandom (readers may share it)",
                         a->p.t[i].path, as, a->name, bs, b->name, mism);
            else
                snprintf(err, errlen, "target '%s' %s by group '%s' and target '%s' %s by group '%s' of the same run "
                         "share data through the storage stack: %s; they would overwrite each other's data%s; one "
                         "writing group per set of blocks (readers may share them)", a->p.t[i].path, as, a->name,
                         b->p.t[k].path, bs, b->name, why, mism);
            return -EBUSY;
        }
    return 0;
}

/* Names, plans and conflicts, before anything is opened. 0, or negative
 * errno with the message in err and *bad the group it concerns. */
static int groups_plan(struct groups *G, size_t *bad, char *err, size_t errlen)
{
    for (size_t i = 0; i < G->n; i++) {
        struct grp *g = &G->g[i];
        *bad = i;
        if (g->w->name[0])
            snprintf(g->name, sizeof g->name, "%s", g->w->name);
        else
            snprintf(g->name, sizeof g->name, "group%zu", i);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(G->g[k].name, g->name)) {
                snprintf(err, errlen, "name: '%s' names groups %zu and %zu; each group needs a name of its own",
                         g->name, k, i);
                return -EINVAL;
            }
        char why[1024];
        int rc = nvb__plan_build(g->w, &g->p, why, sizeof why);
        if (rc < 0) {
            snprintf(err, errlen, "group '%s': %s", g->name, why);
            return rc;
        }
        g->planned = 1;
        g->level = nvb__plan_hold_level(&g->p, g->w->verify);
    }
    for (size_t i = 0; i < G->n; i++)
        for (size_t k = i + 1; k < G->n; k++) {
            *bad = k;
            int rc = groups_conflict(&G->g[i], &G->g[k], err, errlen);
            if (rc < 0)
                return rc;
        }
    /* The groups run at once: each fit alone, their sum must fit too
     * (memory, descriptors); its warnings go with the first group's. */
    if (G->n < 2)
        return 0;
    struct nvb__need sum = G->g[0].p.need;
    for (size_t i = 1; i < G->n; i++)
        nvb__need_add(&sum, &G->g[i].p.need);
    *bad = 0;
    return nvb__need_check(&sum, &G->g[0].p, err, errlen);
}

/* ---- the start barrier, the progress snapshots, the threads ---- */

/* Each group's start barrier: arrive, wait for the calling thread's
 * answer. */
static int grp_barrier(int status, void *arg)
{
    struct grp *g = arg;
    struct groups *G = g->G;
    nvb__mutex_lock(G->mu);
    if (status < 0 && G->status == 0)
        G->status = status;
    nvb__arrive_and_wait(G->mu, G->cv, &G->arrived, &G->decided);
    int go = G->go;
    nvb__mutex_unlock(G->mu);
    return go;
}

static int grp_progress(const struct nvb_progress *pg, void *arg)
{
    struct grp *g = arg;
    nvb__mutex_lock(g->G->mu);
    g->last = *pg;
    g->have_last = 1;
    g->G->fresh = 1;
    nvb__cond_signal_all(g->G->cv);
    nvb__mutex_unlock(g->G->mu);
    return 0;
}

/* A group's sampler (on the group's thread) has a final point: queued
 * for the calling thread, which alone calls the caller's callback. */
static int grp_point(const char *json, size_t len, void *arg)
{
    struct grp *g = arg;
    struct nvb__buf b = {0};
    struct gpoint *p = calloc(1, sizeof *p);
    nvb__buf_puts(&b, "{\"group\":");
    nvb__json_write_str(&b, g->name);
    if (len > 2)
        nvb__buf_putn(&b, ",", 1);
    nvb__buf_putn(&b, json + 1, len - 1);
    if (!p || b.oom) {
        free(p);
        free(b.s);
        return -ENOMEM;
    }
    p->s = b.s;
    p->len = b.len;
    nvb__mutex_lock(g->G->mu);
    *g->G->pt = p;
    g->G->pt = &p->next;
    nvb__cond_signal_all(g->G->cv);
    nvb__mutex_unlock(g->G->mu);
    return 0;
}

/* The queued points to the caller's callback, in order, outside the lock.
 * Called with G->mu held. */
static void groups_points(struct groups *G)
{
    while (G->ph) {
        struct gpoint *p = G->ph;
        G->ph = NULL;
        G->pt = &G->ph;
        nvb__mutex_unlock(G->mu);
        while (p) {
            struct gpoint *next = p->next;
            int rc = G->uo.point(p->s, p->len, G->uo.point_arg);
            if (rc && !G->pfailed++)
                G->pfirst_rc = rc;
            free(p->s);
            free(p);
            p = next;
        }
        nvb__mutex_lock(G->mu);
    }
}

static void *grp_main(void *arg)
{
    struct grp *g = arg;
    g->rc = nvb__run_phase(&g->r, g->res, &g->barrier_pending, g->err, sizeof g->err);
    if (g->barrier_pending) {
        /* failed before its barrier: the others must not wait for it */
        g->barrier_pending = 0;
        grp_barrier(g->rc < 0 ? g->rc : -ECANCELED, g);
    }
    nvb__mutex_lock(g->G->mu);
    g->finished = 1;
    g->G->ndone++;
    nvb__cond_signal_all(g->G->cv);
    nvb__mutex_unlock(g->G->mu);
    return NULL;
}

/* The groups' latest snapshots as one run's: counts and rates add, the
 * mean latency is weighted by each group's IOPS, the run is as far as its
 * least advanced group. Called with G->mu held. */
static void progress_sum(const struct groups *G, struct nvb_progress *s)
{
    memset(s, 0, sizeof *s);
    s->size = sizeof *s;
    s->done_fraction = 1;
    double latw[2] = {0, 0};
    for (size_t i = 0; i < G->n; i++) {
        const struct nvb_progress *p = &G->g[i].last;
        if (!G->g[i].have_last) {
            s->done_fraction = 0;
            continue;
        }
        if (p->elapsed_s > s->elapsed_s)
            s->elapsed_s = p->elapsed_s;
        if (p->total_s > s->total_s)
            s->total_s = p->total_s;
        for (int d = 0; d < 2; d++) {
            s->ios[d] += p->ios[d];
            s->bytes[d] += p->bytes[d];
            s->iops[d] += p->iops[d];
            s->bw_bytes_s[d] += p->bw_bytes_s[d];
            latw[d] += p->lat_mean_ns[d] * p->iops[d];
        }
        s->errors += p->errors;
        if (p->done_fraction < s->done_fraction)
            s->done_fraction = p->done_fraction;
    }
    for (int d = 0; d < 2; d++)
        s->lat_mean_ns[d] = s->iops[d] > 0 ? latw[d] / s->iops[d] : 0;
}

/* The barrier's answer, on the calling thread: the caller's start_barrier
 * once, with the first group's failure if any. Called with G->mu held. */
static void barrier_decide(struct groups *G)
{
    int status = G->status;
    nvb__mutex_unlock(G->mu);
    int b = G->uo.start_barrier ? G->uo.start_barrier(status, G->uo.start_barrier_arg) : 0;
    nvb__mutex_lock(G->mu);
    G->go = status < 0 ? status : b;
    G->decided = 1;
    nvb__cond_signal_all(G->cv);
}

/* A group's exitall fired (its sampler saw a job end): the step's groups
 * it reaches that still run stop (core/exitall.c). Called with G->mu held. */
static void groups_exitall(struct groups *G)
{
    for (size_t i = 0; i < G->n; i++) {
        struct grp *g = &G->g[i];
        if (__atomic_load_n(&g->r.exit_fired, __ATOMIC_ACQUIRE) != 1)
            continue;
        __atomic_store_n(&g->r.exit_fired, 2, __ATOMIC_RELAXED);
        for (size_t k = 0; k < G->n; k++)
            if (k != i && !G->g[k].finished && nvb__exitall_reaches(g->w, G->g[k].w))
                nvb__exitall_stop(&G->g[k].r, g->name);
    }
}

/* The calling thread while the groups run: the barrier, poll, progress and
 * cancellation, until every group's thread is done. */
static void groups_watch(struct groups *G)
{
    const struct nvb_run_opts *o = &G->uo;
    uint64_t poll_ns = (o->poll_ms ? o->poll_ms : 100) * 1000000ull;
    uint64_t next_poll = nvb__now_ns() + poll_ns;
    nvb__mutex_lock(G->mu);
    while (G->ndone < G->n) {
        if (!G->decided && G->arrived == G->n) {
            barrier_decide(G);
            continue;
        }
        nvb__cond_wait(G->cv, G->mu, o->poll && poll_ns < 50000000ull ? poll_ns : 50000000ull);
        groups_exitall(G);
        groups_points(G);
        int stop = 0;
        if (G->fresh && o->progress) {
            struct nvb_progress s;
            progress_sum(G, &s);
            G->fresh = 0;
            nvb__mutex_unlock(G->mu);
            stop = o->progress(&s, o->progress_arg) != 0;
            nvb__mutex_lock(G->mu);
        }
        if (o->poll && nvb__now_ns() >= next_poll) {
            nvb__mutex_unlock(G->mu);
            stop |= o->poll(o->poll_arg) != 0;
            nvb__mutex_lock(G->mu);
            next_poll = nvb__now_ns() + poll_ns;
        }
        if (stop || (o->cancel && o->cancel->flag))
            nvb_cancel_request(&G->cancel);
    }
    groups_points(G); /* the last ones, queued as each group ended */
    nvb__mutex_unlock(G->mu);
}

/* ---- the run ---- */

/* A missing target that a group prepared before g created (both named
 * it, as fio's jobs of one file do: fio lays it out once, before they
 * start): g is planned again, on the file as it is now. 0 or negative
 * errno (the error set in g's result). */
static int groups_replan(struct grp *g, const struct plan *const *held, unsigned nheld)
{
    int again = 0;
    for (unsigned t = 0; t < g->p.nt; t++)
        for (unsigned h = 0; h < nheld && g->p.t[t].create; h++)
            for (unsigned k = 0; k < held[h]->nt; k++)
                again |= held[h]->t[k].create && !strcmp(held[h]->t[k].path, g->p.t[t].path);
    if (!again)
        return 0;
    char why[1024];
    nvb__plan_free(&g->p);
    g->planned = 0;
    int rc = nvb__plan_build(g->w, &g->p, why, sizeof why);
    if (rc < 0) {
        snprintf(g->err, sizeof g->err, "group '%s', on the target another group created: %s", g->name, why);
        nvb__result_seterr(g->res, rc, g->err);
        return rc;
    }
    g->planned = 1;
    return 0;
}

/* Holds, layouts, preconditions: writers first, so that a reader of the
 * same target shares a writer's hold (and its lock, its O_EXCL). */
static int groups_prepare(struct groups *G, const struct plan **held, size_t *bad)
{
    unsigned nheld = 0;
    for (int level = NVB__HOLD_WRITE; level >= NVB__HOLD_READ; level--)
        for (size_t i = 0; i < G->n; i++) {
            struct grp *g = &G->g[i];
            if (g->level != level)
                continue;
            *bad = i;
            int rc = groups_replan(g, held, nheld);
            if (rc < 0)
                return rc;
            g->p.share = held;
            g->p.nshare = nheld;
            rc = nvb__run_prepare(&g->r, g->res, g->err, sizeof g->err);
            if (rc < 0)
                return rc;
            held[nheld++] = &g->p;
        }
    return 0;
}

/* Each group's phase on its thread, watched from this one. */
static int groups_phase(struct groups *G)
{
    int rc = 0;
    size_t started = 0;
    for (size_t i = 0; i < G->n; i++)
        G->g[i].have_last = 0; /* the precondition's snapshots */
    G->fresh = 0;
    for (size_t i = 0; i < G->n; i++) {
        struct grp *g = &G->g[i];
        g->o.log = NULL; /* the threads' diagnostics reach the caller as the result's warnings */
        char name[16];
        snprintf(name, sizeof name, "nvb-group-%zu", i);
        if ((rc = nvb__thread_start(&g->thr, grp_main, g, name)) < 0) {
            snprintf(g->err, sizeof g->err, "cannot start the thread of group '%s': %s", g->name, nvb_strerror(rc));
            nvb__result_seterr(g->res, rc, g->err);
            break;
        }
        started++;
    }
    if (started < G->n) {
        /* the started ones wait at the barrier: let them go, refused */
        nvb__mutex_lock(G->mu);
        G->decided = 1;
        G->go = rc;
        nvb__cond_signal_all(G->cv);
        nvb__mutex_unlock(G->mu);
        if (G->uo.start_barrier)
            G->uo.start_barrier(rc, G->uo.start_barrier_arg);
    } else {
        groups_watch(G);
    }
    for (size_t i = 0; i < started; i++)
        nvb__thread_join(G->g[i].thr);
    for (size_t i = 0; i < G->n; i++)
        G->g[i].o.log = G->uo.log;
    return rc;
}

/* The flow group i's jobs share with the step's other groups of its
 * flow_id (core/flow.c): the first such group's. NULL without flow. */
static struct nvb__flow *groups_flow(struct groups *G, size_t i)
{
    const struct nvb_workload *w = G->g[i].w;
    if (!w->flow)
        return NULL;
    for (size_t k = 0; k < i; k++)
        if (G->g[k].w->flow && G->g[k].w->flow_id == w->flow_id)
            return &G->g[k].flow;
    G->g[i].flow = (struct nvb__flow){.ios = 1};
    return &G->g[i].flow;
}

/* Each group's result and run, as nvb_run() would begin them. */
static int groups_begin(struct groups *G)
{
    unsigned parts = 0; /* data_dedupe_global: the jobs sharing one working set, numbered over the groups */
    for (size_t i = 0; i < G->n; i++)
        parts += G->g[i].w->data_dedupe_global ? G->g[i].p.jobs : 0;
    for (size_t i = 0, part = 0; i < G->n; i++) {
        struct grp *g = &G->g[i];
        g->G = G;
        g->o = G->uo;
        g->o.cancel = &G->cancel;
        g->o.progress = grp_progress;
        g->o.progress_arg = g;
        g->o.poll = NULL;
        /* one series a group, sampled on its own thread: queued for the calling thread */
        g->o.point = G->uo.point ? grp_point : NULL;
        g->o.point_arg = g;
        g->o.start_barrier = grp_barrier;
        g->o.start_barrier_arg = g;
        g->barrier_pending = 1;
        g->r.w = g->w;
        g->r.opts = &g->o;
        g->r.cancel = &G->cancel;
        g->r.p = &g->p;
        g->r.flow = groups_flow(G, i);
        g->r.dd_part0 = part;
        g->r.dd_parts = parts;
        part += g->w->data_dedupe_global ? g->p.jobs : 0;
        if (!(g->res = nvb__result_new()))
            return -ENOMEM;
        snprintf(g->res->group, sizeof g->res->group, "%s", g->name);
        int rc = nvb__run_result_begin(g->res, g->w, &g->p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The total: the groups merged, the groups kept in it. */
static int groups_result(struct groups *G, struct nvb_result **out)
{
    const struct nvb_result **parts = calloc(G->n, sizeof *parts);
    if (!parts)
        return -ENOMEM;
    for (size_t i = 0; i < G->n; i++)
        parts[i] = G->g[i].res;
    struct nvb_result *m = NULL;
    int rc = nvb__merge_groups(&m, parts, G->n);
    free(parts);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < G->n; i++) {
        m->groups[i] = G->g[i].res;
        G->g[i].res = NULL;
    }
    if (G->pfailed)
        nvb__result_warn(m, "timeseries: the point callback (--live) failed for %" PRIu64 " point%s of the groups "
                         "(first answer %d); the run went on", G->pfailed, G->pfailed == 1 ? "" : "s", G->pfirst_rc);
    *out = m;
    return 0;
}

/* Planning failed for group `bad` (or the run could not begin): a result
 * of that group's workload with the error, and the barrier told. */
static int groups_refuse(struct groups *G, size_t bad, int rc, const char *err, struct nvb_result **out)
{
    nvb__run_log(&G->uo, 0, "%s", err);
    if (G->uo.start_barrier)
        G->uo.start_barrier(rc, G->uo.start_barrier_arg);
    return nvb__run_plan_error(out, G->g[bad].w, rc, err);
}

static void groups_free(struct groups *G)
{
    for (size_t i = 0; i < G->n; i++) {
        struct grp *g = &G->g[i];
        if (g->planned)
            nvb__plan_free(&g->p);
        nvb_result_free(g->res);
    }
    while (G->ph) {
        struct gpoint *p = G->ph;
        G->ph = p->next;
        free(p->s);
        free(p);
    }
    if (G->cv)
        nvb__cond_free(G->cv);
    if (G->mu)
        nvb__mutex_free(G->mu);
    free(G->g);
}

NVB_API int nvb_run_groups(const struct nvb_workload *const *ws, size_t n, const struct nvb_run_opts *opts,
                           struct nvb_result **out)
{
    if (out)
        *out = NULL;
    if (!ws || !out || n == 0 || n > 1024)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!ws[i])
            return -EINVAL;
    struct groups G;
    memset(&G, 0, sizeof G);
    if (opts)
        memcpy(&G.uo, opts, opts->size < sizeof G.uo ? opts->size : sizeof G.uo);
    G.uo.size = sizeof G.uo;
    G.n = n;
    G.pt = &G.ph;
    const struct plan **held = calloc(n, sizeof *held);
    if (!held || !(G.g = calloc(n, sizeof *G.g))) {
        free(held);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        G.g[i].w = ws[i];
    char err[1024] = "";
    size_t bad = 0;
    int rc;
    if ((rc = nvb__mutex_new(&G.mu)) < 0 || (rc = nvb__cond_new(&G.cv)) < 0) {
        snprintf(err, sizeof err, "cannot create synchronisation objects: %s", nvb_strerror(rc));
        rc = groups_refuse(&G, 0, rc, err, out);
    } else if ((rc = groups_plan(&G, &bad, err, sizeof err)) < 0) {
        rc = groups_refuse(&G, bad, rc, err, out);
    } else if ((rc = groups_begin(&G)) < 0) {
        rc = groups_refuse(&G, 0, rc, "out of memory", out);
    } else {
        if ((rc = groups_prepare(&G, held, &bad)) < 0) {
            if (G.uo.start_barrier)
                G.uo.start_barrier(rc, G.uo.start_barrier_arg);
        } else {
            rc = groups_phase(&G);
        }
        for (size_t i = 0; i < n; i++) {
            struct grp *g = &G.g[i];
            int none = 0;
            if (rc == 0 && g->rc < 0)
                rc = g->rc;
            g->rc = nvb__run_finish(&g->r, g->res, &none, g->rc);
            g->planned = 0;
        }
        int mrc = groups_result(&G, out);
        if (mrc < 0)
            rc = mrc;
        else if (rc == 0 && (*out)->err)
            rc = (*out)->err;
    }
    groups_free(&G);
    free(held);
    return rc;
}

/* ---- validation of runs to come ---- */

/* One step planned as its run would plan it: one workload as nvb_run()
 * does, several as job groups (names, conflicts, needs summed). */
static int validate_step(const struct nvb_workload *const *ws, size_t n, size_t *bad, char *err, size_t errlen)
{
    struct groups G;
    memset(&G, 0, sizeof G);
    G.n = n;
    if (!(G.g = calloc(n, sizeof *G.g)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        G.g[i].w = ws[i];
        G.g[i].G = &G;
    }
    int rc;
    if (n == 1) {
        *bad = 0;
        rc = nvb__plan_build(ws[0], &G.g[0].p, err, errlen);
        G.g[0].planned = rc == 0;
    } else {
        rc = groups_plan(&G, bad, err, errlen);
    }
    groups_free(&G);
    return rc;
}

NVB_API int nvb_groups_validate(const struct nvb_workload *const *ws, size_t n, const unsigned *steps, size_t *bad,
                                char *err, size_t errlen)
{
    char none[1];
    if (!err || !errlen) {
        err = none;
        errlen = sizeof none;
    }
    err[0] = 0;
    if (bad)
        *bad = 0;
    if (!ws || n == 0) {
        snprintf(err, errlen, "no workloads to validate");
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!ws[i] || (steps && i && steps[i] < steps[i - 1])) {
            if (bad)
                *bad = i;
            snprintf(err, errlen, ws[i] ? "workload %zu: its step %u comes before the step %u of the one before it"
                                        : "workload %zu is NULL", i, ws[i] ? steps[i] : 0, ws[i] ? steps[i - 1] : 0);
            return -EINVAL;
        }
    }
    int rc = 0;
    for (size_t s = 0, e; rc == 0 && s < n; s = e) {
        for (e = s + 1; steps ? e < n && steps[e] == steps[s] : e < n; e++)
            ;
        size_t b = 0;
        if (e - s > 1024) {
            snprintf(err, errlen, "step %u has %zu workloads: at most 1024 job groups run at once", steps ? steps[s] : 0,
                     e - s);
            rc = -EINVAL;
        } else {
            rc = validate_step(ws + s, e - s, &b, err, errlen);
        }
        if (rc < 0 && bad)
            *bad = s + b;
    }
    return rc;
}
