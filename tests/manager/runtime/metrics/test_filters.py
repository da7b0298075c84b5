import pytest

from manager.runtime.metrics.filters import bearer_token


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer abc.def", "abc.def"),
        ("bearer abc", "abc"),
        ("  Bearer   abc  ", "abc"),
        ("", None),
        ("Bearer", None),
        ("Bearer ", None),
        ("Basic dXNlcjpwYXNz", None),
        ("Bearer two tokens", None),
    ],
)
def test_only_a_bearer_token_is_taken(header: str, token: str | None) -> None:
    assert bearer_token(header) == token
