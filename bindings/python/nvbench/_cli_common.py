"""What the nvbench command's modules share: the exit codes and how a message or a count is
said (cli.py, _compare_cli.py)."""
import sys

from ._printable import printable

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


def _err(msg):
    # Messages name targets, stacks and files: shown escaped, never obeyed.
    print(f"nvbench: {printable(msg)}", file=sys.stderr)


def _n(count, noun):
    """'1 engine', '2 engines'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
