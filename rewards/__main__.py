"""``python -m rewards``: the command line (:mod:`rewards.cli`)."""
import sys

from .cli import main

sys.exit(main())
