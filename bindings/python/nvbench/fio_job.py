"""fio job files run on nvbench: read and mapped by the library, run here.

``from_fio_job(path)`` reads a fio job file and returns its *steps*: a list of lists of
workload dicts. Jobs separated by ``stonewall`` (or ``wait_for_previous``) are separate
steps, run one after the other; the jobs of one step run at the same time. Each workload
dict holds the library's keys (docs/api.md) plus two entries of its own: ``"targets"``
(the files, devices or directories) and ``"fio"`` (the section name, the options each key
came from, and the warnings of a lenient mapping). ``run_fio_job(path)`` runs the steps.

An option nvbench cannot honour raises FioJobError naming the option and the section;
with ``lenient=True`` it is left out and a warning saying so goes into every result of
that job. docs/fio-jobs.md has the option table and where the meanings differ. The
reading and the mapping are the library's (nvb_fiojob_read, nvb_fiomap_new): one for
Python, Lua and C.

This module reads job files; nvbench.fio reads fio's JSON results.
"""
from __future__ import annotations

import os
import warnings

from . import _nvbench, _warnings, core
from ._signals import sigterm_cancels
from .errors import NvbenchError, NvbenchWarning, VerifyError, verify_failure
from .resultset import ResultSet

__all__ = ["FioJobError", "from_fio_job", "parse_job_text", "run_fio_job", "fio_size", "fio_time_ns",
           "workload_args"]


class FioJobError(ValueError):
    """A job file nvbench cannot run as written (the message names the option and the section)."""


