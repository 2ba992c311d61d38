/* _json.h - devices and results as the library's JSON (_json.c). */
#ifndef NVBENCH_PY_JSON_H
#define NVBENCH_PY_JSON_H

#include <Python.h>

/* Adds devices_json, device_json, result_json and result_merge to the
 * module. 0, or -1 with an exception. */
int nvbench_add_json(PyObject *module);

#endif
