/* _echo.h - a result's workload echo read back, in nvbench._nvbench (_echo.c). */
#ifndef NVBENCH_PY_ECHO_H
#define NVBENCH_PY_ECHO_H

#include <Python.h>

/* Adds workload_echo to the module. 0, or -1 with an exception. */
int nvbench_add_echo(PyObject *module);

#endif
