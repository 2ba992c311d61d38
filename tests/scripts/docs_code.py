#!/usr/bin/env python3
"""The code in README.md and docs/*.md, checked as code (README.md, "Code in the docs
is tested", states the rules this applies):

- a ```c block containing ``int main(`` is a program: built with -Wall -Wextra -Werror
  through the build tree's nvbench.pc, run with one argument (a 64 MiB scratch file) in
  a scratch directory, must exit 0; a ```python or ```lua block whose first line starts
  with ``#!`` is a program too (the venv's Python, lua5.4 with this build's module);
- other ```c blocks compile as the body of a function; other ```python and ```lua
  blocks parse; a block preceded by the line ``<!-- fragment -->`` is left alone;
- ```sh blocks, and every line or inline code span starting with ``nvbench ``: each
  nvbench subcommand answers --help and knows the options named; make targets exist
  in the Makefile; repository paths the commands name exist.

    docs_code.py BUILD_DIR SOURCE_DIR VENV_PYTHON LUA    (VENV_PYTHON, LUA: "" when missing)

Prints one line per check and a summary; exits 1 when any check failed, 77 when
everything that ran passed but a runtime (the venv, lua5.4) was missing.
"""

import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

FRAGMENT_MARK = "<!-- fragment -->"
RUN_TIMEOUT = 300          # a program's own runtime is a few seconds; a loaded machine is slow
SCRATCH_BYTES = 64 << 20
# Top-level folders of this repository: words starting with one are paths to check.
REPO_DIRS = ("examples", "tests", "bindings", "docs", "cmake", "libnvbench", "include")
C_WRAPPER = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvbench.h>
void nvb_doc_fragment(void);
void nvb_doc_fragment(void)
{
#line %d "%s"
%s
}
"""


class Block:
    __slots__ = ("path", "line", "lang", "text", "fragment")

    def __init__(self, path, line, lang, text, fragment):
        self.path, self.line, self.lang, self.text, self.fragment = path, line, lang, text, fragment

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    @property
    def is_program(self):
        if self.lang == "c":
            return "int main(" in self.text
        return self.lang in ("python", "lua") and self.text.startswith("#!")


def blocks_of(path, rel):
    """Every fenced block of a Markdown file, with its language and whether the line
    before its fence is the fragment mark."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        fragment = start > 0 and lines[start - 1].strip() == FRAGMENT_MARK
        out.append(Block(rel, start + 2, m.group(1), "\n".join(body) + "\n", fragment))
        i += 1
    return out


