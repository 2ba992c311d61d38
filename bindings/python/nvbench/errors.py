"""The exception nvbench raises for every failure the C library reports.

The C extension raises it from a single place: a negative errno from
libnvbench becomes ``NvbenchError(errno, message)``, where the message is the
library's own and names the offending key and value (or target path).
"""
import errno as _errno

from ._printable import printable

__all__ = ["NvbenchError", "VerifyError", "NvbenchWarning", "Terminated", "INPUT_ERRNOS", "verify_failure"]

#: errno values that mean "the workload or its targets were refused" (bad
#: input), as opposed to a run that failed on the way (EIO, ENOMEM, ...).
#: EBUSY is the destructive-write guard refusing a target in use (or one
#: another run writes); ESTALE a target that changed between planning and
#: opening; EMFILE a run that needs more descriptors than RLIMIT_NOFILE;
#: ENODEV a path that is not a block device.
INPUT_ERRNOS = frozenset({_errno.EINVAL, _errno.ENOENT, _errno.EACCES, _errno.EPERM,
                          _errno.ERANGE, _errno.ENOTSUP, _errno.ENAMETOOLONG, _errno.EBUSY,
                          _errno.ESTALE, _errno.EMFILE, _errno.ENODEV})


class NvbenchError(OSError):
    """A libnvbench failure.

    Attributes:
        errno: the positive errno value (``errno.EINVAL``, ...).
        strerror: the library's message, naming the key and the value (or the
            target) that were refused.
        result: the result of the run when it produced figures before it
            failed (cancelled, or stopped by an I/O error), else None. From the
            C module it is the JSON text; nvbench.run() turns it into a Result.
    """

    def __init__(self, *args):
        super().__init__(*args)
        self.result = None

    @property
    def name(self):
        """The errno's symbolic name, e.g. 'EINVAL'."""
        return _errno.errorcode.get(self.errno, str(self.errno))

    @property
    def is_input_error(self):
        """True when the workload or its targets were refused before any I/O."""
        return self.errno in INPUT_ERRNOS

    def __str__(self):
        # What a traceback prints: a target path or a name in the message is
        # shown with its control characters escaped, never obeyed (strerror
        # keeps the message as it is).
        if self.errno is None:
            return printable(super().__str__())
        return printable(f"{self.strerror} [{self.name}]")

    def __reduce__(self):
        return (type(self), (self.errno, self.strerror), {"result": self.result})


class VerifyError(NvbenchError):
    """A run with verify=1 read back blocks that did not match what was
    written: the data is bad, and the run is a failure (fio exits 1), however
    complete its figures.

    Attributes (besides NvbenchError's; errno is EILSEQ, as fio reports it):
        result: the run's Result, complete: ``result.data["verify"]`` has the
            counts by field and the first mismatches (offset, target, field).
    """

    def __init__(self, message, result=None):
        super().__init__(_errno.EILSEQ, message)
        self.result = result

    def __reduce__(self):
        return (type(self), (self.strerror,), {"result": self.result})


def verify_failure(data):
    """What a result's data (a dict) says about bad data: a message naming
    how many blocks did not match and the first ones, or None."""
    v = (data or {}).get("verify") or {}
    if not v.get("mismatches"):
        return None
    paths = [t.get("path") for t in data.get("per_target") or [] if isinstance(t, dict)]
    first = []
    for m in (v.get("first_mismatches") or [])[:3]:
        t = m.get("target", 0)
        where = f"'{paths[t]}' " if isinstance(t, int) and 0 <= t < len(paths) and paths[t] else ""
        first.append(f"{where}offset {m.get('offset')} ({m.get('field')})")
    return (f"verify: {v['mismatches']} of {v.get('checked', 0)} blocks read did not match what was written"
            + (f"; first: {', '.join(first)}" if first else ""))


class NvbenchWarning(UserWarning):
    """A warning the library put in a result: a figure that means less than
    its label suggests (a synchronous engine at qd > 1, a machine that was
    not quiet, a cached or sparse target, ...).

    nvbench.run() and the matrix issue one per warning of each result
    (Python's default filter shows each distinct text once per place); the
    texts also stay in ``Result.warnings``. Silence them with
    ``warnings.simplefilter("ignore", nvbench.NvbenchWarning)`` or turn them
    into errors with ``"error"``.
    """


class Terminated(SystemExit):
    """SIGTERM arrived while nvbench was running (run, matrix, seed_matrix)
    and SIGTERM had its default disposition.

    The run in progress was cancelled as Ctrl-C cancels it (in-flight I/O
    drained, scratch files and the matrix's temporary directory removed).
    A SystemExit with code 143 (128 + SIGTERM), so an uncaught Terminated
    ends the script with the status a SIGTERM'd process has, after its own
    cleanup ran; ``except Exception`` does not swallow it.

    Attributes (as on KeyboardInterrupt):
        result: the partial Result of the run that was cancelled, or None.
        results: from a matrix, the ResultSet of the runs already done.
    """

    def __init__(self, code=143):
        super().__init__(code)
        self.result = None
