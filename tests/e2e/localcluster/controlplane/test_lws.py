from __future__ import annotations

from pathlib import Path

from e2e.localcluster.controlplane.lws import webhook_configurations

_MANIFESTS = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- name: mleaderworkerset.kb.io
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate-lws}
  rules:
  - {apiGroups: [leaderworkerset.x-k8s.io], apiVersions: [v1], operations: [CREATE],
     resources: [leaderworkersets]}
- name: mpod.kb.io
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate--v1-pod}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
"""


def test_webhooks_point_at_the_local_controller_and_only_pods_of_a_group_reach_it(
    tmp_path: Path,
) -> None:
    manifest = tmp_path / "config" / "webhook" / "manifests.yaml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(_MANIFESTS)

    (configuration,) = webhook_configurations(tmp_path, port=9443, ca_bundle="Q0E=")

    assert configuration["metadata"]["name"] == "lws-mutating-webhook-configuration"
    lws_hook, pod_hook = configuration["webhooks"]
    assert lws_hook["clientConfig"] == {
        "url": "https://127.0.0.1:9443/mutate-lws",
        "caBundle": "Q0E=",
    }
    assert "objectSelector" not in lws_hook
    assert pod_hook["clientConfig"]["url"] == "https://127.0.0.1:9443/mutate--v1-pod"
    assert pod_hook["objectSelector"]["matchExpressions"][0]["operator"] == "Exists"