def inline_commands(path):
    """Inline code spans of the prose (outside fences) that start with `nvbench `."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [m.group(1) for m in re.finditer(r"`(nvbench [^`]+)`", text)]


class Checker:
    def __init__(self, build, src, venv_py, lua):
        self.build, self.src, self.venv_py, self.lua = build, src, venv_py, lua
        self.failed, self.passed, self.missing = [], 0, set()
        os.makedirs(os.path.join(build, "tests", "tmp"), exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="docs_code.", dir=os.path.join(build, "tests", "tmp"))
        self.help = {}
        self.make_targets = self._make_targets()

    # --- bookkeeping -------------------------------------------------------

    def ok(self, what):
        self.passed += 1
        print(f"  ok: {what}")

    def bad(self, what, detail=""):
        self.failed.append(what)
        print(f"  FAIL: {what}")
        if detail:
            print("    " + detail.strip().replace("\n", "\n    ")[:4000])

    def run(self, argv, cwd=None, env=None, timeout=RUN_TIMEOUT):
        try:
            p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace",
                               timeout=timeout)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            return None, f"timed out after {timeout} s: {e.output or ''}"
        except OSError as e:
            return None, str(e)

    def scratch_dir(self, name):
        d = tempfile.mkdtemp(prefix=name + ".", dir=self.tmp)
        path = os.path.join(d, "scratch")
        with open(path, "wb") as f:
            chunk = os.urandom(1 << 20)
            for i in range(SCRATCH_BYTES >> 20):
                f.write(i.to_bytes(8, "little") + chunk[8:])
        return d, path

    # --- C -----------------------------------------------------------------

    def pkg_config(self, *args):
        env = dict(os.environ, PKG_CONFIG_PATH=self.build)
        env.pop("PKG_CONFIG_LIBDIR", None)
        rc, out = self.run(["pkg-config", *args, "nvbench"], env=env)
        if rc != 0:
            raise RuntimeError(f"pkg-config {' '.join(args)} nvbench with PKG_CONFIG_PATH={self.build}: {out}")
        return shlex.split(out)

    def check_c(self, b, n):
        san = shlex.split(os.environ.get("NVB_SANITIZE_FLAGS", ""))
        if b.is_program:
            d, scratch = self.scratch_dir(f"c{n}")
            src, exe = os.path.join(d, "prog.c"), os.path.join(d, "prog")
            with open(src, "w") as f:
                f.write(f'#line {b.line} "{b.path}"\n' + b.text)
            rc, out = self.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", *san,
                                *self.pkg_config("--cflags"), src, "-o", exe, *self.pkg_config("--libs")])
            if rc != 0:
                return self.bad(f"{b.where}: the C program does not build", out)
            env = dict(os.environ, LD_LIBRARY_PATH=self.build)
            rc, out = self.run([exe, scratch], cwd=d, env=env)
            if rc != 0:
                return self.bad(f"{b.where}: the C program exited {rc} on a scratch file", out)
            return self.ok(f"{b.where}: C program built and ran: {out.strip().splitlines()[-1][:100]}")
        d = os.path.join(self.tmp, f"c{n}")
        os.makedirs(d)
        src = os.path.join(d, "fragment.c")
        with open(src, "w") as f:
            f.write(C_WRAPPER % (b.line, b.path, b.text))
        rc, out = self.run(["cc", "-std=gnu11", "-fsyntax-only", "-Werror=implicit-function-declaration",
                            "-Wno-unused", *self.pkg_config("--cflags"), src])
        if rc != 0:
            return self.bad(f"{b.where}: the C fragment does not compile inside a function "
                            f"(declare what it uses, or mark it {FRAGMENT_MARK})", out)
        self.ok(f"{b.where}: C fragment compiles")

    # --- Python and Lua ----------------------------------------------------

    def lua_env(self):
        return dict(os.environ, LUA_CPATH=os.path.join(self.build, "bindings", "lua", "?.so") + ";;",
                    LUA_PATH=os.path.join(self.src, "bindings", "lua", "?.lua") + ";;")

    def check_script(self, b, n):
        if b.lang == "python":
            if not b.is_program:
                try:
                    compile(b.text, b.where, "exec")
                except SyntaxError as e:
                    return self.bad(f"{b.where}: the Python fragment does not parse", str(e))
                return self.ok(f"{b.where}: Python fragment parses")
            if not self.venv_py:
                self.missing.add("the venv with nvbench (the python test makes it)")
                return None
            argv0, suffix, env = [self.venv_py], ".py", dict(os.environ)
        else:
            if not self.lua:
                self.missing.add("lua5.4 and the Lua module")
                return None
            if not b.is_program:
                # load() parses without running; "..." is legal in a main chunk
                rc, out = self.run([self.lua, "-e", "local f = io.open(os.getenv('NVB_DOC'))"
                                    " assert(load(f:read('a'), '=" + b.where + "'))"],
                                   env=dict(os.environ, NVB_DOC=self._write(f"lua{n}.lua", b.text)))
                if rc != 0:
                    return self.bad(f"{b.where}: the Lua fragment does not parse", out)
                return self.ok(f"{b.where}: Lua fragment parses")
            argv0, suffix, env = [self.lua], ".lua", self.lua_env()
        d, scratch = self.scratch_dir(f"{b.lang}{n}")
        prog = os.path.join(d, "prog" + suffix)
        with open(prog, "w") as f:
            f.write(b.text)
        rc, out = self.run(argv0 + [prog, scratch], cwd=d, env=env)
        if rc != 0:
            return self.bad(f"{b.where}: the {b.lang} program exited {rc} on a scratch file", out)
        self.ok(f"{b.where}: {b.lang} program ran: {(out.strip().splitlines() or [''])[-1][:100]}")

    def _write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    # --- commands ----------------------------------------------------------

    def _make_targets(self):
        targets = set()
        with open(os.path.join(self.src, "Makefile"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^([A-Za-z0-9_.-][A-Za-z0-9_. -]*):(?!=)", line)
                if m:
                    targets.update(m.group(1).split())
        return targets

    def nvbench_help(self, sub):
        if sub not in self.help:
            if not self.venv_py:
                self.missing.add("the venv with nvbench (the python test makes it)")
                self.help[sub] = None
            else:
                argv = [self.venv_py, "-m", "nvbench"] + ([sub] if sub else []) + ["--help"]
                self.help[sub] = self.run(argv, cwd=self.tmp, timeout=120)
        return self.help[sub]

    def check_nvbench(self, words, where):
        """words: what follows `nvbench` on a command line."""
        sub = next((w for w in words if re.match(r"^[a-z][a-z-]*$", w)), None)
        opts = sorted({m for w in words for m in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", w)})
        got = self.nvbench_help(sub or "")
        if got is None:
            return
        rc, text = got
        name = f"nvbench {sub}" if sub else "nvbench"
        if rc != 0:
            return self.bad(f"{where}: `{name} --help` exits {rc}: no such command?", text)
        unknown = [o for o in opts if o != "--help" and not re.search(re.escape(o) + r"(?![\w-])", text)]
        if unknown:
            return self.bad(f"{where}: `{name}` has no option {', '.join(unknown)}", text)
        self.ok(f"{where}: `{name}` exists" + (f" with {', '.join(opts)}" if opts else ""))

    def check_path(self, word, where):
        path = word.split("=", 1)[-1].rstrip(",;:)")
        if path.startswith("build/examples/c/"):
            want = os.path.join(self.src, "examples", "c", os.path.basename(path) + ".c")
        elif path.split("/", 1)[0] in REPO_DIRS and "{" not in path:
            want = os.path.join(self.src, path)
        else:
            return
        if glob.glob(want):
            self.ok(f"{where}: {path} exists")
        else:
            self.bad(f"{where}: {path} does not exist in this repository")

    def check_command_line(self, line, where):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        cmds, cur = [], []
        for w in words:
            if w in ("&&", "||", ";", "|"):
                cmds.append(cur)
                cur = []
            else:
                cur.append(w)
        cmds.append(cur)
        for cmd in cmds:
            while cmd and re.match(r"^[A-Z_][A-Z0-9_]*=", cmd[0]):
                cmd = cmd[1:]
            if not cmd:
                continue
            prog = os.path.basename(cmd[0])
            rest = cmd[1:]
            if prog == "nvbench":
                self.check_nvbench(rest, where)
            elif prog in ("python", "python3") and rest[:2] == ["-m", "nvbench"]:
                self.check_nvbench(rest[2:], where)
            elif prog == "make":
                for t in rest:
                    if t.startswith("-") or "=" in t:
                        continue
                    if t in self.make_targets:
                        self.ok(f"{where}: make {t}")
                    else:
                        self.bad(f"{where}: `make {t}`: no such target in the Makefile")
            for w in cmd:
                if "/" in w and not w.startswith(("-", "/", "$", "'", '"')):
                    self.check_path(w, where)

    def check_shell(self, b):
        text = re.sub(r"\\\n", " ", b.text)
        for i, line in enumerate(text.split("\n")):
            if line.strip():
                self.check_command_line(line, f"{b.path}:{b.line + i}")

    # --- all ---------------------------------------------------------------

    def check_file(self, path):
        rel = os.path.relpath(path, self.src)
        for n, b in enumerate(blocks_of(path, rel)):
            tag = f"{rel.replace('/', '_')}{n}"
            if b.fragment:
                print(f"  note: {b.where}: marked {FRAGMENT_MARK}, not compiled")
                continue
            if b.lang == "c":
                self.check_c(b, tag)
            elif b.lang in ("python", "lua"):
                self.check_script(b, tag)
            elif b.lang in ("sh", "bash", "shell", "console"):
                self.check_shell(b)
            else:
                for i, line in enumerate(b.text.split("\n")):
                    if re.match(r"^\s*(\S*/)?nvbench ", line):
                        self.check_command_line(line.replace("[", " ").replace("]", " ").replace("|", " "),
                                                f"{b.path}:{b.line + i}")
        for cmd in inline_commands(path):
            self.check_command_line(cmd, f"{rel} (inline `{cmd[:40]}`)")


def main():
    build, src, venv_py, lua = (os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]),
                                sys.argv[3], sys.argv[4])
    c = Checker(build, src, venv_py, lua)
    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    for path in files:
        print(os.path.relpath(path, src))
        c.check_file(path)
    print(f"{c.passed} passed, {len(c.failed)} failed")
    if c.failed:
        for f in c.failed:
            print(f"  - {f}")
        return 1
    if c.missing:
        print("SKIP: not checked without " + ", ".join(sorted(c.missing)), file=sys.stderr)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
