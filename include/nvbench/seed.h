/*
 * nvbench/seed.h: the seed matrix's write cells (docs/steady-state.md),
 * the options a front door takes for them turned into workload keys once
 * here, so Python's seed_matrix(), Lua's nvbench.matrix.seed{} and C
 * programs add the same keys and refuse the same options with the same
 * words. (The cells themselves: nvb_seed_cell() in nvbench.h.) Included by
 * nvbench.h; include that.
 */
#ifndef NVBENCH_SEED_H
#define NVBENCH_SEED_H

#ifndef NVB_API
#include "../nvbench.h"
#endif

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The keys a seed matrix adds to its write cells, from n (option, value)
 * pairs in opts[0 .. 2n): "precondition" (sequential write passes before
 * each write cell, as the key reads it; 0 adds nothing) and steady_state's
 * options "metric" (iops, bw or lat: needed as soon as any other is
 * given), "window", "excursion", "slope", "stop" (1 unless given) and
 * "runtime" (the write cells' own cap while they wait for steady state).
 * Into buf, one "key=value\n" line per key, in the order precondition, ss,
 * ss.window, ss.excursion, ss.slope, ss.stop, runtime; the values as
 * given (the workload checks them). Returns the length of the text,
 * -EINVAL with why naming the option or the value (an unknown option, a
 * missing metric, a bad precondition, a value with a line break, opts NULL
 * with n > 0), -ENOSPC when buf is short. Thread-safe. Since 0.4. */
NVB_API int nvb_seed_write_keys(const char *const *opts, size_t n, char *buf, size_t len, char *why,
                                size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* NVBENCH_SEED_H */
