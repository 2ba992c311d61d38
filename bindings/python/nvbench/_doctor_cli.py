"""``nvbench doctor [TARGET...]``: the facts of this machine (or of a recorded tree, --root)
that change storage figures, each with where it was read, and the checks with advice
(docs/cpu.md). The facts and the checks are the library's (nvb_environment_json): a run's
result records the same facts under ``environment`` and its "warn" checks as warnings."""
import json
import sys

from . import _nvbench

__all__ = ["add_parser", "environment"]


def environment(targets=(), root=None):
    """{"environment": {...}, "checks": [...]} for targets (paths, or device names in a
    recorded tree) on this machine (root None) or a recorded tree holding proc/ and sys/."""
    return json.loads(_nvbench.environment_json(root, [str(t) for t in targets]))


def _value(f):
    if not isinstance(f, dict):
        return str(f)
    if f.get("value") is None:
        return f"n/a: {f.get('null_reason') or 'not available'}"
    return str(f["value"])


def _fact_lines(facts, indent):
    lines = []
    width = max((len(k) for k in facts if k != "devices"), default=0)
    for k, f in facts.items():
        if k == "devices":
            continue
        src = f.get("source", "") if isinstance(f, dict) else ""
        lines.append(f"{indent}{k:<{width}}  {_value(f)}" + (f"   [{src}]" if src else ""))
    return lines


def render(doc, where):
    env, checks = doc.get("environment") or {}, doc.get("checks") or []
    out = [f"nvbench doctor: {where}", "  facts:"]
    out += _fact_lines(env, "    ")
    for dev, facts in (env.get("devices") or {}).items():
        out.append(f"    {dev}:")
        out += _fact_lines(facts, "      ")
    out.append("  checks:")
    if not checks:
        out.append("    nothing to say")
    for c in checks:
        out.append(f"    {c['severity']:<4}  {c['message']}")
        out.append(f"          advice: {c['advice']}")
    warns = sum(1 for c in checks if c["severity"] == "warn")
    out.append(f"  {warns} warning(s), {len(checks) - warns} note(s); the warnings are also a run's "
               "result warnings")
    return "\n".join(out)


def cmd_doctor(args):
    try:
        doc = environment(args.targets, args.root)
    except OSError as e:
        print(f"nvbench doctor: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print(render(doc, f"recorded tree {args.root}" if args.root else "this machine"))
    return 0


def add_parser(sub):
    s = sub.add_parser("doctor", help="check this machine's setup for benchmarking: the facts that change "
                                      "storage figures, with advice")
    s.add_argument("targets", nargs="*", metavar="TARGET",
                   help="a device or file to check the block device of (a device name with --root)")
    s.add_argument("--root", help="read a recorded tree (its proc/ and sys/) instead of this machine")
    s.add_argument("--json", action="store_true", help="print the facts and checks as JSON")
    s.set_defaults(func=cmd_doctor)
    return s
