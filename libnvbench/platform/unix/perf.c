/* CPU event counters through perf_event_open(2): cycles and instructions
 * where the CPU exposes hardware counters, the kernel's software events
 * (task clock, context switches, migrations) everywhere it has perf
 * events. Counted for the opening thread and every thread started after
 * it (inherit), as the run's CPU figures are for its threads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "platform/platform.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct nvb__perf {
    int fd[NVB__PERF_N];  /* -1: not opened */
    int kernel;
    char hw_why[200];
};

static const struct {
    uint32_t type;
    uint64_t config;
    const char *name;
} events[NVB__PERF_N] = {
    [NVB__PERF_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
    [NVB__PERF_INSTR] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
    [NVB__PERF_TASK_CLOCK] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock"},
    [NVB__PERF_CTXSW] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches"},
    [NVB__PERF_MIGR] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations"},
};

/* What perf_event_open's errno means for the event (perf_event_open(2)). */
static const char *meaning(int e)
{
    switch (e) {
    case ENOENT:
        return "ENOENT: the CPU exposes no such event (no hardware performance counters: a virtual machine "
               "without a virtual PMU, or a CPU the kernel has no events for)";
    case ENODEV:
    case EOPNOTSUPP:
        return "EOPNOTSUPP/ENODEV: the CPU's counters do not support this kind of counting";
    case EACCES:
    case EPERM:
        return "EACCES/EPERM: not permitted (kernel.perf_event_paranoid, or no CAP_PERFMON)";
    case ENOSYS:
        return "ENOSYS: the kernel has no perf events (CONFIG_PERF_EVENTS)";
    case EBUSY:
        return "EBUSY: the counters are taken (another user, the NMI watchdog or the hypervisor)";
    case EMFILE:
    case ENFILE:
        return "EMFILE: no descriptor left";
    case EINVAL:
        return "EINVAL: the kernel refused the event's settings";
    default:
        return "the kernel refused it";
    }
}

static int open_one(int i, int kernel)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = events[i].type;
    a.config = events[i].config;
    a.disabled = 1;
    a.inherit = 1; /* the job threads and the kernel threads they start */
    a.exclude_hv = 1;
    a.exclude_kernel = !kernel;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

int nvb__perf_open(struct nvb__perf **out, char *why, size_t len)
{
    struct nvb__perf *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->kernel = 1;
    /* the task clock decides the scope: kernel work counted unless only
     * user space is allowed (perf_event_paranoid 2 without privilege) */
    int rc = open_one(NVB__PERF_TASK_CLOCK, 1);
    if (rc == -EACCES || rc == -EPERM) {
        p->kernel = 0;
        rc = open_one(NVB__PERF_TASK_CLOCK, 0);
    }
    if (rc < 0) {
        snprintf(why, len, "perf_event_open(%s) failed with %s", events[NVB__PERF_TASK_CLOCK].name, meaning(-rc));
        free(p);
        return rc;
    }
    p->fd[NVB__PERF_TASK_CLOCK] = rc;
    for (int i = 0; i < NVB__PERF_N; i++) {
        if (i == NVB__PERF_TASK_CLOCK)
            continue;
        p->fd[i] = open_one(i, p->kernel);
        if (p->fd[i] < 0 && events[i].type == PERF_TYPE_HARDWARE && !p->hw_why[0])
            snprintf(p->hw_why, sizeof p->hw_why, "perf_event_open(%s) failed with %s", events[i].name,
                     meaning(-p->fd[i]));
    }
    if (p->hw_why[0]) /* both or neither: a ratio of one needs the other */
        for (int i = 0; i < NVB__PERF_N; i++)
            if (events[i].type == PERF_TYPE_HARDWARE && p->fd[i] >= 0) {
                close(p->fd[i]);
                p->fd[i] = -1;
            }
    *out = p;
    return 0;
}

void nvb__perf_enable(struct nvb__perf *p, int on)
{
    for (int i = 0; p && i < NVB__PERF_N; i++)
        if (p->fd[i] >= 0)
            ioctl(p->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

int nvb__perf_read(struct nvb__perf *p, struct nvb__perf_counts *c)
{
    memset(c, 0, sizeof *c);
    c->kernel = p->kernel;
    snprintf(c->hw_why, sizeof c->hw_why, "%s", p->hw_why);
    for (int i = 0; i < NVB__PERF_N; i++) {
        uint64_t v[3]; /* value, time enabled, time running */
        if (p->fd[i] < 0)
            continue;
        if (read(p->fd[i], v, sizeof v) != (ssize_t)sizeof v)
            return errno ? -errno : -EIO;
        if (v[2] && v[2] < v[1]) {
            /* shared with other users for part of the window: the kernel's
             * estimate over the whole of it */
            v[0] = (uint64_t)((double)v[0] * ((double)v[1] / (double)v[2]));
            c->scaled = 1;
        }
        c->v[i] = v[0];
        c->have[i] = 1;
    }
    return 0;
}

void nvb__perf_close(struct nvb__perf *p)
{
    for (int i = 0; p && i < NVB__PERF_N; i++)
        if (p->fd[i] >= 0)
            close(p->fd[i]);
    free(p);
}
