"""fio's ignore_error and the errnos continue_on_error goes on after (`nvbench run --fio`):
fio continues after an error of a kind it was told to only when the errno is in that kind's
list, EIO and EILSEQ unless ignore_error gives one; nvbench's continue_errnos. fio's own lists
are not compared side by side here: nothing makes the same errno fail in fio and in nvbench's
null engine, so the runs use nvbench's fault injection."""
import os

import pytest

from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job

from conftest import ROOT

JOBS = os.path.join(ROOT, "tests", "data", "fio_jobs")


def write(tmp_path, text):
    p = tmp_path / "t.fio"
    p.write_text(text)
    return str(p)


def test_lists_as_continue_errnos():
    [[a], [b]] = from_fio_job(os.path.join(JOBS, "ignore-error.fio"))
    assert (a["continue_errnos"], a["fio"]["origin"]["continue_errnos"]) == ("ENOSPC", "ignore_error")
    assert (b["continue_errnos"], b["fio"]["origin"]["continue_errnos"]) == ("EIO:EILSEQ", "continue_on_error")


@pytest.mark.parametrize("body,want", [
    ("rw=randread\ncontinue_on_error=read\nignore_error=EAGAIN:5,ENOSPC", "EAGAIN:5"),
    ("rw=randrw\ncontinue_on_error=all\nignore_error=ENOSPC,ENOSPC", "ENOSPC"),
    ("rw=randrw\ncontinue_on_error=all", "EIO:EILSEQ"),
    ("rw=randwrite\nignore_error=,ENOSPC", None),  # no continue_on_error: every error stops, as in fio
])
def test_the_list_of_the_jobs_kind(tmp_path, body, want):
    [[w]] = from_fio_job(write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n"))
    assert w.get("continue_errnos") == want


@pytest.mark.parametrize("body,why", [
    ("rw=randrw\ncontinue_on_error=all\nignore_error=,ENOSPC", "fio keeps a list for each"),
    ("rw=randwrite\ncontinue_on_error=write\nignore_error=,ENOSUCH", "errno names or numbers"),
])
def test_refusals(tmp_path, body, why):
    with pytest.raises(FioJobError, match=why):
        from_fio_job(write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n"))


def test_run_goes_on_after_listed_errnos_only():
    """Writes failing with ENOSPC (fault injection): the job whose list names ENOSPC does all its
    256 writes, counting the failures; the one with fio's default list stops at the first."""
    faults = {"fault.rate": "1/20", "fault.errno": "ENOSPC", "fault.seed": "5"}
    with pytest.raises(Exception) as e:
        run_fio_job(os.path.join(JOBS, "ignore-error.fio"), **faults)
    [a] = e.value.results
    assert a.data["write"]["ios"] + a.data["errors"]["count"] == 256 and a.data["errors"]["count"] > 0
    assert "ENOSPC" in str(e.value)
