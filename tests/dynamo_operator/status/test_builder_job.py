from typing import Any

import pytest

from dynamo_operator.status import BuilderJobState, observe_builder_job
from dynamo_operator.status.dynamo_component import BuildJobState


def job(**status: Any) -> dict[str, Any]:
    return {"metadata": {"name": "dynamo-image-builder-x"}, "status": status}


def failed_condition(reason: str, message: str = "") -> dict[str, Any]:
    return {
        "conditions": [{"type": "Failed", "status": "True", "reason": reason, "message": message}]
    }


def pod(phase: str, **terminated: dict[str, Any]) -> dict[str, Any]:
    def statuses(names: list[str]) -> list[dict[str, Any]]:
        return [{"name": n, "state": {"terminated": terminated[n]}} for n in names]

    return {
        "status": {
            "phase": phase,
            "initContainerStatuses": statuses([n for n in terminated if n == "downloader"]),
            "containerStatuses": statuses([n for n in terminated if n != "downloader"]),
        }
    }


def test_no_job_is_none() -> None:
    assert observe_builder_job(None) == BuilderJobState(BuildJobState.NONE)


@pytest.mark.parametrize(
    ("status", "pods", "state"),
    [
        ({}, [], BuildJobState.PENDING),
        ({"active": 1}, [pod("Pending")], BuildJobState.PENDING),
        ({"active": 1}, [pod("Running")], BuildJobState.ACTIVE),
        ({"active": 1, "ready": 1}, [], BuildJobState.ACTIVE),
        ({"succeeded": 1}, [], BuildJobState.SUCCEEDED),
        ({"conditions": [{"type": "Complete", "status": "True"}]}, [], BuildJobState.SUCCEEDED),
    ],
)
def test_a_job_in_progress_or_done(
    status: dict[str, Any], pods: list[dict[str, Any]], state: BuildJobState
) -> None:
    assert observe_builder_job(job(**status), pods).state is state


def test_a_failed_build_says_why_with_the_failed_containers_last_lines() -> None:
    pods = [
        pod(
            "Failed",
            downloader={"exitCode": 0, "message": "downloaded"},
            builder={"exitCode": 1, "message": 'ERROR: "/missing-file.txt": not found\n'},
        )
    ]
    observed = observe_builder_job(
        job(
            **failed_condition(
                "BackoffLimitExceeded", "Job has reached the specified backoff limit"
            )
        ),
        pods,
    )
    assert observed == BuilderJobState(
        BuildJobState.FAILED,
        "BackoffLimitExceeded: Job has reached the specified backoff limit",
        timed_out=False,
        log_tail='[builder] ERROR: "/missing-file.txt": not found',
    )


def test_a_failed_download_is_named_too() -> None:
    pods = [
        pod(
            "Failed",
            downloader={"exitCode": 8, "message": "wget: server returned error: HTTP/1.1 404"},
        )
    ]
    observed = observe_builder_job(job(**failed_condition("BackoffLimitExceeded")), pods)
    assert observed.message == "BackoffLimitExceeded"
    assert observed.log_tail == "[downloader] wget: server returned error: HTTP/1.1 404"


def test_a_job_past_its_deadline_timed_out() -> None:
    observed = observe_builder_job(
        job(**failed_condition("DeadlineExceeded", "Job was active longer than specified deadline"))
    )
    assert observed.state is BuildJobState.FAILED
    assert observed.timed_out
