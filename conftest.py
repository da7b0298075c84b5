"""Shared by the unit (`tests/`) and end-to-end (`e2e/`) suites."""

from typing import Any

import pytest

from manager.runtime.event_loop import HAS_UVLOOP


@pytest.fixture(scope="session")
def anyio_backend() -> tuple[str, dict[str, bool]]:
    """The operator runs on asyncio (kr8s and aiohttp need it) with uvloop's loop
    (`manager.runtime.event_loop`), so async tests do too."""
    return ("asyncio", {"use_uvloop": HAS_UVLOOP})


REAL_NODE_MODULES = frozenset(
    {
        "e2e/harness/test_build_service.py",
        "e2e/harness/test_real_node.py",
        "e2e/install/test_dynamo_component_builds.py",
        "e2e/install/test_install.py",
        "e2e/install/test_multinode_launch.py",
        "e2e/install/test_real_dynamo.py",
        "e2e/install/test_upgrade.py",
    }
)
"""The modules on the machine's one real node (the `real_node` fixture): collection fails when a
module using it is missing here."""


LONG_MODULES = ("e2e/operator/test_operator_chaos.py",)
"""Modules of minutes on a worker of their own, started next (after the real-node unit) so that
no worker picks one up at the end while the other sits idle."""


def _module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real-node modules first, so that their worker starts on them at once, then the long
    ones."""
    for item in items:
        module = _module_of(item.nodeid)
        if "real_node" in getattr(item, "fixturenames", ()) and module not in REAL_NODE_MODULES:
            raise pytest.UsageError(f"{module} uses the real node: list it in REAL_NODE_MODULES")
    items.sort(
        key=lambda item: (
            _module_of(item.nodeid) not in REAL_NODE_MODULES,
            _module_of(item.nodeid) not in LONG_MODULES,
        )
    )


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile` (hack/test) with the real-node modules as one unit: a module stays on one
    worker (its module-scoped cluster or operator is started once), and one worker runs the
    real-node modules in turn while the others take the rest, instead of a second worker idling
    on the node's lock."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class RealNodeTogether(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = _module_of(nodeid)
            return "real-node" if module in REAL_NODE_MODULES else module

    return RealNodeTogether(config, log)
