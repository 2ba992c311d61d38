/*
 * _nvbench.c - the thin CPython binding of libnvbench (nvbench._nvbench).
 *
 * Only what Python cannot do by itself lives here: handles, the run with the
 * GIL released, and turning a negative errno into nvbench.NvbenchError. The
 * user-facing API (keyword arguments, results, matrices, the CLI) is pure
 * Python in the nvbench package.
 *
 * Shape, after CPython's Modules/_lzmamodule.c: heap types created from
 * specs, per-module state, multi-phase initialisation, no static mutable
 * state, so the module can be loaded in several (sub)interpreters.
 *
 * Threads: the GIL is released only around nvb_run(). The library calls the
 * progress callback and the poll hook on the thread that called nvb_run();
 * both take the GIL back with the thread state saved when it was released.
 * The poll hook runs Python's signal handlers (PyErr_CheckSignals), so a
 * Ctrl-C raises KeyboardInterrupt there: the hook keeps the exception and
 * asks the library to stop; the run drains its in-flight I/O, removes any
 * scratch file, and the exception is re-raised afterwards with the partial
 * result attached as .result (a JSON string).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <string.h>

#include <nvbench.h>

#include "core/bindings.h" /* internal: this module links libnvbench.a */
#include "_echo.h"
#include "_fiojob.h"
#include "_json.h"
#include "_seed.h"
#include "_search.h"
#include "_env.h"
#include "_stats.h"

typedef struct {
    PyTypeObject *workload_type;
} nvbench_state;

static inline nvbench_state *get_state(PyObject *module)
{
    return (nvbench_state *)PyModule_GetState(module);
}

/* ------------------------------------------------------------- errors */

/*
 * The one place where a negative errno becomes a Python exception:
 * nvbench.NvbenchError(errno, message) with .result = result_json (a str) or
 * None. The class is defined in nvbench/errors.py, imported here when first
 * needed so the exception has one definition only.
 */
PyObject *nvbench_raise_error(int rc, const char *msg, PyObject *result_json)
{
    int err = rc < 0 ? -rc : rc;
    if (err == ENOMEM && (!msg || !*msg))
        return PyErr_NoMemory();
    if (!msg || !*msg)
        msg = nvb_strerror(-err);
    PyObject *mod = PyImport_ImportModule("nvbench.errors");
    if (!mod)
        return NULL;
    PyObject *cls = PyObject_GetAttrString(mod, "NvbenchError");
    Py_DECREF(mod);
    if (!cls)
        return NULL;
    /* A message may quote a path or a value with bytes that are not UTF-8:
     * they show as \xNN rather than turning the error into a decode error. */
    PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "backslashreplace");
    PyObject *exc = text ? PyObject_CallFunction(cls, "iO", err, text) : NULL;
    Py_XDECREF(text);
    Py_DECREF(cls);
    if (!exc)
        return NULL;
    if (PyObject_SetAttrString(exc, "result", result_json ? result_json : Py_None) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* ----------------------------------------------------------- Workload */

typedef struct {
    PyObject_HEAD
    struct nvb_workload *w;
    /* Runs in progress on this workload (GIL released). nvb_run() only reads
     * the workload, so runs may overlap, but nothing may change it meanwhile. */
    int running;
} WorkloadObject;

static int workload_check_idle(WorkloadObject *self)
{
    if (self->running) {
        PyErr_SetString(PyExc_RuntimeError, "the workload cannot be changed while a run is using it");
        return -1;
    }
    return 0;
}

static PyObject *workload_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) || (kwds && PyDict_GET_SIZE(kwds))) {
        PyErr_SetString(PyExc_TypeError, "Workload() takes no arguments");
        return NULL;
    }
    WorkloadObject *self = (WorkloadObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    int rc = nvb_workload_new(&self->w);
    if (rc < 0) {
        Py_DECREF(self);
        return nvbench_raise_error(rc, NULL, NULL);
    }
    return (PyObject *)self;
}

