"""One run: keyword arguments in, a Result out.

Everything here is a thin layer over the C extension: values are turned into
the strings the library parses (so the library stays the one place where keys
and values are validated, and its messages name what was wrong), and the JSON
result becomes a Result carrying the labels the analysis side groups by.
"""
import json
import os
import sys

from . import _nvbench
from . import _progress
from ._signals import sigterm_cancels
from . import _warnings
from .errors import NvbenchError, Terminated, VerifyError, verify_failure
from .labels import cell_of, op_of_rw
from .result import Result

__all__ = ["run", "run_groups", "validate", "workload", "engines", "available_engines", "labels"]

# Keys whose numbers are durations (a bare number means seconds), from the
# library's key table: a copy here drifted (it lacked io_timeout and
# fault.delay, whose floats then reached the library's parser as decimal
# text).
_DURATION_KEYS = frozenset(name for name, kind, _ in _nvbench.workload_keys() if kind == "duration")

_ENGINE_CACHE = None


def engines():
    """Every engine libnvbench knows, compiled in or not.

    Returns a dict ``name -> (available, reason)``; ``reason`` says why an
    engine does not work here ("" when it does). The probe runs once per
    process; the answers are cached by the library.
    """
    global _ENGINE_CACHE
    if _ENGINE_CACHE is None:
        _ENGINE_CACHE = {name: (bool(ok), why) for name, ok, why in _nvbench.engines()}
    return dict(_ENGINE_CACHE)


def available_engines(include_null=False):
    """Names of the engines that work here, in the library's order."""
    return [n for n, (ok, _) in engines().items() if ok and (include_null or n != "null")]


def _duration(value):
    if isinstance(value, bool):
        raise TypeError("a duration cannot be a bool")
    if isinstance(value, int):
        return f"{value}s"
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)  # let the library refuse it with its own message
    for unit, scale in (("s", 1), ("ms", 1e3), ("us", 1e6)):
        v = value * scale
        if abs(v - round(v)) < 1e-9 * max(1.0, abs(v)):
            return f"{int(round(v))}{unit}"
    return f"{int(round(value * 1e9))}ns"


