from dynamo_operator.crd import ConversionService, conversion_client_config


def test_default_stanza_names_the_operator_webhook_service_without_a_ca() -> None:
    """The committed CRDs: the chart's Service in dynamo-system; the operator injects the CA."""
    assert ConversionService().stanza() == {
        "strategy": "Webhook",
        "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": {
                "service": {
                    "namespace": "dynamo-system",
                    "name": "dynamo-operator-webhook-service",
                    "path": "/convert",
                    "port": 443,
                }
            },
        },
    }


def test_client_config_for_another_release_carries_its_service_and_ca() -> None:
    config = conversion_client_config("team-a", "dyn-webhook", 9443, ca_bundle_pem=b"-----CA-----")

    assert config == {
        "service": {
            "namespace": "team-a",
            "name": "dyn-webhook",
            "path": "/convert",
            "port": 9443,
        },
        "caBundle": "LS0tLS1DQS0tLS0t",
    }