static void workload_dealloc(WorkloadObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    nvb_workload_free(self->w);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyObject *workload_set(WorkloadObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "set(key, value) takes two str");
        return NULL;
    }
    if (workload_check_idle(self) < 0)
        return NULL;
    /* The value encoded as a target is (os.fsencode): a name= taken from
     * the command line reaches the library as the bytes that were typed,
     * undecodable ones included (the result then warns about them). */
    const char *key = PyUnicode_AsUTF8(args[0]);
    PyObject *value = NULL;
    if (!key || !PyUnicode_FSConverter(args[1], &value))
        return NULL;
    int rc = nvb_workload_set(self->w, key, PyBytes_AS_STRING(value));
    Py_DECREF(value);
    if (rc < 0)
        return nvbench_raise_error(rc, nvb_workload_error(self->w), NULL);
    Py_RETURN_NONE;
}

static PyObject *workload_get(WorkloadObject *self, PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "get(key) takes a str");
        return NULL;
    }
    const char *key = PyUnicode_AsUTF8(arg);
    if (!key)
        return NULL;
    char small[256];
    int rc = nvb_workload_get(self->w, key, small, sizeof small);
    if (rc >= 0)
        return PyUnicode_DecodeFSDefaultAndSize(small, rc); /* what set() encoded */
    for (size_t len = 4096; rc == -ENOSPC && len <= (1u << 24); len *= 4) {
        char *buf = PyMem_Malloc(len);
        if (!buf)
            return PyErr_NoMemory();
        rc = nvb_workload_get(self->w, key, buf, len);
        PyObject *s = rc >= 0 ? PyUnicode_DecodeFSDefaultAndSize(buf, rc) : NULL;
        PyMem_Free(buf);
        if (rc >= 0)
            return s;
    }
    if (rc == -ENOENT) {
        PyObject *msg = PyUnicode_FromFormat("unknown key '%s'", key);
        if (!msg)
            return NULL;
        PyObject *r = nvbench_raise_error(rc, PyUnicode_AsUTF8(msg), NULL);
        Py_DECREF(msg);
        return r;
    }
    return nvbench_raise_error(rc, NULL, NULL);
}

static PyObject *workload_add_target(WorkloadObject *self, PyObject *arg)
{
    if (workload_check_idle(self) < 0)
        return NULL;
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(arg, &bytes)) /* str, bytes or os.PathLike */
        return NULL;
    int rc = nvb_workload_add_target(self->w, PyBytes_AS_STRING(bytes));
    Py_DECREF(bytes);
    if (rc < 0)
        return nvbench_raise_error(rc, nvb_workload_error(self->w), NULL);
    Py_RETURN_NONE;
}

static PyObject *workload_clear_targets(WorkloadObject *self, PyObject *unused)
{
    if (workload_check_idle(self) < 0)
        return NULL;
    nvb_workload_clear_targets(self->w);
    Py_RETURN_NONE;
}

static PyObject *workload_validate(WorkloadObject *self, PyObject *unused)
{
    /* Validation may stat targets and open devices: let other threads run. */
    int rc;
    self->running++;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_workload_validate(self->w);
    Py_END_ALLOW_THREADS
    self->running--;
    if (rc < 0)
        return nvbench_raise_error(rc, nvb_workload_error(self->w), NULL);
    Py_RETURN_NONE;
}

