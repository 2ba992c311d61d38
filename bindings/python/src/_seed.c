/*
 * _seed.c - the seed matrix's cells and the percentile rank rule of
 * nvbench._nvbench: the library's nvb_seed_cell and nvb_pct_*, so
 * nvbench.matrix and nvbench._percentile keep no copy of either.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <nvbench.h>

#include "_seed.h"

/* The fields of a cell, in the order of the tuples seed_cells() returns. */
static const char *const fields[] = { "key", "workload", "op", "rw", "bs", "label" };
#define NFIELDS (sizeof fields / sizeof fields[0])

static PyObject *seed_cells(PyObject *module, PyObject *unused)
{
    size_t n = nvb_seed_cells();
    PyObject *out = PyTuple_New((Py_ssize_t)n);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *cell = PyDict_New();
        if (!cell) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, cell);
        for (size_t k = 0; k < NFIELDS; k++) {
            const char *v = NULL;
            int rc = nvb_seed_cell(i, fields[k], &v);
            PyObject *s = rc == 0 ? PyUnicode_FromString(v) : NULL;
            if (rc)
                PyErr_Format(PyExc_RuntimeError, "nvb_seed_cell(%zu, \"%s\"): %s", i, fields[k], nvb_strerror(rc));
            if (!s || PyDict_SetItemString(cell, fields[k], s) < 0) {
                Py_XDECREF(s);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(s);
        }
    }
    return out;
}

/* A count of latencies: an int; below 0 is none. */
static int count_arg(PyObject *o, unsigned long long *n)
{
    PyObject *i = PyNumber_Index(o);
    if (!i)
        return -1;
    PyObject *zero = PyLong_FromLong(0);
    int neg = zero ? PyObject_RichCompareBool(i, zero, Py_LT) : -1;
    Py_XDECREF(zero);
    *n = neg > 0 ? 0 : PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    return neg < 0 || (*n == (unsigned long long)-1 && PyErr_Occurred()) ? -1 : 0;
}

/* (count, pct) of a pct_* call, or -1 with an exception. */
static int count_pct(PyObject *args, const char *format, unsigned long long *n, double *pct)
{
    PyObject *count;
    return PyArg_ParseTuple(args, format, &count, pct) ? count_arg(count, n) : -1;
}

static PyObject *pct_rank(PyObject *module, PyObject *args)
{
    unsigned long long n;
    double pct;
    return count_pct(args, "Od:pct_rank", &n, &pct) < 0 ? NULL : PyLong_FromUnsignedLongLong(nvb_pct_rank(n, pct));
}

static PyObject *pct_supported(PyObject *module, PyObject *args)
{
    unsigned long long n;
    double pct;
    return count_pct(args, "Od:pct_supported", &n, &pct) < 0 ? NULL : PyBool_FromLong(nvb_pct_supported(n, pct));
}

static PyObject *pct_min_ios(PyObject *module, PyObject *args)
{
    double pct;
    if (!PyArg_ParseTuple(args, "d:pct_min_ios", &pct))
        return NULL;
    uint64_t n = nvb_pct_min_ios(pct);
    return n ? PyLong_FromUnsignedLongLong(n) : Py_NewRef(Py_None);
}

static PyMethodDef seed_methods[] = {
    {"seed_cells", seed_cells, METH_NOARGS,
     "seed_cells() -> tuple of dicts key, workload, op, rw, bs, label (nvb_seed_cell), in published order"},
    {"pct_rank", pct_rank, METH_VARARGS, "pct_rank(count, pct) -> the 1-based rank (nvb_pct_rank)"},
    {"pct_supported", pct_supported, METH_VARARGS,
     "pct_supported(count, pct) -> bool (nvb_pct_supported)"},
    {"pct_min_ios", pct_min_ios, METH_VARARGS,
     "pct_min_ios(pct) -> the fewest latencies supporting it, or None (nvb_pct_min_ios)"},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_seed(PyObject *module)
{
    if (PyModule_AddIntConstant(module, "PCT_TAIL", NVB_PCT_TAIL) < 0)
        return -1;
    return PyModule_AddFunctions(module, seed_methods);
}
