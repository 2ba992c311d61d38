/* CPU event counters: Windows has no perf_event_open; its counterparts
 * (the kernel's PMC sessions through ETW, QueryThreadCycleTime) are not
 * read yet. core/explain_perf.c records the reason. */
#include "platform/platform.h"

#include <errno.h>
#include <stdio.h>

int nvb__perf_open(struct nvb__perf **p, char *why, size_t len)
{
    *p = NULL;
    snprintf(why, len, "not measured on Windows: the CPU's event counters are not read there");
    return -ENOTSUP;
}

void nvb__perf_enable(struct nvb__perf *p, int on)
{
    (void)p;
    (void)on;
}

int nvb__perf_read(struct nvb__perf *p, struct nvb__perf_counts *c)
{
    (void)p;
    (void)c;
    return -ENOTSUP;
}

void nvb__perf_close(struct nvb__perf *p) { (void)p; }
