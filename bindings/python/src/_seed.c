/*
 * _seed.c - the seed matrix's cells and the percentile rank rule of
 * nvbench._nvbench: the library's nvb_seed_cell and nvb_pct_*, so
 * nvbench.matrix and nvbench._percentile keep no copy of either.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdio.h>

#include <nvbench.h>

#include "_seed.h"

/* The fields of a cell, in the order of the tuples seed_cells() returns. */
static const char *const fields[] = { "key", "workload", "op", "rw", "bs", "label" };
#define NFIELDS (sizeof fields / sizeof fields[0])

/* The C plan of axes (a list of (key, [str, ...])), with the seed cells
 * named by cells (None: no cell axis; "": all) first, swept repeat times. */
static int plan_fill(struct nvb_matrix *m, PyObject *axes, PyObject *cells, long repeat)
{
    char rep[32];
    snprintf(rep, sizeof rep, "%ld", repeat);
    if (cells != Py_None && nvb_matrix_cells(m, PyUnicode_Check(cells) ? PyUnicode_AsUTF8(cells) : NULL) < 0)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_ValueError, nvb_matrix_error(m)), -1);
    if (nvb_matrix_set(m, "repeat", rep) < 0)
        return PyErr_SetString(PyExc_ValueError, nvb_matrix_error(m)), -1;
    PyObject *seq = PySequence_Fast(axes, "matrix_plan: axes is a list of (key, [values])");
    for (Py_ssize_t a = 0; seq && a < PySequence_Fast_GET_SIZE(seq); a++) {
        const char *key;
        PyObject *vals, *vs = NULL;
        const char **texts = NULL;
        int ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, a), "sO", &key, &vals) &&
                 (vs = PySequence_Fast(vals, "matrix_plan: an axis's values are a list of str")) != NULL;
        Py_ssize_t n = ok ? PySequence_Fast_GET_SIZE(vs) : 0;
        ok = ok && (texts = PyMem_Calloc((size_t)n + 1, sizeof *texts)) != NULL;
        for (Py_ssize_t i = 0; ok && i < n; i++)
            ok = (texts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(vs, i))) != NULL;
        int rc = ok ? nvb_matrix_axis(m, key, (size_t)n, texts) : 0;
        if (rc < 0)
            PyErr_SetString(rc == -ENOMEM ? PyExc_MemoryError : PyExc_ValueError, nvb_matrix_error(m));
        PyMem_Free(texts);
        Py_XDECREF(vs);
        if (!ok || rc < 0)
            Py_CLEAR(seq);
    }
    Py_XDECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *plan_runs(const struct nvb_matrix *m)
{
    size_t na = nvb_matrix_axes(m), nr = nvb_matrix_runs(m);
    PyObject *runs = PyList_New((Py_ssize_t)nr);
    for (size_t r = 0; runs && r < nr; r++) {
        PyObject *idx = PyTuple_New((Py_ssize_t)na), *t = NULL;
        size_t v = 0, rep = 0;
        char stack[1024];
        for (size_t a = 0; idx && a < na; a++) {
            nvb_matrix_pick(m, r, a, &v);
            PyTuple_SET_ITEM(idx, (Py_ssize_t)a, PyLong_FromSize_t(v));
        }
        nvb_matrix_pick(m, r, na, &rep);
        if (nvb_matrix_stack(m, r, stack, sizeof stack) < 0)
            stack[0] = 0;
        if (idx)
            t = Py_BuildValue("(nOs)", (Py_ssize_t)rep, idx, stack);
        Py_XDECREF(idx);
        if (!t)
            Py_CLEAR(runs);
        else
            PyList_SET_ITEM(runs, (Py_ssize_t)r, t);
    }
    return runs;
}

