import io
import json
import logging
from collections.abc import Iterator

import anyio
import anyio.lowlevel
import pytest
import structlog

from manager.runtime.logging import configure_logging, get_logger, reconcile_context


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    configure_logging("info", stream=stream)
    yield stream
    root.handlers, root.level = saved_handlers, saved_level
    structlog.reset_defaults()


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_lines_are_json_with_fixed_keys_and_a_constant_message(output: io.StringIO) -> None:
    get_logger("manager.test").info("object applied", kind="ConfigMap", op="apply")

    [line] = lines(output)
    assert line["msg"] == "object applied"
    assert line["level"] == "info"
    assert line["logger"] == "manager.test"
    assert line["kind"] == "ConfigMap"
    assert line["op"] == "apply"
    assert str(line["ts"]).endswith("Z")


def test_reconcile_context_is_added_inside_the_block_only(output: io.StringIO) -> None:
    log = get_logger("manager.test")
    with reconcile_context(controller="secrets", namespace="ns", name="a", reconcile_id="r-1"):
        log.info("inside")
    log.info("outside")

    inside, outside = lines(output)
    assert {k: inside[k] for k in ("controller", "namespace", "name", "reconcileID")} == {
        "controller": "secrets",
        "namespace": "ns",
        "name": "a",
        "reconcileID": "r-1",
    }
    assert "reconcileID" not in outside


@pytest.mark.anyio
async def test_concurrent_tasks_keep_their_own_reconcile_context(output: io.StringIO) -> None:
    log = get_logger("manager.test")

    async def reconcile(name: str) -> None:
        with reconcile_context(controller="c", namespace="ns", name=name, reconcile_id=name):
            await anyio.lowlevel.checkpoint()
            log.info("reconciled")

    async with anyio.create_task_group() as tg:
        for name in ["a", "b", "c"]:
            tg.start_soon(reconcile, name)

    assert sorted((line["name"], line["reconcileID"]) for line in lines(output)) == [
        ("a", "a"),
        ("b", "b"),
        ("c", "c"),
    ]


def test_standard_library_loggers_come_out_as_json_too(output: io.StringIO) -> None:
    logging.getLogger("aiohttp.access").warning("served %s", "/metrics")

    [line] = lines(output)
    assert line == line | {"msg": "served /metrics", "level": "warning", "logger": "aiohttp.access"}


def test_records_below_the_level_are_dropped(output: io.StringIO) -> None:
    get_logger("manager.test").debug("noise")
    assert lines(output) == []


def test_errors_carry_the_traceback(output: io.StringIO) -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        get_logger("manager.test").exception("reconcile failed")

    [line] = lines(output)
    assert line["level"] == "error"
    assert "RuntimeError: boom" in str(line["exception"])


def test_unknown_levels_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        configure_logging("verbose")


def test_exceptions_are_plain_bounded_text_whatever_is_installed(output: io.StringIO) -> None:
    """Unconfigured, structlog renders exceptions with rich (frames and their locals) when it is
    importable: a deeply nested request then blocked the event loop for minutes."""
    deep: object = "leaf"
    for _ in range(5000):
        deep = {"a": deep}
    huge = "x" * 100_000

    def fail(payload: object, text: str) -> None:
        raise RecursionError(text)

    try:
        fail(deep, huge)
    except RecursionError:
        get_logger("webhooks").exception("validator failed", detail=huge)

    [line] = lines(output)
    exception = str(line["exception"])
    assert exception.startswith("Traceback (most recent call last):")
    assert "RecursionError: xxx" in exception  # each line cut, the error's type kept
    assert "'a'" not in exception  # no locals: the nested payload is never rendered
    assert len(exception) <= 8192
    assert len(str(line["detail"])) <= 8192
    assert str(line["detail"]).endswith("characters cut]")
