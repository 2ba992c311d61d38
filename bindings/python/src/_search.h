/* _search.h - the latency-target search of nvbench._nvbench (_search.c). */
#ifndef NVBENCH_PY_SEARCH_H
#define NVBENCH_PY_SEARCH_H

#include <Python.h>

/* Adds search_new, search_set, search_next, search_measure, search_points,
 * search_answer, search_cut and search_target. 0, or -1 with an exception. */
int nvbench_add_search(PyObject *module);

#endif
