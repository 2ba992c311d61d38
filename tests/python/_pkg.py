"""Make the pure-Python analysis modules importable before the C extension is built.

nvbench/__init__.py imports the extension nvbench._nvbench first. The analysis half
(results, fio, reference, plot) does not need it, and its tests must run on a checkout
where the extension has not been built yet. When ``import nvbench`` fails only because
``_nvbench`` is missing, a bare package module pointing at the same directory is put in
sys.modules instead, exposing the analysis API under the names the package exports.
"""

import importlib
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "bindings", "python"))

EXTENSION_MISSING = False


def _stub():
    for name in [m for m in sys.modules if m == "nvbench" or m.startswith("nvbench.")]:
        del sys.modules[name]
    pkg_dir = os.path.join(SRC, "nvbench")
    if "nvbench" not in sys.modules:
        pkg = types.ModuleType("nvbench", "nvbench analysis modules (extension not built)")
        pkg.__path__ = [pkg_dir]
        pkg.__file__ = os.path.join(pkg_dir, "__init__.py")
        sys.modules["nvbench"] = pkg
        results = importlib.import_module("nvbench.results")
        reference = importlib.import_module("nvbench.reference")
        for name in ("Result", "ResultSet", "load"):
            setattr(pkg, name, getattr(results, name))
        pkg.reference = reference.reference


def ensure():
    global EXTENSION_MISSING
    try:
        import nvbench  # noqa: F401
        import nvbench._nvbench  # noqa: F401
    except ImportError as exc:
        if "_nvbench" not in str(exc) and "nvbench" not in str(getattr(exc, "name", "")):
            raise
        EXTENSION_MISSING = True
        _stub()


ensure()
