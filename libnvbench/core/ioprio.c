/*
 * I/O priorities (the ioprio_class, ioprio, cmdprio_pct, cmdprio_class and
 * cmdprio keys): a job's own priority, set on its thread before its
 * engine's setup (every engine's I/O then carries it, as the kernel gives
 * a request the priority of the thread that issues it), and a share of its
 * I/Os at another priority, set per I/O by the engines whose kernel
 * interface takes one (io_uring's sqe->ioprio, libaio's aio_reqprio).
 *
 * Values are the kernel's: class << 13 | level; class 0 (none) with a
 * level means best effort at that level. A class of real time needs
 * CAP_SYS_ADMIN or CAP_SYS_NICE: without them the job (ioprio_set) or each
 * such I/O (EPERM) fails, with the reason.
 */
#include <errno.h>
#include <stdio.h>

#include "core/run.h"

#define PRIO_CLASS_SHIFT 13
#define PRIO_CLASS_RT 1
#define PRIO_CLASS_BE 2

static uint16_t prio_value(unsigned cls, unsigned level)
{
    return (uint16_t)((cls ? cls : PRIO_CLASS_BE) << PRIO_CLASS_SHIFT | level);
}

int nvb__prio_plan(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    if (w->cmdprio_pct && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_PRIO)) {
        snprintf(err, errlen, "cmdprio_pct '%u': engine '%s' sets no priority per I/O (io_uring and libaio do); "
                 "ioprio_class and ioprio give all of a job's I/O one priority on every engine", w->cmdprio_pct,
                 p->eng->name);
        return -ENOTSUP;
    }
    return 0;
}

int nvb__prio_job(struct job *j, struct nvb__prio *out)
{
    const struct nvb_workload *w = j->run->w;
    *out = (struct nvb__prio){0};
    if (w->ioprio_class || w->ioprio) {
        out->dflt = prio_value(w->ioprio_class, w->ioprio);
        int rc = nvb__ioprio_set(out->dflt);
        if (rc < 0) {
            snprintf(j->why, sizeof j->why, "ioprio_class %u, ioprio %u: setting the job thread's I/O priority "
                     "failed: %s%s", w->ioprio_class, w->ioprio, nvb_strerror(rc),
                     rc == -EPERM ? " (the real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE)" : "");
            return rc;
        }
        nvb__used_set(&j->used, "ioprio", "class %u level %u", out->dflt >> PRIO_CLASS_SHIFT, w->ioprio);
    }
    if (w->cmdprio_pct) {
        /* fio's cmdprio_class default: real time */
        out->cmd = prio_value(w->cmdprio_class ? w->cmdprio_class : PRIO_CLASS_RT, w->cmdprio);
        out->cmd_pct = w->cmdprio_pct;
        nvb__used_set(&j->used, "cmdprio", "%u%% at class %u level %u", w->cmdprio_pct,
                      out->cmd >> PRIO_CLASS_SHIFT, w->cmdprio);
        out->rng = w->seed ^ 0x9e1f5a17c0de2026ull ^ (0xd1342543de82ef95ull * (j->idx + 1));
    }
    return 0;
}