static PyMethodDef workload_methods[] = {
    {"set", (PyCFunction)(void (*)(void))workload_set, METH_FASTCALL,
     "set(key, value)\n--\n\nSet one workload key from its string form (\"4k\", \"2s\", \"1\").\n"
     "Raises NvbenchError naming the key and the value when it is refused;\n"
     "the workload is then unchanged."},
    {"get", (PyCFunction)workload_get, METH_O,
     "get(key)\n--\n\nCurrent value of a key as a string."},
    {"add_target", (PyCFunction)workload_add_target, METH_O,
     "add_target(path)\n--\n\nAppend a target: file, block device or directory (checked at run time)."},
    {"clear_targets", (PyCFunction)workload_clear_targets, METH_NOARGS,
     "clear_targets()\n--\n\nRemove every target."},
    {"validate", (PyCFunction)workload_validate, METH_NOARGS,
     "validate()\n--\n\nCheck the whole workload and its targets without creating or writing\n"
     "anything; raises NvbenchError with the reason."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot workload_slots[] = {
    {Py_tp_new, workload_new},
    {Py_tp_dealloc, workload_dealloc},
    {Py_tp_methods, workload_methods},
    {Py_tp_doc, "Workload()\n--\n\nAn nvbench workload: string keys and a list of targets.\n"
                "Defaults are the library's (rw=randread, bs=4k, qd=1, jobs=1, engine=psync, ...)."},
    {0, NULL},
};

static PyType_Spec workload_spec = {
    .name = "nvbench._nvbench.Workload",
    .basicsize = sizeof(WorkloadObject),
#ifdef Py_TPFLAGS_IMMUTABLETYPE
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
#else
    .flags = Py_TPFLAGS_DEFAULT,
#endif
    .slots = workload_slots,
};

/* ---------------------------------------------------------------- run */

/* What the callbacks share with run(); lives on run()'s stack. */
struct run_ctx {
    PyThreadState *tstate;       /* saved by Py_BEGIN_ALLOW_THREADS */
    unsigned long thread_id;     /* the thread that called run() */
    PyObject *progress;          /* callable or NULL */
    PyObject *poll;              /* callable or NULL: true cancels (nvbench.mpi: a stop from another rank) */
    PyObject *start_barrier;     /* callable(status) or NULL: true abandons the run */
    PyObject *point;             /* callable(str) or NULL: each time-series point's JSON */
    PyObject *exc_type, *exc_value, *exc_tb; /* exception to re-raise */
};

/* The library promises to call back on the calling thread; take the GIL with
 * that thread's own state. Anything else falls back to PyGILState. */
static int ctx_enter(struct run_ctx *c, PyGILState_STATE *gs)
{
    if (PyThread_get_thread_ident() == c->thread_id) {
        PyEval_RestoreThread(c->tstate);
        return 0;
    }
    *gs = PyGILState_Ensure();
    return 1;
}

static void ctx_leave(struct run_ctx *c, int used_gilstate, PyGILState_STATE gs)
{
    if (used_gilstate)
        PyGILState_Release(gs);
    else
        c->tstate = PyEval_SaveThread();
}

static void ctx_keep_exception(struct run_ctx *c)
{
    if (!c->exc_type)
        PyErr_Fetch(&c->exc_type, &c->exc_value, &c->exc_tb);
    else
        PyErr_Clear();
}

static int poll_hook(void *arg)
{
    struct run_ctx *c = arg;
    if (c->exc_type)
        return 1; /* already stopping */
    PyGILState_STATE gs = PyGILState_UNLOCKED;
    int g = ctx_enter(c, &gs);
    int stop = 0;
    if (PyErr_CheckSignals() < 0) { /* runs handlers on the main thread only */
        ctx_keep_exception(c);
        stop = 1;
    }
    if (!stop && c->poll) {
        PyObject *ret = PyObject_CallNoArgs(c->poll);
        int t = ret ? PyObject_IsTrue(ret) : -1;
        Py_XDECREF(ret);
        if (t < 0)
            ctx_keep_exception(c);
        stop = t != 0;
    }
    ctx_leave(c, g, gs);
    return stop;
}

/* nvb_run_opts.start_barrier: the Python callable gets the setup status
 * (0 or a negative errno); a true return (or an exception) abandons the run. */
static int barrier_hook(int status, void *arg)
{
    struct run_ctx *c = arg;
    PyGILState_STATE gs = PyGILState_UNLOCKED;
    int g = ctx_enter(c, &gs);
    PyObject *st = PyLong_FromLong(status);
    PyObject *ret = st ? PyObject_CallOneArg(c->start_barrier, st) : NULL;
    Py_XDECREF(st);
    int t = ret ? PyObject_IsTrue(ret) : -1;
    Py_XDECREF(ret);
    if (t < 0)
        ctx_keep_exception(c);
    ctx_leave(c, g, gs);
    return t != 0;
}

static int set_item_d(PyObject *d, const char *k, double v)
{
    PyObject *o = PyFloat_FromDouble(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

static int set_item_u(PyObject *d, const char *k, uint64_t v)
{
    PyObject *o = PyLong_FromUnsignedLongLong(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

/* read_<name> and write_<name> from the counts u (or the figures f) by enum nvb_dir. */
static int set_dirs(PyObject *d, const char *name, const uint64_t *u, const double *f)
{
    static const char *const dirs[] = {"read", "write"};
    int rc = 0;
    for (int i = NVB_READ; i <= NVB_WRITE; i++) {
        char k[64];
        snprintf(k, sizeof k, "%s_%s", dirs[i], name);
        rc |= u ? set_item_u(d, k, u[i]) : set_item_d(d, k, f[i]);
    }
    return rc;
}

/* A plain dict snapshot: nothing in it refers back to library memory. */
static PyObject *progress_dict(const struct nvb_progress *p)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    /* Read only what this library version filled in (p->size). */
#define HAS(field) (p->size >= offsetof(struct nvb_progress, field) + sizeof p->field)
    int rc = 0;
    if (HAS(elapsed_s)) rc |= set_item_d(d, "elapsed_s", p->elapsed_s);
    if (HAS(total_s)) rc |= set_item_d(d, "total_s", p->total_s);
    /* the per-direction figures: read_<name> and write_<name> */
    if (HAS(ios)) rc |= set_dirs(d, "ios", p->ios, NULL);
    if (HAS(bytes)) rc |= set_dirs(d, "bytes", p->bytes, NULL);
    if (HAS(iops)) rc |= set_dirs(d, "iops", NULL, p->iops);
    if (HAS(bw_bytes_s)) rc |= set_dirs(d, "bw_bytes_s", NULL, p->bw_bytes_s);
    if (HAS(lat_mean_ns)) rc |= set_dirs(d, "lat_mean_ns", NULL, p->lat_mean_ns);
    if (HAS(errors)) rc |= set_item_u(d, "errors", p->errors);
    if (HAS(done_fraction)) rc |= set_item_d(d, "done_fraction", p->done_fraction);
#undef HAS
    if (rc) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static int progress_hook(const struct nvb_progress *p, void *arg)
{
    struct run_ctx *c = arg;
    if (c->exc_type)
        return 1;
    PyGILState_STATE gs = PyGILState_UNLOCKED;
    int g = ctx_enter(c, &gs);
    int stop = 0;
    PyObject *d = progress_dict(p);
    PyObject *ret = d ? PyObject_CallOneArg(c->progress, d) : NULL;
    Py_XDECREF(d);
    if (!ret) {
        ctx_keep_exception(c);
        stop = 1;
    } else {
        /* A true return value asks for cancellation, as in the C API. */
        int t = PyObject_IsTrue(ret);
        Py_DECREF(ret);
        if (t < 0) {
            ctx_keep_exception(c);
            stop = 1;
        } else {
            stop = t;
        }
    }
    ctx_leave(c, g, gs);
    return stop;
}

/* A point's exception stops nothing (the library names the failure in the
 * result's warnings): shown as unraisable, as Python does for callbacks. A
 * signal's (KeyboardInterrupt, SIGTERM's SystemExit), which Python raises in
 * whatever callback runs when it comes, is kept: the next progress or poll
 * hook cancels the run and it is raised after it, as from those hooks. */
static int point_hook(const char *json, size_t len, void *arg)
{
    struct run_ctx *c = arg;
    PyGILState_STATE gs = PyGILState_UNLOCKED;
    int g = ctx_enter(c, &gs);
    PyObject *s = PyUnicode_DecodeUTF8(json, (Py_ssize_t)len, "strict");
    PyObject *ret = s ? PyObject_CallOneArg(c->point, s) : NULL;
    if (!ret && s && !PyErr_ExceptionMatches(PyExc_Exception)) {
        /* Python runs a signal's handler at a call's first instruction: the
         * point was not handled yet; given once more, it is not lost */
        ctx_keep_exception(c);
        ret = PyObject_CallOneArg(c->point, s);
    }
    Py_XDECREF(s);
    int rc = ret ? 0 : -1;
    if (!ret && PyErr_ExceptionMatches(PyExc_Exception))
        PyErr_WriteUnraisable(c->point);
    else if (!ret)
        ctx_keep_exception(c);
    Py_XDECREF(ret);
    ctx_leave(c, g, gs);
    return rc;
}

static PyObject *nvbench_run(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"workload", "progress", "interval_poll_ms", "poll", "start_barrier", "point", NULL};
    PyObject *wobj, *progress = Py_None, *poll = Py_None, *barrier = Py_None, *point = Py_None;
    unsigned int poll_ms = 50;
    nvbench_state *st = get_state(module);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OIOOO:run", kwlist, &wobj, &progress, &poll_ms, &poll, &barrier,
                                     &point))
        return NULL;
    /* A Workload, or a list of them: the job groups of one run */
    PyObject *seq = PyObject_TypeCheck(wobj, st->workload_type) || !(PyList_Check(wobj) || PyTuple_Check(wobj))
                        ? NULL : PySequence_Tuple(wobj); /* a copy the callbacks cannot change */
    if (!PyObject_TypeCheck(wobj, st->workload_type) &&
        (!seq || !PySequence_Fast_GET_SIZE(seq))) {
        Py_XDECREF(seq);
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "run() takes a Workload or a non-empty list of Workloads (job groups)");
        return NULL;
    }
    Py_ssize_t nw = seq ? PySequence_Fast_GET_SIZE(seq) : 1;
    for (Py_ssize_t i = 0; seq && i < nw; i++)
        if (!PyObject_TypeCheck(PySequence_Fast_GET_ITEM(seq, i), st->workload_type)) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_TypeError, "run(): group %zd is not a Workload", i);
            return NULL;
        }
    const struct nvb_workload **ws = PyMem_Calloc((size_t)nw, sizeof *ws);
    if (!ws) {
        Py_XDECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nw; i++)
        ws[i] = ((WorkloadObject *)(seq ? PySequence_Fast_GET_ITEM(seq, i) : wobj))->w;
    if ((progress != Py_None && !PyCallable_Check(progress)) || (poll != Py_None && !PyCallable_Check(poll)) ||
        (barrier != Py_None && !PyCallable_Check(barrier)) || (point != Py_None && !PyCallable_Check(point))) {
        PyErr_SetString(PyExc_TypeError, "progress, poll, start_barrier and point must be callable or None");
        PyMem_Free(ws);
        Py_XDECREF(seq);
        return NULL;
    }
    if (poll_ms == 0)
        poll_ms = 1;

    struct run_ctx c = {0};
    c.thread_id = PyThread_get_thread_ident();
    c.progress = progress != Py_None ? progress : NULL;
    c.poll = poll != Py_None ? poll : NULL;
    c.start_barrier = barrier != Py_None ? barrier : NULL;
    struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
    opts.poll = poll_hook;
    opts.poll_arg = &c;
    opts.poll_ms = poll_ms;
    if (c.progress) {
        opts.progress = progress_hook;
        opts.progress_arg = &c;
    }
    if (c.start_barrier) {
        opts.start_barrier = barrier_hook;
        opts.start_barrier_arg = &c;
    }
    c.point = point != Py_None ? point : NULL;
    if (c.point) {
        opts.point = point_hook;
        opts.point_arg = &c;
    }

    struct nvb_result *r = NULL;
    int rc;
    Py_INCREF(wobj);
    Py_XINCREF(c.progress);
    Py_XINCREF(c.poll);
    Py_XINCREF(c.start_barrier);
    Py_XINCREF(c.point);
    for (Py_ssize_t i = 0; i < nw; i++)
        ((WorkloadObject *)(seq ? PySequence_Fast_GET_ITEM(seq, i) : wobj))->running++;
    c.tstate = PyEval_SaveThread();
    rc = seq ? nvb_run_groups(ws, (size_t)nw, &opts, &r) : nvb_run(ws[0], &opts, &r);
    PyEval_RestoreThread(c.tstate);
    for (Py_ssize_t i = 0; i < nw; i++)
        ((WorkloadObject *)(seq ? PySequence_Fast_GET_ITEM(seq, i) : wobj))->running--;
    PyMem_Free(ws);
    Py_XDECREF(seq);
    Py_XDECREF(c.progress);
    Py_XDECREF(c.poll);
    Py_XDECREF(c.start_barrier);
    Py_XDECREF(c.point);
    Py_DECREF(wobj);

    /* The JSON is produced whenever a result exists: complete, partial, or
     * only the refusal (then not attached: it has no figures). */
    PyObject *json = NULL;
    int has_figures = r && (rc == 0 || rc == -ECANCELED || rc == -EIO ||
                            nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE) + nvb_result_ios(r, NVB_TRIM) > 0);
    if (r && (has_figures || c.exc_type)) {
        char *s = NULL;
        if (nvb_result_json(r, &s) == 0) {
            json = PyUnicode_FromString(s);
            nvb_free(s);
        }
        if (!json) {
            nvb_result_free(r);
            Py_XDECREF(c.exc_type);
            Py_XDECREF(c.exc_value);
            Py_XDECREF(c.exc_tb);
            return PyErr_Occurred() ? NULL : PyErr_NoMemory();
        }
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", r ? nvb_result_error(r) : "");
    nvb_result_free(r);

    if (c.exc_type) {
        /* KeyboardInterrupt from the poll hook, or the progress callback's
         * own exception: re-raise it with the partial result attached. */
        PyErr_NormalizeException(&c.exc_type, &c.exc_value, &c.exc_tb);
        if (c.exc_value && json) {
            if (PyObject_SetAttrString(c.exc_value, "result", json) < 0)
                PyErr_Clear(); /* an exception type without a __dict__ */
        }
        if (c.exc_tb && c.exc_value)
            PyException_SetTraceback(c.exc_value, c.exc_tb);
        Py_XDECREF(json);
        PyErr_Restore(c.exc_type, c.exc_value, c.exc_tb);
        return NULL;
    }
    if (rc < 0) {
        nvbench_raise_error(rc, msg, json);
        Py_XDECREF(json);
        return NULL;
    }
    return json;
}