/* matrix_plan(axes, cells=None, repeat=1) -> (keys, cell_keys or None, stacked, runs) */
static PyObject *matrix_plan(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axes", "cells", "repeat", NULL};
    PyObject *axes, *cells = Py_None;
    long repeat = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|Ol:matrix_plan", kwlist, &axes, &cells, &repeat))
        return NULL;
    struct nvb_matrix *m = NULL;
    if (nvb_matrix_create(&m) < 0)
        return PyErr_NoMemory();
    PyObject *keys = NULL, *ck = NULL, *st = NULL, *runs = NULL, *out = NULL;
    if (plan_fill(m, axes, cells, repeat) == 0 && (keys = PyList_New(0)) && (st = PyList_New(0))) {
        for (size_t a = 0; a < nvb_matrix_axes(m); a++) {
            PyObject *k = PyUnicode_FromString(nvb_matrix_axis_key(m, a));
            if (!k || PyList_Append(keys, k) < 0 || (nvb_matrix_stacked(m, a) == 1 && PyList_Append(st, k) < 0))
                Py_CLEAR(keys);
            Py_XDECREF(k);
            if (!keys)
                break;
        }
        ck = cells == Py_None ? Py_NewRef(Py_None) : PyList_New(0);
        size_t nr = nvb_matrix_runs(m), per = nr / (size_t)repeat, n0 = 0;
        for (size_t r = 0; ck && ck != Py_None && r < per; r++) {
            size_t v;
            const char *text;
            nvb_matrix_pick(m, r, 0, &v);
            if (v != n0)
                continue;
            nvb_matrix_value(m, r, 0, &text);
            PyObject *k = PyUnicode_FromString(text);
            if (!k || PyList_Append(ck, k) < 0)
                Py_CLEAR(ck);
            Py_XDECREF(k);
            n0++;
        }
        runs = keys && ck ? plan_runs(m) : NULL;
        if (runs)
            out = PyTuple_Pack(4, keys, ck, st, runs);
    }
    Py_XDECREF(keys);
    Py_XDECREF(ck);
    Py_XDECREF(st);
    Py_XDECREF(runs);
    nvb_matrix_destroy(m);
    return out;
}

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

/* [(key, value)] from the text of nvb_seed_write_keys: "key=value\n" lines. */
static PyObject *key_lines(const char *text)
{
    PyObject *out = PyList_New(0);
    for (const char *p = text; out && *p;) {
        const char *eq = strchr(p, '='), *nl = strchr(p, '\n');
        PyObject *kv = eq && nl ? Py_BuildValue("(s#s#)", p, (Py_ssize_t)(eq - p), eq + 1, (Py_ssize_t)(nl - eq - 1))
                                : NULL;
        if (!kv || PyList_Append(out, kv) < 0)
            Py_CLEAR(out);
        Py_XDECREF(kv);
        p = nl ? nl + 1 : p + strlen(p);
    }
    return out;
}

/* seed_write_keys(pairs) -> [(key, value)]: nvb_seed_write_keys over (option, value) str pairs. */
static PyObject *seed_write_keys(PyObject *module, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "seed_write_keys: a sequence of (option, value) pairs");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const char **opts = PyMem_Calloc(2 * (size_t)n + 1, sizeof *opts);
    PyObject *out = NULL;
    int ok = opts != NULL;
    for (Py_ssize_t i = 0; ok && i < n; i++)
        ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ss:seed_write_keys", &opts[2 * i], &opts[2 * i + 1]);
    char buf[4096], why[512] = "";
    if (ok) {
        int rc = nvb_seed_write_keys(opts, (size_t)n, buf, sizeof buf, why, sizeof why);
        if (rc < 0)
            PyErr_SetString(PyExc_ValueError, rc == -ENOSPC ? "seed_write_keys: the keys are too long" : why);
        else
            out = key_lines(buf);
    } else if (!opts) {
        PyErr_NoMemory();
    }
    PyMem_Free(opts);
    Py_DECREF(seq);
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
    {"seed_write_keys", seed_write_keys, METH_O,
     "seed_write_keys(pairs) -> [(key, value)]: the keys of the seed matrix's write cells from (option, value)\n"
     "pairs, precondition and steady_state's options (nvb_seed_write_keys); ValueError naming the option."},
    {"matrix_plan", (PyCFunction)(void (*)(void))matrix_plan, METH_VARARGS | METH_KEYWORDS,
     "matrix_plan(axes, cells=None, repeat=1) -> (keys, cell_keys, stacked, runs) (nvb_matrix_*): axes a list\n"
     "of (key, [str]); cells None (no cell axis) or the seed cells named ('' all), first; runs in the order\n"
     "to run them, each (repeat, (value index per key), stack label). ValueError naming what is wrong."},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_seed(PyObject *module)
{
    if (PyModule_AddIntConstant(module, "PCT_TAIL", NVB_PCT_TAIL) < 0)
        return -1;
    return PyModule_AddFunctions(module, seed_methods);
}
