"""The default model's own tokenizer: segmentation, normalisation, unknown characters, its sidecar file.

Its agreement with a reference tokenizer over the real vocabulary is in test_e5_model.py; these cases
use a small vocabulary whose best paths can be worked out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import unigram
from hindsight_desktop.core.model.unigram import CONTROL, NORMAL, UNKNOWN, UnigramTokenizer

# id:       0      1       2        3     4      5     6    7    8      9      10
PIECES = ["<s>", "</s>", "<unk>", "▁", "▁ab", "▁a", "b", "c", "abc", "▁abc", "来"]
SCORES = [0.0, 0.0, 0.0, -2.0, -3.0, -2.0, -2.0, -2.5, -1.0, -6.0, -4.0]
KINDS = [CONTROL, CONTROL, UNKNOWN] + [NORMAL] * 8
TABLE = {"\uff0c": ",", "Ａ": "a", "\u200b": "", "\t": " "}


@pytest.fixture
def tokenizer() -> UnigramTokenizer:
    return UnigramTokenizer(PIECES, SCORES, KINDS, TABLE, bos=0, eos=1, unk=2)


def test_the_best_scoring_path_wins(tokenizer):
    # "▁ab" alone scores -3; "▁a" + "b" scores -4; so one piece.
    assert tokenizer.pieces("ab") == [4]
    # "▁" + "abc" (-3) beats "▁ab" + "c" (-5.5) and "▁abc" (-6).
    assert tokenizer.pieces("abc") == [3, 8]
    assert tokenizer.pieces("abcc") == [3, 8, 7]
    assert tokenizer.encode("ab ab") == [0, 4, 4, 1]


def test_normalisation_table_and_white_space(tokenizer):
    assert tokenizer.words("  Ａb\tb\u200b  ") == ["▁ab", "▁b"]
    assert tokenizer.pieces("  Ａb\tb\u200b  ") == [4, 3, 6]
    assert tokenizer.encode("") == [0, 1]


def test_unknown_characters_become_one_unknown_per_run(tokenizer):
    assert tokenizer.pieces("a☃☃b") == [5, 2, 6]
    assert tokenizer.pieces("☃ ☃") == [3, 2, 3, 2]  # a "▁" between runs keeps them apart


def test_strings_with_the_same_raw_bytes_are_told_apart(tokenizer):
    # "eg" (two one-byte characters) and "来" (one two-byte character, U+6765) share Python's hash.
    assert hash("eg") == hash("\u6765")
    assert tokenizer.pieces("\u6765") == [3, 10]
    assert tokenizer.pieces("eg") == [3, 2]


def test_control_pieces_never_match_text(tokenizer):
    assert 0 not in tokenizer.pieces("<s>")
    assert tokenizer.llama_tokenize(b"ab", add_bos=False) == [4]
    assert tokenizer.llama_tokenize(b"ab") == [0, 4, 1]


def test_the_sidecar_round_trips(tmp_path, tokenizer):
    path = tmp_path / "vocab.npz"
    digest = unigram.save(path, [p.encode() for p in PIECES], np.asarray(SCORES), KINDS, TABLE, bos=0, eos=1, unk=2)
    loaded = unigram.load(path, digest)
    for text in ["ab", "abc ab", "a☃☃b", "Ａb\tc", "来 eg"]:
        assert loaded.encode(text) == tokenizer.encode(text), text
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_a_missing_damaged_or_different_sidecar_is_refused(tmp_path):
    path = tmp_path / "vocab.npz"
    with pytest.raises(ModelError, match="missing"):
        unigram.load(path)
    digest = unigram.save(path, [p.encode() for p in PIECES], np.asarray(SCORES), KINDS, TABLE, bos=0, eos=1, unk=2)
    with pytest.raises(ModelError, match="checksum"):
        unigram.load(path, "0" * 64)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ModelError, match="checksum"):
        unigram.load(path, digest)
    with pytest.raises(ModelError, match="cannot be read"):
        unigram.load(path)


def test_bad_vocabularies_are_refused():
    with pytest.raises(ModelError):
        UnigramTokenizer(["a"], [0.0, 1.0], [NORMAL], {}, bos=0, eos=0, unk=0)
    with pytest.raises(ModelError):
        UnigramTokenizer(["<s>"], [0.0], [CONTROL], {}, bos=0, eos=0, unk=0)
