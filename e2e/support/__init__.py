"""What the end-to-end tests and the benchmarks share, one module per concern.

Clusters and what is installed into them: ``real_node`` (the real-node cluster fixture), ``crds``
(the operator's CRDs, through the harness's one installer, ``e2e.localcluster.install_crds``),
``conversion`` (the conversion webhook the CRDs' two versions need), ``webhooks``, ``chart`` and
``helm_install`` (the charts as users install them), ``previous_release``, ``cert_manager``,
``operator_image``, ``dynamo_image``, ``build_service`` and ``build_service_objects``,
``builder_jobs``, ``registry_client``, ``api_store``, ``file_server``.

The operator and what it works on: ``operator_process`` (``dynamo-operator run`` as a process),
``kinds``, ``namespaces``, ``graphs`` (test graphs, and reading what the API shows),
``dynamo_model``, ``dynamo_serving``, ``lora_workers``, ``sample_controller``,
``admission_reviews``, ``planner``.

Observing it: ``polling``, ``metrics_access``, ``metrics_scrape``, ``dashboard``; and ``chaos``,
the fault-injection run shared by the chaos benchmark and its CI slice. ``kwok_only`` marks the
tests that need kwok's fake nodes. Conditions ("is it True?") are read with
``e2e.localcluster.condition`` and ``is_condition_true``; certificates come from the operator's
own factory (``manager.runtime.tls``).
"""
