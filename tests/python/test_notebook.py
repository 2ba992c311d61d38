"""examples/notebooks/seed_matrix.ipynb runs headlessly (nbclient) under this interpreter."""

import json
import os
import sys

import pytest

import _synth
import _pkg
from conftest import jupyter_kernel
from nvbench.results import Result, ResultSet

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("pandas")

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NOTEBOOK = os.path.join(ROOT, "examples", "notebooks", "seed_matrix.ipynb")
# The kernel the notebook names, the one `make notebook` registers in the venv (README.md);
# registered here under that name for the interpreter under test, and found through the
# notebook's own metadata (no kernel_name below).
KERNEL = nbformat.read(NOTEBOOK, as_version=4).metadata.kernelspec.name

@pytest.fixture
def kernel(tmp_path, monkeypatch):
    """The notebook's kernel name, for the interpreter under test (conftest.jupyter_kernel)."""
    return jupyter_kernel(tmp_path, monkeypatch, KERNEL)


def _execute(workdir):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(workdir)}})
    client.execute()
    return nb


def _outputs(nb):
    text, html, images = [], [], 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            assert out.output_type != "error", "".join(out.get("traceback", []))
            if out.output_type == "stream":
                text.append(out.text)
            data = out.get("data", {})
            text.append(data.get("text/plain", ""))
            html.append(data.get("text/html", ""))
            images += "image/png" in data
    return "\n".join(text), "\n".join(html), images


def test_the_notebook_names_the_kernel_make_notebook_registers():
    assert KERNEL == "nvbench"
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    assert f"KERNEL     ?= {KERNEL}" in makefile and "--name $(KERNEL)" in makefile


def _check(nb, stacks):
    # how long the notebook took is the machine's business (a shared CI host): no bound
    text, html, images = _outputs(nb)
    for block in ("Random 4K read", "Sequential 128K write"):
        assert block in html
    for stack in list(stacks) + ["windows_native", "linux_io_uring"]:
        assert stack in html
    assert "Total CPU Usage (%)" in html and "IOPS per core" in html
    assert "(vs " in text and ("within noise" in text or "better" in text or "worse" in text)
    assert images >= 5   # bandwidth, IOPS, latency, CPU per I/O, efficiency


@pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: the notebook "
                    "loads the saved results with the library's parser")
def test_notebook_on_saved_results(kernel, monkeypatch):
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring", "psync"), repeats=2,
                                 effect={"io_uring": 1.3}))
    saved = kernel / "saved.json"
    rs.save(saved)
    monkeypatch.setenv("NVBENCH_RESULTS", str(saved))
    nb = _execute(kernel)
    _check(nb, rs.stacks)
    assert "better" in _outputs(nb)[0]   # io_uring's 30% more IOPS is not noise


@pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: the live "
                    "path is covered by test_notebook_on_saved_results until it is")
def test_notebook_runs_a_live_matrix(kernel, monkeypatch):
    import nvbench
    monkeypatch.delenv("NVBENCH_RESULTS", raising=False)
    nb = _execute(kernel)
    engines = [e for e in ("libaio", "io_uring", "psync") if e in nvbench.available_engines()]
    _check(nb, engines)


_RUN_IN_VENV = """\
import sys, nbformat, nbclient
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, sys.argv[3])
"""


@pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: the venv's "
                    "package is built from the same sources")
def test_notebook_runs_where_pip_installed_the_package(tmp_path):
    # A pip user: a fresh venv, `pip install .`, then the notebook, with no kernel registered
    # by hand and no JUPYTER_PATH: the kernel the notebook names comes with the package.
    import subprocess
    import venv  # noqa: F401  (skip below when missing)
    v = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(v)], check=True)
    # the C library's build tree of the test run (run.sh), so the build is incremental
    env = {k: val for k, val in os.environ.items()
           if k not in ("JUPYTER_PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MPLBACKEND")}
    env["NVBENCH_BUILD_BASE"] = os.environ.get("NVB_PY_BUILD_BASE") or str(tmp_path / "build")
    p = subprocess.run([str(v / "bin" / "pip"), "install", "--no-build-isolation", "--no-deps", "--quiet",
                        "--disable-pip-version-check", ROOT], env=env, capture_output=True, text=True,
                       timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring"), repeats=2, effect={"io_uring": 1.3}))
    rs.save(tmp_path / "saved.json")
    # nothing of the user's Jupyter dirs: the venv's own and the system's only
    env.update(NVBENCH_RESULTS=str(tmp_path / "saved.json"), JUPYTER_DATA_DIR=str(tmp_path / "data"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
               JUPYTER_PLATFORM_DIRS="1")
    out = tmp_path / "out.ipynb"
    p = subprocess.run([str(v / "bin" / "python"), "-c", _RUN_IN_VENV, NOTEBOOK, str(tmp_path), str(out)],
                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    nb = nbformat.read(str(out), as_version=4)
    _check(nb, rs.stacks)
