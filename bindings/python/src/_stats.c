/*
 * _stats.c - the statistics functions of nvbench._nvbench: the library's
 * nvb_stats_* (Student-t, the mean's interval in a domain, ratio and
 * difference of means), so nvbench.stats computes nothing itself and prints
 * the digits every other front door prints.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include <nvbench.h>

#include "_stats.h"

/* A sequence of numbers (None, NaN: a run without the figure) as doubles. */
static double *doubles(PyObject *arg, Py_ssize_t *n)
{
    PyObject *seq = PySequence_Fast(arg, "expected a sequence of numbers");
    if (!seq)
        return NULL;
    *n = PySequence_Fast_GET_SIZE(seq);
    double *out = PyMem_Malloc(((size_t)*n + 1) * sizeof *out);
    if (!out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        out[i] = o == Py_None ? NAN : PyFloat_AsDouble(o);
        if (out[i] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(out);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *fail(int rc, const char *what)
{
    PyErr_Format(rc == -ERANGE ? PyExc_ValueError : PyExc_ValueError, "%s: %s", what, nvb_strerror(rc));
    return NULL;
}

static PyObject *estimate(const struct nvb_estimate *e)
{
    static const char *const methods[] = { "t", "log", "logit" };
    const char *method = e->method >= 0 && e->method < 3 ? methods[e->method] : "t";
    PyObject *why = e->why ? PyUnicode_FromString(nvb_stats_why(e->why)) : Py_NewRef(Py_None);
    if (!why)
        return NULL;
    return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:n,s:n,s:N,s:s}", "value", e->value, "low", e->low,
                         "high", e->high, "df", e->df, "mean_a", e->mean_a, "mean_b", e->mean_b, "sd", e->sd, "n_a",
                         (Py_ssize_t)e->n_a, "n_b", (Py_ssize_t)e->n_b, "why", why, "method", method);
}

/* f(a, b, &out) of two floats: the t distribution's cdf and critical value. */
static PyObject *two_floats(PyObject *args, const char *format, int (*f)(double, double, double *), const char *name)
{
    double a, b, out;
    if (!PyArg_ParseTuple(args, format, &a, &b))
        return NULL;
    int rc = f(a, b, &out);
    return rc ? fail(rc, name) : PyFloat_FromDouble(out);
}

static PyObject *stats_t_cdf(PyObject *module, PyObject *args)
{
    return two_floats(args, "dd:stats_t_cdf", nvb_stats_t_cdf, "stats_t_cdf");
}

static PyObject *stats_t_critical(PyObject *module, PyObject *args)
{
    return two_floats(args, "dd:stats_t_critical", nvb_stats_t_critical, "stats_t_critical");
}

static PyObject *stats_mean_interval(PyObject *module, PyObject *args)
{
    PyObject *values;
    int domain;
    double conf;
    if (!PyArg_ParseTuple(args, "Oid:stats_mean_interval", &values, &domain, &conf))
        return NULL;
    Py_ssize_t n;
    double *x = doubles(values, &n);
    if (!x)
        return NULL;
    struct nvb_estimate e;
    int rc = nvb_stats_mean_interval(x, (size_t)n, domain, conf, &e);
    PyMem_Free(x);
    return rc ? fail(rc, "stats_mean_interval") : estimate(&e);
}

/* stats_ratio(a, b, domain, confidence) and, with domain -1, the difference. */
static PyObject *two_samples(PyObject *args, int difference)
{
    PyObject *pa, *pb;
    int domain = -1;
    double conf;
    if (difference ? !PyArg_ParseTuple(args, "OOd:stats_difference", &pa, &pb, &conf)
                   : !PyArg_ParseTuple(args, "OOid:stats_ratio", &pa, &pb, &domain, &conf))
        return NULL;
    Py_ssize_t na, nb;
    double *a = doubles(pa, &na);
    if (!a)
        return NULL;
    double *b = doubles(pb, &nb);
    if (!b) {
        PyMem_Free(a);
        return NULL;
    }
    struct nvb_estimate e;
    int rc = difference ? nvb_stats_difference(a, (size_t)na, b, (size_t)nb, conf, &e)
                        : nvb_stats_ratio(a, (size_t)na, b, (size_t)nb, domain, conf, &e);
    PyMem_Free(a);
    PyMem_Free(b);
    return rc ? fail(rc, difference ? "stats_difference" : "stats_ratio") : estimate(&e);
}

static PyObject *stats_ratio(PyObject *module, PyObject *args) { return two_samples(args, 0); }
static PyObject *stats_difference(PyObject *module, PyObject *args) { return two_samples(args, 1); }

static PyMethodDef stats_methods[] = {
    {"stats_t_cdf", stats_t_cdf, METH_VARARGS, "stats_t_cdf(t, df) -> P(T <= t) (nvb_stats_t_cdf)"},
    {"stats_t_critical", stats_t_critical, METH_VARARGS,
     "stats_t_critical(df, confidence) -> two-sided t (nvb_stats_t_critical)"},
    {"stats_mean_interval", stats_mean_interval, METH_VARARGS,
     "stats_mean_interval(values, domain, confidence) -> dict (nvb_stats_mean_interval)"},
    {"stats_ratio", stats_ratio, METH_VARARGS,
     "stats_ratio(a, b, domain, confidence) -> dict (nvb_stats_ratio)"},
    {"stats_difference", stats_difference, METH_VARARGS,
     "stats_difference(a, b, confidence) -> dict (nvb_stats_difference)"},
    {NULL, NULL, 0, NULL},
};

int nvbench_add_stats(PyObject *module)
{
    if (PyModule_AddFunctions(module, stats_methods) < 0)
        return -1;
    if (PyModule_AddIntConstant(module, "DOMAIN_POSITIVE", NVB_DOMAIN_POSITIVE) < 0 ||
        PyModule_AddIntConstant(module, "DOMAIN_SHARE", NVB_DOMAIN_SHARE) < 0 ||
        PyModule_AddIntConstant(module, "DOMAIN_REAL", NVB_DOMAIN_REAL) < 0)
        return -1;
    return 0;
}
