"""Fuzz nvbench.load()/loads() with mutated result files.

Every mutated input must either load or raise ValueError (json.JSONDecodeError
and UnicodeDecodeError are ValueErrors) or, for an nvbench result the
library's parser refuses, NvbenchError(EINVAL), with a message: never another
exception type, a crash or a hang. What loads is then used the way the CLI
does (labels, tables, one figure), where the same rule holds.

  python fuzz_load.py [--seconds S] [--seed N] [--artifact PATH] CORPUS_DIR

Mutations: byte flips, insertions, deletions and truncation of the text;
and on the parsed JSON, a random value replaced by another type (null,
booleans, huge and negative numbers, NaN, strings, empty and deeply nested
containers), keys deleted, containers emptied.
"""
import argparse
import copy
import errno
import io
import json
import math
import os
import random
import sys
import time
import traceback

import nvbench

ODD_VALUES = [None, True, False, 0, -1, 2**64, 10**400, -(10**30), 1e308, -1e-308, math.nan, math.inf,
              "", "x", "4k", "nvbench.result/1", "nvbench.result/9", [], {}, [[]], {"": None}, [1, "a", None],
              {"ios": "many"}, "\u0000", "\udcff"]


def walk(obj, path=()):
    yield path, obj
    if len(path) > 40:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, path + (i,))


def set_at(obj, path, value):
    if not path:
        return value
    cur = obj
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return obj


def del_at(obj, path):
    cur = obj
    for p in path[:-1]:
        cur = cur[p]
    del cur[path[-1]]
    return obj


def deep(n):
    v = []
    for _ in range(n):
        v = [v]
    return v


def mutate_tree(rng, text):
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    for _ in range(rng.randint(1, 4)):
        nodes = list(walk(obj))
        path, node = rng.choice(nodes)
        r = rng.random()
        if r < 0.6:
            obj = set_at(obj, path, copy.deepcopy(rng.choice(ODD_VALUES)))
        elif r < 0.8 and path:
            obj = del_at(obj, path)
        elif r < 0.9 and isinstance(node, (dict, list)):
            node.clear()
        else:
            obj = set_at(obj, path, deep(rng.choice([10, 1000, 100000])))
    try:
        return json.dumps(obj, allow_nan=True)
    except (ValueError, RecursionError, TypeError):
        return text


def mutate_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if not b:
            b += bytes([rng.randrange(256)])
        elif r < 0.3:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.5:
            b.insert(rng.randrange(len(b) + 1), rng.choice(b'{}[]",:0123456789-.eE\\ntfu\x00\xff'))
        elif r < 0.7:
            del b[rng.randrange(len(b))]
        elif r < 0.8:
            del b[rng.randrange(len(b)):]
        else:
            i = rng.randrange(len(b))
            b[i:i] = b[rng.randrange(len(b)):][:64]
    return bytes(b)


def use(rs):
    """What the CLI does with a loaded file."""
    len(rs)
    for r in rs:
        dict(r.meta)
    rs.table()
    for r in rs:
        try:
            r.read.iops
        except AttributeError:
            pass


def one(data):
    try:
        rs = nvbench.load(io.BytesIO(data))
    except ValueError as e:
        if not str(e):
            raise AssertionError("ValueError without a message") from e
        return "refused"
    except nvbench.NvbenchError as e:
        # the library's parser refused a result: EINVAL and its reason
        if e.errno != errno.EINVAL or not e.strerror:
            raise AssertionError(f"NvbenchError that is not a refusal with a reason: {e!r}") from e
        return "refused"
    try:
        use(rs)
    except ValueError as e:
        if not str(e):
            raise AssertionError("ValueError without a message") from e
        return "refused later"
    return "loaded"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--artifact", default="crash-load.json")
    ap.add_argument("corpus")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    seeds = []
    for name in sorted(os.listdir(a.corpus)):
        with open(os.path.join(a.corpus, name), "rb") as f:
            seeds.append(f.read())
    counts = {}
    for s in seeds:
        outcome = one(s)
        counts[outcome] = counts.get(outcome, 0) + 1
    end = time.monotonic() + a.seconds
    n = 0
    while time.monotonic() < end:
        base = rng.choice(seeds)
        if rng.random() < 0.5:
            data = mutate_tree(rng, base.decode("utf-8")).encode("utf-8", "surrogatepass")
        else:
            data = mutate_bytes(rng, base)
        try:
            outcome = one(data)
        except Exception:
            with open(a.artifact, "wb") as f:
                f.write(data)
            traceback.print_exc()
            print(f"fuzz_load: input {n} (seed {seed}) raised something other than ValueError; "
                  f"it is in {a.artifact}", file=sys.stderr)
            return 1
        counts[outcome] = counts.get(outcome, 0) + 1
        n += 1
    print(f"fuzz_load: {n} mutated inputs in {a.seconds:.0f}s (seed {seed}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
