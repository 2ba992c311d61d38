"""fio job files run on nvbench: the job-file format parsed, each job mapped to a workload.

``from_fio_job(path)`` reads a fio job file and returns its *steps*: a list of lists of
workload dicts. Jobs separated by ``stonewall`` (or ``wait_for_previous``) are separate
steps, run one after the other; the jobs of one step run at the same time. Each workload
dict holds the library's keys (docs/api.md) plus two entries of its own: ``"targets"``
(the files, devices or directories) and ``"fio"`` (the section name, the options each key
came from, and the warnings of a lenient mapping). ``run_fio_job(path)`` runs the steps.

An option nvbench cannot honour raises FioJobError naming the option and the section;
with ``lenient=True`` it is left out and a warning saying so goes into every result of
that job. docs/fio-jobs.md has the option table and where the meanings differ.

This module reads job files; nvbench.fio reads fio's JSON results.
"""
from __future__ import annotations

import os
import re
import secrets
import warnings

from . import _nvbench, _warnings, core
from ._signals import sigterm_cancels
from .errors import NvbenchError, NvbenchWarning, VerifyError, verify_failure
from .resultset import ResultSet

__all__ = ["FioJobError", "from_fio_job", "parse_job_text", "map_job", "run_fio_job",
           "fio_size", "fio_time_ns", "workload_args"]


class FioJobError(ValueError):
    """A job file nvbench cannot run as written (the message names the option and the section)."""


# ------------------------------------------------------------------ values

_SIZE = re.compile(r"(0x[0-9a-f]+|[0-9]+)([kmgtp]?)(ib|i|b)?", re.ASCII)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def fio_size(text, kb_base=1024):
    """A fio quantity of data in bytes, as fio reads it.

    With fio's default kb_base=1024, k/m/g/t/p (and kb, ki, mb, ...) are powers of 1024
    and the IEC spellings kib, mib, ... powers of 1000 (fio keeps old job files working
    that way); kb_base=1000 swaps the two. Case does not matter; 0x gives hexadecimal.
    A fraction is refused: fio reads '1.5k' as 1 byte.
    """
    s = str(text).strip().lower()
    m = _SIZE.fullmatch(s)
    if not m or (m.group(3) in ("i", "ib") and not m.group(2)):
        raise FioJobError(f"'{text}' is not a size (a whole number with an optional k/m/g/t/p suffix)")
    num, unit, iec = m.group(1), m.group(2), m.group(3) == "ib"
    if len(num) > 24:  # before int(): a number of thousands of digits is refused, not parsed
        raise FioJobError(f"'{_short(text)}' is more than 2^63 - 1 bytes, the largest size nvbench takes from a job file")
    value = int(num, 16) if num.startswith("0x") else int(num)
    binary = (kb_base == 1024) != iec
    value *= (1024 if binary else 1000) ** _POW[unit]
    if value >= 1 << 63:
        raise FioJobError(f"'{_short(text)}' is more than 2^63 - 1 bytes, the largest size nvbench takes from a job file")
    return value


def _short(text, most=40):
    """A value quoted in a message: a long one shown by its start and its length."""
    text = str(text)
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


_TIME = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(d|h|m|s|ms|msec|us|usec|ns|nsec)?")
_NS = {"d": 86400e9, "h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "msec": 1e6,
       "us": 1e3, "usec": 1e3, "ns": 1, "nsec": 1}


def fio_time_ns(text, unit="s"):
    """A fio time in nanoseconds: a bare number is in ``unit`` (seconds for runtime and
    ramp_time, microseconds for thinktime); suffixes d, h, m (minutes), s, ms/msec,
    us/usec, ns/nsec."""
    m = _TIME.fullmatch(str(text).strip().lower())
    if not m:
        raise FioJobError(f"'{_short(text)}' is not a time (a number with an optional d/h/m/s/ms/us/ns suffix)")
    ns = float(m.group(1)) * _NS[m.group(2) or unit] if len(m.group(1)) <= 40 else float("inf")
    if not ns < 1 << 63:
        raise FioJobError(f"'{_short(text)}' is longer than 2^63 - 1 ns (292 years), the longest time nvbench takes")
    return int(round(ns))


