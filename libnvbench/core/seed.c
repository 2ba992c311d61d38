/*
 * The published seed matrix's cells (docs/analysis.md, "The seed matrix"):
 * four workloads (random 4K, random 64K, sequential 64K, sequential 128K),
 * each read, then each write, in the articles' order. The one copy of the
 * table: the C example seed_matrix, Python's nvbench.matrix.SEED_CELLS and
 * Lua's nvbench.matrix.cells read it through nvb_seed_cell().
 */
#include <errno.h>
#include <string.h>

#include "core/internal.h"

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
