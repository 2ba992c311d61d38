#!/usr/bin/env python3
"""Writes what the table of the result's figures (libnvbench/core/figures.c)
describes: the objects it covers in docs/result.schema.json (their properties
and required keys) and the tables of docs/json-schema.md and docs/device.md (the health log's
fields) between `<!-- figures: SECTION... -->` and `<!-- /figures -->`.

    gen_figures.py TABLE.json SOURCE_DIR [--check]

TABLE.json is what nvb_figures_dump prints (tools/figures_dump.c). With
--check nothing is written: it exits 1 naming each file that is not what it
would write (tests/scripts/test_figures_current.sh).
"""
import difflib
import json
import os
import re
import sys

# Where each section's object stands in the schema (JSON pointers).
SCHEMA_AT = {
    "dir": ["/definitions/direction_total", "/definitions/direction_target"],
    "target": ["/definitions/target"],
    "errors": ["/properties/errors"],
    "verify": ["/properties/verify"],
    "vmismatch": ["/definitions/vmismatch"],
    "precondition": ["/properties/precondition/oneOf/1"],
    "thread": ["/definitions/thread"],
    "submissions": ["/properties/submissions"],
    "rate": ["/properties/rate/oneOf/1"],
    "host": ["/definitions/host"],
    "hostdir": ["/definitions/host_direction"],
    "fault": ["/properties/fault"],
    "faultdir": ["/definitions/fault_direction"],
    "total": ["/properties/total", "/definitions/host_total"],
    "lat": ["/definitions/lat_ns"],
    "hostcpu": ["/definitions/host_cpu"],
    "energy": ["/definitions/energy/oneOf/1"],
    "devlog": ["/definitions/device_log/oneOf/1"],
    "health": ["/definitions/health_log"],
    "healthd": ["/definitions/health_log_delta"],
    "devpower": ["/definitions/device_power/oneOf/1"],
    "devmedia": ["/definitions/device_media/oneOf/1"],
}
# Sections that are some of their object's keys: only theirs are written
# (each keeps its description), the object's other keys stay as they are.
SCHEMA_SOME = {
    "head": "",
    "run": "",
    "end": "",
    "hist": "/definitions/lat_hist",
    "cpu": "/definitions/cpu",
    "ss": "/properties/steady_state/oneOf/1",
    "device": "/definitions/target_device",
    "pcache": "/definitions/page_cache",
    "ts": "/definitions/sample",
    "tsdir": "/definitions/sample_direction",
}
# Objects whose required keys are a section's keys that match a pattern:
# lat_pct_supported has a flag for each percentile of lat_ns.
REQUIRED_OF = {
    "/definitions/lat_pct_supported": ("lat", r"^p[0-9.]+$"),
}


def pointer(doc, ptr):
    for part in filter(None, ptr.strip("/").split("/")):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def expand(code):
    """A row's schema code as JSON Schema (figures.h says the codes)."""
    if code.startswith("?"):
        return {"oneOf": [{"type": "null"}, expand(code[1:])]}
    if code.startswith("#"):
        return {"$ref": "#/definitions/" + code[1:]}
    if code.startswith("{"):
        return json.loads(code)
    if code in ("count", "nonneg", "percent"):
        return {"$ref": "#/definitions/" + code}
    return {"type": {"bool": "boolean", "string": "string"}[code]}


def schema_text(table, old):
    doc = json.loads(old)
    for sec, ptrs in SCHEMA_AT.items():
        rows = [f for f in table if f["sec"] == sec]
        for ptr in ptrs:
            obj = pointer(doc, ptr)
            obj["type"] = "object"
            obj["required"] = [f["key"] for f in rows if not f["optional"] and not f["trim_only"]]
            obj["additionalProperties"] = False
            obj["properties"] = {f["key"]: expand(f["schema"]) for f in rows}
    for sec, ptr in SCHEMA_SOME.items():
        rows = [f for f in table if f["sec"] == sec]
        obj, keys = pointer(doc, ptr), {f["key"] for f in rows}
        for f in rows:
            new, was = expand(f["schema"]), obj["properties"].get(f["key"], {})
            if "description" in was:
                new = {"description": was["description"], **new}
            obj["properties"][f["key"]] = new
        want = [f["key"] for f in rows if not f["optional"] and not f["trim_only"]]
        obj["required"] = [k for k in obj["required"] if k not in keys or k in want] + \
            [k for k in want if k not in obj["required"]]
    for ptr, (sec, pat) in REQUIRED_OF.items():
        pointer(doc, ptr)["required"] = [f["key"] for f in table if f["sec"] == sec and re.match(pat, f["key"])]
    return dump(doc, 0) + "\n"


def dump(v, ind):
    """JSON, a value on one line where it fits in 110 columns."""
    flat = json.dumps(v, ensure_ascii=False, separators=(", ", ": "))
    if ind * 2 + len(flat) <= 110 or not isinstance(v, (dict, list)) or not v:
        return flat
    pad = "  " * (ind + 1)
    if isinstance(v, list):
        items = [pad + dump(x, ind + 1) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + "  " * ind + "]"
    items = [pad + json.dumps(k) + ": " + dump(x, ind + 1) for k, x in v.items()]
    return "{\n" + ",\n".join(items) + "\n" + "  " * ind + "}"


MERGE = {"sum": "added", "max": "the largest", "recomputed": "recomputed", "histogram": "added by bucket",
         "none": "none: `null`", "each": "each kept", "or": "any",
         "first": "the first part's", "agree": "the parts' when they agree, else `mixed`",
         "absent": "none: absent"}


def health_table(table):
    """The health log's fields (devlog.h's list): where the log page keeps them."""
    out = ["| field | spec name | bytes | unit |", "|---|---|---|---|"]
    for f in [f for f in table if f["sec"] == "health"]:
        out.append("| `%s` | %s | %s | %s |" % (f["key"], f["doc"], f["bytes"], f["unit"]))
    return out


def md_table(table, secs):
    if secs == ["health"]:
        return health_table(table)
    out = ["| key | meaning | merged |", "|---|---|---|"]
    for sec in secs:
        for f in [f for f in table if f["sec"] == sec]:
            key = "`%s%s`" % (sec + "." if len(secs) > 1 else "", f["key"])
            merged = MERGE[f["merge"]]
            if f["doc"] is None:
                keys, doc, merges = out[-1][2:].split(" | ")[:3]
                merges = merges.rstrip(" |")
                if merged not in merges.split(", "):
                    merges += ", " + merged
                out[-1] = "| %s, %s | %s | %s |" % (keys, key, doc, merges)
            else:
                out.append("| %s | %s | %s |" % (key, f["doc"], merged))
    return out


def docs_text(table, old):
    lines, out, skip = old.split("\n"), [], False
    for line in lines:
        m = re.match(r"<!-- figures: ([a-z ]+) -->$", line)
        if m:
            out.append(line)
            out.extend(md_table(table, m.group(1).split()))
            skip = True
        elif line == "<!-- /figures -->":
            out.append(line)
            skip = False
        elif not skip:
            out.append(line)
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        table = json.load(f)
    check = "--check" in argv[3:]
    stale = 0
    for rel, make in (("docs/result.schema.json", schema_text), ("docs/json-schema.md", docs_text),
                      ("docs/device.md", docs_text)):
        path = os.path.join(argv[2], rel)
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = make(table, old)
        if new == old:
            continue
        if check:
            stale += 1
            sys.stderr.write("%s is not what libnvbench/core/figures.c describes "
                             "(run tools/gen_figures.py, `make figures`):\n" % rel)
            sys.stderr.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), rel, "generated"))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("wrote", rel)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
