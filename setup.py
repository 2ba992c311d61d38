"""Build glue for the nvbench Python package.

CMake stays the one build definition of the C library: build_ext configures the
top-level CMakeLists.txt in its temporary directory, builds only the static
library, and links the extension against it, so the wheel does not need
libnvbench.so at run time. The libraries the static archive itself needs
(-luring, -laio when CMake found them) come from the nvbench.pc that CMake
generates, so the two builds cannot disagree about them.

Everything else (name, scripts, extras, package data) lives in pyproject.toml.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def c_library_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\s*\(\s*nvbench\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", f.read())
    if not m:
        raise RuntimeError("cannot find project(nvbench VERSION x.y.z) in CMakeLists.txt")
    return m.group(1)


def c_sources():
    """Everything the static library is built from, for rebuild decisions."""
    out = ["CMakeLists.txt"]
    for top in ("include", "libnvbench"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith((".c", ".h", ".map", ".in")):
                    out.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return sorted(out)


class CMakeBuildExt(build_ext):
    """build_ext that first builds libnvbench.a with CMake."""

    def build_extension(self, ext):
        cmake = shutil.which("cmake")
        if not cmake:
            raise RuntimeError("nvbench needs cmake to build its C library (Debian: apt-get install cmake)")
        bdir = os.path.join(os.path.abspath(self.build_temp), "cmake")
        os.makedirs(bdir, exist_ok=True)
        configure = [cmake, "-S", ROOT, "-B", bdir,
                     "-DNVB_BUILD_TESTS=OFF", "-DNVB_BUILD_EXAMPLES=OFF",
                     "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON"]
        self.announce("configuring libnvbench: " + " ".join(configure), level=2)
        subprocess.run(configure, check=True, stdout=None if self.verbose else subprocess.DEVNULL)
        jobs = str(os.cpu_count() or 2)
        subprocess.run([cmake, "--build", bdir, "--target", "nvbench_static", "-j", jobs], check=True,
                       stdout=None if self.verbose else subprocess.DEVNULL)

        archive = os.path.join(bdir, "libnvbench.a")
        if not os.path.exists(archive):
            raise RuntimeError(f"CMake did not produce {archive}")
        libs, libdirs = self._private_libs(os.path.join(bdir, "nvbench.pc"))
        ext.extra_objects = [archive]
        ext.libraries = libs
        ext.library_dirs = libdirs
        # The archive's symbols are for this extension only: keep them out of
        # its dynamic symbol table so they never interpose on a libnvbench.so
        # loaded by something else in the same process.
        ext.extra_link_args = ["-Wl,--exclude-libs,ALL"]
        ext.depends = list(ext.depends) + [archive]
        super().build_extension(ext)

    @staticmethod
    def _private_libs(pc_path):
        libs, libdirs = [], []
        with open(pc_path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("Libs.private:"):
                    for tok in shlex.split(line.split(":", 1)[1]):
                        if tok.startswith("-l"):
                            libs.append(tok[2:])
                        elif tok.startswith("-L"):
                            libdirs.append(tok[2:])
                        elif tok == "-pthread":
                            libs.append("pthread")
        return libs, libdirs


# setuptools' default build directory is ./build, which is also the CMake
# build directory of the Makefile: keep its files in a subdirectory there.
# NVBENCH_BUILD_BASE moves them (the CTest run uses its own build tree).
build_base = os.environ.get("NVBENCH_BUILD_BASE") or os.path.join("build", "python")

setup(
    version=c_library_version(),
    ext_modules=[
        Extension(
            "nvbench._nvbench",
            sources=[os.path.join("bindings", "python", "src", f) for f in ("_nvbench.c", "_fiojob.c", "_json.c", "_stats.c", "_echo.c", "_seed.c", "_search.c", "_env.c")],
            # libnvbench/ for core/bindings.h, the internal (non-ABI) functions a
            # binding linking the static archive may call.
            include_dirs=["include", "libnvbench"],
            depends=c_sources(),
            extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-Wno-missing-field-initializers", "-fvisibility=hidden"],
        )
    ],
    # The Jupyter kernel the notebook names (examples/notebooks), installed with the
    # package into its environment (<prefix>/share/jupyter/kernels/nvbench), so the notebook
    # runs where the package is, with no step of its own. Its interpreter is "python", which
    # Jupyter replaces with the one it runs under: the environment's when started from it.
    # `make kernel` writes the same kernel with the venv's interpreter spelled out.
    data_files=[("share/jupyter/kernels/nvbench", ["bindings/python/kernel/kernel.json"])],
    cmdclass={"build_ext": CMakeBuildExt},
    options={"build": {"build_base": build_base}},
)
