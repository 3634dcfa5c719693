"""heed.bleu, chrf, wer and aer: the scores of heed::bleu and friends for Python lists, one or
several references, and heed.Error for corpora of different lengths or a malformed alignment."""
import pytest

import heed

HYPS = ["the cat sat on the mat", "a dog barks"]
REFS = ["the cat sat on the mat", "the dog barks loudly"]


def test_identical_output_scores_perfectly():
    assert heed.bleu(REFS, REFS) == pytest.approx(100.0)
    assert heed.chrf(REFS, REFS) == pytest.approx(100.0)
    assert heed.wer(REFS, REFS) == 0.0


def test_scores_of_a_partial_match():
    bleu = heed.bleu(HYPS, REFS)
    assert 0 < bleu < 100
    assert heed.bleu(HYPS, [REFS, HYPS]) == pytest.approx(100.0)   # the second stream matches
    assert heed.bleu(HYPS, [REFS]) == pytest.approx(bleu)
    assert 0 < heed.chrf(HYPS, REFS) < 100
    assert heed.chrf(HYPS, REFS, word_order=2) != heed.chrf(HYPS, REFS)
    # 10 reference words; the second line: one substitution and one deletion.
    assert heed.wer(HYPS, REFS) == pytest.approx(20.0)


def test_aer():
    s = heed.aer(["0-0 1-1", "1-1"], ["0-0 1-1", "0-0 1?1"])
    assert s.precision == pytest.approx(1.0)   # 1-1 is a possible link of the gold
    assert s.recall == pytest.approx(2 / 3)
    assert 0 < s.aer < 1
    assert "precision" in repr(s)
    assert heed.aer(["1-1"], ["1-1"], one_based=True).aer == 0.0


def test_corpora_of_different_lengths_are_heed_errors():
    with pytest.raises(heed.Error):
        heed.bleu(HYPS, REFS[:1])
    with pytest.raises(heed.Error):
        heed.wer(HYPS[:1], REFS)


def test_a_malformed_alignment_names_its_line():
    with pytest.raises(heed.Error, match="2"):
        heed.aer(["0-0", "zero-one"], ["0-0", "0-0"])
