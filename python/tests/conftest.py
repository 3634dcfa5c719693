"""Shared fixtures of the Python module's tests: a tiny Bahdanau model on the word-reversal
task, trained once per session through heed.Trainer (a few seconds). Run against the build
tree (PYTHONPATH=build/python; ctest's python.pytest) or the installed python3-heed
(tools/package/check_installed.sh). HEED_BINARY, when set, is the heed command whose
output the module's must equal."""
import os
import random

import pytest

import heed


def write_reversal_task(directory, seed=7):
    """train/dev files of 3-8 letters from a-h and the same words reversed; the config's data
    section naming them."""
    rng = random.Random(seed)
    for split, n in (("train", 300), ("dev", 20)):
        words = ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(3, 8))) for _ in range(n)]
        (directory / f"{split}.src").write_text("".join(w + "\n" for w in words))
        (directory / f"{split}.tgt").write_text("".join(w[::-1] + "\n" for w in words))
    return ("data:\n" + "".join(f"  {split}_{side}: {directory / f'{split}.{ext}'}\n"
                                for split in ("train", "dev")
                                for side, ext in (("source", "src"), ("target", "tgt"))))


def reversal_config(directory, max_steps=40):
    return (write_reversal_task(directory) +
            "model:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n  dec_hidden: 12\n"
            f"training:\n  lr: 0.01\n  max_tokens: 200\n  max_steps: {max_steps}\n"
            "  validate_every: 10\n"
            f"output: {directory / 'model'}\n")


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("reversal")
    result = heed.Trainer.from_yaml(reversal_config(directory, 60)).train()
    assert result.outcome == heed.Outcome.finished
    return result.model_dir


@pytest.fixture(scope="session")
def translator(model_dir):
    return heed.Translator.load(model_dir)


SOURCES = ["abc", "hgfe", "", "dead", "cafe", "bead", "faced", "ahh", "gab", "feed"]


@pytest.fixture
def heed_binary():
    path = os.environ.get("HEED_BINARY")
    if not path:
        pytest.skip("HEED_BINARY is not set")
    return path
