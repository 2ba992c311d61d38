/*
 * bindings.h - what the language bindings that link libnvbench's static
 * archive may use beyond include/nvbench.h.
 *
 * Nothing here is ABI: these functions are hidden (no NVB_API, not in
 * libnvbench.map) and may change with the library. They exist so that a
 * binding asks the library instead of keeping a copy of its tables, which
 * drifts (Python's list of duration keys once lacked io_timeout and
 * fault.delay). The Python extension links the archive (setup.py); a
 * binding that loads libnvbench.so cannot use them.
 */
#ifndef NVB_CORE_BINDINGS_H
#define NVB_CORE_BINDINGS_H

#include <stddef.h>

/* The workload's core keys, in the order of the library's key table: the
 * name of key i, or NULL when i is past the last one. *type (may be NULL)
 * is how its value is parsed: "size", "duration", "uint", "u64", "bool",
 * "enum", "engine", "cpulist", "string", "prob" or "errno"; *doc (may be
 * NULL) is its one-line help (nvb_workload_key_info() has every column). Engine options ("io_uring.sqpoll") are
 * not listed: they belong to the engines' option tables. Thread-safe: the
 * table is constant. */
const char *nvb__workload_key(size_t i, const char **type, const char **doc);

struct nvb_workload;
/* Target i of w (its path), or NULL past the last: what a workload made by
 * nvb_workload_from_json() runs on, for the bindings to show. */
const char *nvb__workload_target(const struct nvb_workload *w, size_t i);
/* The key of engine option i set on w ("io_uring.sqpoll"), in the order
 * they were set, or NULL past the last; its value is nvb_workload_get(). */
const char *nvb__workload_engine_opt(const struct nvb_workload *w, size_t i);

#endif
