"""The residue annotation: compact versioned JSON; anything else reads as no residue."""

from __future__ import annotations

from dynamo_operator.conversion.preserved import (
    PRESERVED_ANNOTATIONS,
    Residue,
    decode_residue,
    encode_residue,
)


def test_a_residue_round_trips_through_its_compact_encoding() -> None:
    residue = Residue(hints={"c": {"W": {"env": 1}}}, ops=[["d", ["spec", "x"], ""]])
    text = encode_residue(residue)
    assert text == '{"h":{"c":{"W":{"env":1}}},"p":[["d",["spec","x"],""]],"v":1}'
    assert decode_residue(text) == residue
    assert PRESERVED_ANNOTATIONS == ("nvidia.com/dgd-spec", "nvidia.com/dcd-spec")


def test_junk_reads_as_an_empty_residue() -> None:
    deep = '{"v": 1, "p": ' + "[" * 500 + "]" * 500 + "}"
    junk_values = (None, 5, "", "{", "[]", '{"v": 2, "p": [1]}', '{"v": 1, "h": [], "p": {}}')
    for junk in (*junk_values, "[" * 10000 + "]" * 10000, deep):
        assert decode_residue(junk).is_empty()
