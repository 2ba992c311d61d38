#!/usr/bin/env python3
"""A structure check of packaging/windows/run-seed-matrix.ps1 (PowerShell is
not in Debian 12, so the script cannot be run or parsed by PowerShell here; it
is unverified until run on Windows, docs/windows.md).

    check_ps1.py SCRIPT.ps1

What a small tokenizer of PowerShell's lexical rules can check:
- every string ('...', "..." with backtick escapes, here-strings), comment
  (# and <# #>) and bracket ((), {}, [], $( )) is closed, in order;
- the param block declares the options the docs promise, Target mandatory
  and -Stack limited to the two Windows stacks;
- every variable read is a parameter, assigned before, or automatic;
- every function called is defined before its first call;
- the guard: a target on a system or boot disk throws; a raw disk is
  written only after Read-Host's YES (or -Force), and only then does
  --allow-destructive reach the arguments; seed_matrix.exe gets --json,
  and --stack only when -Stack is given.
Exit 0 when all hold; else the first failure and 1.
"""

import re
import sys

OPEN = {"(": ")", "{": "}", "[": "]"}
AUTOMATIC = {"true", "false", "null", "_", "matches", "lastexitcode", "myinvocation", "psscriptroot",
             "erroractionpreference", "args", "psboundparameters"}
PARAMS = {"target", "json", "runtime", "engines", "repeat", "stack", "size", "qd", "jobs", "precondition", "force"}


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def tokens(text):
    """(kind, text, line) of the script: 'str', 'var', 'word', 'op', brackets.
    Comments are dropped; strings keep their text for the checks below."""
    i, line, n = 0, 1, len(text)
    out = []
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("<#", i):
            j = text.find("#>", i + 2)
            if j < 0:
                fail(f"line {line}: block comment not closed")
            line += text.count("\n", i, j)
            i = j + 2
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith('@"', i) or text.startswith("@'", i):
            q = text[i + 1]
            if not text.startswith("\n", i + 2) and not text.startswith("\r\n", i + 2):
                fail(f"line {line}: a here-string's opening must end its line")
            j = text.find("\n" + q + "@", i)
            if j < 0:
                fail(f"line {line}: here-string not closed")
            out.append(("str", text[i + 2:j], line))
            line += text.count("\n", i, j + 1)
            i = j + 3
        elif c == "'":
            j = i + 1
            while True:
                j = text.find("'", j)
                if j < 0:
                    fail(f"line {line}: string not closed")
                if text.startswith("''", j):
                    j += 2
                    continue
                break
            out.append(("str", text[i + 1:j], line))
            line += text.count("\n", i, j)
            i = j + 1
        elif c == '"':
            j, depth = i + 1, 0
            while j < n:
                if text[j] == "`":
                    j += 2
                    continue
                if text.startswith("$(", j):
                    depth += 1
                    j += 2
                    continue
                if depth and text[j] == ")":
                    depth -= 1
                elif not depth and text[j] == '"':
                    if text.startswith('""', j):
                        j += 2
                        continue
                    break
                j += 1
            if j >= n:
                fail(f"line {line}: string not closed")
            body = text[i + 1:j]
            out.append(("str", body, line))
            # variables expanded inside: read like any other
            for m in re.finditer(r"\$\{(\w+)\}|\$(\w+)(?::\w+)?", body):
                name = m.group(1) or m.group(2)
                if not re.match(rf"\$\w+:\w", body[m.start():]) or name.lower() != "env":
                    out.append(("var", name, line))
            for sub in re.findall(r"\$\((.*?)\)", body):
                out.extend(tok for tok in tokens(sub) if tok[0] == "word")
            line += body.count("\n")
            i = j + 1
        elif c == "$":
            m = re.match(r"\$(\w+):(\w+)|\$\{(\w+)\}|\$(\w+)|\$\(", text[i:])
            if not m:
                fail(f"line {line}: a bare $")
            if m.group(0) == "$(":
                out.append(("(", "(", line))
            elif m.group(1):
                out.append(("scoped", f"{m.group(1)}:{m.group(2)}", line))
            else:
                out.append(("var", m.group(3) or m.group(4), line))
            i += len(m.group(0))
        elif c in OPEN or c in OPEN.values():
            out.append((c, c, line))
            i += 1
        else:
            m = re.match(r"[\w.\\:-]+|.", text[i:])
            out.append(("word", m.group(0), line))
            i += len(m.group(0))
    return out