/* ------------------------------------------------------------ library */

static PyObject *nvbench_version(PyObject *module, PyObject *unused)
{
    return PyUnicode_FromString(nvb_version());
}

static PyObject *nvbench_strerror(PyObject *module, PyObject *arg)
{
    long err = PyLong_AsLong(arg);
    if (err == -1 && PyErr_Occurred())
        return NULL;
    if (err < -65535 || err > 65535)
        err = 65535; /* the library's "unknown error" */
    return PyUnicode_FromString(nvb_strerror(err > 0 ? (int)-err : (int)err));
}

/* Appends item (a new reference, or NULL when building it failed) to list
 * and drops the reference; on failure releases list too and returns -1. */
static int append_new(PyObject *list, PyObject *item)
{
    int rc = item ? PyList_Append(list, item) : -1;
    Py_XDECREF(item);
    if (rc < 0)
        Py_DECREF(list);
    return rc;
}

static PyObject *nvbench_engines(PyObject *module, PyObject *unused)
{
    int n = nvb_engine_count();
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++) {
        const char *name = nvb_engine_name(i);
        if (!name)
            continue;
        char why[512] = "";
        int rc;
        /* The first probe may set up a ring or an AIO context. */
        Py_BEGIN_ALLOW_THREADS
        rc = nvb_engine_probe(name, why, sizeof why);
        Py_END_ALLOW_THREADS
        if (append_new(list, Py_BuildValue("(sNs)", name, PyBool_FromLong(rc == 0), rc == 0 ? "" : why)) < 0)
            return NULL;
    }
    return list;
}

