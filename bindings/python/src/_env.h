/* _env.h - the environment and its checks of nvbench._nvbench (_env.c). */
#ifndef NVBENCH_PY_ENV_H
#define NVBENCH_PY_ENV_H

#include <Python.h>

/* Adds environment_json to the module. 0, or -1 with an exception. */
int nvbench_add_env(PyObject *module);

#endif
