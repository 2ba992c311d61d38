/*
 * Flow control between jobs (the flow, flow_id and flow_sleep keys): the
 * jobs of a run, or of the groups of one step, that share a flow_id keep
 * the counts of the I/Os they issue to the ratio of their weights.
 *
 * A flow counts the I/Os its jobs issued (starting from 1) and sums their
 * weights. Before each I/O a job compares its own count's share of the
 * flow's with its weight's share of the flow's weight: while the first is
 * larger the job issues nothing (it reaps what it has in flight, then
 * sleeps flow_sleep or yields), else the I/O is counted in both. So no
 * job runs ahead of its share by more than the I/Os one check lets
 * through, and the faster jobs wait for the slower. This is fio's flow
 * (weights since fio 3.21; flow_watermark is gone there too).
 *
 * The counts are shared by threads without a lock: each is one atomic
 * add; a check may read another job's add late, which lets at most one
 * more I/O through, as in fio. A job that ends takes its I/Os and weight
 * out, so the jobs still running are not held back by one that is gone.
 */
#include "core/run.h"

void nvb__flow_join(struct run *r)
{
    const struct nvb_workload *w = r->w;
    if (!w->flow)
        return;
    if (!r->flow) {
        r->own_flow = (struct nvb__flow){.ios = 1};
        r->flow = &r->own_flow;
    }
    __atomic_add_fetch(&r->flow->weight, (uint64_t)w->flow * r->p->jobs, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < r->p->jobs; i++)
        r->jobs[i].flow_ios = 0;
}

/* One I/O of the job may go: its share of the flow's I/Os is at most its
 * weight's share (fio's test, in integers: mine / all <= w / W). */
static int flow_may(const struct job *j, struct nvb__flow *f, uint64_t w)
{
    const uint64_t all = __atomic_load_n(&f->ios, __ATOMIC_RELAXED);
    const uint64_t W = __atomic_load_n(&f->weight, __ATOMIC_RELAXED);
    return (unsigned __int128)j->flow_ios * W <= (unsigned __int128)w * all;
}

unsigned nvb__flow_room(struct job *j, unsigned room)
{
    struct nvb__flow *f = j->run->flow;
    const uint64_t w = j->run->w->flow;
    unsigned n = 0;
    while (n < room && flow_may(j, f, w)) {
        __atomic_add_fetch(&f->ios, 1, __ATOMIC_RELAXED);
        j->flow_ios++;
        n++;
    }
    return n;
}

void nvb__flow_held(struct job *j)
{
    const uint64_t ns = j->run->w->flow_sleep_ns;
    if (ns)
        nvb__sleep_ns(ns);
    else
        nvb__yield();
}

void nvb__flow_leave(struct job *j)
{
    struct nvb__flow *f = j->run->flow;
    if (!f)
        return;
    __atomic_sub_fetch(&f->ios, j->flow_ios, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&f->weight, (uint64_t)j->run->w->flow, __ATOMIC_RELAXED);
    j->flow_ios = 0;
}
