/*
 * _env.c - nvb_environment_json for nvbench._nvbench: the facts and checks
 * `nvbench doctor` prints, from the library (the same checks a result's
 * warnings come from), so Python keeps no copy of them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <nvbench.h>

#include "_env.h"
#include "_fiojob.h"

/* environment_json(root, targets) -> str */
static PyObject *environment_json(PyObject *module, PyObject *args)
{
    const char *root = NULL;
    PyObject *seq;
    (void)module;
    if (!PyArg_ParseTuple(args, "zO", &root, &seq))
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "targets must be a sequence of str");
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    const char **t = PyMem_Calloc(n ? (size_t)n : 1, sizeof *t);
    if (!t) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        t[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
        if (!t[i]) {
            PyMem_Free(t);
            Py_DECREF(fast);
            return NULL;
        }
    }
    char *json = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_environment_json(root, t, (size_t)n, &json);
    Py_END_ALLOW_THREADS
    PyMem_Free(t);
    Py_DECREF(fast);
    if (rc < 0)
        return nvbench_raise_error(rc, "nvb_environment_json", NULL);
    PyObject *out = PyUnicode_FromString(json);
    nvb_free(json);
    return out;
}

static PyMethodDef env_methods[] = {
    {"environment_json", environment_json, METH_VARARGS,
     "environment_json(root, targets) -> JSON text {environment, checks} (nvb_environment_json); root None: "
     "this machine"},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_env(PyObject *module) { return PyModule_AddFunctions(module, env_methods); }
