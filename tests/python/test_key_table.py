"""The key table reaches Python through the library's public API (nvb_workload_key_info):
the lists and help texts that were hand-written copies now come from it."""
import subprocess
import sys

from nvbench import _compare_cli, _nvbench


def test_key_table_is_the_librarys_keys_with_every_column():
    table = _nvbench.key_table()
    assert [k["name"] for k in table] == [name for name, _, _ in _nvbench.workload_keys()]
    for k in table:
        assert k["help"] and k["group"] and k["type"] and k["echo"], k
        assert k["measures"] in ("0", "1"), k
    by = {k["name"]: k for k in table}
    assert by["qd"]["fio"] == "iodepth" and by["runtime"]["echo"] == "runtime_s"
    assert by["thinktime"]["unit"] == "microseconds"
    # engines=True: the engines' options after the core keys, described by their engines
    full = _nvbench.key_table(engines=True)
    assert full[:len(table)] == table
    opts = {k["name"]: k for k in full[len(table):]}
    assert "io_uring.sqpoll" in opts and all(k["group"] == "engine" and k["help"] for k in opts.values())


def test_compare_measuring_keys_come_from_the_table():
    table = _nvbench.key_table()
    want = tuple(k["echo"] for k in table if k["measures"] == "1")
    assert _compare_cli._measure_keys() == want
    # what the hand-written list named stays measured, under the echo's names
    assert {"qd", "jobs", "thinktime_s", "bssplit", "random_map"} <= set(want)
    assert "runtime_s" not in want and "seed" not in want
    # a nested echo name is looked up member by member
    assert _compare_cli._echo_value({"fault": {"delay_s": 0.5}}, "fault.delay_s") == 0.5
    assert _compare_cli._echo_value({"fault": None}, "fault.delay_s") is None


def test_run_help_lists_every_key_by_group_with_its_fio_name():
    p = subprocess.run([sys.executable, "-m", "nvbench", "run", "--help"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for k in _nvbench.key_table():
        line = next((l for l in out.splitlines() if l.split()[:1] == [k["name"]]), None)
        assert line is not None, k["name"]
        assert k["help"][:40] in " ".join(out.split()), k["name"]
        if k["fio"] and k["fio"] != k["name"]:
            assert f"[fio: {k['fio']}]" in line, line
        assert f" {k['group']}:" in out
    for k in _nvbench.key_table(engines=True):
        assert any(l.split()[:1] == [k["name"]] for l in out.splitlines()), k["name"]
