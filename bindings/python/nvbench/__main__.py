"""python -m nvbench: the nvbench command."""
import sys

from .cli import main

sys.exit(main())
