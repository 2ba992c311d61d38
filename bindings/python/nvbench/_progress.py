"""Progress bars for runs and matrices: tqdm on a terminal, nothing otherwise."""
import sys
import warnings

from ._printable import printable

_warned = False


def _tqdm():
    global _warned
    try:
        from tqdm import tqdm
        return tqdm
    except ImportError:
        if not _warned:
            _warned = True
            warnings.warn("progress bars need tqdm (Debian: apt-get install python3-tqdm; "
                          "pip: nvbench[analysis]); running without one", RuntimeWarning, stacklevel=3)
        return None


def _terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Bar:
    """One bar over a sequence of runs, advanced fractionally inside each run
    from the library's done_fraction, so the ETA covers the whole sequence.

    enabled: shown only when it is true and stderr is a terminal.
    """

    def __init__(self, total_runs, enabled=True, desc="nvbench"):
        self.total = total_runs
        self._bar = None
        if enabled and _terminal(sys.stderr):
            tqdm = _tqdm()
            if tqdm is not None:
                # One run: its own seconds say where it is ("0.51/1 runs" did
                # not). A sequence: which run of how many, and that run's time.
                self._bar = tqdm(total=total_runs, desc=desc, unit="run", dynamic_ncols=True,
                                 bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]{postfix}")

    @property
    def active(self):
        return self._bar is not None

    def callback(self, index, label):
        """The progress callback for run number `index` (0-based)."""
        if self._bar is None:
            return None
        bar = self._bar

        def on_progress(p):
            bar.n = round(min(self.total, index + max(0.0, min(1.0, p.get("done_fraction", 0.0)))), 2)
            bar.set_postfix_str(self.describe(index, label, p), refresh=False)
            bar.refresh()
            return False

        return on_progress

    def describe(self, index, label, p):
        """The text beside the bar: the run (of how many), its label, its
        elapsed and total seconds, and its live IOPS."""
        iops = p.get("read_iops", 0.0) + p.get("write_iops", 0.0)
        where = f"run {index + 1}/{self.total} " if self.total > 1 else ""
        t = p.get("elapsed_s", 0.0)
        total = p.get("total_s") or 0.0
        secs = f"{t:.1f}/{total:.1f} s" if total > 0 else f"{t:.1f} s"
        return f"{where}{printable(label)}: {secs}, {iops:,.0f} IOPS"

    def done(self, index):
        if self._bar is not None:
            self._bar.n = min(self.total, index + 1)
            self._bar.refresh()

    def write(self, msg):
        """Print a line without breaking the bar."""
        msg = printable(msg)  # names targets: shown escaped, never obeyed
        if self._bar is not None:
            self._bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
