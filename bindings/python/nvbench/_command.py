"""The ``nvbench run`` command line that reproduces a result's workload.

A result's ``workload`` object holds every key at the value that ran
(docs/json-schema.md): durations as seconds under ``<key>_s``, the fault keys
in a ``fault`` object, the engine's own keys in ``engine_opts``. The command
names the engine and the shape of the workload always, and any other key
whose value is not the library's default; every value is handed to the
library and shown the way it shows it back, so the command is what the
library accepts. The keys and their defaults come from the library's key
table; without the C extension every recorded key is shown.
"""

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
    """The recorded keys under the library's names, in the object's order:
    ``runtime_s`` is ``runtime`` (seconds), ``fault.rate`` comes from ``fault``."""
    out = {}
    for k, v in wl.items():
        if k in ("targets", "engine_opts"):
            continue
        if k == "fault" and isinstance(v, dict):
            for fk, fv in v.items():
                name = f"fault.{fk[:-2] if fk.endswith('_s') else fk}"
                out[name] = fv
            continue
        out[k[:-2] if k.endswith("_s") else k] = v
    return {k: v for k, v in out.items() if v is not None and not isinstance(v, (dict, list))}


def _library_pairs(flat):
    """[(key, text)] checked by the library: the keys that differ from its defaults."""
    keys = [(name, kind) for name, kind, _ in _nvbench.workload_keys()]
    w, default = _nvbench.Workload(), _nvbench.Workload()
    engine = flat.get("engine")
    if engine is not None:
        try:
            w.set("engine", str(engine))
            default.set("engine", str(engine))
        except NvbenchError:
            return None  # not an engine of this library (a fio result): shown as recorded
    out = []
    for name, kind in keys:
        if name not in flat:
            continue
        text = flat[name] if isinstance(flat[name], str) else _number(flat[name])
        if kind == "duration_us" and not isinstance(flat[name], str):
            text += "s"  # recorded in seconds (thinktime_s); a bare number would be microseconds
        base = default.get(name)
        if text != base:
            try:
                w.set(name, text)
                text = w.get(name)
            except NvbenchError:
                pass  # shown as recorded: the command then names what the library refuses
        if text == base and name not in _ALWAYS:
            continue
        if kind == "size" and text.isdigit():
            text = human_bs(int(text))
        out.append((name, text))
    return out


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
    flat = _flat(wl)
    pairs = _library_pairs(flat) if _nvbench is not None else None
    if pairs is None:
        pairs = _recorded_pairs(flat)
    opts = wl.get("engine_opts")
    if isinstance(opts, dict):
        pairs += [(str(k), str(v)) for k, v in opts.items()]
    targets = wl.get("targets") if isinstance(wl.get("targets"), list) else []
    words = [f"{k}={v}" for k, v in pairs] + [_target_arg(t) for t in targets]
    return " ".join([prog] + [shlex.quote(w) for w in words])
