"""hack/serve-demo, a command the README shows: it starts (its imports resolve) and says how to
use it. Serving itself needs root and the real node; the install tests run the same steps."""

from __future__ import annotations

import subprocess
import sys

from .scripts import HACK


def test_serve_demo_starts_and_explains_itself() -> None:
    done = subprocess.run(
        [sys.executable, str(HACK / "serve-demo"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "watch a graph serve" in done.stdout
    assert "--keep" in done.stdout
