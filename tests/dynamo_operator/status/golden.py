"""Golden cases of status derivation: ``golden/<kind>/<case>/input.yaml`` holds ``now`` and the
objects as the cache would hold them, ``expected.yaml`` the derived status. Regenerate after an
intended change with ``DYNAMO_UPDATE_GOLDENS=1 pytest tests/dynamo_operator/status`` and review
the diff.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from dynamo_operator.status import StatusFailure
from dynamo_operator.validation import FieldIssue, ValidationResult

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("DYNAMO_UPDATE_GOLDENS") == "1"


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def cases(kind: str) -> list[str]:
    return sorted(path.name for path in (GOLDEN / kind).iterdir() if (path / "input.yaml").exists())


def load_input(kind: str, case: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((GOLDEN / kind / case / "input.yaml").read_text())
    return loaded


def now_of(case_input: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(str(case_input["now"]))


def failure_of(case_input: dict[str, Any]) -> StatusFailure | None:
    failure = case_input.get("failure")
    if failure is None:
        return None
    if "validationErrors" in failure:
        issues = tuple(
            FieldIssue(issue["path"], issue["message"]) for issue in failure["validationErrors"]
        )
        return StatusFailure.invalid(ValidationResult(errors=issues))
    return StatusFailure.reconcile_error(failure["reconcileError"])


def check_golden(kind: str, case: str, derived: dict[str, Any]) -> None:
    path = GOLDEN / kind / case / "expected.yaml"
    if UPDATE:
        path.write_text(yaml.dump(derived, Dumper=_NoAliasDumper, sort_keys=False, width=100))
    assert path.exists(), f"no golden for {kind}/{case}; run with DYNAMO_UPDATE_GOLDENS=1"
    assert derived == yaml.safe_load(path.read_text())


def assert_no_unknown_fields(model: BaseModel, path: str = "status") -> None:
    """Every derived field is one the CRD schema declares (unknown ones would be pruned)."""
    assert not model.model_extra, f"{path}: fields the schema does not declare: {model.model_extra}"
    for name, value in model:
        children = (
            value
            if isinstance(value, list)
            else (value.values() if isinstance(value, dict) else [value])
        )
        for child in children:
            if isinstance(child, BaseModel):
                assert_no_unknown_fields(child, f"{path}.{name}")
