"""heed's PyTorch reference: the models of docs/MODELS.md, written for the golden values.

tools/make_goldens.py, tools/make_model_goldens.py and tools/make_memn2n_goldens.py import
this package (`import reference as ref`, with tools/ on the path) and write
tests/golden/*.safetensors from it; the C++ tests compare heed against those files. It needs
only Debian's python3-torch (1.13) and runs on the CPU. Modules:
  common.py     token ids, masks, the packed recurrent run, row selection
  attention.py  every attention score, masking and softmax, local-p
  models.py     Bahdanau, NoAttention, Luong, build_model, seq2seq_loss, coverage_loss
  transformer.py  Transformer (on nn.TransformerEncoder / nn.TransformerDecoder)
  images.py     FcClassifier, CnnClassifier, Ram (and its glimpse sensor), Image2Seq
  decode.py     greedy_decode, beam_search
  memory.py     MemN2N (the end-to-end memory network), make_batch, memn2n_loss
  copy.py       CopyBahdanau (copy attention's p_gen), extended_log_probs, copy_loss
                (imported as reference.copy by tools/make_copy_goldens.py)
  speech.py     Las (listen, attend and spell: the pyramidal listener and the speller)

This is the numerical reference, not the speed reference: heed's `bench` compares its speed
with the team's separate PyTorch benchmark (docs/PERFORMANCE.md).
"""
from .attention import SCORES, AdditiveAttention, Attention, GlobalAttention
from .common import BOS, EOS, PAD, UNK, length_mask, run_packed, select_rows
from .decode import beam_search, greedy_decode
from .images import CnnClassifier, FcClassifier, Image2Seq, Ram, glimpse
from .memory import MemN2N, make_batch, memn2n_loss, position_weights, random_empty_memories
from .models import Bahdanau, Luong, NoAttention, build_model, coverage_loss, seq2seq_loss
from .speech import Las

__all__ = ["SCORES", "AdditiveAttention", "Attention", "GlobalAttention", "BOS", "EOS", "PAD",
           "UNK", "length_mask", "run_packed", "select_rows", "beam_search", "greedy_decode",
           "Bahdanau", "Luong", "NoAttention", "build_model", "coverage_loss", "seq2seq_loss",
           "CnnClassifier", "FcClassifier", "Image2Seq", "Ram", "glimpse", "MemN2N", "make_batch",
           "memn2n_loss", "position_weights", "random_empty_memories", "Las"]
