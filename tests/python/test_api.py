"""The run side of the Python API: the extension, run(), matrix(), seed_matrix()."""
import json
import os
import re
import threading
import time

import pytest

import nvbench
from nvbench import _nvbench
from nvbench.errors import NvbenchError

from conftest import ROOT, check_c_result, tree

FAST = dict(runtime=0.2, interval="50ms")


def test_version_is_the_c_library_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        want = re.search(r"project\(nvbench VERSION ([0-9.]+)", f.read()).group(1)
    assert nvbench.__version__ == want == _nvbench.version() == _nvbench.HEADER_VERSION
    assert _nvbench.SCHEMA_VERSION == "nvbench.result/1"


def test_engines_lists_every_engine_with_a_reason():
    engines = nvbench.engines()
    assert {"psync", "libaio", "io_uring", "null"} <= set(engines)
    for name, (ok, why) in engines.items():
        assert isinstance(ok, bool) and isinstance(why, str)
        assert ok or why, f"{name} unavailable without a reason"
    assert engines["psync"][0] and engines["null"][0]
    raw = _nvbench.engines()
    assert [n for n, _, _ in raw] == list(engines)
    assert "null" not in nvbench.available_engines()


def test_strerror():
    assert _nvbench.strerror(22) == _nvbench.strerror(-22)
    assert _nvbench.strerror(22)


def test_extension_types_are_heap_types_of_the_module():
    w = _nvbench.Workload()
    assert type(w).__module__ == "nvbench._nvbench"
    with pytest.raises(TypeError):
        _nvbench.Workload(1)
    with pytest.raises(TypeError):
        type("Sub", (_nvbench.Workload,), {})  # not a base type


def test_workload_set_get_round_trip():
    w = _nvbench.Workload()
    assert w.get("rw") == "randread"  # library defaults
    w.set("bs", "64k")
    assert w.get("bs") == "65536"
    w.set("runtime", "1500ms")
    assert w.get("runtime") == "1500ms"
    w.set("rw", "randwrite")
    assert w.get("rw") == "randwrite"
    w.add_target("/tmp")
    w.clear_targets()
    with pytest.raises(NvbenchError) as ei:
        w.get("blocksize")
    assert "blocksize" in ei.value.strerror
    with pytest.raises(TypeError):
        w.set("bs", 4096)  # the thin layer takes strings; nvbench.run converts


def test_python_values_become_library_strings():
    from nvbench.core import workload
    w = workload(bs=4096, runtime=2, ramp=0.25, interval=0.1, direct=False, qd=8)
    assert (w.get("bs"), w.get("runtime"), w.get("direct"), w.get("qd")) == ("4096", "2s", "0", "8")
    assert w.get("ramp") == "250ms" and w.get("interval") == "100ms"
    assert workload(bs="4k").get("bs") == workload(bs=4096).get("bs")
    with pytest.raises(TypeError):
        workload(bs=[4096])


def test_every_duration_key_takes_seconds_as_a_number():
    # The list of duration keys comes from the library's key table: a copy
    # kept in Python once lacked io_timeout and fault.delay, so 0.001 reached
    # the library as "0.001" and became 999999 ns.
    from nvbench.core import workload
    keys = {name: kind for name, kind, _ in _nvbench.workload_keys()}
    durations = {k for k, kind in keys.items() if kind == "duration"}
    assert {"runtime", "ramp", "interval", "io_timeout", "fault.delay"} <= durations
    for k in durations:
        w = workload(options={k: 0.01})
        assert w.get(k) == "10ms", k
    assert workload(io_timeout=2).get("io_timeout") == "2s"
    assert workload(options={"fault.delay": 0.001}).get("fault.delay") == "1ms"


def test_workload_keys_are_the_keys_the_library_takes():
    listed = _nvbench.workload_keys()
    assert len({name for name, _, _ in listed}) == len(listed) > 20
    w = _nvbench.Workload()
    for name, kind, doc in listed:
        assert kind and doc, name
        w.get(name)  # every listed key is one the library knows
    names = {name for name, _, _ in listed}
    for core in ("engine", "rw", "bs", "qd", "jobs", "size", "verify", "fault.rate"):
        assert core in names


def test_engine_options_two_spellings():
    from nvbench.core import workload
    a = workload(engine="io_uring", io_uring_sqpoll=1)
    b = workload(engine="io_uring", options={"io_uring.sqpoll": True})
    assert a.get("io_uring.sqpoll") == b.get("io_uring.sqpoll") == "1"


