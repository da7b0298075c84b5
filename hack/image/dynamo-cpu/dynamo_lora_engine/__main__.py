"""``python3 -m dynamo_lora_engine``: see ``dynamo_lora_engine.worker``."""

from dynamo_lora_engine.worker import main

main()
