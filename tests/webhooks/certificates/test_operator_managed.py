"""The pure part of CA injection: which webhooks get patched, and how (I/O is tested in e2e/)."""

from __future__ import annotations

from webhooks.certificates.operator_managed import _ca_bundle_patch


def test_patches_only_webhooks_whose_bundle_differs_guarded_by_name() -> None:
    configuration = {
        "webhooks": [
            {"name": "a.kb.io", "clientConfig": {"caBundle": "NEW"}},
            {"name": "b.kb.io", "clientConfig": {"caBundle": "OLD"}},
            {"name": "c.kb.io", "clientConfig": {"url": "https://127.0.0.1:1/x"}},
        ]
    }
    assert _ca_bundle_patch(configuration, "NEW") == [
        {"op": "test", "path": "/webhooks/1/name", "value": "b.kb.io"},
        {"op": "add", "path": "/webhooks/1/clientConfig/caBundle", "value": "NEW"},
        {"op": "test", "path": "/webhooks/2/name", "value": "c.kb.io"},
        {"op": "add", "path": "/webhooks/2/clientConfig/caBundle", "value": "NEW"},
    ]


def test_nothing_to_patch_when_every_bundle_is_current() -> None:
    configuration = {"webhooks": [{"name": "a", "clientConfig": {"caBundle": "NEW"}}]}
    assert _ca_bundle_patch(configuration, "NEW") == []
    assert _ca_bundle_patch({"webhooks": None}, "NEW") == []
