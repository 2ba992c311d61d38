/* Portable CPU arithmetic (internal); see docs/cpu-accounting.md. */
#ifndef NVB_CORE_CPU_H
#define NVB_CORE_CPU_H

#include <stdint.h>

#include "platform/platform.h"

struct nvb_result;

struct nvb__cpu_split {       /* percentages of the elapsed total */
    double busy, user, sys, irq, iowait, steal, idle;
};

void     nvb__cpu_times_delta(const struct nvb__cpu_times *a, const struct nvb__cpu_times *b,
                              struct nvb__cpu_times *d);
uint64_t nvb__cpu_busy(const struct nvb__cpu_times *c);
uint64_t nvb__cpu_total(const struct nvb__cpu_times *c);
void     nvb__cpu_split(const struct nvb__cpu_times *d, struct nvb__cpu_split *out);
/* Whole-system busy % between two samples. */
double   nvb__cpu_busy_pct(const struct nvb__sys_sample *a, const struct nvb__sys_sample *b);
/* Fill a result's system figures and per-CPU row; 0, or -1 out of memory
 * (the totals are filled even then). */
int      nvb__cpu_fill(struct nvb_result *res, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b);

#endif
