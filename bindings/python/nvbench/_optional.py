"""Optional dependencies (pandas, ...), imported only by the features that need them.

The core API (run, matrix, results, save/load, CLI) needs nothing beyond the
standard library; a missing package is reported with the Debian package that
provides it.
"""


def _require(module, debian_package):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError(
            f"this nvbench feature needs {module.split('.')[0]}; install it with "
            f"'apt install {debian_package}' (Debian/Ubuntu) or your package manager"
        ) from exc


def _pandas():
    return _require("pandas", "python3-pandas")