def test_run_returns_a_result(data_file, schema):
    r = nvbench.run(data_file, engine="psync", rw="randread", bs="4k", qd=1, jobs=1, **FAST)
    assert r.read.ios > 0 and r.read.iops > 0 and r.write.ios == 0
    assert 0 < r.read.lat_ns.p50 <= r.read.lat_ns.p99 <= r.read.lat_ns.max
    assert r.cpu.cpu_us_per_io > 0 and r.cpu.system_pct >= 0
    assert r.engine == "psync" and not r.cancelled and r.error is None
    assert r.meta["engine"] == "psync" and r.meta["stack"] == "psync"
    assert (r.meta["rw"], r.meta["bs"], r.meta["qd"], r.meta["jobs"]) == ("randread", 4096, 1, 1)
    assert (r.meta["cell"], r.meta["op"], r.meta["repeat"]) == ("rand4k", "read", 0)
    assert r.meta["target"] == data_file
    d = r.to_dict()
    check_c_result(d, schema)
    assert json.loads(r.to_json()) == d
    assert nvbench.Result(d) == r


@pytest.mark.parametrize("engine", ["psync", "libaio", "io_uring", "null"])
def test_every_available_engine_runs(engine, data_file, available):
    if engine not in available:
        pytest.skip(f"{engine} not available here: {nvbench.engines()[engine][1]}")
    r = nvbench.run(data_file, engine=engine, rw="randwrite", bs="4k", qd=4, ios=256)
    assert r.write.ios == 256 and r.engine == engine


def test_directory_target_leaves_nothing(empty_dir):
    r = nvbench.run(empty_dir, rw="randwrite", size="4M", **FAST)
    assert r.write.ios > 0
    assert r.data["per_target"][0]["kind"] == "scratch"
    assert tree(empty_dir) == []


def test_progress_callable_gets_snapshots(data_file):
    seen = []
    r = nvbench.run(data_file, runtime=0.5, interval="50ms", progress=seen.append)
    assert len(seen) >= 3
    assert all(isinstance(p, dict) for p in seen)
    for key in ("elapsed_s", "total_s", "read_ios", "read_iops", "write_iops", "done_fraction"):
        assert key in seen[-1]
    fractions = [p["done_fraction"] for p in seen]
    assert fractions == sorted(fractions) and 0 < fractions[-1] <= 1
    assert seen[-1]["read_ios"] <= r.read.ios


def test_progress_returning_true_cancels(data_file):
    with pytest.raises(NvbenchError) as ei:
        nvbench.run(data_file, runtime=60, interval="50ms", progress=lambda p: p["elapsed_s"] > 0.1)
    e = ei.value
    assert e.errno == 125  # ECANCELED
    assert isinstance(e.result, nvbench.Result) and e.result.cancelled
    # ended long before its 60 s (generous: a shared machine may be slow to stop)
    assert e.result.duration_s < 30


def test_progress_exception_cancels_and_is_reraised(data_file):
    class Boom(Exception):
        pass

    def cb(p):
        raise Boom("from the callback")

    t0 = time.monotonic()
    with pytest.raises(Boom) as ei:
        nvbench.run(data_file, runtime=60, interval="50ms", progress=cb)
    assert time.monotonic() - t0 < 30  # long before its 60 s
    assert ei.value.result.cancelled and ei.value.result.read.ios > 0


def test_gil_is_released_during_a_run(data_file):
    done = threading.Event()
    out = {}

    def worker():
        out["r"] = nvbench.run(data_file, runtime=0.5, interval="100ms")
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    spins = 0
    while not done.is_set():
        spins += 1
    t.join()
    assert out["r"].read.ios > 0
    assert spins > 10000, "the main thread barely ran: is the GIL held during nvb_run?"


