"""The runtime is generic: no module of it names the product it runs (the application passes
its names in, as `manager.app.commands.operator` does for the metrics certificate)."""

from __future__ import annotations

import re
from pathlib import Path

import manager.runtime

RUNTIME = Path(manager.runtime.__file__).parent
PRODUCT_NAMES = re.compile(r"dynamo|nvidia", re.IGNORECASE)
ALLOWED = {("__init__.py", "Generic: it knows nothing of Dynamo")}
"""Lines that name the product to say the runtime does not know it."""


def test_no_runtime_module_names_the_product() -> None:
    found = [
        f"{path.relative_to(RUNTIME)}:{number}: {line.strip()}"
        for path in sorted(RUNTIME.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRODUCT_NAMES.search(line)
        and not any(
            str(path.relative_to(RUNTIME)) == name and allowed in line for name, allowed in ALLOWED
        )
    ]

    assert found == []
