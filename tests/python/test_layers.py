"""The package's modules import only downward.

A module that imports one that imports it back works or fails depending on
which of the two is imported first; hiding the second import inside a
function makes it work and hides the design problem. So: the graph of the
package's own module-level imports has no cycle, no function imports a
package module (except the two deliberate, lazy ones below), and every
module imports on its own, with nothing imported before it.
"""

import ast
import os
import subprocess
import sys

import pytest

import _pkg  # first: makes nvbench importable without the C extension
import nvbench

PKG = os.path.dirname(os.path.abspath(nvbench.__file__))
MODULES = sorted(f[:-3] for f in os.listdir(PKG) if f.endswith(".py"))
EXTENSION = "_nvbench"  # the C module: imports nothing from the package

# (module, function, imported module): imports that stay inside a function on
# purpose, not to dodge a cycle.
LAZY = {
    # the analysis side works without the C extension until a result is parsed
    ("result", "_library_json", "_nvbench"),
    # ... and until results are merged (the library merges them)
    ("merge", "merge", "_nvbench"),
    # ... and until statistics are computed (the library computes them)
    ("stats", "_c", "_nvbench"),
    # ... and until the seed cells are asked for (the library's table: nvb_seed_cell;
    # a percentile's rank goes through stats._c)
    ("labels", "_seed", "_nvbench"),
    # reference's optional dependencies may be missing: imported when called
    ("__init__", "reference", "reference"),
}


def _tree(name):
    with open(os.path.join(PKG, name + ".py"), encoding="utf-8") as f:
        return ast.parse(f.read(), name + ".py")


def _targets(node):
    """Package modules a relative import names ("__init__" for the package)."""
    if not isinstance(node, ast.ImportFrom) or node.level != 1:
        return []
    if node.module:
        return [node.module.split(".")[0]]
    return [a.name if a.name in MODULES or a.name == EXTENSION else "__init__" for a in node.names]


def _module_level_imports(tree):
    out, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        out.update(_targets(node))
        todo.extend(ast.iter_child_nodes(node))
    return out


def _function_imports(name, tree):
    out = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                out.update((name, fn.name, t) for t in _targets(node))
    return out


def test_module_imports_form_no_cycle():
    graph = {m: _module_level_imports(_tree(m)) - {m, EXTENSION} for m in MODULES}
    state = {}

    def visit(m, path):
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", "import cycle: " + " -> ".join(path + [m])
        state[m] = "open"
        for t in sorted(graph[m]):
            visit(t, path + [m])
        state[m] = "done"

    for m in MODULES:
        visit(m, [])


def test_no_function_imports_a_package_module_to_dodge_a_cycle():
    found = set()
    for m in MODULES:
        found |= _function_imports(m, _tree(m))
    assert found <= LAZY, sorted(found - LAZY)


# cli and __main__ are the package's front door: they import the package itself.
ALONE = [m for m in MODULES if m not in ("__init__", "__main__", "cli")]


@pytest.mark.parametrize("name", ALONE)
def test_module_imports_on_its_own(name):
    # A fresh interpreter with a bare package object: nvbench/__init__.py does
    # not run, so nothing is imported before the module under test.
    code = (
        "import importlib, sys, types\n"
        "pkg = types.ModuleType('nvbench')\n"
        f"pkg.__path__ = [{PKG!r}]\n"
        "sys.modules['nvbench'] = pkg\n"
        f"importlib.import_module('nvbench.{name}')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if p.returncode and _pkg.EXTENSION_MISSING and "_nvbench" in p.stderr:
        pytest.skip("needs the C extension, which is not built")
    assert p.returncode == 0, p.stderr
