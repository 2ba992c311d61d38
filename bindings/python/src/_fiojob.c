/*
 * _fiojob.c - fio job files in nvbench._nvbench: the library's one reader
 * (nvb_fiojob_*), whose jobs nvbench.fio_job maps to workloads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <nvbench.h>

#include "_fiojob.h"

/* Bytes of the job file as str, as the package reads paths (UTF-8 with
 * surrogateescape: os.fsencode gives the bytes back). */
static PyObject *fs_str(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

static PyObject *fiojob_list(const struct nvb_fiojob *f)
{
    PyObject *jobs = PyList_New(0);
    for (size_t j = 0; jobs && j < nvb_fiojob_jobs(f); j++) {
        PyObject *opts = PyList_New(0), *name = fs_str(nvb_fiojob_name(f, j)), *t = NULL;
        for (size_t k = 0; opts && k < nvb_fiojob_options(f, j); k++) {
            const char *v;
            const char *key = nvb_fiojob_option(f, j, k, &v);
            PyObject *pk = fs_str(key), *pv = v ? fs_str(v) : (Py_INCREF(Py_None), Py_None);
            PyObject *pair = pk && pv ? PyTuple_Pack(2, pk, pv) : NULL;
            Py_XDECREF(pk);
            Py_XDECREF(pv);
            if (!pair || PyList_Append(opts, pair) < 0)
                Py_CLEAR(opts);
            Py_XDECREF(pair);
        }
        if (opts && name)
            t = Py_BuildValue("(OOO)", name, opts, nvb_fiojob_stonewall(f, j) > 0 ? Py_True : Py_False);
        Py_XDECREF(opts);
        Py_XDECREF(name);
        if (!t || PyList_Append(jobs, t) < 0)
            Py_CLEAR(jobs);
        Py_XDECREF(t);
    }
    return jobs;
}

/* The job file at bytes read with env (None or a list of b"NAME=VALUE"):
 * 0, or -1 with an exception set. */
static int read_job(PyObject *bytes, PyObject *env, struct nvb_fiojob **f)
{
    const char **envp = NULL;
    if (env != Py_None) {
        if (!PyList_Check(env)) {
            PyErr_SetString(PyExc_TypeError, "fio_job_read: env is None or a list of bytes b'NAME=VALUE'");
            return -1;
        }
        Py_ssize_t n = PyList_GET_SIZE(env);
        envp = PyMem_Calloc((size_t)n + 1, sizeof *envp);
        if (!envp) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PyList_GET_ITEM(env, i);
            char *s;
            Py_ssize_t len;
            if (!PyBytes_Check(e) || PyBytes_AsStringAndSize(e, &s, &len) < 0 || (Py_ssize_t)strlen(s) != len) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "fio_job_read: env holds bytes b'NAME=VALUE' without NUL bytes");
                PyMem_Free(envp);
                return -1;
            }
            envp[i] = s;
        }
    }
    char why[1024];
    int rc;
    /* reading may wait on a slow filesystem; the list holds the env alive */
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_fiojob_read(PyBytes_AS_STRING(bytes), (const char *const *)envp, f, why, sizeof why);
    Py_END_ALLOW_THREADS
    PyMem_Free(envp);
    if (rc < 0) {
        nvbench_raise_error(rc, why, NULL);
        return -1;
    }
    return 0;
}

static PyObject *nvbench_fio_job_read(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "env", NULL};
    PyObject *env = Py_None, *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|O:fio_job_read", kwlist, PyUnicode_FSConverter, &bytes, &env))
        return NULL;
    struct nvb_fiojob *f = NULL;
    int rc = read_job(bytes, env, &f);
    Py_DECREF(bytes);
    if (rc < 0)
        return NULL;
    PyObject *jobs = fiojob_list(f);
    nvb_fiojob_free(f);
    return jobs;
}

/* A list of workload w of m as str (or, for keys, a dict key -> value and
 * one key -> origin in *origin). */
static PyObject *map_list(const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list, PyObject **origin)
{
    int keys = list == NVB_FIOMAP_KEYS;
    PyObject *out = keys ? PyDict_New() : PyList_New(0);
    if (keys && out && !(*origin = PyDict_New()))
        Py_CLEAR(out);
    for (size_t k = 0; out && k < nvb_fiomap_count(m, w, list); k++) {
        const char *v, *o, *item = nvb_fiomap_item(m, w, list, k, &v, &o);
        PyObject *pi = fs_str(item), *pv = keys ? fs_str(v) : NULL, *po = keys ? fs_str(o) : NULL;
        int rc = !pi || (keys && (!pv || !po)) ? -1
                 : keys ? (PyDict_SetItem(out, pi, pv) < 0 || PyDict_SetItem(*origin, pi, po) < 0 ? -1 : 0)
                        : PyList_Append(out, pi);
        Py_XDECREF(pi);
        Py_XDECREF(pv);
        Py_XDECREF(po);
        if (rc < 0) {
            Py_CLEAR(out);
            if (keys)
                Py_CLEAR(*origin);
        }
    }
    return out;
}