def test_two_runs_at_once_in_two_threads(data_file, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(os.urandom(1 << 20))
    results = {}

    def go(name, path, engine):
        results[name] = nvbench.run(path, engine=engine, **FAST)

    threads = [threading.Thread(target=go, args=("a", data_file, "psync")),
               threading.Thread(target=go, args=("b", str(other), "null"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["a"].engine == "psync" and results["b"].engine == "null"
    assert results["a"].meta["target"] == data_file and results["b"].meta["target"] == str(other)


def test_workload_cannot_change_during_its_run(data_file):
    w = _nvbench.Workload()
    w.set("runtime", "1s")
    w.add_target(data_file)
    t = threading.Thread(target=_nvbench.run, args=(w,))
    t.start()
    time.sleep(0.3)
    with pytest.raises(RuntimeError):
        w.set("bs", "8k")
    with pytest.raises(RuntimeError):
        w.add_target(data_file)
    assert w.get("bs") == "4096"
    t.join()
    w.set("bs", "8k")  # free again


# ------------------------------------------------------------------ matrix

def test_matrix_order_and_labels(data_file):
    rs = nvbench.matrix(targets=[data_file], engines=["null", "psync"], rw=["randread", "read"],
                        bs=["4k", "8k"], repeat=2, ios=64)
    assert isinstance(rs, nvbench.ResultSet) and len(rs) == 16
    got = [(r.meta["repeat"], r.meta["rw"], r.meta["bs"], r.meta["engine"]) for r in rs]
    want = [(rep, rw, bs, eng) for rep in (0, 1) for rw in ("randread", "read")
            for bs in (4096, 8192) for eng in ("null", "psync")]
    assert got == want
    for r in rs:
        assert r.read.ios == 64
        assert r.meta["stack"] == r.meta["engine"]
        assert r.meta["cell"] == ("rand" if r.meta["rw"] == "randread" else "seq") + \
            {4096: "4k", 8192: "8k"}[r.meta["bs"]]
        assert r.meta["op"] == "read" and r.meta["target"] == data_file


def test_matrix_other_axes_join_the_stack_label(data_file):
    rs = nvbench.matrix(targets=data_file, engine="psync", qd=[1, 2], direct=[True, False], ios=32)
    assert [r.meta["stack"] for r in rs] == ["psync qd=1 direct=true", "psync qd=1 direct=false",
                                             "psync qd=2 direct=true", "psync qd=2 direct=false"]
    assert [r.workload.direct for r in rs] == [1, 0, 1, 0]


def test_matrix_one_value_lists_keep_engine_columns(data_file):
    # qd=[8] varies nothing: columns stay named by engine, and compare() finds them
    rs = nvbench.matrix(targets=[data_file], engines=["psync", "null"], qd=[8], ios=64, repeat=2)
    assert {r.meta["stack"] for r in rs} == {"psync", "null"}
    c = rs.compare(baseline="psync")
    assert set(c["stack"]) == {"null"}
    rs2 = nvbench.matrix(targets=data_file, engines=["psync", "null"], qd=[1, 2], ios=32)
    assert rs2.compare(baseline="psync qd=1") is not None
    with pytest.raises(ValueError, match="ambiguous"):
        rs2.compare(baseline="psync")


def test_matrix_checks_every_cell_before_running(data_file):
    calls = []
    before = os.path.getmtime(data_file)
    with pytest.raises(NvbenchError) as ei:
        nvbench.matrix(targets=[data_file], engines=["psync"], rw="randwrite", bs=["4k", "4x"], ios=8,
                       progress=calls.append)
    assert "4x" in ei.value.strerror and "bs" in ei.value.strerror
    assert calls == [] and os.path.getmtime(data_file) == before


def test_matrix_progress_callable_sees_the_whole_sweep(data_file):
    seen = []
    nvbench.matrix(targets=[data_file], engines=["psync"], bs=["4k", "8k"], runtime=0.2, interval="50ms",
                   progress=seen.append)
    assert {p["run_index"] for p in seen} == {0, 1}
    assert all(p["runs"] == 2 for p in seen)


def test_seed_matrix_cells_in_published_order(empty_dir):
    rs = nvbench.seed_matrix(targets=[empty_dir], engines=["psync"], runtime=0.1, qd=4, size="8M")
    assert [(r.meta["cell"], r.meta["op"]) for r in rs] == [
        ("rand4k", "read"), ("rand64k", "read"), ("seq64k", "read"), ("seq128k", "read"),
        ("rand4k", "write"), ("rand64k", "write"), ("seq64k", "write"), ("seq128k", "write")]
    assert [r.meta["rw"] for r in rs] == ["randread"] * 2 + ["read"] * 2 + ["randwrite"] * 2 + ["write"] * 2
    assert [r.meta["bs"] for r in rs] == [4096, 65536, 65536, 131072] * 2
    assert all(r.meta["qd"] == 4 and r.meta["engine"] == "psync" for r in rs)
    # one scratch file for every cell, in the directory, removed at the end
    assert len({r.data["per_target"][0]["file"] for r in rs}) == 1
    assert tree(empty_dir) == []
    table = rs.table()
    assert "Random 4K read" in table and "Sequential 128K write" in table


def test_seed_matrix_preconditions_and_judges_write_cells_only(empty_dir):
    rs = nvbench.seed_matrix(targets=[empty_dir], engines=["psync"], runtime=5, qd=2, size="8M", ios=64,
                             interval="100ms", precondition=2,
                             steady_state={"metric": "iops", "window": "300ms", "excursion": 100, "slope": 100,
                                           "stop": False})
    assert len(rs) == 8
    for r in rs:
        if r.meta["op"] == "read":
            assert r.data["precondition"] is None and r.data["steady_state"] is None
            continue
        # the region twice, outside the cell's own figures
        assert r.precondition.passes == 2 and r.precondition.bytes == 2 * (8 << 20)
        assert r.write.ios == 64 and r.write.bytes == 64 * r.meta["bs"]
        ss = r.data["steady_state"]
        assert ss["metric"] == "iops" and ss["rounds"] == 3 and not ss["stopped"]
        if ss["reached"]:
            assert ss["at_s"] <= r.duration_s and ss["max_excursion_pct"] <= 100 and ss["slope_pct"] <= 100
        else:
            assert ss["at_s"] is None
    assert tree(empty_dir) == []


def test_seed_matrix_write_cell_options_are_checked():
    from nvbench.matrix import _write_cell_keys
    assert _write_cell_keys(None, "bw") == {"ss": "bw", "ss.stop": "1"}
    assert _write_cell_keys(3, {"metric": "lat", "window": "5m", "stop": False, "runtime": "2h"}) == {
        "precondition": "3", "ss": "lat", "ss.window": "5m", "ss.stop": "false", "runtime": "2h"}
    with pytest.raises(ValueError, match="metrc"):
        nvbench.seed_matrix(engines=["psync"], steady_state={"metrc": "iops"})
    with pytest.raises(ValueError, match="metric"):
        nvbench.seed_matrix(engines=["psync"], steady_state={"window": "5m"})
    with pytest.raises(ValueError, match="precondition"):
        nvbench.seed_matrix(engines=["psync"], precondition=-1)
    # the library's own check, naming the key, before any run
    with pytest.raises(NvbenchError, match="ss.excursion"):
        nvbench.seed_matrix(engines=["psync"], size="4M", steady_state={"metric": "iops", "excursion": 120})


def test_seed_matrix_default_engines_skip_null():
    rs = nvbench.seed_matrix(runtime=0.05, qd=2, size="4M", ios=16)
    assert [r.meta["engine"] for r in rs[: len(nvbench.available_engines())]] == nvbench.available_engines()
    assert "null" not in rs.stacks


def test_save_and_load_round_trip(data_file, tmp_path, schema):
    rs = nvbench.matrix(targets=[data_file], engines=["psync", "null"], ios=32, repeat=2)
    p = tmp_path / "rs.json"
    rs.save(p)
    doc = json.loads(p.read_text())
    assert len(doc["results"]) == 4
    for entry in doc["results"]:
        check_c_result(entry, schema)
    back = nvbench.load(p)
    assert back == rs


def test_devices_of_a_recorded_tree():
    root = os.path.join(ROOT, "tests", "data", "sysfs", "pcie-nvme", "sys")
    if not os.path.isdir(root):
        pytest.skip("no recorded sysfs tree")
    devs = nvbench.devices(root)
    assert isinstance(devs, list) and devs
    for d in devs:
        assert {"name", "path", "kind", "size", "logical_block_size", "busy"} <= set(d)
    nvme = [d for d in devs if d["kind"] == "nvme"]
    assert nvme and nvme[0]["nvme"]["controllers"]
    assert json.loads(_nvbench.devices_json(root)) == devs


def test_devices_of_this_machine():
    devs = nvbench.devices()
    assert isinstance(devs, list)
    with pytest.raises(NvbenchError) as ei:
        nvbench.devices("/nonexistent-sysfs")
    assert ei.value.errno == 2 and "/nonexistent-sysfs" in ei.value.strerror
    with pytest.raises(NvbenchError) as ei:
        nvbench.device("/nonexistent-device")
    assert ei.value.errno == 2 and "/nonexistent-device" in ei.value.strerror
    with pytest.raises(NvbenchError) as ei:
        nvbench.device(os.path.join(ROOT, "CMakeLists.txt"))
    assert ei.value.errno == 19  # ENODEV
    for d in devs:
        if d.get("path") and os.path.exists(d["path"]) and d["kind"] != "partition":
            assert nvbench.device(d["path"])["name"] == d["name"]
            break


def test_seed_matrix_random_preconditioning(empty_dir):
    """precondition="random" reaches the write cells (one pass with planned
    invalidation, docs/steady-state.md), not the read cells; a wrong word is refused."""
    rs = nvbench.seed_matrix(targets=[empty_dir], engines=["psync"], runtime=5, qd=2, size="4M", ios=16,
                             cells=["rand4k"], precondition="random", **{"sprandom.regions": 8})
    assert [r.meta["op"] for r in rs] == ["read", "write"]
    assert rs[0].data["precondition"] is None
    pre = rs[1].data["precondition"]
    assert pre["regions"] == 8 and pre["rewrites"] > 0 and pre["bytes"] >= 4 << 20
    assert rs[1].data["workload"]["precondition_mode"] == "random"
    with pytest.raises(ValueError, match="precondition"):
        nvbench.seed_matrix(engines=["psync"], precondition="rand")
    assert tree(empty_dir) == []
