/*
 * The published seed matrix's cells (docs/analysis.md, "The seed matrix"):
 * four workloads (random 4K, random 64K, sequential 64K, sequential 128K),
 * each read, then each write, in the articles' order. The one copy of the
 * table: the C example seed_matrix, Python's nvbench.matrix.SEED_CELLS and
 * Lua's nvbench.matrix.cells read it through nvb_seed_cell().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "nvbench.h"

static const struct seed_cell {
    const char *key, *workload, *op, *rw, *bs, *label;
} cells[] = {
    {"rand4k_read", "rand4k", "read", "randread", "4k", "Random 4K read"},
    {"rand64k_read", "rand64k", "read", "randread", "64k", "Random 64K read"},
    {"seq64k_read", "seq64k", "read", "read", "64k", "Sequential 64K read"},
    {"seq128k_read", "seq128k", "read", "read", "128k", "Sequential 128K read"},
    {"rand4k_write", "rand4k", "write", "randwrite", "4k", "Random 4K write"},
    {"rand64k_write", "rand64k", "write", "randwrite", "64k", "Random 64K write"},
    {"seq64k_write", "seq64k", "write", "write", "64k", "Sequential 64K write"},
    {"seq128k_write", "seq128k", "write", "write", "128k", "Sequential 128K write"},
};

size_t nvb_seed_cells(void)
{
    return sizeof cells / sizeof cells[0];
}

int nvb_seed_cell(size_t i, const char *field, const char **value)
{
    if (!field || !value)
        return -EINVAL;
    if (i >= nvb_seed_cells())
        return -ERANGE;
    const struct seed_cell *c = &cells[i];
    static const char *const names[] = {"key", "workload", "op", "rw", "bs", "label"};
    const char *const of[] = {c->key, c->workload, c->op, c->rw, c->bs, c->label};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(field, names[k]) == 0) {
            *value = of[k];
            return 0;
        }
    }
    return -EINVAL;
}

/* The options of the write cells (precondition, and steady_state's) and the
 * keys they set (docs/steady-state.md); "runtime" is the write cells' own
 * cap while they wait for steady state. The order is the output's. */
static const struct {
    const char *option, *key;
} write_options[] = {
    {"precondition", "precondition"}, {"metric", "ss"}, {"window", "ss.window"}, {"excursion", "ss.excursion"},
    {"slope", "ss.slope"}, {"stop", "ss.stop"}, {"runtime", "runtime"},
};
#define NWRITE_OPTIONS (sizeof write_options / sizeof write_options[0])

static int write_fail(char *why, size_t why_len, const char *fmt, const char *a)
{
    if (why && why_len)
        snprintf(why, why_len, fmt, a);
    return -EINVAL;
}

/* Each option's value (NULL: not given), or -EINVAL with why. */
static int write_values(const char *const *opts, size_t n, const char **val, char *why, size_t why_len)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = opts[2 * i], *v = opts[2 * i + 1];
        size_t k = 0;
        while (name && k < NWRITE_OPTIONS && strcmp(name, write_options[k].option))
            k++;
        if (!name || k == NWRITE_OPTIONS)
            return write_fail(why, why_len, "steady_state: unknown option '%s' (known: metric, window, excursion, "
                              "slope, stop, runtime)", name ? name : "(null)");
        if (!v || strchr(v, '\n'))
            return write_fail(why, why_len, "invalid value for option '%s': none, or a line break", name);
        val[k] = v;
    }
    return 0;
}

int nvb_seed_write_keys(const char *const *opts, size_t n, char *buf, size_t len, char *why, size_t why_len)
{
    const char *val[NWRITE_OPTIONS] = {0};
    if ((!opts && n) || (!buf && len))
        return -EINVAL;
    if (len)
        buf[0] = 0;
    int rc = write_values(opts, n, val, why, why_len);
    if (rc)
        return rc;
    uint64_t passes;
    /* "random" is the one word precondition takes (one pass with planned invalidation) */
    int random = val[0] && !strcmp(val[0], "random");
    if (val[0] && !random && (rc = nvb_workload_key_parse("precondition", val[0], &passes, why, why_len)) < 0)
        return rc;
    if (val[0] && !random && passes == 0)
        val[0] = NULL; /* no pass: no key */
    int ss = 0;
    for (size_t k = 1; k < NWRITE_OPTIONS; k++)
        ss |= val[k] != NULL;
    if (ss && (!val[1] || !*val[1]))
        return write_fail(why, why_len, "%s", "steady_state needs a metric: iops, bw or lat");
    if (ss && !val[5])
        val[5] = "1"; /* judged: ended when steady, unless stop says otherwise */
    size_t out = 0;
    for (size_t k = 0; k < NWRITE_OPTIONS; k++) {
        if (!val[k])
            continue;
        int m = snprintf(buf ? buf + (out < len ? out : len) : NULL, out < len ? len - out : 0, "%s=%s\n",
                         write_options[k].key, val[k]);
        out += (size_t)m;
    }
    return out < len || (!len && !out) ? (int)out : -ENOSPC;
}