/* Workload w as nvbench.fio_job gives it: its keys, "targets" and "fio"
 * (section, origin, warnings, dropped). */
static PyObject *map_workload(const struct nvb_fiomap *m, size_t w)
{
    PyObject *origin = NULL, *d = map_list(m, w, NVB_FIOMAP_KEYS, &origin), *fio = NULL;
    PyObject *t = map_list(m, w, NVB_FIOMAP_TARGETS, NULL), *warn = map_list(m, w, NVB_FIOMAP_WARNINGS, NULL);
    PyObject *drop = map_list(m, w, NVB_FIOMAP_DROPPED, NULL), *sec = fs_str(nvb_fiomap_section(m, w));
    if (d && t && warn && drop && sec)
        fio = Py_BuildValue("{sOsOsOsO}", "section", sec, "origin", origin, "warnings", warn, "dropped", drop);
    if (!fio || PyDict_SetItemString(d, "targets", t) < 0 || PyDict_SetItemString(d, "fio", fio) < 0)
        Py_CLEAR(d);
    Py_XDECREF(origin);
    Py_XDECREF(fio);
    Py_XDECREF(t);
    Py_XDECREF(warn);
    Py_XDECREF(drop);
    Py_XDECREF(sec);
    return d;
}

static PyObject *map_steps(const struct nvb_fiomap *m)
{
    PyObject *steps = PyList_New(0), *step = NULL;
    for (size_t w = 0; steps && w < nvb_fiomap_workloads(m); w++) {
        if (w == 0 || nvb_fiomap_step(m, w) != nvb_fiomap_step(m, w - 1)) {
            if (!(step = PyList_New(0)) || PyList_Append(steps, step) < 0)
                Py_CLEAR(steps);
            Py_XDECREF(step);
        }
        PyObject *d = steps ? map_workload(m, w) : NULL;
        if (!d || PyList_Append(step, d) < 0)
            Py_CLEAR(steps);
        Py_XDECREF(d);
    }
    return steps;
}

static PyObject *nvbench_fio_job_map(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "env", "lenient", NULL};
    PyObject *env = Py_None, *bytes = NULL;
    int lenient = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|Op:fio_job_map", kwlist, PyUnicode_FSConverter, &bytes, &env,
                                     &lenient))
        return NULL;
    struct nvb_fiojob *f = NULL;
    struct nvb_fiomap *m = NULL;
    char why[1024];
    int rc = read_job(bytes, env, &f);
    if (rc == 0) {
        Py_BEGIN_ALLOW_THREADS /* targets without size are measured */
        rc = nvb_fiomap_new(f, PyBytes_AS_STRING(bytes), lenient ? NVB_FIOMAP_LENIENT : 0, &m, why, sizeof why);
        Py_END_ALLOW_THREADS
        nvb_fiojob_free(f);
        if (rc < 0)
            nvbench_raise_error(rc, why, NULL);
    }
    Py_DECREF(bytes);
    PyObject *steps = m ? map_steps(m) : NULL;
    nvb_fiomap_free(m);
    return steps;
}

static PyObject *nvbench_fio_size(PyObject *module, PyObject *args)
{
    const char *text;
    unsigned kb_base = 1024;
    uint64_t v;
    char why[512];
    if (!PyArg_ParseTuple(args, "s|I:fio_size", &text, &kb_base))
        return NULL;
    if (nvb_fiomap_size(text, kb_base, &v, why, sizeof why) < 0)
        return nvbench_raise_error(-EINVAL, why, NULL);
    return PyLong_FromUnsignedLongLong(v);
}

static PyObject *nvbench_fio_time_ns(PyObject *module, PyObject *args)
{
    const char *text, *unit = "s";
    uint64_t v;
    char why[512];
    if (!PyArg_ParseTuple(args, "s|s:fio_time_ns", &text, &unit))
        return NULL;
    if (nvb_fiomap_time(text, unit, &v, why, sizeof why) < 0)
        return nvbench_raise_error(-EINVAL, why, NULL);
    return PyLong_FromUnsignedLongLong(v);
}

