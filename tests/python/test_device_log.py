"""What the device did and the energy (docs/device.md): per_target[].device_log and
energy in the result, through the Python API and the CLI summary."""
import nvbench
from nvbench._summary import summary


def _result(tmp_path):
    f = tmp_path / "d.dat"
    f.write_bytes(b"\1" * (4 << 20))
    return nvbench.run(str(f), engine="psync", rw="randread", bs="4k", ios=64, direct=False)


def test_a_file_has_no_device_log_and_the_summary_says_why(tmp_path):
    r = _result(tmp_path)
    d = r.data["per_target"][0]["device_log"]
    assert d["available"] is False and d["reason"], d
    assert "delta" not in d
    e = r.data["energy"]
    assert isinstance(e["available"], bool)
    assert (e["joules"] >= 0) if e["available"] else e["reason"], e
    text = summary(r.data)
    assert f"device log of {r.data['per_target'][0]['path']}: n/a ({d['reason']})" in text, text
    assert ("energy: n/a (" + e["reason"]) in text if not e["available"] else "energy: " in text


def test_the_summary_shows_the_device_and_energy_figures(tmp_path):
    data = _result(tmp_path).data
    t = data["per_target"][0]
    names = ["data_units_written", "data_units_read", "host_write_commands", "host_read_commands",
             "temperature_k", "media_errors"]
    before = dict.fromkeys(names, 0)
    before["temperature_k"] = 310
    after = dict(before, data_units_written=4, host_write_commands=64, temperature_k=315)
    t["device_log"] = {"available": True, "reason": None, "node": "/dev/nvme0n1",
                       "warning_threshold_k": 343, "before": before, "after": after,
                       "delta": {k: after[k] - before[k] for k in names},
                       "device_bytes_per_host_byte": 2.0, "device_read_bytes_per_host_byte": None,
                       "host_commands_per_io": 1.0, "derived_reason": None}
    data["energy"] = {"available": True, "reason": None, "source": "rapl", "domains": 1,
                      "joules": 1.5, "joules_per_io": 0.0234, "watts": 12.0}
    text = summary(data)
    assert "device /dev/nvme0n1: 2 device bytes written per host byte, wrote 1.95 MiB, " \
           "1 host commands per I/O, 37 -> 42 C (warning at 70 C)" in text, text
    assert "energy: 1.5 J, CPU packages (every process's), 2.34e+04 uJ per I/O, 12 W" in text, text


def test_fio_job_files_with_the_io_modes_run(tmp_path):
    from nvbench.fio_job import from_fio_job, run_fio_job
    f = tmp_path / "m.dat"
    f.write_bytes(b"\0" * (1 << 20))
    job = tmp_path / "modes.fio"
    job.write_text(f"[global]\nioengine=psync\nfilename={f}\nbs=4k\nio_size=64k\n"
                   "[uncached]\nrw=randread\nbuffered=1\nuncached=1\n"
                   "[fua]\nstonewall\nrw=randwrite\nfua=1\n")
    steps = from_fio_job(str(job))
    assert steps[0][0]["uncached"] in ("1", 1, True) and steps[1][0]["fua"] in ("1", 1, True), steps
    results = run_fio_job(str(job))
    flat = [r for step in results for r in (step if isinstance(step, list) else [step])]
    used = [r.data["engine_used"] for r in flat]
    assert any(u.get("read_flags") == "RWF_DONTCACHE" for u in used), used
    assert any(u.get("write_flags") == "RWF_DSYNC" for u in used), used
    # atomic=1 where the disk does no atomic writes: refused, naming the limits
    job.write_text(f"[a]\nioengine=psync\nfilename={f}\nrw=randwrite\nbs=4k\ndirect=1\natomic=1\nio_size=16k\n")
    try:
        run_fio_job(str(job))
    except Exception as e:  # FioJobError naming the section, from the library's refusal
        assert "atomic=1:" in str(e) and "atomic_write" in str(e), e