def _value(key, value, lib_key=None):
    """The string the library parses for a Python value of ``key`` (the
    library's spelling of the key is ``lib_key``, when it differs)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if (lib_key or key) in _DURATION_KEYS and isinstance(value, (int, float)):
        return _duration(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"unsupported value {value!r} for key '{key}': use str, int, float or bool")


def _key(key, core_keys):
    """Map a Python keyword to a library key: io_uring_sqpoll -> io_uring.sqpoll."""
    if "." in key or key in core_keys:
        return key
    for name in sorted(engines(), key=len, reverse=True):
        if key.startswith(name + "_") and len(key) > len(name) + 1:
            return name + "." + key[len(name) + 1:]
    return key  # unknown: the library refuses it and names it


def _is_core_key(w, key):
    try:
        w.get(key)
        return True
    except NvbenchError:
        return False


def _flatten_targets(targets):
    out = []
    for t in targets:
        if isinstance(t, (list, tuple)):
            out.extend(_flatten_targets(t))
        elif t is not None:
            out.append(os.fspath(t))
    return out


def workload(*targets, options=None, **keys):
    """Build a ``_nvbench.Workload`` from targets and keyword arguments.

    Keys are the library's (see docs/api.md); None values are skipped.
    Engine-specific keys go either as ``io_uring_sqpoll=1`` or in
    ``options={"io_uring.sqpoll": 1}``. Raises NvbenchError naming the key and
    the value the library refused.
    """
    w = _nvbench.Workload()
    items = [(k, v) for k, v in keys.items() if v is not None]
    if options:
        items += [(k, v) for k, v in dict(options).items() if v is not None]
    core = {k for k, _ in items if "." not in k and _is_core_key(w, k)}
    # The engine first: its option keys are checked against its table.
    items.sort(key=lambda kv: kv[0] != "engine")
    for k, v in items:
        lib_key = _key(k, core)
        w.set(lib_key, _value(k, v, lib_key))
    for t in _flatten_targets(targets):
        w.add_target(t)
    return w


def validate(*targets, options=None, **keys):
    """Check a workload and its targets as run() would, creating and writing
    nothing. Returns None or raises NvbenchError."""
    workload(*targets, options=options, **keys).validate()


def labels(data, repeat=0, **extra):
    """The meta labels of a result (see Result): engine, rw, bs, qd, jobs,
    repeat, target, cell ("rand4k"), op ("read"/"write"/"mixed"), stack
    (the engine unless `extra` says otherwise)."""
    wl = data.get("workload") or {}
    rw = wl.get("rw")
    bs = wl.get("bs")
    engine = data.get("engine") or wl.get("engine")
    meta = {
        "engine": engine,
        "rw": rw,
        "bs": bs,
        "qd": wl.get("qd"),
        "jobs": wl.get("jobs"),
        "repeat": repeat,
        "target": ",".join(wl.get("targets") or []) or None,
        "cell": cell_of(rw, bs),
        "op": op_of_rw(rw),
        "stack": engine,
    }
    meta.update({k: v for k, v in extra.items() if v is not None})
    return meta


def _attach_result(exc, meta, repeat):
    """Turn the JSON the C module attached to an exception into a Result."""
    res = getattr(exc, "result", None)
    if isinstance(res, str):
        try:
            data = json.loads(res)
            exc.result = Result(data, labels(data, repeat, **(meta or {})))
        except (ValueError, AttributeError):
            pass


def _name_the_stop(e):
    """The library says only that the caller stopped the run; a partial
    result of a Ctrl-C or a SIGTERM says which, in its error message."""
    why = ("interrupted by SIGINT (Ctrl-C)" if isinstance(e, KeyboardInterrupt) else
           "terminated by SIGTERM" if isinstance(e, Terminated) else None)
    text = getattr(e, "result", None)
    if why is None or not isinstance(text, str):
        return
    try:
        data = json.loads(text)
    except ValueError:
        return
    if isinstance(data.get("error"), dict):
        data["error"]["message"] = f"cancelled: {why}"
        e.result = json.dumps(data, separators=(",", ":"))


def _run_workload(w, progress=None, meta=None, repeat=0, poll_ms=50, raw=False, warn=True, point=None):
    """Run a Workload; the Result, or (JSON text, Result) when raw is true.
    Its warnings are issued as NvbenchWarnings unless warn is false (a
    matrix issues them once for all its runs). point: called with each
    time-series point's JSON text as it is measured."""
    try:
        text = _nvbench.run(w, progress=progress, interval_poll_ms=poll_ms, point=point)
    except BaseException as e:  # KeyboardInterrupt, NvbenchError, the callback's own
        _name_the_stop(e)
        if raw:
            e.result_json = getattr(e, "result", None)
        _attach_result(e, meta, repeat)
        raise
    data = json.loads(text)
    r = Result(data, labels(data, repeat, **(meta or {})))
    if warn:
        _warnings.issue([r], stacklevel=3)
    return (text, r) if raw else r


def run(*targets, engine=None, rw=None, bs=None, qd=None, jobs=None, runtime=None,
        progress=None, options=None, on_point=None, **keys):
    """Run one workload and return its Result.

    >>> r = nvbench.run("/dev/nvme0n1", engine="io_uring", rw="randread",
    ...                 bs="4k", qd=32, jobs=4, runtime=2)
    >>> r.read.iops, r.read.lat_ns.p99, r.cpu.cpu_us_per_io

    Targets are files, block devices or directories (a scratch file is laid
    out there and removed afterwards); a file that does not exist is created
    when ``size`` is set, laid out in full and kept (never on devtmpfs: a missing
    ``/dev/nvme0n1`` is "no such device"; files on sysfs, procfs and other kernel
    interfaces are refused, docs/api.md). Values may be str ("4k", "500ms"), int
    (bytes; seconds for runtime/ramp/interval), float, or bool ("1"/"0").
    Unset keys keep the library's defaults. Engine-specific keys:
    ``io_uring_sqpoll=1`` or ``options={"io_uring.sqpoll": 1}``.

    progress: True shows a progress bar when stderr is a terminal (needs
    tqdm); a callable is called with a dict snapshot (elapsed_s, total_s,
    read_iops, ..., done_fraction) at every interval and cancels the run by
    returning True.

    on_point: called with each time-series point (a dict, the keys of
    Result.data["timeseries"][i]) as it is measured, every interval, from
    the thread that called run(); the result may keep fewer points (merged
    beyond timeseries_max). Its exceptions stop nothing: each is shown as
    unraisable and counted in the result's warnings.

    Raises NvbenchError (an OSError with .errno and the library's message)
    when the workload is refused or the run fails; .result then holds the
    partial Result if there were figures. With verify=1, blocks read back
    that did not match raise nvbench.VerifyError (an NvbenchError, EILSEQ)
    with the complete Result as .result. Ctrl-C cancels the run cleanly
    (in-flight I/O drained, scratch files removed) and raises
    KeyboardInterrupt whose .result is the partial Result. A Ctrl-C while a
    scratch file is being laid out stops the layout too (between 1 MiB chunks).
    In the main thread, a SIGTERM whose disposition is the default does the
    same and raises nvbench.Terminated (a SystemExit with code 143, .result
    as above): uncaught, the script exits 143 once its cleanup has run.
    """
    w = workload(*targets, options=options, engine=engine, rw=rw, bs=bs, qd=qd, jobs=jobs,
                 runtime=runtime, **keys)
    point = None
    if on_point is not None:
        def point(text):
            on_point(json.loads(text))
    return _verified(_run_shown(w, progress, _label_of(w), point))


