"""A tiny model directory for Dynamo's mocker and the test engine, small enough for a ConfigMap.

``model_files()`` returns the directory as ``{file name: text}``: ``tokenizer.json`` (a byte-level
BPE tokenizer trained with the ``tokenizers`` package on generated text), ``tokenizer_config.json``
(with the ``chat_template`` the frontend renders), a llama-shaped ``config.json`` (the mocker reads
``num_hidden_layers``, ``num_attention_heads`` and ``hidden_size`` to size its KV cache) and
``generation_config.json``. No weights: neither the mocker nor the engine loads any.

The vocabulary holds more than 2,000 tokens because the mocker answers with token ids in
[1000, 2000): with fewer, its answers have no text (``content: null``).
Everything is deterministic: the text comes from a seeded generator, and the trainer makes the
same merges from the same text (the same bytes in repeated runs and processes, with tokenizers
0.23; ``e2e/install/test_dynamo_image.py`` checks it), so a ConfigMap holding the files never
changes.
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any, Final

VOCAB_SIZE: Final = 2304
# Mocker token ids: the trained vocabulary must reach past them, with text behind each one.
MOCKER_TOKEN_IDS: Final = range(1000, 2000)
MAX_TOTAL_BYTES: Final = 900 * 1024
CONTEXT_LENGTH: Final = 4096

BOS: Final = "<|begin_of_text|>"
EOS: Final = "<|end_of_text|>"
START_HEADER: Final = "<|start_header|>"
END_HEADER: Final = "<|end_header|>"
EOT: Final = "<|eot|>"
SPECIAL_TOKENS: Final = (BOS, EOS, START_HEADER, END_HEADER, EOT)

# A Llama-3-like template without the date logic: role headers, content, end of turn.
CHAT_TEMPLATE: Final = (
    "{{ bos_token }}{% for message in messages %}"
    + START_HEADER
    + "{{ message['role'] }}"
    + END_HEADER
    + "\n\n{{ message['content'] | trim }}"
    + EOT
    + "{% endfor %}{% if add_generation_prompt %}"
    + START_HEADER
    + "assistant"
    + END_HEADER
    + "\n\n{% endif %}"
)

_SYLLABLES: Final = tuple(
    onset + vowel + coda
    for onset in ("", "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "st")
    for vowel in ("a", "e", "i", "o", "u", "ai", "ou")
    for coda in ("", "n", "r", "s", "th")
)
_PUNCTUATION: Final = (".", ",", "?", "!", ";")


def training_text(seed: int = 20251126, sentences: int = 6000) -> list[str]:
    """Pseudo-English sentences from a seeded generator: enough distinct pairs for the merges."""
    rng = random.Random(seed)
    # A Zipf-like lexicon: frequent words merge into whole tokens, rare ones stay split.
    lexicon = ["".join(rng.choices(_SYLLABLES, k=rng.randint(1, 4))) for _ in range(3000)]
    weights = [1.0 / (rank + 1) for rank in range(len(lexicon))]
    lines = []
    for _ in range(sentences):
        words = rng.choices(lexicon, weights=weights, k=rng.randint(4, 14))
        words[0] = words[0].capitalize()
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), str(rng.randint(0, 2025)))
        lines.append(" ".join(words) + rng.choice(_PUNCTUATION))
    return lines


def _train_tokenizer() -> str:
    # Imported here: only the tests that make a model directory need the package.
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        min_frequency=1,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(training_text(), trainer=trainer)
    size = tokenizer.get_vocab_size()
    if size <= MOCKER_TOKEN_IDS[-1]:
        raise RuntimeError(f"the tokenizer has {size} tokens; the mocker emits up to id 1999")
    text: str = tokenizer.to_str()
    return text


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True) + "\n"


@functools.cache
def model_files() -> dict[str, str]:
    """The files of the model directory, ``{name: text}`` (the same on every call)."""
    tokenizer_json = _train_tokenizer()
    vocab = json.loads(tokenizer_json)["model"]["vocab"]
    added = {token["content"]: token["id"] for token in json.loads(tokenizer_json)["added_tokens"]}
    vocab_size = max([*vocab.values(), *added.values()]) + 1
    bos_id, eos_id, eot_id = added[BOS], added[EOS], added[EOT]
    files = {
        "tokenizer.json": tokenizer_json,
        "tokenizer_config.json": _json(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "bos_token": BOS,
                "eos_token": EOT,
                "pad_token": EOS,
                "add_bos_token": False,
                "add_eos_token": False,
                "clean_up_tokenization_spaces": False,
                "model_max_length": CONTEXT_LENGTH,
                "chat_template": CHAT_TEMPLATE,
            }
        ),
        "config.json": _json(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": 64,
                "intermediate_size": 128,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "num_key_value_heads": 4,
                "head_dim": 16,
                "hidden_act": "silu",
                "max_position_embeddings": CONTEXT_LENGTH,
                "rms_norm_eps": 1e-5,
                "rope_theta": 10000.0,
                "tie_word_embeddings": True,
                "torch_dtype": "float16",
                "vocab_size": vocab_size,
                "bos_token_id": bos_id,
                "eos_token_id": [eos_id, eot_id],
            }
        ),
        "generation_config.json": _json(
            {"bos_token_id": bos_id, "eos_token_id": [eos_id, eot_id], "do_sample": False}
        ),
    }
    total = sum(len(text.encode()) for text in files.values())
    if total >= MAX_TOTAL_BYTES:
        raise RuntimeError(f"the model files take {total} bytes; a ConfigMap holds < 1 MiB")
    return files