def check_brackets(toks):
    stack = []
    for kind, _, line in toks:
        if kind in OPEN:
            stack.append((kind, line))
        elif kind in OPEN.values():
            if not stack or OPEN[stack[-1][0]] != kind:
                fail(f"line {line}: {kind} closes {stack[-1][0] + ' of line ' + str(stack[-1][1]) if stack else 'nothing'}")
            stack.pop()
    if stack:
        fail(f"line {stack[-1][1]}: {stack[-1][0]} not closed")


def param_block(text):
    m = re.search(r"\[CmdletBinding\(\)\]\s*param\s*\(", text)
    if not m:
        fail("no [CmdletBinding()] param( block")
    depth, j = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        j += 1
    return text[m.end():j - 1], j


def main(path):
    text = open(path, encoding="utf-8").read()
    toks = tokens(text)
    check_brackets(toks)
    params, after = param_block(text)
    declared = {v.lower() for v in re.findall(r"\]\s*\$(\w+)", params)}
    if declared != PARAMS:
        fail(f"the parameters are {sorted(declared)}, expected {sorted(PARAMS)}")
    if not re.search(r"Mandatory\s*=\s*\$true[^\]]*\)\]\s*\[string\[\]\]\$Target", params):
        fail("Target is not a mandatory list")
    vs = re.search(r'ValidateSet\(([^)]*)\)\]\s*\[string\]\$Stack', params)
    if not vs or set(re.findall(r'"(\w*)"', vs.group(1))) != {"", "windows_native", "windows_non_native"}:
        fail("-Stack is not limited to windows_native and windows_non_native")

    # variables: read only after an assignment (or as a parameter, or automatic)
    known = set(PARAMS) | AUTOMATIC
    body = tokens(text[after:])
    skipped = text[:after].count("\n")
    in_param = 0  # depth of a function's param( ... ): its variables are declared there
    for k, (kind, name, line) in enumerate(body):
        prev = body[k - 1] if k else ("", "", 0)
        if kind == "(" and prev[1].lower() == "param":
            in_param = 1
            continue
        if in_param and kind in "()":
            in_param += 1 if kind == "(" else -1
        if kind != "var":
            continue
        nxt = body[k + 1] if k + 1 < len(body) else ("", "", 0)
        loop = k >= 2 and body[k - 2][1].lower() == "foreach" and nxt[1] == "in"
        if in_param or loop or (nxt[0] == "word" and nxt[1] in ("=", "+")):
            known.add(name.lower())
        elif name.lower() not in known:
            fail(f"line {line + skipped}: ${name} is read before it is set")
    # functions: defined before called
    defined = [m.group(1) for m in re.finditer(r"^function\s+([\w-]+)", text, re.M)]
    for fn in defined:
        first_call = min((m.start() for m in re.finditer(rf"(?<!function )\b{fn}\b", text)), default=None)
        if first_call is None:
            fail(f"function {fn} is never called")
        if first_call < text.index(f"function {fn}"):
            fail(f"function {fn} is called before it is defined")

    # the guard
    if not re.search(r"IsSystem\s+-or\s+\$Disk\.IsBoot\)\s*\{\s*throw", text):
        fail("a system or boot disk is not refused with throw")
    for kind in ("PhysicalDrive", "volume", r"\$path"):
        if not re.search(rf"Assert-NotSystem[^\n]*{kind}", text):
            fail(f"the {kind} target is not checked against the system disk")
    ask, yes, allow = text.find("Read-Host"), text.find('-cne "YES"'), text.find('"--allow-destructive"')
    if not 0 <= ask < yes < allow:
        fail("--allow-destructive is not added after Read-Host's YES")
    if not re.search(r'if \(\$destructive\) \{\s*\$argv \+= "--allow-destructive"', text):
        fail("--allow-destructive is not limited to a disk target")
    if not re.search(r'if \(-not \$Force\) \{\s*\$answer = Read-Host', text) or text.count("Read-Host") != 1:
        fail("the question is not asked unless -Force")
    if '"--json", $Json' not in text:
        fail("seed_matrix.exe is not given --json")
    if not re.search(r'if \(\$Stack -ne ""\) \{ \$argv \+= @\("--stack", \$Stack\) \}', text):
        fail("--stack is not passed when -Stack is given")
    if not re.search(r"& \$exe @argv", text):
        fail("seed_matrix.exe is not run with the arguments")
    print(f"ok: {path}: {len(toks)} tokens, brackets and strings closed, {len(declared)} parameters, "
          f"variables set before use, the guard in order")


if __name__ == "__main__":
    main(sys.argv[1])