/* key_parse(key, text) -> int: nvb_workload_key_parse, the number a workload
 * key's value stands for (bytes, ns, a count); NvbenchError with the setter's message. */
static PyObject *nvbench_key_parse(PyObject *module, PyObject *args)
{
    const char *key, *text;
    uint64_t v;
    char why[512];
    if (!PyArg_ParseTuple(args, "ss:key_parse", &key, &text))
        return NULL;
    int rc = nvb_workload_key_parse(key, text, &v, why, sizeof why);
    if (rc < 0)
        return nvbench_raise_error(rc, why, NULL);
    return PyLong_FromUnsignedLongLong(v);
}

/* rw_op(rw) -> str | None: nvb_rw_op. */
static PyObject *nvbench_rw_op(PyObject *module, PyObject *arg)
{
    Py_ssize_t n = 0;
    const char *rw = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
    if (!rw && PyErr_Occurred())
        return NULL;
    const char *op = rw && strlen(rw) == (size_t)n ? nvb_rw_op(rw) : NULL; /* a NUL inside: no mode */
    return op ? PyUnicode_FromString(op) : Py_NewRef(Py_None);
}

/* size_format(bytes) -> str: nvb_size_format. */
static PyObject *nvbench_size_format(PyObject *module, PyObject *arg)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(arg);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    char text[32];
    if (nvb_size_format(v, text, sizeof text) < 0)
        return nvbench_raise_error(-ENOSPC, "size_format: no room", NULL);
    return PyUnicode_FromString(text);
}

/* target_length(path) -> int: nvb_target_length (never opens the target). */
static PyObject *nvbench_target_length(PyObject *module, PyObject *arg)
{
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(arg, &bytes))
        return NULL;
    uint64_t len = 0;
    char why[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_target_length(PyBytes_AS_STRING(bytes), &len, why, sizeof why);
    Py_END_ALLOW_THREADS
    Py_DECREF(bytes);
    if (rc < 0)
        return nvbench_raise_error(rc, why, NULL);
    return PyLong_FromUnsignedLongLong(len);
}

static PyMethodDef fiojob_methods[] = {
    {"target_length", nvbench_target_length, METH_O,
     "target_length(path)\n--\n\nThe length a job's target gives it without 'size' (nvb_target_length):\n"
     "a file's size or a block device's capacity, 0 for a character device; the\n"
     "target is never opened. Raises NvbenchError for a FIFO, a socket or a directory."},
    {"fio_job_read", (PyCFunction)(void (*)(void))nvbench_fio_job_read, METH_VARARGS | METH_KEYWORDS,
     "fio_job_read(path, env=None)\n--\n\nThe library's fio job-file reader (nvb_fiojob_read): a list of\n"
     "(section, [(option, value or None), ...], stonewall) in file order, [global]\n"
     "options merged in. env: None (the process environment) or a list of bytes\n"
     "b'NAME=VALUE' for ${NAME}. Raises NvbenchError naming the file, the line and\n"
     "the limit when one is hit."},
    {"fio_job_map", (PyCFunction)(void (*)(void))nvbench_fio_job_map, METH_VARARGS | METH_KEYWORDS,
     "fio_job_map(path, env=None, lenient=False)\n--\n\nThe library's mapping of a fio job file (nvb_fiomap_new):\n"
     "a list of steps, each a list of workload dicts (library keys, 'targets', and\n"
     "'fio': section, origin, warnings, dropped). Raises NvbenchError naming the\n"
     "section and the option nvbench cannot honour."},
    {"fio_size", nvbench_fio_size, METH_VARARGS,
     "fio_size(text, kb_base=1024)\n--\n\nA fio size in bytes (nvb_fiomap_size)."},
    {"rw_op", nvbench_rw_op, METH_O, "rw_op(rw)\n--\n\n'read', 'write', 'trim', 'mixed' or None (nvb_rw_op)."},
    {"size_format", nvbench_size_format, METH_O,
     "size_format(bytes)\n--\n\n4096 -> '4k', 1048576 -> '1M' (nvb_size_format)."},
    {"key_parse", nvbench_key_parse, METH_VARARGS,
     "key_parse(key, text)\n--\n\nThe number text stands for as workload key `key` reads it: bytes, ns or a\n"
     "count (nvb_workload_key_parse); NvbenchError naming the key and the value."},
    {"fio_time_ns", nvbench_fio_time_ns, METH_VARARGS,
     "fio_time_ns(text, unit='s')\n--\n\nA fio time in ns (nvb_fiomap_time)."},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_fiojob(PyObject *module)
{
    return PyModule_AddFunctions(module, fiojob_methods);
}
