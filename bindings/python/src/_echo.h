/* _echo.h - a result's workload echo read back, in nvbench._nvbench (_echo.c). */
#ifndef NVBENCH_PY_ECHO_H
#define NVBENCH_PY_ECHO_H

#include <Python.h>

/* workload_echo: the module's function of this file, registered by _nvbench.c. */
extern PyMethodDef nvbench_echo_methods[];

#endif
