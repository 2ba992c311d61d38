"""The labels that place a run in a matrix, and the published order of its blocks.

A run's ``cell`` names its access pattern and block size ("rand4k", "seq128k"),
its ``op`` the direction ("read", "write", "trim", "mixed"); a block of the published
table is one (cell, op) pair: "Random 4K read".
"""

import math

from .stats import _c  # the extension, imported when first needed

__all__ = ["op_of_rw", "cell_of", "block_label", "block_sort_key", "human_bs", "SEED_CELLS"]

_SEED = None


def _seed():
    """The library's seed table (nvb_seed_cell): (the cells in published order, their
    block titles by (cell, op)); read once, when first asked for, so the analysis
    modules import without the C extension."""
    global _SEED
    if _SEED is None:
        cells = _c().seed_cells()
        _SEED = (tuple(dict.fromkeys(c["workload"] for c in cells)),
                 {(c["workload"], c["op"]): c["label"] for c in cells})
    return _SEED


def __getattr__(name):
    # SEED_CELLS: the published block order, these cells, reads first then writes
    if name == "SEED_CELLS":
        return _seed()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_OP_ORDER = {"read": 0, "write": 1, "trim": 2, "mixed": 3}


def human_bs(bs):
    """4096 -> '4k', 1048576 -> '1M': the library's size text (nvb_size_format, the one
    its messages use); anything but a positive int as it is."""
    if not isinstance(bs, int) or isinstance(bs, bool) or bs <= 0:
        return str(bs)
    return _c().size_format(bs)


def op_of_rw(rw):
    """'read' / 'write' / 'trim' / 'mixed' for an rw mode (nvbench's or fio's spelling):
    the library's rule (nvb_rw_op); another mode as it is, None for none."""
    if not rw:
        return None
    return _c().rw_op(str(rw)) or str(rw).lower()


def cell_of(rw, bs):
    """The seed's cell name: 'rand4k', 'seq128k', ... (access pattern + block size)."""
    if rw is None or bs is None:
        return None
    pattern = "rand" if str(rw).lower().startswith("rand") else "seq"
    return f"{pattern}{human_bs(bs)}"


_CELL_WORDS = {"rand": "Random", "seq": "Sequential"}


def block_label(cell, op):
    """'Random 4K read' for ('rand4k', 'read'); unknown cell names are kept as they are."""
    titles = _seed()[1]
    if (cell, op) in titles:
        return titles[(cell, op)]
    if cell:
        for prefix, word in _CELL_WORDS.items():
            rest = cell[len(prefix):]
            if cell.startswith(prefix) and rest[:1].isdigit():
                return f"{word} {rest.upper()} {op}"
    return f"{cell} {op}"


def _bs_of_cell(cell):
    """The block size a cell name carries ("rand4k": 4096, "seq1M"), read by the library
    as a size key reads it (nvb_workload_key_parse); inf for a name without one."""
    rest = cell or ""
    for prefix in _CELL_WORDS:
        if rest.startswith(prefix):
            rest = rest[len(prefix):]
    try:
        return _c().key_parse("size", rest)
    except (OSError, ValueError):  # NvbenchError: no size; ValueError: a NUL in the name
        return math.inf


def block_sort_key(block):
    """Sort key of a (cell, op) block: the seed's cells in published order, then the
    others by pattern and block size; reads before writes before mixed."""
    cell, op = block
    cell = cell or ""
    seed = _seed()[0]
    if cell in seed:
        return (_OP_ORDER.get(op, 4), 0, seed.index(cell), 0, cell)
    pattern = 0 if cell.startswith("rand") else 1
    return (_OP_ORDER.get(op, 4), 1, pattern, _bs_of_cell(cell), cell)
