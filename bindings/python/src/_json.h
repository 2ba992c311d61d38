/* _json.h - devices and results as the library's JSON (_json.c). */
#ifndef NVBENCH_PY_JSON_H
#define NVBENCH_PY_JSON_H

#include <Python.h>

/* devices_json, device_json, result_json and result_merge: the module's functions
 * of this file, registered by _nvbench.c. */
extern PyMethodDef nvbench_json_methods[];

#endif