def _bool(value):
    v = "1" if value is None else str(value).strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise FioJobError(f"'{value}' is not a boolean (0 or 1)")


def _split_escaped(text):
    """fio's ':'-separated list of names; '\\:' is a ':' inside a name."""
    parts, cur, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] == ":":
            cur.append(":")
            i += 2
            continue
        if text[i] == ":":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(text[i])
        i += 1
    parts.append("".join(cur))
    return [p for p in parts if p]


# ------------------------------------------------------------------ the file

def _read(path, env):
    """The library's reader (nvb_fiojob_read, docs/fio-jobs.md "The file"): lines end at
    '\\n' only and a ';' or '#' starts a comment anywhere, as fio reads them; every size and
    count is bounded. [(name, [(option, value or None), ...], stonewall)] in file order."""
    envb = None if env is None else [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    for k, v in (env or {}).items():  # C strings end at a NUL: the value would be cut there
        if "\0" in k or "\0" in v or "=" in k:
            raise FioJobError(f"env: variable {k!r} has a NUL byte (or its name an '=')")
    try:
        return _nvbench.fio_job_read(os.fsencode(path), envb)
    except NvbenchError as e:
        raise FioJobError(e.strerror) from None


def parse_job_text(path, env=None):
    """The jobs of a job file in order: [(name, {option: value or None}, stonewall)].

    A job gets the [global] options seen before it, then its own (a later value of an
    option replaces an earlier one). ``stonewall`` or ``wait_for_previous`` on a job (or
    in [global]) makes it wait for the jobs before it. ``env`` replaces os.environ for
    ${VAR}. The file is read by the library (one reader for Python, Lua and C).
    """
    return [(name, dict(opts), stonewall) for name, opts, stonewall in _read(path, env)]


# ------------------------------------------------------------------ mapping

_ENGINES = {"psync": "psync", "pvsync": "psync", "libaio": "libaio", "io_uring": "io_uring",
            "io_uring_cmd": "nvme", "null": "null"}
_NEAR_ENGINES = {"sync": "psync", "pvsync2": "psync"}  # lenient only
_RW = {"read": "read", "write": "write", "randread": "randread", "randwrite": "randwrite",
       "rw": "rw", "readwrite": "rw", "randrw": "randrw", "trim": "trim", "randtrim": "randtrim"}
_RANDOM = ("randread", "randwrite", "randrw", "randtrim")
_VERIFY = ("crc32c", "crc32c-intel")
# Options that may stand without a value (on).
_FLAGS = frozenset(("direct", "buffered", "invalidate", "norandommap", "randrepeat", "fixedbufs",
                    "registerfiles", "sqthread_poll", "hipri", "zero_buffers", "uncached", "atomic", "fua"))
# Options that shape the run as a whole or only fio's report: handled in _finish or
# accepted as they are (nvbench reports every job's figures and percentiles anyway).
_STRUCTURE = frozenset((
    "name", "description", "stonewall", "wait_for_previous", "new_group", "group_reporting",
    "thread", "kb_base", "unit_base", "lat_percentiles", "clat_percentiles", "filename",
    "directory", "nrfiles", "size", "io_size", "io_limit", "offset_increment", "loops",
    "runtime", "time_based", "ramp_time", "numjobs", "do_verify", "cpus_allowed_policy",
    "cmd_type", "refill_buffers", "scramble_buffers"))


_WHOLE = re.compile(r"[0-9]+", re.ASCII)
# The library's CPU set: CPUs 0 to 1023 (NVB__MAX_CPUS, the 'cpus' key).
_MAX_CPUS = 1024
# The library's name key holds 63 bytes (workload.c, K_STRING).
_NAME_MAX = 63


class _Job:
    """One section mapped: out (library keys), origin (key -> fio option), warnings."""

    def __init__(self, name, opts, lenient, path):
        self.name, self.opts, self.lenient, self.path = name, opts, lenient, path
        self.out, self.origin, self.warnings, self.after, self.dropped = {}, {}, [], [], []
        self.kb_base = self.count("kb_base", 1024)
        if self.kb_base not in (1000, 1024):
            raise self.error("kb_base", "is 1000 or 1024")

    def error(self, opt, why):
        return FioJobError(f"{self.path}: section [{self.name}]: fio option '{opt}': {why}{self.dropped_note()}")

    def dropped_note(self):
        """What a lenient mapping left out, for an error that may stem from it."""
        if not self.dropped:
            return ""
        return f" (left out of this job as not honoured: {', '.join(repr(o) for o in self.dropped)})"

    def refuse(self, opt, why):
        """An option nvbench cannot honour: an error, or (lenient) a warning of the result;
        then it is left out, and the caller must not let it take effect."""
        if not self.lenient:
            raise self.error(opt, why)
        self.warnings.append(f"fio job section [{self.name}]: option '{opt}' not honoured: {why}")
        if opt not in self.dropped:
            self.dropped.append(opt)
        return True

    def count(self, opt, default):
        """A whole number option (numjobs, loops, nrfiles, ...), or its default when absent;
        at most 2^63 - 1 (the library's own limits then name theirs)."""
        v = self.opts.get(opt)
        if v is None:
            return default
        return self.whole(opt, v)

    def whole(self, opt, v, what="a whole number"):
        """Digits 0-9 (not any Unicode digit int() would take), at most 2^63 - 1."""
        v = str(v).strip()
        if not _WHOLE.fullmatch(v):
            raise self.error(opt, f"'{_short(v)}' is not {what} (digits 0-9)")
        if len(v) > 19 or int(v) >= 1 << 63:
            raise self.error(opt, f"'{_short(v)}' is more than 2^63 - 1, the largest count nvbench takes")
        return int(v)

    def set(self, key, value, opt):
        self.out[key] = value
        self.origin[key] = opt

    def size(self, opt, value=None):
        try:
            return fio_size(self.opts[opt] if value is None else value, self.kb_base)
        except FioJobError as e:
            raise self.error(opt, str(e)) from None

    def time_ns(self, opt, unit="s"):
        try:
            return fio_time_ns(self.opts[opt], unit)
        except FioJobError as e:
            raise self.error(opt, str(e)) from None

    def flag(self, opt):
        try:
            return opt in self.opts and _bool(self.opts[opt])
        except FioJobError as e:
            raise self.error(opt, str(e)) from None

    def one_value(self, opt):
        """A read,write[,trim] option with one value for all directions."""
        vals = {v.strip() for v in self.opts[opt].split(",") if v.strip()}
        if len(vals) != 1:
            self.refuse(opt, "different values per direction (nvbench takes one for all)")
            return None  # left out: the option takes no effect at all
        return vals.pop()


def _engine(j):
    name = j.opts.get("ioengine", "psync")
    if name in _ENGINES:
        j.set("engine", _ENGINES[name], "ioengine")
    elif name in _NEAR_ENGINES:
        j.refuse("ioengine", f"'{name}' is not psync's pread/pwrite; nvbench would run psync")
        j.set("engine", "psync", "ioengine")
    else:
        raise j.error("ioengine", f"'{name}': nvbench runs psync, pvsync, libaio, io_uring, "
                                  f"io_uring_cmd (its nvme engine) and null")
    if name == "io_uring_cmd" and j.opts.get("cmd_type", "nvme") != "nvme":
        raise j.error("cmd_type", "nvbench's passthrough engine speaks nvme only")
    return name


def _rw(j, opt, value):
    base, _, skip = (value or "").partition(":")
    if base not in _RW:
        raise j.error(opt, f"'{value}': nvbench runs {', '.join(_RW)}")
    if skip:
        j.refuse(opt, f"the ':{skip}' offset modifier")
    j.set("rw", _RW[base], opt)


def _bssplit(j, opt, value):
    dirs = []
    for part in value.split(","):
        items = []
        for item in part.split(":"):
            size, slash, pct = item.partition("/")
            items.append(str(j.size(opt, size)) + slash + pct if size else item)
        dirs.append(":".join(items))
    j.set("bssplit", ",".join(dirs), opt)


def _engine_opt(j, opt, value, key, engines=("io_uring", "io_uring_cmd")):
    if j.fio_engine == "io_uring_cmd" and "io_uring_cmd" not in engines:
        # fio takes it there; nvbench's nvme engine has no such key (docs/engines.md)
        if value in ("0", "-1") and opt == "sqthread_poll":
            return  # off, as the nvme engine always is
        j.refuse(opt, "nvbench's nvme engine (fio's io_uring_cmd) has no submission-queue polling thread "
                      "(no nvme.sqpoll key); ioengine=io_uring has one")
        return
    if j.fio_engine not in engines:
        raise j.error(opt, f"is an option of ioengine {' or '.join(engines)}, not {j.fio_engine}")
    prefix = "io_uring." if j.fio_engine == "io_uring" else "nvme."
    j.set(prefix + key, value, opt)


def _verify(j, opt, value):
    if value in ("0", "none"):
        return
    if value not in _VERIFY:
        j.refuse(opt, f"'{value}': nvbench verifies with a CRC32C per block only ({', '.join(_VERIFY)})")
        return  # left out: no verify at all, not nvbench's in its place
    j.set("verify", "1", opt)


def _rate(j, opt, value):
    v = j.one_value(opt)
    if v is None:
        return
    v = j.whole(opt, v, "a count of I/Os per second")
    j.set("rate_iops", str(v * j.numjobs), opt)  # fio's is per job, nvbench's over all jobs
    j.set("rate_mode", "closed", opt)


def _cpus(j, opt, value):
    policy = j.opts.get("cpus_allowed_policy", "shared")
    cpus = _cpu_list(j, opt, value)
    if policy != "split" and len(cpus) > 1:
        if j.refuse(opt, "with cpus_allowed_policy=shared fio's jobs float over the set; nvbench pins "
                         "job i to the i-th CPU (cpus_allowed_policy=split)"):
            return  # left out: the jobs float, as without the option
    j.set("cpus", value, opt)


_CPU_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?", re.ASCII)


def _cpu_list(j, opt, value):
    """The CPUs of a list (0-3,6), each below the library's CPU set size: a range is
    checked before it is counted, so 0-99999999999 builds nothing."""
    cpus = set()
    for part in value.split(","):
        m = _CPU_RANGE.fullmatch(part.strip())
        if not m:
            raise j.error(opt, f"'{_short(value)}' is not a CPU list (0-3,6)")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        for n in (lo, hi):
            if len(n) > 4 or int(n) >= _MAX_CPUS:
                raise j.error(opt, f"CPU {_short(n)} is beyond the {_MAX_CPUS} CPUs nvbench can pin to "
                                   f"(0-{_MAX_CPUS - 1}, its CPU set size)")
        if int(lo) > int(hi):
            raise j.error(opt, f"'{part.strip()}' is not a CPU range (the first CPU is the lower)")
        cpus.update(range(int(lo), int(hi) + 1))
    return cpus


def _continue(j, opt, value):
    v = (value or "").lower()
    if v not in ("none", "0", "all", "1"):
        j.refuse(opt, f"'{value}': nvbench continues after every error or after none (none, all)")
        return  # left out: fio's default, stop at the first error
    j.set("continue_on_error", "0" if v in ("none", "0") else "1", opt)


def _seed(j, opt, value):
    j.set("seed", value, opt)


def _direct(j, opt, value):
    j.set("direct", "1" if _bool(value) else "0", opt)


def _buffered(j, opt, value):
    j.set("direct", "0" if _bool(value) else "1", opt)


def _as(key, conv=None):
    """An option whose value maps one to one to a library key."""
    def handler(j, opt, value):
        v = conv(j, opt, value) if conv else value
        if v is not None:  # None: a lenient mapping left it out
            j.set(key, v, opt)
    return handler


def _size_of(j, opt, value):
    v = j.one_value(opt)
    return None if v is None else str(j.size(opt, v))


def _flag_of(j, opt, value):
    return "1" if j.flag(opt) else "0"


def _thinktime(j, opt, value):
    return str(max(0, round(j.time_ns(opt, "us") / 1000)))


_HANDLERS = {
    "rw": _rw, "readwrite": _rw,
    "rwmixread": _as("rwmix"),
    "rwmixwrite": _as("rwmix", lambda j, o, v: str(100 - j.count(o, 0))),
    "bs": _as("bs", _size_of), "blocksize": _as("bs", _size_of),
    "bssplit": _bssplit,
    "iodepth": _as("qd"),
    "offset": _as("offset", lambda j, o, v: str(j.size(o))),
    "direct": _direct, "buffered": _buffered,
    "invalidate": _as("invalidate", _flag_of),
    "uncached": _as("uncached", _flag_of), "atomic": _as("atomic", _flag_of), "fua": _as("fua", _flag_of),
    "random_distribution": _as("random_distribution"),
    "norandommap": lambda j, o, v: None,  # handled with the pattern in _finish
    "rate_iops": _rate,
    "rate_process": _as("rate_process", lambda j, o, v: {"linear": "uniform"}.get(v, v)),
    "thinktime": _as("thinktime", _thinktime),
    "thinktime_blocks": _as("thinktime_blocks"),
    "verify": _verify,
    "randrepeat": lambda j, o, v: None,  # with randseed in _finish
    "randseed": _seed,
    "iodepth_batch": _as("submit_batch"), "iodepth_batch_submit": _as("submit_batch"),
    "iodepth_batch_complete_min": _as("complete_batch"), "iodepth_batch_complete": _as("complete_batch"),
    "fixedbufs": lambda j, o, v: _engine_opt(j, o, _flag_of(j, o, v), "fixedbufs"),
    "registerfiles": lambda j, o, v: _engine_opt(j, o, _flag_of(j, o, v), "regfiles"),
    "sqthread_poll": lambda j, o, v: _engine_opt(j, o, _flag_of(j, o, v), "sqpoll", ("io_uring",)),
    "sqthread_poll_cpu": lambda j, o, v: _engine_opt(j, o, v, "sqpoll_cpu", ("io_uring",)),
    "hipri": lambda j, o, v: _engine_opt(j, o, _flag_of(j, o, v), "iopoll"),
    "cpus_allowed": _cpus,
    "continue_on_error": _continue,
    "zero_buffers": lambda j, o, v: j.set("fill", "zero", o) if j.flag(o) else None,
    "buffer_compress_percentage": _as("data_compress"),
    "dedupe_percentage": _as("data_dedupe"),
    "ioengine": lambda j, o, v: None,  # read first, in _engine
}


def map_job(name, opts, lenient=False, path="job file"):
    """One job section (its options after [global]) -> [workload dict, ...]: the job, and
    with verify on a sequential write, its read-back (fio's do_verify) to run after it."""
    j = _Job(name, opts, lenient, path)
    j.fio_engine = _engine(j)
    j.numjobs = j.count("numjobs", 1)
    _name(j, opts.get("name") or name)
    j.set("rw", "read", "rw")  # fio's default
    j.set("direct", "0", "direct")  # fio's default
    for opt, value in opts.items():
        handler = _HANDLERS.get(opt)
        if handler is not None and value is None and opt not in _FLAGS:
            raise j.error(opt, "needs a value (option=value)")
        if handler is not None:
            handler(j, opt, value)
        elif opt not in _STRUCTURE:
            j.refuse(opt, "nvbench has no equivalent")
    _finish(j)
    return [_workload(j, j.out)] + [_workload(j, extra) for extra in j.after]


def _fit_name(text, suffix=""):
    """text cut (at a character) so that text + suffix fits the library's name key."""
    room = _NAME_MAX - len(suffix.encode("utf-8", "surrogateescape"))
    raw = text.encode("utf-8", "surrogateescape")
    if len(raw) <= room:
        return text + suffix
    cut = room
    while cut > 0 and 0x80 <= raw[cut] < 0xC0:  # not inside a character
        cut -= 1
    return raw[:cut].decode("utf-8", "surrogateescape") + suffix


def _name(j, text):
    """The job's name, as fio takes it (of any length): the library's names hold 63 bytes,
    so a longer one is shortened, with a warning giving both."""
    fitted = _fit_name(text)
    if fitted != text:
        j.warnings.append(f"fio job section [{_short(j.name, 80)}]: its name is "
                          f"{len(text.encode('utf-8', 'surrogateescape'))} bytes, more than the {_NAME_MAX} of "
                          f"nvbench's names: its results are named '{fitted}'")
    j.set("name", fitted, "name")


def _workload(j, keys):
    return dict(keys, targets=list(j.targets),
                fio={"section": j.name, "origin": dict(j.origin), "warnings": list(j.warnings),
                     "dropped": list(j.dropped)})


_SPLIT_NO_MAP = ("with fio's default random map (every block once per pass): nvbench keeps no map with a "
                 "block-size split; add norandommap=1 to run it without one")


def _finish(j):
    """What depends on several options: engine defaults, targets, region, bounds, jobs."""
    o = j.opts
    if j.fio_engine in ("io_uring", "io_uring_cmd"):
        for opt, key in (("fixedbufs", "fixedbufs"), ("registerfiles", "regfiles")):
            if opt not in o:  # fio's default is off; nvbench's auto would register
                _engine_opt(j, opt, "0", key)
    rw = j.out["rw"]
    if rw in _RANDOM:
        # fio's random map covers uniform offsets only: a skewed distribution turns it off
        # (fio 3.33: 235 distinct blocks of 1024 I/Os over 1024 blocks with zipf:1.2).
        skewed = j.out.get("random_distribution", "random") != "random"
        keep = not (skewed or j.flag("norandommap"))
        if keep and "bssplit" in j.out:  # fio keeps its map with a split; nvbench has none there
            j.refuse("bssplit", _SPLIT_NO_MAP)
            keep = False
        j.set("random_map", "1" if keep else "0", "norandommap")
    if "randseed" not in o and "randrepeat" in o and not j.flag("randrepeat"):
        j.set("seed", str(secrets.randbits(64)), "randrepeat")  # a new sequence each run
    j.set("jobs", str(j.numjobs), "numjobs")
    j.targets = _targets(j)
    per_job = _region(j)
    _bounds(j, per_job)
    if j.out.get("verify") == "1" and rw != "read" and (o.get("do_verify") is None or j.flag("do_verify")):
        _verify_after(j)


def _targets(j):
    o = j.opts
    files = _split_escaped(o["filename"]) if o.get("filename") else []
    dirs = _split_escaped(o["directory"]) if o.get("directory") else []
    nrfiles = j.count("nrfiles", 1)
    if files:
        if len(dirs) > 1:  # not left out when lenient: the files would land elsewhere
            raise j.error("directory", "several directories with filename: nvbench takes one")
        return [f if not dirs or os.path.isabs(f) else os.path.join(dirs[0], f) for f in files]
    if nrfiles != len(dirs or ["."]) and not (nrfiles == 1 and dirs):
        j.refuse("nrfiles", "nvbench lays out one scratch file per directory target")
    if dirs:
        return dirs[:max(1, nrfiles)]
    return [] if j.fio_engine == "null" else ["."]  # fio's file in the working directory


def _target_len(j, path):
    # never opened here: a FIFO opened for reading waits for a writer (the library
    # takes the length from stat-like facts and refuses what is not storage)
    try:
        return _nvbench.target_length(path)
    except NvbenchError as e:
        raise j.error("size", f"is not set and {e.strerror}: without 'size' "
                              f"the target's length decides the run") from None


def _region(j):
    """Each target's region, and the bytes one fio job moves: nvbench's size and offset."""
    o, nt = j.opts, max(1, len(j.targets))
    bs = int(j.out.get("bs", 4096)) if "bssplit" not in j.out else 1
    offset = int(j.out.get("offset", 0))
    if "size" in o:
        if str(o["size"]).endswith("%"):
            j.refuse("size", "a share of the target")
            return None
        total = j.size("size")
        per_target = total // nt // bs * bs  # fio divides size among the files
    elif not j.targets or any(os.path.isdir(t) for t in j.targets):
        raise j.error("size", "is needed: fio and nvbench have no file to take it from")
    else:
        per_target = None  # to the end of each target, as in fio
        timed = j.flag("time_based") and not ("io_size" in o or "io_limit" in o)
        total = 0 if timed else sum(max(0, _target_len(j, t) - offset) // bs * bs for t in j.targets)
    inc = o.get("offset_increment")
    sequential = j.out["rw"] not in _RANDOM
    if j.numjobs > 1 and (sequential or inc):
        inc_b = j.size("offset_increment") if inc else 0
        if inc_b and inc_b == per_target and nt == 1:
            # fio's clones on adjacent regions: nvbench's jobs on one region, each
            # starting at its own share of it.
            per_target *= j.numjobs
        else:
            j.refuse("numjobs", "fio's clones of a sequential job all start at the job's offset "
                                "(or offset_increment apart); nvbench's jobs start staggered over one "
                                "region: give offset_increment equal to size for the one-to-one case")
    if per_target is not None and (j.targets or j.fio_engine == "null"):
        j.set("size", str(per_target), "size")
    if "io_size" in o or "io_limit" in o:
        total = j.size("io_size" if "io_size" in o else "io_limit")
    loops = j.count("loops", 1)
    return total // bs * bs * loops


def _bounds(j, per_job):
    """time_based runs for runtime; otherwise each job moves its bytes, within runtime if set."""
    o = j.opts
    runtime = j.time_ns("runtime") if o.get("runtime") else 0
    if o.get("ramp_time"):
        j.set("ramp", f"{j.time_ns('ramp_time')}ns", "ramp_time")
    if j.flag("time_based"):
        if not runtime:
            raise j.error("time_based", "without runtime fio runs until stopped; nvbench needs the runtime")
        j.set("runtime", f"{runtime}ns", "runtime")
        return
    if not per_job:
        raise j.error("size", "the job moves no data (size 0)")
    j.set("io_limit", str(per_job * j.numjobs), "size")
    if runtime:
        j.set("runtime", f"{runtime}ns", "runtime")


def _verify_after(j):
    """fio's do_verify: a job that wrote verify blocks reads them back once it is done."""
    if j.out["rw"] != "write" or j.flag("time_based"):
        j.refuse("verify", "the read-back of what a random, mixed or time-based job wrote; nvbench "
                           "reads back a sequential write (rw=write) only, or set do_verify=0")
        j.out.pop("verify")  # left out: no verify pattern, no read-back, as without the option
        j.origin.pop("verify", None)
        return
    back = {k: v for k, v in j.out.items() if k not in ("rate_iops", "rate_mode", "thinktime",
                                                         "thinktime_blocks", "ramp", "runtime")}
    back.update(rw="read", name=_fit_name(j.out["name"], " verify"))
    j.after.append(back)


# ------------------------------------------------------------------ front doors

def from_fio_job(path, lenient=False, env=None):
    """A fio job file as steps to run one after the other, each a list of workload dicts
    to run at the same time (see the module's doc). ``env`` replaces os.environ for
    ${VAR} expansion."""
    steps = []
    for name, opts, stonewall in parse_job_text(path, env):
        mapped = map_job(name, opts, lenient, os.fsdecode(path))
        if stonewall or not steps:
            steps.append([])
        steps[-1].append(mapped[0])
        steps.extend([w] for w in mapped[1:])  # a read-back runs after its writer
    for step in steps:
        _distinct_names(step)
    return steps


def _distinct_names(step):
    """fio runs two sections of one name side by side; the job groups of one run need
    names of their own: the second becomes 'name #2' (with a warning saying so)."""
    seen = {w["name"] for w in step}
    taken = set()
    for w in step:
        name, k = w["name"], 1
        while w["name"] in taken or (k > 1 and w["name"] in seen):
            k += 1
            w["name"] = _fit_name(name, f" #{k}")
        if w["name"] != name:
            w["fio"]["warnings"].append(f"fio job section [{_short(w['fio']['section'], 80)}]: another job of "
                                        f"this step has its name: its results are named '{w['name']}'")
        taken.add(w["name"])


def workload_args(w):
    """(targets, keys) of a workload dict: what nvbench.run(*targets, options=keys) takes."""
    return list(w.get("targets") or []), {k: v for k, v in w.items() if k not in ("targets", "fio")}


# What a library without these keys does anyway: such a value needs no key.
_IMPLIED = {"random_map": "0", "random_distribution": "random", "thinktime": "0"}


def _unknown_keys(steps):
    """Keys this build of the library does not have (a newer mapping, an older library)."""
    known = {name for name, _, _ in _nvbench.workload_keys()}
    for step in steps:
        for w in step:
            for key, value in workload_args(w)[1].items():
                if "." not in key and key not in known:
                    yield w, key, _IMPLIED.get(key) == value


def check(steps, lenient=False, **run_kwargs):
    """Refuse (or, lenient, leave out with a warning) keys this library lacks, and
    validate every workload before any runs: a bad last step fails before the first.
    ``run_kwargs``: the keys the run will add (run_step's), validated with the file's."""
    if any(len(step) > 1 for step in steps) and not _run_groups():
        names = [", ".join(w["fio"]["section"] for w in step) for step in steps if len(step) > 1]
        raise FioJobError(f"jobs without a stonewall between them run at the same time ({names[0]}): "
                          f"concurrent groups need nvbench.run_groups, which this nvbench lacks; "
                          f"put 'stonewall' in [global] to run them one after the other")
    for w, key, implied in list(_unknown_keys(steps)):
        if implied:
            del w[key]
            continue
        why = (f"fio job section [{w['fio']['section']}]: option '{w['fio']['origin'].get(key, key)}' needs "
               f"workload key '{key}', which this nvbench library does not have")
        if not lenient:
            raise FioJobError(why)
        del w[key]
        w["fio"]["warnings"].append(why + ": left out")
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


def run_step(step, progress=None, **run_kwargs):
    """One step: a single workload through nvbench's run, several through run_groups.
    Its warnings are the caller's to issue, with the mapping's (each once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NvbenchWarning)
        if len(step) > 1:
            try:
                r = _run_groups()([dict(workload_args(w)[1], targets=workload_args(w)[0]) for w in step],
                                  progress=progress, **run_kwargs)
            except VerifyError as e:  # bad data is judged with the other steps' (run_fio_job, the CLI)
                r = e.result
        else:
            targets, keys = workload_args(step[0])
            r = core._run_workload(core.workload(*targets, options={**run_kwargs, **keys}), progress=progress,
                                   warn=False)
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
