"""What watches the runs of a command while they go on: --live and --metrics (_live.py) and
the store's time-series points (_points.py), wired once for every command that runs (run,
run --fio, matrix, search): each run's progress and point callbacks, and each run saved in
the store as soon as it is produced."""
from . import _live, _points, _store_cli, core
from ._cli_common import EXIT_INPUT, _err


def add_live_args(s, dash):
    s.add_argument("--live", metavar="FILE|-",
                   help="write one JSON line per interval as it is measured: the time-series point with its "
                        "progress, naming its step, cell, search run or job group (docs/history.md)" + dash)
    s.add_argument("--metrics", metavar="ADDR",
                   help="serve the latest figures in the Prometheus text format on http://ADDR/metrics while "
                        "the runs go on ([HOST:]PORT, loopback unless HOST says otherwise; port 0: any free one, "
                        "named on stderr)")


def live_of(args):
    """--live/--metrics: their callbacks (_live.Live), None without them, or an exit status
    after saying why not."""
    return _open_live(getattr(args, "live", None), getattr(args, "metrics", None))


def _open_live(live, metrics):
    if not (live or metrics):
        return None
    try:
        return _live.Live(live, metrics, err=_err)
    except ValueError as e:
        _err(str(e))
        return EXIT_INPUT
    except OSError as e:
        _err(f"--live {live or ''} --metrics {metrics or ''}: {e.strerror or e}")
        return EXIT_INPUT


def watchers(live, points, progress, label, step=None, steps=None):
    """The progress and point callbacks of one run (a step, a matrix cell, a search's run) for
    --live, --metrics and the store's points; (progress, None) without them. step (from 0)
    names the run in each --live line; steps may be None (a search: not known ahead)."""
    fns = []
    if live is not None:
        live.begin(label if step is not None else None, step, steps)
        progress = live.progress(progress)
        fns.append(live.point)
    if points is not None:
        fns.append(points.begin(label))
    if not fns:
        return progress, None
    if len(fns) == 1:
        return progress, fns[0]

    def point(text):
        for f in fns:
            f(text)
    return progress, point


class Watch:
    """The runs of one command of several (matrix cells, a search's runs) seen by --live,
    --metrics and the store's points; with save, each run is saved in the store as soon as it
    is produced (the point writer's thread saves it with its last points)."""

    def __init__(self, live, points, save=False):
        self.live, self.points, self.save = live, points, save
        self.runs = 0

    @classmethod
    def of(cls, args, save=False):
        """The Watch of a command's --live, --metrics and --save/--db, or an exit status."""
        live = live_of(args)
        if isinstance(live, int):
            return live
        return cls(live, _store_cli.point_writer(args), save)

    def __call__(self, index, total, label, progress):
        return watchers(self.live, self.points, progress, label, index, total)

    def done(self, r):
        if self.points is not None:
            (self.points.save if self.save else self.points.done)(r)

    def runner(self, targets, label_of):
        """A run(**keys) for nvbench.search: each run on targets, watched (named label_of(keys))."""
        def run(**keys):
            label = label_of(keys)
            progress, point = self(self.runs, None, label, None)
            self.runs += 1
            w = core.workload(*targets, **keys)
            r = core._verified(core._run_shown(w, progress, label, point))
            self.done(r)
            return r
        return run

    def close(self):
        """The point writer, for saving (the live view ends here)."""
        if self.live is not None:
            self.live.close()
            self.live = None
        return self.points


def rank_live(args, rank, size, host):
    """mpi-run's --live and --metrics on one rank: every rank watches its own run. FILE is
    expanded as the targets are ({rank}, {size}, {host}) and must name each rank's file apart
    ({rank}) when there are several; ADDR's port is offset by the rank (0: any free one). Each
    line's progress names the rank first ("rank", "ranks", "host"). A Live, None without
    them, or an exit status after saying why not."""
    path, addr = getattr(args, "live", None), getattr(args, "metrics", None)
    if not (path or addr):
        return None
    if path and path != "-":
        if size > 1 and "{rank}" not in path:
            _err(f"--live {path}: every rank writes its own points: name the file with {{rank}} "
                 "(live-{rank}.jsonl), or give -")
            return EXIT_INPUT
        path = path.replace("{rank}", str(rank)).replace("{size}", str(size)).replace("{host}", host)
    if addr:
        try:
            h, port = _live.parse_addr(addr)
        except ValueError as e:
            _err(str(e))
            return EXIT_INPUT
        addr = f"[{h}]:{port + rank if port else 0}" if ":" in h else f"{h}:{port + rank if port else 0}"
    live = _open_live(path, addr)
    if live is not None and not isinstance(live, int):
        live.fig.begin({"rank": rank, "ranks": size, "host": host})
    return live


class RankPoints:
    """mpi-run's --save/--db on one rank: every rank writes its own points into the store as
    they are measured, a stream labelled rank=RANK with the rank's host (a store that fails
    costs that rank's points only, said on its stderr). The writer starts with the first
    point: a run refused before it started opens no store and writes nothing."""

    def __init__(self, args, rank, host):
        self.args, self.rank, self.host = args, rank, host
        self.writer, self._point, self._tried = None, None, False

    def point(self, text):
        if not self._tried:
            self._tried = True
            self.writer = _store_cli.point_writer(self.args, host=self.host,
                                                  err=lambda m: _err(f"rank {self.rank} (host {self.host}): {m}"))
            if self.writer is not None:
                self._point = self.writer.begin(f"rank={self.rank}")
        if self._point is not None:
            self._point(text)

    def close(self):
        """(the stream's ref, points written) once every point is written; None without any."""
        if self.writer is None:
            return None
        self.writer.close(flush=True)
        return self.writer.stream_ref(), self.writer.written


def rank_points(args, rank, host):
    """This rank's RankPoints and its point callback, or (None, None) without saving."""
    if not _store_cli._saving(args):
        return None, None
    rp = RankPoints(args, rank, host)
    return rp, rp.point


def rank_watch(live, point):
    """mpi.run's _watch: this rank's progress and point callbacks for --live/--metrics and the
    store's points; None without either."""
    if live is None and point is None:
        return None
    fns = [f for f in (None if live is None else live.point, point) if f is not None]

    def watch(cb):
        def each(text):
            for f in fns:
                f(text)
        return (cb if live is None else live.progress(cb)), (fns[0] if len(fns) == 1 else each)
    return watch


def rank_streams(comm, points, result):
    """Every rank's points written to the end, their streams named to rank 0: there, the
    _points.Streams that saving the merged result links to its run; None on the others (and
    without saving). Every rank calls it (a collective)."""
    refs = comm.gather(None if points is None else points.close(), root=0)
    if comm.Get_rank() != 0 or points is None:
        return None
    return _points.Streams(result, [r for r in refs if r is not None])
