/*
 * _json.c - the library's JSON in nvbench._nvbench: devices as discovery
 * sees them, and results read by the strict parser and merged by the
 * library (nvb_devices_json, nvb_device_json, nvb_result_parse,
 * nvb_result_merge), so Python parses and merges nothing itself.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "_fiojob.h"
#include "_json.h"

static PyObject *take_json(int rc, char *json, const char *what)
{
    if (rc < 0) {
        char msg[1100];
        snprintf(msg, sizeof msg, "%s: %s", what, nvb_strerror(rc));
        return nvbench_raise_error(rc, msg, NULL);
    }
    PyObject *s = PyUnicode_FromString(json);
    nvb_free(json);
    return s;
}

static PyObject *nvbench_devices_json(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"sysfs_root", NULL};
    PyObject *root = Py_None, *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:devices_json", kwlist, &root))
        return NULL;
    if (root != Py_None && !PyUnicode_FSConverter(root, &bytes))
        return NULL;
    const char *r = bytes ? PyBytes_AS_STRING(bytes) : NULL;
    char *json = NULL;
    int rc;
    /* Discovery reads sysfs and may open device nodes (libblkid, Identify). */
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_devices_json(r, &json);
    Py_END_ALLOW_THREADS
    char what[1024];
    snprintf(what, sizeof what, "cannot list block devices under '%s'", r ? r : "/sys");
    Py_XDECREF(bytes);
    return take_json(rc, json, what);
}

static PyObject *nvbench_device_json(PyObject *module, PyObject *arg)
{
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(arg, &bytes))
        return NULL;
    char *json = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_device_json(PyBytes_AS_STRING(bytes), &json);
    Py_END_ALLOW_THREADS
    char what[1024];
    snprintf(what, sizeof what, "device '%s'", PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    return take_json(rc, json, what);
}

/*
 * result_json(text) -> str: a result's JSON read by the library's strict
 * parser (nvb_result_parse) and written back by its writer, so Python sees a
 * result exactly as the library reads it: figures derived from others
 * (rates, percentiles) are recomputed, unknown keys are dropped. text is a
 * str or a bytes-like object (bytes are checked for UTF-8 by the library).
 * A refused text raises NvbenchError(EINVAL) with the parser's message,
 * which names the key or the byte offset that is wrong.
 */
static PyObject *nvbench_result_json(PyObject *module, PyObject *arg)
{
    Py_buffer view = {0};
    const char *text;
    Py_ssize_t len;
    if (PyUnicode_Check(arg)) {
        text = PyUnicode_AsUTF8AndSize(arg, &len);
        if (!text)
            return NULL;
    } else if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) == 0) {
        text = view.buf;
        len = view.len;
    } else {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "result_json() takes a str or bytes, not %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    struct nvb_result *r = NULL;
    char why[512] = "";
    char *json = NULL;
    int rc;
    /* A large result takes a while to check; arg keeps the text alive. */
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_result_parse(text, (size_t)len, &r, why, sizeof why);
    if (rc == 0)
        rc = nvb_result_json(r, &json);
    nvb_result_free(r);
    Py_END_ALLOW_THREADS
    if (view.obj)
        PyBuffer_Release(&view);
    if (rc < 0)
        return nvbench_raise_error(rc, why, NULL);
    PyObject *s = PyUnicode_FromString(json);
    nvb_free(json);
    return s;
}

/*
 * result_merge(texts): the library's merge (nvb_result_merge) of results
 * given as JSON texts, returned as JSON text. Each text is checked by the
 * strict parser first; a bad one raises NvbenchError naming its position in
 * the list and what is wrong. The Python package keeps no merge arithmetic
 * of its own: nvbench.merge() is this.
 */
static PyObject *nvbench_result_merge(PyObject *module, PyObject *arg)
{
    (void)module;
    PyObject *seq = PySequence_Fast(arg, "result_merge() takes a list of JSON texts");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n == 0) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "result_merge() needs at least one result");
        return NULL;
    }
    struct nvb_result **parts = PyMem_Calloc((size_t)n, sizeof *parts);
    if (!parts) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *ret = NULL;
    char why[512] = "", msg[600];
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t len;
        const char *text;
        if (PyUnicode_Check(o)) {
            text = PyUnicode_AsUTF8AndSize(o, &len);
        } else if (PyBytes_Check(o)) {
            text = PyBytes_AS_STRING(o);
            len = PyBytes_GET_SIZE(o);
        } else {
            PyErr_Format(PyExc_TypeError, "result_merge(): part %zd is %.100s, not a JSON str or bytes", i,
                         Py_TYPE(o)->tp_name);
            goto out;
        }
        if (!text)
            goto out;
        Py_BEGIN_ALLOW_THREADS
        rc = nvb_result_parse(text, (size_t)len, &parts[i], why, sizeof why);
        Py_END_ALLOW_THREADS
        if (rc < 0) {
            snprintf(msg, sizeof msg, "part %zd: %s", i, why);
            nvbench_raise_error(rc, msg, NULL);
            goto out;
        }
    }
    struct nvb_result *m = NULL;
    char *json = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_result_merge(&m, (const struct nvb_result *const *)parts, (size_t)n);
    if (rc == 0)
        rc = nvb_result_json(m, &json);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        nvbench_raise_error(rc, m ? nvb_result_error(m) : "merge failed", NULL);
    } else {
        ret = PyUnicode_FromString(json);
    }
    nvb_free(json);
    nvb_result_free(m);
out:
    for (Py_ssize_t i = 0; i < n; i++)
        nvb_result_free(parts[i]);
    PyMem_Free(parts);
    Py_DECREF(seq);
    return ret;
}

PyMethodDef nvbench_json_methods[] = {
    {"devices_json", (PyCFunction)(void (*)(void))nvbench_devices_json, METH_VARARGS | METH_KEYWORDS,
     "devices_json(sysfs_root=None)\n--\n\nEvery block device as the library's JSON array (docs/devices.md);\n"
     "sysfs_root names a recorded tree instead of the running system."},
    {"device_json", nvbench_device_json, METH_O,
     "device_json(path)\n--\n\nOne device by path (node, /dev/disk/by-id link, NVMe generic node) as JSON."},
    {"result_json", nvbench_result_json, METH_O,
     "result_json(text)\n--\n\nA result's JSON (str or bytes) checked by the library's strict parser\n"
     "(nvb_result_parse) and written back by its writer: the result as the\n"
     "library reads it. Raises NvbenchError(EINVAL) naming what is wrong."},
    {"result_merge", nvbench_result_merge, METH_O,
     "result_merge(texts)\n--\n\nThe library's merge (nvb_result_merge) of results given as JSON texts\n"
     "(a list of str or bytes), as JSON text. Each part is checked by the strict\n"
     "parser; a bad one raises NvbenchError(EINVAL) naming its index."},
    {NULL, NULL, 0, NULL},
};
