/* _fiojob.h - fio job files in nvbench._nvbench (_fiojob.c). */
#ifndef NVBENCH_PY_FIOJOB_H
#define NVBENCH_PY_FIOJOB_H

#include <Python.h>

/* Adds fio_job_read to the module. 0, or -1 with an exception. */
int nvbench_add_fiojob(PyObject *module);

/* The one place where a negative errno becomes nvbench.NvbenchError
 * (_nvbench.c); NULL, with the exception set. */
PyObject *nvbench_raise_error(int rc, const char *msg, PyObject *result_json);

#endif