def _verified(r):
    """r, unless its verify=1 found bad data: then VerifyError with r attached."""
    why = verify_failure(r.data)
    if why:
        raise VerifyError(why, r)
    return r


def _run_shown(w, progress, label, point=None):
    """Run w (a Workload, or a list of them: job groups) with run()'s
    progress argument: a callable, or True for a bar labelled `label`."""
    bar = None
    callback = None
    if callable(progress):
        callback = progress
    elif progress:
        bar = _progress.Bar(total_runs=1, enabled=True)
        callback = bar.callback(0, label)
    try:
        with sigterm_cancels():
            return _run_workload(w, progress=callback, point=point)
    finally:
        if bar is not None:
            bar.close()


def run_groups(groups, progress=None, options=None, on_point=None, _point=None, **keys):
    """Run several workloads at once, as the job groups of one run, and
    return one Result: the totals at the top (as one run that did all the
    I/O), each group's own Result in ``.groups``.

    >>> r = nvbench.run_groups([
    ...     {"targets": ["/dev/nvme0n1"], "name": "reader", "rw": "randread", "qd": 32},
    ...     {"targets": ["/dev/nvme0n1"], "name": "writer", "rw": "write", "bs": "128k"},
    ... ], engine="io_uring", runtime=10)
    >>> r.read.iops, r.groups[1].write.bw_bytes_s

    Each group is a dict of the keys ``run()`` takes (``targets``: a path or
    a list of them; ``options``: engine keys); the keyword arguments here are
    the same as ``run()``'s and apply to every group unless a group sets the
    key itself. ``name`` names a group (group0, group1, ... when unset).
    All groups start together; each ends on its own bound (runtime, ios).
    A target written by two groups is refused (NvbenchError, EBUSY); a
    reader beside a writer works. The process CPU is in the total only.
    progress, cancellation (Ctrl-C, SIGTERM), errors and verify mismatches
    (VerifyError) work as in run(). on_point gets each group's points as
    they are measured, as in run(), each dict with the group's name first
    (``"group"``; the rest is that group's ``timeseries[i]``).
    """
    if isinstance(groups, dict) or not groups:
        raise TypeError("run_groups() takes a non-empty list of workload dicts")
    ws = []
    for i, g in enumerate(groups):
        if not isinstance(g, dict):
            raise TypeError(f"run_groups(): group {i} is {type(g).__name__}, not a dict")
        g = dict(g)
        targets = g.pop("targets", None)
        if isinstance(targets, (str, bytes, os.PathLike)):  # one path (bytes too, as run() takes it)
            targets = [targets]
        opts = dict(options or {})
        opts.update(g.pop("options", None) or {})
        ws.append(workload(*(targets or []), options=opts, **{**keys, **g}))
    point = _point
    if on_point is not None:
        def point(text):
            on_point(json.loads(text))
    return _verified(_run_shown(ws, progress, f"{len(ws)} job groups", point))


def _label_of(w):
    try:
        return f"{w.get('engine')} {w.get('rw')} {w.get('bs')}"
    except NvbenchError:
        return ""


def _stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
