/*
 * keys.h - the workload key table (core/keys.c): each key described once.
 *
 * One row per key holds everything any part of nvbench needs to know about
 * it: how its value is parsed and where it is stored (workload.c), its name
 * in a result's echo (echo.c reads and writes by it), and what front doors
 * and docs show (nvb_workload_key_info(): nvbench run --help, the keys table
 * of docs/api.md made by docs/gen_keys.py, the bindings' lists). Adding a key
 * is a row here, the code that uses it and a test.
 */
#ifndef NVB_CORE_KEYS_H
#define NVB_CORE_KEYS_H

#include <stddef.h>
#include <stdint.h>

enum ktype { K_SIZE, K_DURATION, K_UINT, K_BOOL, K_ENUM, K_ENGINE, K_CPULIST, K_STRING, K_U64, K_PROB, K_ERRNO, K_PCT, K_BSSPLIT, K_USEC, K_DIST, K_SSIZE };

/* A key whose two values in two results mean the two measured different
 * things (nvbench compare names such a difference). */
#define NVB__KEY_MEASURES 1u
/* fio's option (the fio column) takes the key's value as it is: a fio job
 * file's value is passed through unchanged (core/fiomap_opt.c). */
#define NVB__KEY_FIO_AS_IS 2u

struct keydef {
    const char *name;
    enum ktype type;
    size_t off;                 /* in struct nvb_workload */
    uint64_t min, max;          /* for sizes, durations and integers */
    const char *const *names;   /* for enums: index = value */
    /* The key's name in a result's "workload" echo when it is not the key
     * itself: "<key>_s" for a duration (exact decimal seconds), a dotted
     * name for a member of a nested object ("fault.delay_s" is
     * {"fault":{"delay_s":...}}; such keys stand together in the table).
     * The echo's writer and its reader (nvb_workload_from_json) both go by
     * this one name, so every key round-trips through a result. */
    const char *echo;
    const char *unit;           /* what a bare number means ("bytes", "seconds"); NULL: none */
    const char *group;          /* "workload", "region", "timing", "data", "rate", ... */
    const char *fio;            /* fio's option of the same meaning; NULL: none */
    unsigned flags;             /* NVB__KEY_* */
    const char *help;           /* one line, plain text (nvbench run --help) */
    /* docs/api.md's columns, markdown: the default when the value alone
     * would not say it (NULL: the value of a new workload), the values
     * taken (NULL: none stated) and the meaning (NULL: help). */
    const char *dflt, *range, *doc;
};

extern const struct keydef nvb__keys[];
extern const size_t nvb__nkeys;
extern const char *const nvb__rw_names[];
extern const char *const nvb__ktype_names[];

#endif
