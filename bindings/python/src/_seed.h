/* _seed.h - the seed cells and percentile ranks of nvbench._nvbench (_seed.c). */
#ifndef NVBENCH_PY_SEED_H
#define NVBENCH_PY_SEED_H

#include <Python.h>

/* Adds seed_cells, pct_rank, pct_supported, pct_min_ios and PCT_TAIL to the module.
 * 0, or -1 with an exception. */
int nvbench_add_seed(PyObject *module);

#endif
