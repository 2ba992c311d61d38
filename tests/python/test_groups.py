"""Job groups from Python (nvbench.run_groups): the totals are the groups'
sums, each group keeps its own figures, a reader and a writer share a file,
two writers are refused, a cancelled run keeps its groups, and the result
validates against docs/result.schema.json and survives the library's
reader."""
import json

import pytest

import nvbench
from nvbench import _nvbench

from conftest import cli, digest


def _validate(data, schema):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, schema)


def test_totals_are_the_sum_of_groups(schema):
    r = nvbench.run_groups([
        {"name": "rd", "rw": "randread", "bs": "4k", "qd": 4, "ios": 3001},
        {"name": "wr", "rw": "randwrite", "bs": "64k", "ios": 1234},
    ], engine="null")
    assert [g.meta["group"] for g in r.groups] == ["rd", "wr"]
    rd, wr = r.groups
    assert rd.read.ios == 3001 and rd.write.ios == 0 and rd.read.bytes == 3001 * 4096
    assert wr.write.ios == 1234 and wr.read.ios == 0 and wr.write.bytes == 1234 * 65536
    for d in ("read", "write"):
        assert r.data[d]["ios"] == sum(g.data[d]["ios"] for g in r.groups)
        assert r.data[d]["bytes"] == sum(g.data[d]["bytes"] for g in r.groups)
    assert r.data["workload"] == {"groups": ["rd", "wr"]}
    # the process CPU: the total's only
    assert "cpu" in r.data and all("cpu" not in g.data for g in r.groups)
    _validate(r.data, schema)


def test_shared_keywords_and_a_group_of_its_own():
    # engine and ios from the keywords, bs overridden by one group
    r = nvbench.run_groups([{"rw": "read"}, {"rw": "write", "bs": "8k"}], engine="null", ios=100, bs="16k")
    assert [g.meta["group"] for g in r.groups] == ["group0", "group1"]
    assert r.groups[0].read.bytes == 100 * 16384
    assert r.groups[1].write.bytes == 100 * 8192


def test_reader_and_writer_on_one_file(data_file):
    r = nvbench.run_groups([
        {"targets": data_file, "name": "reader", "rw": "randread", "ios": 500},
        {"targets": [data_file], "name": "writer", "rw": "randwrite", "ios": 200},
    ], engine="psync", direct=0)
    assert r.groups[0].read.ios == 500 and r.groups[1].write.ios == 200
    assert r.read.ios == 500 and r.write.ios == 200


def test_two_writers_refused_and_nothing_written(data_file):
    """Two writers of one file share it (fio's jobs do); one of them verifying: refused, nothing
    written."""
    r = nvbench.run_groups([
        {"targets": data_file, "name": "a", "rw": "randwrite", "ios": 50},
        {"targets": data_file, "name": "b", "rw": "write", "ios": 50},
    ], engine="psync", direct=0)
    assert [g["write"]["ios"] for g in r.data["groups"]] == [50, 50]
    before = digest(data_file)
    with pytest.raises(nvbench.NvbenchError) as ei:
        nvbench.run_groups([
            {"targets": data_file, "name": "a", "rw": "randwrite", "ios": 50},
            {"targets": data_file, "name": "b", "rw": "write", "ios": 50, "verify": 1},
        ], engine="psync", direct=0)
    assert ei.value.errno == 16  # EBUSY
    assert "'a'" in str(ei.value) and "'b'" in str(ei.value)
    assert digest(data_file) == before


def test_bad_groups_refused():
    with pytest.raises(TypeError):
        nvbench.run_groups({"rw": "read"}, engine="null")
    with pytest.raises(TypeError):
        nvbench.run_groups([], engine="null")
    with pytest.raises(TypeError):
        nvbench.run_groups(["read"], engine="null")
    with pytest.raises(nvbench.NvbenchError) as ei:
        nvbench.run_groups([{"rw": "sideways"}], engine="null")
    assert "sideways" in str(ei.value)


