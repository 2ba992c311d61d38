/*
 * exitall: the end of a job stops others (fio's exitall and exit_what).
 * A workload with exitall=group or step fires once the first of its jobs
 * has ended (its bound reached, or an error): its own other jobs stop at
 * once (the sampler, below); in nvb_run_groups the calling thread spreads
 * it to the step's groups it reaches (groups.c), which stop as their
 * runtime's end would stop them: what they did so far is their result,
 * with a warning naming the group that stopped them. A stop is not a
 * cancel: the run's status stays 0.
 */
#include <stdio.h>

#include "core/run.h"

void nvb__exitall_stop(struct run *r, const char *by)
{
    if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
        return; /* stopping already: a cancel, an error, steady state, or exitall */
    /* the sampler (its own jobs' end) and the calling thread (another
     * group's) may both get here: the first claims exit_by, which is read
     * only once every thread of the run has ended */
    int none = 0;
    if (!__atomic_compare_exchange_n(&r->exit_stopped, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    snprintf(r->exit_by, sizeof r->exit_by, "%s", by);
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
}

void nvb__exitall_fire(struct run *r)
{
    if (r->w->exitall == NVB__EXIT_OFF || r->ndone == 0 || __atomic_load_n(&r->exit_fired, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&r->exit_fired, 1, __ATOMIC_RELEASE);
    nvb__exitall_stop(r, "");
}

int nvb__exitall_reaches(const struct nvb_workload *from, const struct nvb_workload *to)
{
    return from->exitall == NVB__EXIT_STEP ||
           (from->exitall == NVB__EXIT_GROUP && from->exitall_group == to->exitall_group);
}

void nvb__exitall_note(const struct run *r, struct nvb_result *res)
{
    if (!__atomic_load_n(&r->exit_stopped, __ATOMIC_ACQUIRE))
        return;
    unsigned stopped = 0;
    for (unsigned i = 0; i < r->p->jobs; i++)
        stopped += r->jobs[i].by_stop != 0;
    if (!stopped)
        return; /* every job had reached its own end */
    if (r->exit_by[0])
        nvb__result_warn(res, "exitall: %u of its %u job%s stopped when group '%s' ended (its exitall): the figures "
                         "cover the run up to then", stopped, r->p->jobs, r->p->jobs == 1 ? "" : "s", r->exit_by);
    else
        nvb__result_warn(res, "exitall=%s: the first of its %u jobs to end stopped the other %u: the figures cover "
                         "the run up to then", r->w->exitall == NVB__EXIT_STEP ? "step" : "group", r->p->jobs,
                         stopped);
}