/*
 * workload_keys() -> [(name, type, doc)]: the library's own key table (core
 * keys; engine options are the engines'), so that Python never keeps a
 * copy of it. type is how the value is parsed ("duration", "size", ...).
 */
static PyObject *nvbench_workload_keys(PyObject *module, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    const char *name;
    for (size_t i = 0; (name = nvb_workload_key(i)) != NULL; i++) {
        if (append_new(list, Py_BuildValue("(sss)", name, nvb_workload_key_info(name, "type"),
                                           nvb_workload_key_info(name, "help"))) < 0)
            return NULL;
    }
    return list;
}

/*
 * key_table(engines=False) -> [{"name": ..., "type": ..., "unit": ...}]:
 * every column of every core key (and engine option), from the public
 * nvb_workload_key_info(), for the CLI's help and the bindings' lists.
 */
/* The row of one key: its name and every column nvb_workload_key_info() answers. */
static PyObject *key_row(const char *name)
{
    const char *field;
    PyObject *d = Py_BuildValue("{ss}", "name", name);
    for (size_t f = 0; d && (field = nvb_workload_key_field(f)) != NULL; f++) {
        PyObject *v = PyUnicode_FromString(nvb_workload_key_info(name, field));
        if (!v || PyDict_SetItemString(d, field, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *nvbench_key_table(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"engines", NULL};
    int engines = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:key_table", kwlist, &engines))
        return NULL;
    PyObject *list = PyList_New(0);
    const char *name;
    for (size_t i = 0; list && (name = nvb_workload_key(i)) != NULL; i++) {
        PyObject *d = key_row(name);
        if (!d || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    for (int e = 0; engines && list && e < nvb_engine_count(); e++)
        for (size_t i = 0; list && (name = nvb_engine_option(e, i)) != NULL; i++) {
            PyObject *full = PyUnicode_FromFormat("%s.%s", nvb_engine_name(e), name);
            PyObject *d = full ? key_row(PyUnicode_AsUTF8(full)) : NULL;
            if (!d || PyList_Append(list, d) < 0)
                Py_CLEAR(list);
            Py_XDECREF(d);
            Py_XDECREF(full);
        }
    return list;
}

/* The library's JSON text as a str; frees it. */
/*
 * validate_groups(workloads, steps=None): nvb_groups_validate. workloads is
 * a list of Workloads, steps a list of as many non-decreasing ints (the
 * step of each; None: one step). None, or NvbenchError with .index the
 * position of the workload the failure concerns.
 */
static PyObject *nvbench_validate_groups(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"workloads", "steps", NULL};
    PyObject *wobj, *sobj = Py_None;
    nvbench_state *st = get_state(module);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:validate_groups", kwlist, &wobj, &sobj))
        return NULL;
    PyObject *seq = PySequence_Tuple(wobj);
    if (!seq)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    PyObject *steps = sobj == Py_None ? NULL : PySequence_Tuple(sobj);
    if (sobj != Py_None && !steps) {
        Py_DECREF(seq);
        return NULL;
    }
    PyObject *ret = NULL;
    const struct nvb_workload **ws = NULL;
    unsigned *sv = NULL;
    if (n == 0 || (steps && PyTuple_GET_SIZE(steps) != n)) {
        PyErr_SetString(PyExc_ValueError, "validate_groups(): a non-empty list of Workloads, and one step for each");
        goto out;
    }
    ws = PyMem_Calloc((size_t)n, sizeof *ws);
    sv = steps ? PyMem_Calloc((size_t)n, sizeof *sv) : NULL;
    if (!ws || (steps && !sv)) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GET_ITEM(seq, i);
        if (!PyObject_TypeCheck(o, st->workload_type)) {
            PyErr_Format(PyExc_TypeError, "validate_groups(): item %zd is not a Workload", i);
            goto out;
        }
        ws[i] = ((WorkloadObject *)o)->w;
        if (steps) {
            unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(steps, i));
            if (PyErr_Occurred() || v > UINT_MAX) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_OverflowError, "validate_groups(): a step number too large");
                goto out;
            }
            sv[i] = (unsigned)v;
        }
    }
    char err[1024] = "";
    size_t bad = 0;
    int rc;
    for (Py_ssize_t i = 0; i < n; i++)
        ((WorkloadObject *)PyTuple_GET_ITEM(seq, i))->running++;
    Py_BEGIN_ALLOW_THREADS
    rc = nvb_groups_validate(ws, (size_t)n, sv, &bad, err, sizeof err);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        ((WorkloadObject *)PyTuple_GET_ITEM(seq, i))->running--;
    if (rc < 0) {
        nvbench_raise_error(rc, err, NULL);
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        PyErr_NormalizeException(&et, &ev, &tb);
        PyObject *idx = PyLong_FromSize_t(bad);
        if (ev && idx)
            PyObject_SetAttrString(ev, "index", idx);
        Py_XDECREF(idx);
        if (PyErr_Occurred())
            PyErr_Clear();
        PyErr_Restore(et, ev, tb);
        goto out;
    }
    ret = Py_None;
    Py_INCREF(ret);
out:
    PyMem_Free(ws);
    PyMem_Free(sv);
    Py_XDECREF(steps);
    Py_DECREF(seq);
    return ret;
}

