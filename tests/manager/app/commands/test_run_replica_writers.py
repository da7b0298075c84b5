"""`--replica-writer`: the usernames, besides the operator's account and the planners', that may
change replicas a scaling adapter owns."""

from __future__ import annotations

from manager.app.cli import build_parser
from manager.app.commands.run import options_from_arguments


def test_the_flag_repeats_and_defaults_to_none() -> None:
    parser, _ = build_parser(["run"])

    def writers(*flags: str) -> tuple[str, ...]:
        return options_from_arguments(parser.parse_args(["run", *flags]), {}).replica_writers

    assert writers() == ()
    assert writers("--replica-writer", "kubernetes-admin", "--replica-writer=argocd") == (
        "kubernetes-admin",
        "argocd",
    )
