"""The ``nvbench run`` command line that reproduces a result's workload.

A result's ``workload`` object holds every key at the value that ran
(docs/json-schema.md), some under other names (``runtime_s``, ``fault``,
``ss``, ``engine_opts``). The library reads it back through its key table
(``nvb_workload_from_json``): every key under its own name, as the library
shows it. The command names the engine and the shape of the workload
always, and any other key whose value is not the library's default, so
running it runs the same workload. Without the C extension, or for a
workload the library cannot take (a fio result's), the recorded members
are shown as recorded.
"""

import json
import shlex

from .errors import NvbenchError
from .labels import human_bs

try:
    from . import _nvbench
except ImportError:  # the analysis side works without the C extension
    _nvbench = None

__all__ = ["run_command"]

# Named even at their default value: what a reader looks for first.
_ALWAYS = ("engine", "rw", "bs", "qd", "jobs", "runtime")


def _number(v):
    """A JSON number as the library parses it: 0.3, 2, 4096 (bools as 0/1)."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def _flat(wl):
    """The recorded members as they are, nested objects flattened to
    ``group.member`` (``runtime_s`` stays ``runtime`` in seconds): for a
    workload the library cannot read back."""
    out = {}
    for k, v in wl.items():
        if k in ("targets", "engine_opts"):
            continue
        if isinstance(v, dict):
            for fk, fv in v.items():
                out[f"{k}.{fk[:-2] if fk.endswith('_s') else fk}"] = fv
            continue
        out[k[:-2] if k.endswith("_s") else k] = v
    return {k: v for k, v in out.items() if v is not None and not isinstance(v, (dict, list))}


def _library_pairs(wl):
    """([(key, text)], targets): the workload read back by the library, the
    keys away from their defaults (and _ALWAYS); None when it cannot be."""
    try:
        pairs, targets = _nvbench.workload_echo(json.dumps(wl))
    except (NvbenchError, TypeError, ValueError):
        return None  # not a workload of this library (a fio result's): shown as recorded
    kinds = {name: kind for name, kind, _ in _nvbench.workload_keys()}
    default = _nvbench.Workload()
    default.set("engine", dict(pairs)["engine"])
    out = []
    for name, text in pairs:
        if name in kinds and text == default.get(name) and name not in _ALWAYS:
            continue  # an engine option is shown whenever it was set
        if kinds.get(name) == "size" and text.isdigit():
            text = human_bs(int(text))
        out.append((name, text))
    return out, targets


def _recorded_pairs(flat):
    return [(k, v if isinstance(v, str) else _number(v)) for k, v in flat.items()
            if not (isinstance(v, str) and v == "")]


def _target_arg(t):
    # `nvbench run` reads NAME=VALUE as a key unless it starts with / or .
    t = str(t)
    return t if "=" not in t or t.startswith(("/", ".")) else "./" + t


def run_command(data, prog="nvbench run"):
    """The shell command (a str) that runs the workload of the result ``data``
    (a result's dict) again, or None when the result records no workload."""
    wl = data.get("workload") if isinstance(data, dict) else None
    if not isinstance(wl, dict):
        return None
    back = _library_pairs(wl) if _nvbench is not None else None
    if back is not None:
        pairs, targets = back
    else:
        pairs = _recorded_pairs(_flat(wl))
        opts = wl.get("engine_opts")
        if isinstance(opts, dict):
            pairs += [(str(k), str(v)) for k, v in opts.items()]
        targets = wl.get("targets") if isinstance(wl.get("targets"), list) else []
    words = [f"{k}={v}" for k, v in pairs] + [_target_arg(t) for t in targets]
    return " ".join([prog] + [shlex.quote(w) for w in words])
