"""The rate and submission figures of issue 23 reach the person: the summary
`nvbench run` prints says what a slat covers and the batch, the depth kept,
and with a rate the lag split into the thread's lateness and the wait for a
slot, and the spin's cost; the same figures are in the result."""
import nvbench
from nvbench._summary import summary


def test_summary_shows_the_rate_split_and_the_submission_batch():
    r = nvbench.run(engine="null", rw="randread", qd=8, rate_iops=2000, rate_process="poisson", ios=400)
    d = r.data
    rate, sub = d["rate"], d["submissions"]
    assert rate["late_sum_ns"] + rate["queue_full_sum_ns"] == rate["lag_sum_ns"]
    assert sub["slat_scope"] == "submit_call" and sub["batch_max"] == 8
    text = summary(d)
    assert "thread late" in text and "queue full" in text, text
    assert "slat = the submit call" in text and "up to 8 I/Os per call" in text, text
    assert "rate: open poisson 2k IOPS" in text and "arrival gaps CV" in text, text


def test_submit_batch_one_keeps_the_queue_full():
    r = nvbench.run(engine="null", rw="randread", qd=16, submit_batch=1, ios=5000)
    sub = r.data["submissions"]
    assert sub["calls"] == sub["ios"] and sub["depth_mean"] == 16
    assert "depth kept 16" in summary(r.data)


def test_closed_mode_is_poisson_when_asked():
    r = nvbench.run(engine="null", rw="randread", qd=4, rate_iops=200, rate_mode="closed",
                    rate_process="poisson", ios=200)
    rate = r.data["rate"]
    assert rate["mode"] == "closed" and rate["process"] == "poisson"
    assert rate["late_mean_ns"] is None and rate["gap_cv"] > 0.7
