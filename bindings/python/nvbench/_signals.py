"""SIGTERM while nvbench runs: a clean cancel, then the exit of a SIGTERM'd process.

Python already turns SIGINT into KeyboardInterrupt, which cancels a run
cleanly: the extension's poll hook runs the signal handlers, keeps the
exception, lets the library drain its I/O and remove its scratch file, and
re-raises it with the partial result. SIGTERM (timeout, systemd, docker stop)
keeps its default disposition in Python and kills the process on the spot:
scratch files and a matrix's temporary directory stay behind and no result
is printed.

While nvbench runs in the main thread and SIGTERM has its default
disposition, `sigterm_cancels()` installs a handler that raises Terminated
instead: the run is cancelled the way Ctrl-C cancels it, finally blocks and
context managers clean up, and the script ends with status 143 (128 + 15,
what a shell reports for a SIGTERM'd process) unless it catches Terminated.
A SystemExit rather than re-raising the signal after the cleanup, because
the cleanup of the caller (its own finally blocks, buffered stdout) belongs
to the same unwinding. A handler someone else installed is left alone.
"""
import contextlib
import signal
import threading

from .errors import Terminated

__all__ = ["sigterm_cancels"]


@contextlib.contextmanager
def sigterm_cancels():
    """For the duration of the block, a SIGTERM raises Terminated (once)
    instead of killing the process; the default disposition comes back
    afterwards. Does nothing outside the main thread (Python's rule for
    signal handlers) or when SIGTERM already has a handler or is ignored."""
    sigterm = getattr(signal, "SIGTERM", None)
    if sigterm is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(sigterm) is not signal.SIG_DFL:
        yield
        return
    fired = []

    def on_sigterm(signum, frame):
        # A second SIGTERM must not cut the cleanup of the first short.
        if not fired:
            fired.append(signum)
            raise Terminated()

    signal.signal(sigterm, on_sigterm)
    try:
        yield
    finally:
        signal.signal(sigterm, signal.SIG_DFL)
