import pytest

from manager.runtime.cache import LabelSelector, SelectorSyntaxError


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ("app=web", {"app": "web"}, True),
        ("app==web", {"app": "web"}, True),
        ("app=web", {"app": "db"}, False),
        ("app!=web", {}, True),
        ("app!=web", {"app": "web"}, False),
        ("env in (prod, staging)", {"env": "staging"}, True),
        ("env in (prod,staging)", {}, False),
        ("env notin (prod)", {}, True),
        ("env notin (prod)", {"env": "prod"}, False),
        ("app", {"app": ""}, True),
        ("app", {}, False),
        ("!app", {}, True),
        ("app=web,env in (a,b),!debug", {"app": "web", "env": "b"}, True),
        ("app=web,env in (a,b),!debug", {"app": "web", "env": "b", "debug": "1"}, False),
        ("", {"anything": "x"}, True),
    ],
)
def test_selector_matches_like_the_api_server(
    selector: str, labels: dict[str, str], expected: bool
) -> None:
    assert LabelSelector.parse(selector).matches(labels) is expected


def test_equalities_name_the_pairs_a_label_index_can_answer() -> None:
    selector = LabelSelector.parse("a=1,b in (2),c in (3,4),d!=5")

    assert selector.equalities() == [("a", "1"), ("b", "2")]


@pytest.mark.parametrize("selector", ["app in (a", "a=b=c", "in (x)"])
def test_malformed_selectors_are_rejected(selector: str) -> None:
    with pytest.raises(SelectorSyntaxError):
        LabelSelector.parse(selector)
