"""Copy attention over heed's Bahdanau model and its Transformer (docs/MODELS.md#copy-attention;
See et al. 2017, "Get To The Point", sec. 2.2), for the goldens
tests/golden/copy_bahdanau.safetensors and copy_transformer.safetensors.

Bahdanau's gate reads the features the deep output reads, [s_t; c_t; e(y_{t-1})], the
Transformer's the decoder's output (what W_s reads), with alpha its attention output (the
alignment layer's encoder-decoder weights, the heads averaged):
  p_gen_t = sigmoid(p_gen([s_t; c_t; e(y_{t-1})]))        (nn.Linear(F, 1), created last)
  P_t(w) = p_gen_t softmax(logits_t)(w) + (1 - p_gen_t) sum_{j: copy_ids[j] = w} alpha_tj
over the target vocabulary extended by K source words (ids V .. V+K-1). This reference takes
the definition literally, in probabilities (a scatter-add of the attention weights and a log
at the end), so that heed's log-domain op is checked against an independent formulation.
"""
import torch
import torch.nn as nn

from .common import PAD
from .models import Bahdanau
from .transformer import Transformer


class CopyBahdanau(Bahdanau):
    """Bahdanau's model with the pointer-generator's gate p_gen."""

    def __init__(self, src_vocab, tgt_vocab, **kwargs):
        super().__init__(src_vocab, tgt_vocab, **kwargs)
        self.p_gen = nn.Linear(self.W_o.in_features, 1)

    def forward_copy(self, src, src_len, tgt_in):
        """Teacher forcing: logits (B, n, V), the gate's logit (B, n), alpha (B, n, m)."""
        enc, state = self.encode(src, src_len)
        E = self.tgt_emb(tgt_in)
        feats, alphas = [], []
        for e in E.unbind(1):
            s, c, alpha, state = self._recur(e, state, enc)
            feats.append(torch.cat([s, c, e], 1))
            alphas.append(alpha)
        features = torch.stack(feats, 1)
        return (self._deep_output(features), self.p_gen(features).squeeze(-1),
                torch.stack(alphas, 1))


class CopyTransformer(Transformer):
    """The Transformer with the pointer-generator's gate p_gen over the decoder's output."""

    def __init__(self, src_vocab, tgt_vocab, **kwargs):
        super().__init__(src_vocab, tgt_vocab, **kwargs)
        self.p_gen = nn.Linear(self.d, 1)

    def forward_copy(self, src, src_len, tgt_in):
        """Teacher forcing: logits (B, n, V), the gate's logit (B, n), alpha (B, n, m)."""
        enc, _ = self.encode(src, src_len)
        h, alpha = self.features(tgt_in, enc)
        return self.W_s(h), self.p_gen(h).squeeze(-1), alpha


def extended_log_probs(logits, gate, alpha, copy_ids, extended):
    """log P over the extended vocabulary, (B, n, V + extended); copy_ids (B, m)."""
    p = torch.sigmoid(gate).unsqueeze(-1)
    vocab = p * torch.softmax(logits, -1)
    pad = torch.zeros(*vocab.shape[:-1], extended, dtype=vocab.dtype)
    dist = torch.cat([vocab, pad], -1)
    index = copy_ids.unsqueeze(1).expand(-1, alpha.size(1), -1)
    dist = dist.scatter_add(-1, index, (1 - p) * alpha)
    return torch.log(dist)


def copy_loss(logits, gate, alpha, copy_ids, extended, tgt_out):
    """-log P(y_t) averaged over the non-pad targets (ids over the extended vocabulary)."""
    logp = extended_log_probs(logits, gate, alpha, copy_ids, extended)
    picked = logp.gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
    keep = tgt_out != PAD
    return -(picked[keep]).sum() / keep.sum()
