"""heed.Translator: the same outputs as `heed translate`, n-best lists best first, attention,
saliency and alignments as numpy arrays of the documented shapes, the GIL released while
decoding, and heed.Error for every bad argument."""
import subprocess
import threading

import numpy as np
import pytest

import heed
from conftest import SOURCES


def test_translates_as_the_heed_command(translator, model_dir, heed_binary, tmp_path):
    (tmp_path / "in.txt").write_text("".join(s + "\n" for s in SOURCES))
    for beam in (1, 5):
        command = subprocess.run([heed_binary, "translate", "--model", model_dir, "--beam", str(beam),
                                  "--input", str(tmp_path / "in.txt")],
                                 check=True, capture_output=True, text=True).stdout.split("\n")
        results = translator.translate(SOURCES, beam=beam)
        assert [r.best for r in results] == command[:len(SOURCES)]


def test_a_string_gives_one_result_and_a_list_one_per_line(translator):
    results = translator.translate(SOURCES)
    assert len(results) == len(SOURCES)
    single = translator.translate("dead")
    assert isinstance(single, heed.Result)
    assert single.best == results[3].best
    assert results[2].nbest == [] and results[2].best == ""   # the empty line
    assert single.source[-1] == "</s>" and single.source[:-1] == list("dead")


def test_nbest_lists_are_best_first(translator):
    for r in translator.translate(SOURCES, beam=5, n_best=3):
        if not r.source[:-1]:
            continue
        assert len(r.nbest) == 3
        scores = [h.score for h in r.nbest]
        assert scores == sorted(scores, reverse=True)
        assert r.best == r.nbest[0].text
        assert len({h.text for h in r.nbest}) == 3


def test_attention_and_saliency_are_arrays_of_tokens_by_source(translator):
    r = translator.translate("faced", n_best=2, attention=True, saliency=True)
    best, second = r.nbest
    for h in (best, second):
        assert h.attention.dtype == np.float32
        assert h.attention.shape == (len(h.tokens), len(r.source))
        np.testing.assert_allclose(h.attention.sum(axis=1), 1.0, rtol=1e-4)
    assert best.saliency.shape == best.attention.shape
    assert np.all(best.saliency >= 0) and best.saliency.max() > 0
    assert second.saliency is None   # the best hypothesis only
    plain = translator.translate("faced")
    assert plain.nbest[0].attention is None and plain.nbest[0].saliency is None
    assert plain.nbest[0].alignment == "" and plain.nbest[0].alignment_array is None


def test_hard_and_threshold_alignments_are_source_target_pairs(translator):
    for mode in ("hard", "0.2"):
        r = translator.translate("faced", alignment=mode, attention=True)
        h = r.nbest[0]
        links = h.alignment_array
        assert links.dtype == np.int32 and links.ndim == 2 and links.shape[1] == 2
        assert " ".join(f"{i}-{j}" for i, j in links) == h.alignment
        assert np.all(links[:, 0] < len(r.source) - 1)   # the EOS is left out
        if mode == "hard":   # each output piece to the source piece it attends to most
            for i, j in links:
                assert h.attention[j].argmax() == i


def test_soft_alignments_are_a_weight_matrix(translator):
    r = translator.translate("faced", alignment="soft", attention=True)
    h = r.nbest[0]
    weights = h.alignment_array
    assert weights.dtype == np.float32
    outputs = len(h.tokens) - (h.tokens[-1] == "</s>")
    assert weights.shape == (outputs, len(r.source) - 1)
    np.testing.assert_allclose(weights, h.attention[:outputs, :-1], atol=1e-3)


def test_threads_translate_at_once_and_agree(translator):
    serial = [r.best for r in translator.translate(SOURCES, beam=5)]
    outputs = [None] * 4

    def run(k):
        outputs[k] = [r.best for r in translator.translate(SOURCES, beam=5)]
    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outputs == [serial] * 4


def test_properties(translator):
    assert translator.has_attention
    assert translator.max_source_tokens >= 0


@pytest.mark.parametrize("options, words", [
    ({"beam": 0}, "beam 0"),
    ({"beam": 2, "n_best": 3}, "n_best 3"),
    ({"batch_size": 0}, "batch_size"),
    ({"alignment": "sideways"}, "sideways"),
])
def test_bad_options_are_heed_errors(translator, options, words):
    with pytest.raises(heed.Error, match=words):
        translator.translate(["abc"], **options)


def test_a_missing_model_is_a_heed_error_naming_it(tmp_path):
    with pytest.raises(heed.Error, match="no-such-model"):
        heed.Translator.load(str(tmp_path / "no-such-model"))


def test_bad_weights_name_is_a_heed_error(model_dir):
    with pytest.raises(heed.Error):
        heed.Translator.load(model_dir, "nowhere.safetensors")


def test_options_are_keyword_only(translator):
    with pytest.raises(TypeError):
        translator.translate(["abc"], 5)
