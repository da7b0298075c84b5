"""A CPU test engine for Dynamo: a worker on ai-dynamo's real runtime that can load LoRA adapters.

``python3 -m dynamo_lora_engine --model-path DIR --model-name NAME [--enable-lora]`` (see
``worker.py`` for what it serves, ``adapters.py`` for the LoRA replies). Test support of this
repository, installed into ``localhost/dynamo-cpu:dev`` by ``hack/image/build-dynamo.sh``.
"""
