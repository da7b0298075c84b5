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


def test_without_the_projects_packages_it_still_explains_itself_then_says_what_is_missing() -> None:
    # `python -S`: the standard library only, as `sudo` (which drops the virtual environment
    # from PATH) gives a user who followed the README.
    bare = [sys.executable, "-S", str(HACK / "serve-demo")]

    helped = subprocess.run(
        [*bare, "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    refused = subprocess.run(bare, capture_output=True, text=True, timeout=120, check=False)

    assert helped.returncode == 0, helped.stderr
    assert "--keep" in helped.stdout
    assert refused.returncode == 1
    assert "Traceback" not in refused.stderr
    assert "lacks the project's packages (No module named" in refused.stderr
    assert "pip install -e '.[test]'" in refused.stderr
