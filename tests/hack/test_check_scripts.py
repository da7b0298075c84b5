"""hack/check-module-sizes.py and hack/check-test-mirror.py on small trees, and on this one."""

from __future__ import annotations

from pathlib import Path

import pytest

from .scripts import load_script

sizes = load_script("check-module-sizes.py")
mirror = load_script("check-test-mirror.py")


def write(root: Path, relative: str, lines: int = 1) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n" * lines)


def test_a_long_module_is_a_warning_and_fails_only_over_the_hard_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "manager/runtime/short.py", 10)
    write(tmp_path, "manager/runtime/long.py", 450)

    assert sizes.main(["--root", str(tmp_path)]) == 0
    assert sizes.main(["--root", str(tmp_path), "--fail-over", "449"]) == 1

    out = capsys.readouterr().out
    assert "warning: manager/runtime/long.py has 450 lines" in out
    assert "short.py" not in out


def test_a_test_mirrors_its_module_package_or_a_prefix_of_its_name(tmp_path: Path) -> None:
    write(tmp_path, "manager/runtime/tls/directory.py")
    write(tmp_path, "manager/app/reconcilers/model/__init__.py")
    for test in (
        "manager/runtime/tls/test_directory.py",
        "manager/runtime/tls/test_directory_mounted_secret.py",
        "manager/app/reconcilers/test_model.py",
        "manager/runtime/test_moved_away.py",
    ):
        write(tmp_path, f"tests/{test}")

    assert mirror.unmirrored(tmp_path) == [Path("manager/runtime/test_moved_away.py")]


def test_this_repository_passes_both_checks() -> None:
    assert mirror.main() == 0
    assert sizes.main(["--fail-over", "500"]) == 0
