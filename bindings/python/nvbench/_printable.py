"""Text from results, made safe to show on a terminal.

Target names, stack labels, host names, warnings and error messages come from
result files that anyone may have written. A terminal obeys the control
characters in them: ESC and CSI sequences clear the screen, move the cursor,
retitle the window or rewrite what was printed before; bidirectional
overrides reorder what the reader sees. Every string of a result that nvbench
prints goes through :func:`printable`, which shows those characters escaped
the way Python writes them (``\\x1b``, ``\\x9b``, ``\\u202e``) and leaves every
other character alone.
"""

__all__ = ["printable", "json_text"]


def _unsafe():
    cps = list(range(0x00, 0x20))      # C0 controls, ESC among them; tab and newline too
    cps.append(0x7F)                   # DEL
    cps += range(0x80, 0xA0)           # C1 controls: 0x9b is CSI, 0x9d OSC
    cps += (0x061C, 0x200E, 0x200F)    # bidirectional marks
    cps += range(0x202A, 0x202F)       # bidirectional embeddings and overrides
    cps += range(0x2066, 0x206A)       # bidirectional isolates
    cps += (0x2028, 0x2029)            # line and paragraph separators
    cps += range(0xD800, 0xE000)       # lone surrogates cannot even be encoded for output
    return cps


_UNSAFE = _unsafe()
_SHOW = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE}
# In JSON text the same characters can only stand inside strings (C0 ones are
# already escaped there by every writer), so a \\u escape keeps the document
# equal to what it was while the terminal sees no control character.
_JSON = {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x20}


def printable(value):
    """``str(value)`` with control characters, escape sequences and
    bidirectional overrides shown escaped: ``"a\\x1b[2J"`` prints as
    ``a\\x1b[2J`` and the screen stays as it was."""
    return str(value).translate(_SHOW)


def json_text(text):
    """JSON text with the characters :func:`printable` escapes written as
    ``\\uXXXX`` escapes: the same JSON value, safe to print."""
    return text.translate(_JSON)
