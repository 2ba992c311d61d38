"""Merging the results of one workload run on several hosts: the library's merge.

``merge()`` hands the parts to the C library's ``nvb_result_merge()``
(docs/multihost.md) through the extension, so Python and C give the same
figures by construction: counts add; latency histograms add bucket by bucket,
so the merged percentiles are those of one histogram fed every sample; the
measured window runs from the earliest window start to the latest window end
by wall clock and every rate is over it; CPU seconds and cores add,
system-wide percentages are weighted by CPU count, and each host keeps its own
row in ``hosts``; ``per_target`` is concatenated. Each part is checked by the
library's strict parser first, as :func:`nvbench.load` checks a file.

>>> merged = nvbench.merge([r0, r1, r2, r3])          # Results or dicts
>>> merged.read.iops, merged.read.lat_ns.p99, [h["host"] for h in merged.hosts]
"""

from __future__ import annotations

import json

from ._jsontext import strict_json
from .result import Result

__all__ = ["merge"]


def _as_text(i, part):
    if isinstance(part, Result):
        data = part.data
    elif isinstance(part, dict):
        data = part
    else:
        raise TypeError(f"merge() takes Results or result dicts, not {type(part).__name__} (part {i})")
    if data.get("source"):
        raise ValueError(f"merge(): part {i} was imported from {data['source']}, not measured by nvbench: "
                         "only nvbench results merge")
    return json.dumps(data, allow_nan=False)


def merge(parts, meta=None):
    """One Result from the results of one workload run on several hosts.

    ``parts``: Results or result dicts (nvbench.result/1), e.g. loaded with
    :func:`nvbench.load`; a part that is itself merged contributes its
    ``hosts`` rows, so merging is associative. Returns a Result whose meta
    comes from the first part (plus ``hosts``, the number of host rows),
    updated with ``meta``. A part the library's parser refuses raises
    NvbenchError naming the part and what is wrong.
    """
    items = list(parts)
    if not items:
        raise ValueError("merge() needs at least one result")
    texts = [_as_text(i, p) for i, p in enumerate(items)]
    try:
        from . import _nvbench
    except ImportError as e:
        raise ImportError("nvbench.merge needs the C extension nvbench._nvbench: the library merges") from e
    m = strict_json(_nvbench.result_merge(texts))
    first_meta = dict(items[0].meta) if isinstance(items[0], Result) else {}
    meta_out = {k: v for k, v in first_meta.items() if k != "target"}
    meta_out["hosts"] = len(m.get("hosts") or [])
    if meta:
        meta_out.update(meta)
    return Result(m, meta_out)