static PyMethodDef nvbench_methods[] = {
    {"version", nvbench_version, METH_NOARGS,
     "version()\n--\n\nVersion of the libnvbench linked into this module (\"MAJOR.MINOR.PATCH\")."},
    {"engines", nvbench_engines, METH_NOARGS,
     "engines()\n--\n\nEvery engine the library knows: a list of (name, available, reason)."},
    {"key_table", (PyCFunction)(void (*)(void))nvbench_key_table, METH_VARARGS | METH_KEYWORDS,
     "key_table(engines=False)\n--\n\nEvery column of every workload key from the library's key table\n"
     "(nvb_workload_key_info): a list of dicts with name, type, unit, group, fio, help, ...;\n"
     "engines=True adds every engine's options (\"io_uring.sqpoll\", group \"engine\")."},
    {"workload_keys", nvbench_workload_keys, METH_NOARGS,
     "workload_keys()\n--\n\nThe workload's core keys from the library's table: a list of\n"
     "(name, type, doc); type is how the value is parsed (\"duration\", \"size\", ...)."},
    {"strerror", nvbench_strerror, METH_O,
     "strerror(errno)\n--\n\nThe library's text for an errno (sign ignored)."},
    {"validate_groups", (PyCFunction)(void (*)(void))nvbench_validate_groups, METH_VARARGS | METH_KEYWORDS,
     "validate_groups(workloads, steps=None)\n--\n\nPlan Workloads as the runs to come would plan them\n"
     "(nvb_groups_validate), opening, creating and writing nothing: steps gives\n"
     "each its step (runs one after the other; the Workloads of a step are its\n"
     "job groups). Raises NvbenchError with .index, the Workload concerned."},
    {"run", (PyCFunction)(void (*)(void))nvbench_run, METH_VARARGS | METH_KEYWORDS,
     "run(workload, progress=None, interval_poll_ms=50, poll=None, start_barrier=None, point=None)\n--\n\n"
     "Run a Workload and return its JSON result (schema nvbench.result/1).\n"
     "A list of Workloads runs them as the job groups of one run (nvb_run_groups).\n"
     "The GIL is released while it runs. progress, if given, is called with a\n"
     "dict snapshot at every interval; a true return value cancels the run.\n"
     "Every interval_poll_ms the calling thread checks for signals: Ctrl-C\n"
     "cancels the run and raises KeyboardInterrupt with .result = the partial\n"
     "JSON. Failures raise nvbench.NvbenchError(errno, message) with .result.\n"
     "poll(), if given, is called there too; a true return value cancels.\n"
     "start_barrier(status), if given, is called once when every job is set up\n"
     "(status 0) or the run failed before (negative errno), just before the\n"
     "jobs start; a true return value abandons the run (nvbench.mpi).\n"
     "point(text), if given, gets each time-series point's JSON as it is measured\n"
     "(one Workload only); its exceptions stop nothing (the result's warnings)."},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------- module */

static int nvbench_exec(PyObject *module)
{
    nvbench_state *st = get_state(module);
    st->workload_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &workload_spec, NULL);
    if (!st->workload_type)
        return -1;
    if (PyModule_AddType(module, st->workload_type) < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "SCHEMA_VERSION", NVB_SCHEMA_VERSION) < 0)
        return -1;
    char hv[32];
    snprintf(hv, sizeof hv, "%d.%d.%d", NVB_VERSION_MAJOR, NVB_VERSION_MINOR, NVB_VERSION_PATCH);
    if (PyModule_AddStringConstant(module, "HEADER_VERSION", hv) < 0)
        return -1;
    if (nvbench_add_fiojob(module) < 0 || PyModule_AddFunctions(module, nvbench_json_methods) < 0 ||
        PyModule_AddFunctions(module, nvbench_echo_methods) < 0)
        return -1;
    if (nvbench_add_seed(module) < 0 || nvbench_add_search(module) < 0 || nvbench_add_env(module) < 0)
        return -1;
    return nvbench_add_stats(module);
}

static int nvbench_traverse(PyObject *module, visitproc visit, void *arg)
{
    nvbench_state *st = get_state(module);
    Py_VISIT(st->workload_type);
    return 0;
}

static int nvbench_clear(PyObject *module)
{
    nvbench_state *st = get_state(module);
    Py_CLEAR(st->workload_type);
    return 0;
}

static void nvbench_free(void *module)
{
    nvbench_clear((PyObject *)module);
}

static PyModuleDef_Slot nvbench_slots[] = {
    {Py_mod_exec, nvbench_exec},
    {0, NULL},
};

static struct PyModuleDef nvbench_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "nvbench._nvbench",
    .m_doc = "Thin binding of libnvbench; use the nvbench package instead.",
    .m_size = sizeof(nvbench_state),
    .m_methods = nvbench_methods,
    .m_slots = nvbench_slots,
    .m_traverse = nvbench_traverse,
    .m_clear = nvbench_clear,
    .m_free = nvbench_free,
};

PyMODINIT_FUNC PyInit__nvbench(void)
{
    return PyModuleDef_Init(&nvbench_module);
}
