/*
 * nvbench/value.h: a workload key's value as a number, read by the key
 * table's own parser, so that bindings and front doors that need a size
 * or a duration outside a workload (a scratch file's size, a latency
 * bound, a step of a sweep) keep no parser of their own; and the labels
 * they derive from a workload (the direction of an rw mode, a size as
 * text), written once here. Included by nvbench.h; include that.
 */
#ifndef NVBENCH_VALUE_H
#define NVBENCH_VALUE_H

#ifndef NVB_API
#include "../nvbench.h"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The number `text` stands for as workload key `key` reads it, into
 * *value: bytes for a size key ("size", "bs", "offset": "4k", "1M", "2G",
 * binary units; a signed size in two's complement), nanoseconds for a
 * duration key ("runtime", "ramp", "interval": "500ms", "2s", a bare
 * number in the key's unit), the integer for a count ("qd", "jobs"). The
 * same parser and range as nvb_workload_set(), and on failure the same
 * message (naming the key and the value) into why (cut at why_len; why
 * may be NULL when why_len is 0). Returns 0, -EINVAL (text not a value of
 * the key, key unknown or of a kind that is not a number: an enum, a
 * string, a bool, a percentage; key, text or value NULL), -ERANGE (out of
 * the key's range) or -ENOMEM; *value is untouched on error. Thread-safe.
 * Since 0.4. */
NVB_API int nvb_workload_key_parse(const char *key, const char *text, uint64_t *value, char *why, size_t why_len);

/* The direction of an rw mode, as results are labelled and tables grouped:
 * "read" (read, randread), "write" (write, randwrite), "trim" (trim,
 * randtrim) or "mixed" (rw, randrw, and fio's readwrite, trimwrite,
 * randtrimwrite); any case. NULL for anything else (and NULL). A static
 * string. Thread-safe. Since 0.4. */
NVB_API const char *nvb_rw_op(const char *rw);

/* bytes as the library writes a size in its messages and the bindings in
 * their labels (a seed cell "rand4k", a block size in a table): the
 * largest binary unit that divides it, "4k", "64k", "1M", "3G", "512";
 * "0" for 0. Into buf (len bytes, terminated, cut when short). Returns the
 * length of the whole text, -ENOSPC when it was cut, -EINVAL (buf NULL
 * with len > 0). Thread-safe. Since 0.4. */
NVB_API int nvb_size_format(uint64_t bytes, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* NVBENCH_VALUE_H */
