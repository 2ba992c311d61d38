/*
 * _echo.c - a result's "workload" echo read back by the library
 * (nvb_workload_from_json): the keys under the library's own names and
 * values, for nvbench._command's reproduce command. The way back is the
 * library's key table, not a guess in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include <nvbench.h>

#include "core/bindings.h"

#include "_echo.h"
#include "_fiojob.h" /* nvbench_raise_error */

static PyObject *text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* (key, value) appended to list. 0, or -1 with an exception. */
static int append_pair(PyObject *list, const struct nvb_workload *w, const char *key)
{
    char v[4096];
    if (nvb_workload_get(w, key, v, sizeof v) < 0) {
        PyErr_Format(PyExc_RuntimeError, "no value for key '%s'", key);
        return -1;
    }
    PyObject *k = text(key), *val = k ? text(v) : NULL, *t = val ? PyTuple_Pack(2, k, val) : NULL;
    int rc = t ? PyList_Append(list, t) : -1;
    Py_XDECREF(k);
    Py_XDECREF(val);
    Py_XDECREF(t);
    return rc;
}

static PyObject *workload_lists(const struct nvb_workload *w)
{
    PyObject *pairs = PyList_New(0), *targets = PyList_New(0), *out = NULL;
    const char *s;
    int rc = pairs && targets ? 0 : -1;
    for (size_t i = 0; !rc && (s = nvb__workload_key(i, NULL, NULL)); i++)
        rc = append_pair(pairs, w, s);
    for (size_t i = 0; !rc && (s = nvb__workload_engine_opt(w, i)); i++)
        rc = append_pair(pairs, w, s);
    for (size_t i = 0; !rc && (s = nvb__workload_target(w, i)); i++) {
        PyObject *t = text(s);
        rc = t ? PyList_Append(targets, t) : -1;
        Py_XDECREF(t);
    }
    if (!rc)
        out = PyTuple_Pack(2, pairs, targets);
    Py_XDECREF(pairs);
    Py_XDECREF(targets);
    return out;
}

/* workload_echo(text) -> ([(key, value), ...], [target, ...]) */
static PyObject *nvbench_workload_echo(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_ssize_t len;
    const char *json = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!json)
        return NULL;
    struct nvb_workload *w = NULL;
    char why[512] = "";
    int rc = nvb_workload_from_json(json, (size_t)len, &w, why, sizeof why);
    if (rc)
        return nvbench_raise_error(rc, why, NULL);
    PyObject *out = workload_lists(w);
    nvb_workload_free(w);
    return out;
}

PyMethodDef nvbench_echo_methods[] = {
    {"workload_echo", nvbench_workload_echo, METH_O,
     "workload_echo(text)\n--\n\nA result's \"workload\" object (its JSON text) read back by the library\n"
     "(nvb_workload_from_json): ([(key, value), ...], [target, ...]), every key of\n"
     "the key table then each engine option set, each value as Workload.get shows\n"
     "it. Raises NvbenchError naming the member the library cannot take."},
    {NULL, NULL, 0, NULL},
};
