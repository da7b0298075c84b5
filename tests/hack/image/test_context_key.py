from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from ..scripts import load_script

context_key = load_script("image/context_key.py")
copy_sources = context_key.copy_sources
digest = context_key.digest
image_key = context_key.image_key
is_skipped = context_key.is_skipped
logical_lines = context_key.logical_lines

DOCKERFILE = """\
# syntax comment
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE} AS build
COPY pyproject.toml README.md ./
COPY --chown=1:1 pkg ./pkg
COPY ["data dir/", "/data"]
RUN echo a \\
    # a comment inside the continuation
    && echo b
FROM ${BASE_IMAGE}
COPY --from=build /opt/venv /opt/venv
"""


def test_copy_sources_reads_every_context_source_and_skips_other_stages() -> None:
    assert copy_sources(DOCKERFILE) == ["pyproject.toml", "README.md", "pkg", "data dir"]


def test_the_repository_dockerfile_copies_the_packages() -> None:
    dockerfile = Path(__file__).resolve().parents[3] / "Dockerfile"
    sources = copy_sources(dockerfile.read_text())
    assert {"pyproject.toml", "dynamo_operator", "manager", "webhooks"} <= set(sources)


def test_logical_lines_join_continuations_and_drop_comments() -> None:
    lines = list(logical_lines(DOCKERFILE))
    assert "RUN echo a && echo b" in lines
    assert not any(line.startswith("#") for line in lines)


@pytest.mark.parametrize(
    "dockerfile",
    ["COPY *.toml ./\n", "COPY ../outside ./\n", "COPY onlyone\n"],
)
def test_copies_the_key_cannot_cover_are_refused(dockerfile: str) -> None:
    with pytest.raises(ValueError, match=r"COPY"):
        copy_sources(dockerfile)


def test_bytecode_is_skipped_like_the_dockerignore_does() -> None:
    assert is_skipped(PurePosixPath("manager/__pycache__/cli.cpython-311.pyc"))
    assert is_skipped(PurePosixPath("manager/stale.pyc"))
    assert not is_skipped(PurePosixPath("manager/app/cli.py"))


def test_digest_frames_names_and_contents() -> None:
    assert digest([("a", b"bc")]) != digest([("ab", b"c")])
    assert digest([("a", b""), ("b", b"")]) != digest([("a", b"b")])


def _context(tmp_path: Path) -> Path:
    (tmp_path / "Dockerfile").write_text("FROM x\nCOPY pyproject.toml ./\nCOPY pkg ./pkg\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "mod.py").write_text("x = 1\n")
    return tmp_path


def test_key_changes_with_every_input_and_not_with_bytecode_or_other_files(
    tmp_path: Path,
) -> None:
    context = _context(tmp_path)
    dockerfile = context / "Dockerfile"
    key = image_key(context, dockerfile, ["base=1"])
    assert len(key) == 16

    (context / "pkg" / "sub" / "__pycache__").mkdir()
    (context / "pkg" / "sub" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (context / "notes.txt").write_text("not copied\n")
    assert image_key(context, dockerfile, ["base=1"]) == key

    assert image_key(context, dockerfile, ["base=2"]) != key
    (context / ".dockerignore").write_text("*\n")
    assert image_key(context, dockerfile, ["base=1"]) != key
    (context / ".dockerignore").unlink()

    keys = [key]
    (context / "pkg" / "sub" / "new.py").write_text("")
    keys.append(image_key(context, dockerfile, ["base=1"]))
    (context / "pkg" / "sub" / "mod.py").write_text("x = 2\n")
    keys.append(image_key(context, dockerfile, ["base=1"]))
    dockerfile.write_text(dockerfile.read_text() + "USER 1\n")
    keys.append(image_key(context, dockerfile, ["base=1"]))
    assert len(set(keys)) == len(keys)


def test_a_missing_copy_source_fails(tmp_path: Path) -> None:
    context = _context(tmp_path)
    (context / "pyproject.toml").unlink()
    with pytest.raises(FileNotFoundError, match=r"pyproject\.toml"):
        image_key(context, context / "Dockerfile")
