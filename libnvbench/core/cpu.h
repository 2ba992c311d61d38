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
/* Whole-machine shares need this many ticks per CPU in their window: one
 * tick is then at most 10 points of a share (docs/cpu-accounting.md). */
#define NVB__CPU_MIN_TICKS 10
/* Ticks per CPU between two samples (ncpus: when the samples have no
 * per-CPU rows); 0 when their resolution is unknown. */
double   nvb__cpu_ticks(const struct nvb__sys_sample *a, const struct nvb__sys_sample *b, int ncpus);
/* Whole-system busy % between two samples; -1 when they are too few ticks
 * apart to say. */
double   nvb__cpu_busy_pct(const struct nvb__sys_sample *a, const struct nvb__sys_sample *b);
/* Fill a result's system figures and per-CPU row from two samples taken at
 * the same moments as the process's CPU, which used own_user_ns and
 * own_sys_ns between them: busy is never below that (reconciled), and with
 * too few ticks the figures are not valid and cpu_null_reason says why.
 * 0, or -1 out of memory (the totals are filled even then). */
int      nvb__cpu_fill(struct nvb_result *res, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b,
                       uint64_t own_user_ns, uint64_t own_sys_ns);

#endif
