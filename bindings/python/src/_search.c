/*
 * _search.c - the latency-target search of nvbench._nvbench: the library's
 * nvb_search_* (core/search.c) behind a capsule, so nvbench.search only runs
 * the probes the library names and keeps no copy of the algorithm.
 *
 *   h = search_new(target, vary)      ValueError naming what is wrong
 *   search_set(h, key, value)         "start", "max_qd", "max_runs", "rel_tol", "direction" (str values)
 *   search_next(h) -> float or None   the next probe (0.0: unthrottled), None: over
 *   search_measure(h, dir, ios, iops, lat_ns or None, supported)   dir 0 read, 1 write
 *   search_points(h) -> [(value, iops, lat_ns or None, ok, supported), ...]
 *   search_answer(h) -> index or None;  search_cut(h) -> bool
 *   search_target(h) -> (percentile, bound_ns, strict)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>

#include <nvbench.h>

#include "_search.h"

#define CAPSULE "nvbench.search"

static void destroy(PyObject *capsule)
{
    nvb_search_destroy(PyCapsule_GetPointer(capsule, CAPSULE));
}

static struct nvb_search *handle(PyObject *o)
{
    return PyCapsule_GetPointer(o, CAPSULE);
}

static PyObject *refused(int rc, const char *msg)
{
    if (rc == -ENOMEM)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

static PyObject *search_new(PyObject *module, PyObject *args)
{
    const char *target, *vary;
    if (!PyArg_ParseTuple(args, "ss:search_new", &target, &vary))
        return NULL;
    struct nvb_search *s = NULL;
    char why[512];
    int rc = nvb_search_create(target, vary, &s, why, sizeof why);
    if (rc < 0)
        return refused(rc, why);
    PyObject *cap = PyCapsule_New(s, CAPSULE, destroy);
    if (!cap)
        nvb_search_destroy(s);
    return cap;
}

static PyObject *search_set(PyObject *module, PyObject *args)
{
    PyObject *h;
    const char *key, *value;
    if (!PyArg_ParseTuple(args, "Oss:search_set", &h, &key, &value))
        return NULL;
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    int rc = nvb_search_set(s, key, value);
    return rc < 0 ? refused(rc, nvb_search_error(s)) : Py_NewRef(Py_None);
}

static PyObject *search_next(PyObject *module, PyObject *h)
{
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    double v;
    int rc = nvb_search_next(s, &v);
    if (rc < 0)
        return refused(rc, nvb_search_error(s));
    return rc ? PyFloat_FromDouble(v) : Py_NewRef(Py_None);
}

static PyObject *search_measure(PyObject *module, PyObject *args)
{
    PyObject *h, *lat;
    int dir, supported;
    unsigned long long ios;
    double iops;
    if (!PyArg_ParseTuple(args, "OiKdOp:search_measure", &h, &dir, &ios, &iops, &lat, &supported))
        return NULL;
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    double l = lat == Py_None ? NAN : PyFloat_AsDouble(lat);
    if (l == -1.0 && PyErr_Occurred())
        return NULL;
    int rc = nvb_search_measure(s, dir, ios, iops, l, supported);
    return rc < 0 ? refused(rc, nvb_search_error(s)) : Py_NewRef(Py_None);
}

static PyObject *search_points(PyObject *module, PyObject *h)
{
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    size_t n = nvb_search_points(s);
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        double f[5];
        static const char *const names[] = {"value", "iops", "lat_ns", "ok", "supported"};
        for (int k = 0; k < 5; k++)
            nvb_search_point(s, i, names[k], &f[k]);
        /* "N" takes the latency's reference (None: no latency), and fails on NULL */
        PyObject *t = Py_BuildValue("(ddNOO)", f[0], f[1], isnan(f[2]) ? Py_NewRef(Py_None) : PyFloat_FromDouble(f[2]),
                                    f[3] ? Py_True : Py_False, f[4] ? Py_True : Py_False);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    return out;
}

static PyObject *search_answer(PyObject *module, PyObject *h)
{
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    size_t i;
    return nvb_search_answer(s, &i) == 0 ? PyLong_FromSize_t(i) : Py_NewRef(Py_None);
}

static PyObject *search_cut(PyObject *module, PyObject *h)
{
    struct nvb_search *s = handle(h);
    return s ? PyBool_FromLong(nvb_search_cut(s)) : NULL;
}

static PyObject *search_target(PyObject *module, PyObject *h)
{
    struct nvb_search *s = handle(h);
    if (!s)
        return NULL;
    double bound;
    int strict;
    const char *key = nvb_search_percentile(s, &bound, &strict);
    return Py_BuildValue("(sdO)", key, bound, strict ? Py_True : Py_False);
}

static PyMethodDef search_methods[] = {
    {"search_new", search_new, METH_VARARGS,
     "search_new(target, vary) -> handle (nvb_search_create); ValueError naming what is wrong"},
    {"search_set", search_set, METH_VARARGS, "search_set(h, key, value: str) (nvb_search_set); ValueError"},
    {"search_next", search_next, METH_O, "search_next(h) -> the next probe's value, 0.0 unthrottled, or None"},
    {"search_measure", search_measure, METH_VARARGS,
     "search_measure(h, dir, ios, iops, lat_ns or None, supported) (nvb_search_measure)"},
    {"search_points", search_points, METH_O, "search_points(h) -> [(value, iops, lat_ns, ok, supported)]"},
    {"search_answer", search_answer, METH_O, "search_answer(h) -> the answer's index or None"},
    {"search_cut", search_cut, METH_O, "search_cut(h) -> True when max_runs cut the search"},
    {"search_target", search_target, METH_O, "search_target(h) -> (percentile, bound_ns, strict)"},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_search(PyObject *module)
{
    return PyModule_AddFunctions(module, search_methods);
}
