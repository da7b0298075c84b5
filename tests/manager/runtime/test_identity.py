import pytest

from manager.runtime.identity import Identity


def test_a_product_identity_derives_every_name_from_the_product_and_its_domain() -> None:
    identity = Identity.for_product("acme-operator", domain="acme.example", version="1.4.0")

    assert identity.name == "acme-operator"
    assert identity.field_manager == "acme-operator"
    assert identity.create_field_manager == "acme-operator-create"
    assert identity.event_component == "acme-operator"
    assert identity.event_field_manager == "acme-operator-events"
    assert identity.leader_election_field_manager == "acme-operator-leader-election"
    assert identity.applied_digest_annotation == "acme.example/applied-digest"
    assert identity.user_agent.startswith("acme-operator/1.4.0 (")


@pytest.mark.parametrize("domain", ["", "Not_A_Domain", "-bad.example"])
def test_an_annotation_outside_a_dns_domain_is_refused(domain: str) -> None:
    with pytest.raises(ValueError, match="applied_digest_annotation"):
        Identity.for_product("acme-operator", domain=domain, version="1")


def test_empty_names_are_refused() -> None:
    with pytest.raises(ValueError, match=r"Identity\.name"):
        Identity.for_product("", domain="acme.example", version="1")
