/*
 * _fiojob.c - fio job files in nvbench._nvbench: the library's one reader
 * (nvb_fiojob_*), whose jobs nvbench.fio_job maps to workloads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

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

static PyObject *nvbench_fio_job_read(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "env", NULL};
    PyObject *env = Py_None, *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|O:fio_job_read", kwlist, PyUnicode_FSConverter, &bytes, &env))
        return NULL;
    const char **envp = NULL;
    Py_ssize_t n = 0;
    if (env != Py_None) {
        if (!PyList_Check(env)) {
            Py_DECREF(bytes);
            PyErr_SetString(PyExc_TypeError, "fio_job_read: env is None or a list of bytes b'NAME=VALUE'");
            return NULL;
        }
        n = PyList_GET_SIZE(env);
        envp = PyMem_Calloc((size_t)n + 1, sizeof *envp);
        if (!envp) {
            Py_DECREF(bytes);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PyList_GET_ITEM(env, i);
            char *s;
            Py_ssize_t len;
            if (!PyBytes_Check(e) || PyBytes_AsStringAndSize(e, &s, &len) < 0 || (Py_ssize_t)strlen(s) != len) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "fio_job_read: env holds bytes b'NAME=VALUE' without NUL bytes");
                PyMem_Free(envp);
                Py_DECREF(bytes);
                return NULL;
            }
            envp[i] = s;
        }
    }
    struct nvb_fiojob *f = NULL;
    char why[1024];
    int rc;
    /* reading may wait on a slow filesystem; the list holds the env alive */
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_fiojob_read(PyBytes_AS_STRING(bytes), envp, &f, why, sizeof why);
    Py_END_ALLOW_THREADS
    PyMem_Free(envp);
    Py_DECREF(bytes);
    if (rc < 0)
        return nvbench_raise_error(rc, why, NULL);
    PyObject *jobs = fiojob_list(f);
    nvb_fiojob_free(f);
    return jobs;
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
    {NULL, NULL, 0, NULL},
};

int nvbench_add_fiojob(PyObject *module)
{
    return PyModule_AddFunctions(module, fiojob_methods);
}