def _library(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except NvbenchError as e:
        raise FioJobError(e.strerror) from None


def fio_size(text, kb_base=1024):
    """A fio quantity of data in bytes, as fio reads it (nvb_fiomap_size): with fio's
    default kb_base=1024, k/m/g/t/p (and kb, ki, mb, ...) are powers of 1024 and the IEC
    spellings kib, mib, ... powers of 1000; kb_base=1000 swaps the two. A fraction is
    refused: fio reads '1.5k' as 1 byte."""
    return _library(_nvbench.fio_size, str(text), kb_base)


def fio_time_ns(text, unit="s"):
    """A fio time in nanoseconds (nvb_fiomap_time): a bare number is in ``unit`` (seconds
    for runtime and ramp_time, microseconds for thinktime); suffixes d, h, m (minutes), s,
    ms/msec, us/usec, ns/nsec."""
    return _library(_nvbench.fio_time_ns, str(text), unit)


def _env(env):
    for k, v in (env or {}).items():  # C strings end at a NUL: the value would be cut there
        if "\0" in k or "\0" in v or "=" in k:
            raise FioJobError(f"env: variable {k!r} has a NUL byte (or its name an '=')")
    return None if env is None else [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]


def parse_job_text(path, env=None):
    """The jobs of a job file in order: [(name, {option: value or None}, stonewall)].

    A job gets the [global] options seen before it, then its own (a later value of an
    option replaces an earlier one; filename= lines add files, joined by ':'). ``stonewall``
    or ``wait_for_previous`` on a job (or in [global]) makes it wait for the jobs before it. ``env`` replaces os.environ for
    ${VAR}. The file is read by the library (one reader for Python, Lua and C).
    """
    jobs = _library(_nvbench.fio_job_read, os.fsencode(path), _env(env))
    return [(name, dict(opts), stonewall) for name, opts, stonewall in jobs]


def from_fio_job(path, lenient=False, env=None):
    """A fio job file as steps to run one after the other, each a list of workload dicts
    to run at the same time (see the module's doc). ``env`` replaces os.environ for
    ${VAR} expansion."""
    return _library(_nvbench.fio_job_map, os.fsencode(path), _env(env), bool(lenient))


def workload_args(w):
    """(targets, keys) of a workload dict: what nvbench.run(*targets, options=keys) takes."""
    return list(w.get("targets") or []), {k: v for k, v in w.items() if k not in ("targets", "fio")}


def check(steps, lenient=False, **run_kwargs):
    """Validate every workload before any runs: a bad last step fails before the first.
    ``run_kwargs``: the keys the run will add (run_step's), validated with the file's."""
    if any(len(step) > 1 for step in steps) and not _run_groups():
        names = [", ".join(w["fio"]["section"] for w in step) for step in steps if len(step) > 1]
        raise FioJobError(f"jobs without a stonewall between them run at the same time ({names[0]}): "
                          f"concurrent groups need nvbench.run_groups, which this nvbench lacks; "
                          f"put 'stonewall' in [global] to run them one after the other")
    # Every step planned by the library before the first runs (nvb_groups_validate): each
    # workload, and the jobs of a step together (names, targets written by two, memory and
    # descriptors summed), so that a refusal in the last step comes before any I/O.
    built, where, step_of = [], [], []
    for i, step in enumerate(steps):
        for w in step:
            targets, keys = workload_args(w)
            try:
                built.append(core.workload(*targets, options={**run_kwargs, **keys}))
            except NvbenchError as e:
                raise _refusal(w, e) from None
            where.append(w)
            step_of.append(i)
    try:
        _nvbench.validate_groups(built, step_of)
    except NvbenchError as e:
        raise _refusal(where[getattr(e, "index", 0)], e, len(steps) > 1 and step_of) from None


def _refusal(w, e, step_of=None):
    """The library's refusal of workload w, naming its section (and step), the fio
    options behind the keys it names, and what a lenient mapping left out."""
    named = [f"'{k}' is fio option '{o}'" for k, o in w["fio"]["origin"].items()
             if f"'{k}'" in e.strerror and k != o]
    step = f" (step {step_of[getattr(e, 'index', 0)] + 1} of {step_of[-1] + 1})" if step_of else ""
    dropped = [repr(o) for o in w["fio"].get("dropped", ())]
    return FioJobError(f"fio job section [{w['fio']['section']}]{step}: {e.strerror}"
                       + (f" ({'; '.join(named)})" if named else "")
                       + (f" (left out of this job as not honoured: {', '.join(dropped)})" if dropped else ""))


def _run_groups():
    """nvbench.run_groups, where this nvbench has it (another piece of the same issue)."""
    return getattr(core, "run_groups", None)


def _with_warnings(r, step):
    """The mapping's warnings into the result's own list, where every front door shows them."""
    extra = [t for w in step for t in w["fio"]["warnings"]]
    if extra:
        ws = r.data.setdefault("warnings", [])
        ws.extend(t for t in extra if t not in ws)
    return r


def run_step(step, progress=None, point=None, **run_kwargs):
    """One step: a single workload through nvbench's run, several through run_groups.
    Its warnings are the caller's to issue, with the mapping's (each once). point: called
    with each time-series point's JSON text as it is measured (a group's names its group)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NvbenchWarning)
        if len(step) > 1:
            try:
                r = _run_groups()([dict(workload_args(w)[1], targets=workload_args(w)[0]) for w in step],
                                  progress=progress, _point=point, **run_kwargs)
            except VerifyError as e:  # bad data is judged with the other steps' (run_fio_job, the CLI)
                r = e.result
        else:
            targets, keys = workload_args(step[0])
            r = core._run_workload(core.workload(*targets, options={**run_kwargs, **keys}), progress=progress,
                                   warn=False, point=point)
    return _with_warnings(r, step)


def run_fio_job(path, lenient=False, env=None, progress=None, **run_kwargs):
    """Run a fio job file on nvbench: a ResultSet with one Result per step (a step of
    concurrent jobs gives run_groups' Result, its groups named after the sections).
    ``run_kwargs`` are library keys for every job that the file does not set
    (``allow_destructive=1``, ``interval="500ms"``).
    Every warning (the library's and a lenient mapping's) is issued as an NvbenchWarning
    and is in the result's warnings. A failure or an interruption (Ctrl-C; SIGTERM raises
    nvbench.Terminated, as nvbench.run does) carries ``.results``, the ResultSet of the
    steps completed, and ``.result``, the partial Result of the step cut short. Every
    step runs; when a step's verify found blocks that did not match (fio exits 1), a
    VerifyError follows, ``.result`` that step's Result and ``.results`` all of them."""
    steps = from_fio_job(path, lenient=lenient, env=env)
    check(steps, lenient, **run_kwargs)
    results = []
    try:
        with sigterm_cancels():
            for step in steps:
                results.append(run_step(step, progress=progress, **run_kwargs))
    except BaseException as e:  # KeyboardInterrupt, Terminated, NvbenchError: the steps done go with it
        try:
            e.results = ResultSet(results)
        except AttributeError:
            pass
        raise
    _warnings.issue(results, stacklevel=2)
    for r in results:
        why = verify_failure(r.data)
        if why:
            e = VerifyError(why, r)
            e.results = ResultSet(results)
            raise e
    return ResultSet(results)
