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
    t["device_log"]["power"] = {"available": True, "reason": None, "state_before": 0, "state_after": 2,
                                "max_power_w": 8.5, "measured_w": None, "measured_reason": "not read"}
    assert "42 C (warning at 70 C), power state 0 -> 2 (max 8.5 W)\n" in summary(data)
    t["device_log"]["power"].update(measured_w=6.25, measured_intervals=30, measured_reason=None)
    assert "power state 0 -> 2 (max 8.5 W), measured 6.25 W over 30 intervals" in summary(data), summary(data)
    t["device_log"]["power"] = {"available": False, "reason": "Get Features failed"}
    assert "power state n/a (Get Features failed)" in summary(data)
    assert "energy: 1.5 J, CPU packages (every process's), 2.34e+04 uJ per I/O, 12 W" in text, text


def test_fio_job_files_with_the_io_modes_run(tmp_path):
    from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job
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
    # atomic=1: where the disk does no atomic writes (this machine's), refused naming the
    # limits; where it does, each write carries RWF_ATOMIC. Either way something is asserted.
    job.write_text(f"[a]\nioengine=psync\nfilename={f}\nrw=randwrite\nbs=4k\ndirect=1\natomic=1\nio_size=16k\n")
    try:
        atomic = run_fio_job(str(job))
    except (FioJobError, nvbench.NvbenchError) as e:  # the library's refusal, naming the section
        assert "atomic=1:" in str(e) and "atomic_write" in str(e), e
    else:
        assert "RWF_ATOMIC" in str(atomic[0].data["engine_used"].get("write_flags")), atomic[0].data["engine_used"]


def test_the_report_has_a_device_section(tmp_path):
    """The HTML report's section: each run's device figures and energy, or why they are
    missing; results without either (from before) get a note, not an empty table."""
    from nvbench import Result, ResultSet
    from nvbench.html_report import render
    plain = _result(tmp_path)
    data = dict(plain.data)
    t = dict(data["per_target"][0])
    names = ["data_units_written", "host_write_commands", "temperature_k", "media_errors",
             "thermal_management_temperature_1_transition_count"]
    before = dict.fromkeys(names, 0)
    before["temperature_k"] = 310
    after = dict(before, data_units_written=4, host_write_commands=64, temperature_k=315,
                 media_errors=2, thermal_management_temperature_1_transition_count=1)
    t["device_log"] = {"available": True, "reason": None, "node": "/dev/nvme0n1",
                       "warning_threshold_k": 343, "before": before, "after": after,
                       "delta": {k: after[k] - before[k] for k in names},
                       "device_bytes_per_host_byte": 2.0, "host_commands_per_io": 1.0,
                       "power": {"available": True, "reason": None, "state_before": 0, "state_after": 0,
                                 "max_power_w": 25, "measured_w": 11.99, "measured_intervals": 60,
                                 "measured_reason": None}}
    data["per_target"] = [t]
    data["energy"] = {"available": True, "reason": None, "joules": 1.5, "joules_per_io": 0.0234,
                      "watts": 12.0}
    page = render(ResultSet([Result(data, {}), plain]))
    sec = page[page.index('id="device"'):]
    assert "Device counters and energy" in sec
    assert "<td>2</td>" in sec and "1.953 MiB" in sec and "37 → 42 °C (warning at 70 °C)" in sec, sec
    assert "media errors +2" in sec and "thermal management temperature 1 transition count +1" in sec
    assert "1.5 J, 2.34e+04 µJ per I/O, 12 W" in sec, sec
    assert "Device power (measured)" in sec and "12 W over 60 intervals" in sec, sec
    t["device_log"]["power"].update(measured_w=None, measured_intervals=None, measured_reason="not running")
    assert "n/a: not running" in render(ResultSet([Result(data, {})])), "the reason where none was measured"
    # the plain run on a file: the library's reasons
    reason = plain.data["per_target"][0]["device_log"]["reason"]
    assert f"n/a: {reason}" in sec.replace("&#x27;", "'"), sec
    # results from before device counters: a note
    old = dict(plain.data)
    old.pop("energy", None)
    old["per_target"] = [{k: v for k, v in old["per_target"][0].items() if k != "device_log"}]
    page = render(ResultSet([Result(old, {})]))
    assert "No result recorded device counters or energy" in page


def _with_media(data, media, before_muw=None, after_muw=None):
    """data with a device_log read on /dev/nvme0n1 (the health log's fields from the schema,
    40 data units written) and media as given."""
    import json
    from conftest import SCHEMA_PATH
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        names = json.load(f)["definitions"]["health_log"]["required"]
    before = dict.fromkeys(names, 0)
    after = dict(before, data_units_written=40)
    t = dict(data["per_target"][0])
    t["device_log"] = {"available": True, "reason": None, "node": "/dev/nvme0n1", "warning_threshold_k": None,
                       "before": before, "after": after, "delta": {k: after[k] - before[k] for k in names},
                       "device_bytes_per_host_byte": None, "device_read_bytes_per_host_byte": None,
                       "host_commands_per_io": None, "derived_reason": None, "media": media,
                       "write_amplification": None, "write_amplification_reason": None}
    return dict(data, per_target=[t])


def test_write_amplification_read_back_and_shown(tmp_path):
    """device_log.media and write_amplification (docs/device.md): the library reads media
    back and derives the factor again (the text's own is not trusted); the summary and the
    report show it, or why there is none."""
    import json
    from nvbench import Result, ResultSet
    from nvbench.html_report import render
    plain = _result(tmp_path)
    media = {"available": True, "reason": None, "source": "endurance_group_log", "endurance_group": 1,
             "bytes_written_before": 50 * 512000, "bytes_written_after": 150 * 512000, "bytes_written": 0}
    r = Result.from_json(json.dumps(_with_media(plain.data, media)))
    d = r.data["per_target"][0]["device_log"]
    assert d["write_amplification"] == 2.5 and d["write_amplification_reason"] is None, d
    assert d["media"]["bytes_written"] == 100 * 512000, d["media"]
    assert "write amplification 2.5 (endurance_group_log)" in summary(r.data)
    sec = render(ResultSet([r]))
    sec = sec[sec.index('id="device"'):]
    assert "Write amplification" in sec and "<td>2.5</td>" in sec, sec
    why = "the controller reports no endurance groups (Identify Controller CTRATT bit 4)"
    r = Result.from_json(json.dumps(_with_media(plain.data, {"available": False, "reason": why})))
    d = r.data["per_target"][0]["device_log"]
    assert d["write_amplification"] is None and d["write_amplification_reason"] == why, d
    assert f"write amplification n/a ({why})" in summary(r.data)
    assert f"n/a: {why}" in render(ResultSet([r])), why
    # an unknown source is refused, naming the key
    bad = dict(media, source="vendor_log")
    try:
        Result.from_json(json.dumps(_with_media(plain.data, bad)))
        raise AssertionError("a media source nvbench does not read was accepted")
    except nvbench.NvbenchError as e:
        assert "device_log.media.source" in str(e), e
