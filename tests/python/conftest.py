"""Fixtures for the Python tests of the run side (API, errors, CLI, cancellation).

The tests run against the installed package (`<venv>/bin/python -m pytest
tests/python`): nothing here puts bindings/python on sys.path, so what is
tested is what pip installed, C extension included. Every run is short
(about 200 ms per cell) to keep the whole suite well under two minutes.
"""
import hashlib
import json
import contextlib
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA_PATH = os.path.join(ROOT, "docs", "result.schema.json")


def digest(path):
    """sha256 of a file's content, to prove a refused workload wrote nothing."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree(path):
    """Every entry under a directory, to prove nothing was left behind."""
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        for n in dirnames + filenames:
            out.append(os.path.relpath(os.path.join(dirpath, n), path))
    return sorted(out)


@pytest.fixture
def data_file(tmp_path):
    """A 1 MiB file of random bytes, in its own directory."""
    d = tmp_path / "file"
    d.mkdir()
    p = d / "data.bin"
    p.write_bytes(os.urandom(1 << 20))
    return str(p)


@pytest.fixture
def empty_dir(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    return str(d)


@pytest.fixture(scope="session")
def schema():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def check_c_result(obj, schema):
    """obj is a C result (plus the ResultSet's "meta"): it has every key that
    docs/result.schema.json requires, at the top and in each direction. (The
    strict validation of the C output is tests/scripts/test_json_schema.sh's
    job; this checks that the binding hands it over whole.)"""
    missing = [k for k in schema["required"] if k not in obj]
    assert not missing, f"result lacks {missing}"
    assert obj["schema"] == "nvbench.result/1"
    direction = schema["definitions"]["direction_total"]["required"]
    for d in ("read", "write"):
        lacking = [k for k in direction if k not in obj[d]]
        assert not lacking, f"{d} lacks {lacking}"
    assert isinstance(obj["per_target"], list) and isinstance(obj["cpu"], dict)


@pytest.fixture(scope="session")
def available():
    import nvbench
    return [n for n, (ok, _) in nvbench.engines().items() if ok]


def lua_env(env=None):
    """env for running lua5.4 on the source's Lua files and the build's nvbench.so (the
    C module: nvbench.fio_job reads job files through it), or None when that module is
    not built. NVB_LUA_MODULE_DIR (set by tests/CMakeLists.txt) names its directory."""
    for d in (os.environ.get("NVB_LUA_MODULE_DIR"), os.path.join(os.getcwd(), "..", "bindings", "lua"),
              os.path.join(ROOT, "build", "bindings", "lua")):
        if d and os.path.isfile(os.path.join(d, "nvbench.so")):
            return dict(os.environ if env is None else env,
                        LUA_PATH=os.path.join(ROOT, "bindings", "lua", "?.lua") + ";;",
                        LUA_CPATH=os.path.join(os.path.abspath(d), "?.so") + ";;")
    return None


def cli(*args, timeout=120, **kw):
    """Run `python -m nvbench ARGS` with this interpreter; stdout/stderr as text."""
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    env["MPLBACKEND"] = "Agg"
    return subprocess.run([sys.executable, "-m", "nvbench", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env, **kw)


@contextlib.contextmanager
def loop_device(img):
    """img attached as a loop device (its path), detached afterwards; skips
    the test where that needs root or losetup it does not have."""
    if os.geteuid() != 0 or not shutil.which("losetup"):
        pytest.skip("needs root and losetup for a loop device")
    p = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"losetup failed: {p.stderr.strip()}")
    dev = p.stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


# Used instead of ipykernel_launcher while the C extension is not built: the kernel then gets
# the same analysis-only nvbench package as these tests (see _pkg.py).
_LAUNCHER = """\
import sys
sys.path.insert(0, {tests!r})
import _pkg  # noqa: F401
from ipykernel import kernelapp
kernelapp.launch_new_instance()
"""


def jupyter_kernel(tmp_path, monkeypatch, name):
    """A kernelspec `name` for sys.executable in a private JUPYTER_PATH (Debian's default
    kernelspec is /usr/bin/python3, which may not be the interpreter under test); the
    notebook's kernel runs the nvbench package these tests import. Returns tmp_path."""
    import _pkg
    spec_dir = tmp_path / "jupyter" / "kernels" / name
    spec_dir.mkdir(parents=True)
    if _pkg.EXTENSION_MISSING:
        launcher = tmp_path / "launch_kernel.py"
        launcher.write_text(_LAUNCHER.format(tests=os.path.dirname(os.path.abspath(__file__))))
        argv = [sys.executable, str(launcher), "-f", "{connection_file}"]
    else:
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps(
        {"argv": argv, "display_name": "nvbench test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(
        sys.modules["nvbench.results"].__file__)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [pkg_parent] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    return tmp_path