def test_progress_cancels_and_keeps_the_groups():
    seen = []

    def progress(p):
        seen.append(p)
        return len(seen) >= 3  # cancel at the third interval

    with pytest.raises(nvbench.NvbenchError) as ei:
        nvbench.run_groups([{"rw": "randread"}, {"rw": "randwrite"}], engine="null", runtime=600,
                           interval="50ms", progress=progress)
    r = ei.value.result
    assert isinstance(r, nvbench.Result) and r.cancelled
    assert len(r.groups) == 2 and all(g.cancelled for g in r.groups)
    assert r.read.ios == r.groups[0].read.ios > 0
    assert r.write.ios == r.groups[1].write.ios > 0
    assert len(seen) >= 3


def test_library_reads_it_back(schema):
    r = nvbench.run_groups([{"rw": "randrw", "ios": 400}, {"rw": "read", "ios": 100}], engine="null")
    text = json.dumps(r.data)
    back = json.loads(_nvbench.result_json(text))
    assert back == json.loads(json.dumps(r.data))
    _validate(back, schema)


def test_cli_run_with_groups(data_file, schema):
    from conftest import cli
    p = cli("run", "engine=psync", "direct=0", "ios=200", data_file, "--group", "name=rd", "rw=randread",
            "--group", "name=wr", "rw=randwrite", "bs=8k", "--print-json", "--no-progress")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["workload"] == {"groups": ["rd", "wr"]}
    assert [(g["name"], g["read"]["ios"], g["write"]["ios"]) for g in data["groups"]] == [("rd", 200, 0),
                                                                                          ("wr", 0, 200)]
    assert data["groups"][1]["write"]["bytes"] == 200 * 8192
    _validate(data, schema)
    # two writers: they share the target (as fio's jobs do); with verify on one refused, naming
    # both, nothing on stdout
    p = cli("run", "engine=psync", "direct=0", "ios=20", data_file, "--group", "rw=write", "--group",
            "rw=randwrite", "--no-progress")
    assert p.returncode == 0, p.stderr
    p = cli("run", "engine=psync", "direct=0", "ios=20", data_file, "--group", "rw=write", "--group",
            "rw=randwrite", "verify=1", "--no-progress")
    assert p.returncode != 0 and "'group0'" in p.stderr and "'group1'" in p.stderr
    # a group's own bad key is named with its group
    p = cli("run", "engine=null", "x", "--group", "rw=read", "--group", "rw=sideways", "--no-progress")
    assert p.returncode == 2 and "group 2: " in p.stderr and "sideways" in p.stderr


def test_summary_of_groups():
    from nvbench._summary import summary
    r = nvbench.run_groups([{"name": "a", "rw": "read", "ios": 50}, {"name": "b", "rw": "write", "ios": 60}],
                           engine="null")
    text = summary(r.data)
    assert text.startswith("total of 2 job groups (a, b): ")
    assert "\ngroup a: null read" in text and "\ngroup b: null write" in text
    assert text.count("cpu: ") == 1


def test_descriptors_of_the_groups_are_checked_summed(tmp_path):
    """nvbench run --group under RLIMIT_NOFILE 64 (set in the child): each group of 3 jobs x 8
    targets fits alone, the two together do not: refused before anything is opened, exit 2,
    the message says how many descriptors and what to raise."""
    import resource
    f = tmp_path / "t.dat"
    f.write_bytes(b"\0" * (1 << 20))
    targets = [str(f)] * 8
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))  # noqa: E731
    one = cli("run", "--print-json", "engine=psync", "direct=0", "jobs=3", "ios=8", *targets, preexec_fn=limit)
    assert one.returncode == 0, one.stderr
    both = cli("run", "engine=psync", "direct=0", "jobs=3", "ios=8", "--group", "name=a", *targets,
               "--group", "name=b", *targets, preexec_fn=limit)
    assert both.returncode == 2, both.stderr
    assert "2 job groups together" in both.stderr and "file descriptors" in both.stderr, both.stderr
    assert "ulimit -n" in both.stderr and "Traceback" not in both.stderr, both.stderr
