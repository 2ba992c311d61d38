/* _stats.h - the statistics functions of nvbench._nvbench (_stats.c). */
#ifndef NVBENCH_PY_STATS_H
#define NVBENCH_PY_STATS_H

#include <Python.h>

/* Adds stats_* and the DOMAIN_* constants to the module. 0, or -1 with an exception. */
int nvbench_add_stats(PyObject *module);

#endif
