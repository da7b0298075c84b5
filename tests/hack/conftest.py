"""The harness helpers live in hack/ (not an installed package): load them by path, as e2e does."""

import sys
from pathlib import Path

_HACK = Path(__file__).resolve().parents[2] / "hack"
if str(_HACK) not in sys.path:
    sys.path.insert(0, str(_HACK))
