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
