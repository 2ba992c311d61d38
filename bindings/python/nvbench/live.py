"""Live figures from a script: what the CLI's --live and --metrics give (docs/history.md), for
the runs a script makes itself.

    with nvbench.LiveView(out="points.jsonl", metrics="127.0.0.1:9100") as lv:
        r = nvbench.run("/dev/nvme0n1", rw="randread", runtime=3600, interval="1s",
                        progress=lv.progress(), on_point=lv.on_point)

out: a file (or "-", stdout) that gets one JSON line per interval as it is measured, the point
with its "progress" object appended, as --live writes it; metrics: [HOST:]PORT served with the
latest figures in the Prometheus text format on http://ADDR/metrics (loopback unless HOST says
otherwise; port 0: any free one, see metrics_url) until close(). Several runs: next_run(label)
before each, so that each run's figures start from zero and its lines name it.
"""
import json

from . import _live


class LiveView:
    """--live and --metrics for nvbench.run / run_groups / run_fio_job callbacks."""

    def __init__(self, out=None, metrics=None):
        if not (out or metrics):
            raise ValueError("LiveView: give out (a file, or '-') or metrics ([HOST:]PORT), or both")
        # a bad address (ValueError naming it) or a port in use (OSError) opens nothing
        self._live = _live.Live(out, metrics)
        self._runs = 0

    @property
    def metrics_url(self):
        """http://HOST:PORT/metrics while served, else None."""
        s = self._live.server
        if s is None:
            return None
        h, p = s.server_address[:2]
        return f"http://[{h}]:{p}/metrics" if ":" in h else f"http://{h}:{p}/metrics"

    def next_run(self, label=None):
        """The next run of several: its figures from zero, its lines naming it (step, label)."""
        self._live.begin(label, self._runs, None)
        self._runs += 1

    def progress(self, inner=None):
        """A progress callback for run(progress=...), calling inner (if any) as well."""
        return self._live.progress(inner)

    def on_point(self, point):
        """A point callback for run(on_point=...): each time-series point (a dict)."""
        self._live.point(json.dumps(point, separators=(",", ":")))

    def close(self):
        self._live.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
