"""The Transformer as heed computes it (docs/MODELS.md#transformer), on PyTorch's own
nn.TransformerEncoder and nn.TransformerDecoder, with heed's parameter names: src_emb,
tgt_emb, src_pos / tgt_pos (learned positions), encoder.layers.<l>.*, encoder.norm,
decoder.layers.<l>.*, decoder.norm, W_s. share_embeddings: the decoder reads src_emb (one
table, src_vocab == tgt_vocab; no tgt_emb in named_parameters()); tie_embeddings: W_s's
weight is the target table.

The embeddings are scaled by sqrt(d_model) and the positions added; the encoder's padding
and the decoder's causal mask are PyTorch's key_padding_mask and attn_mask. step() has no
cache: it runs the decoder over the whole prefix and keeps the last position (the state is
the prefix of tokens, batch-major), which is what heed's cached step must equal. The
attention output is the encoder-decoder weights of the alignment layer (1-based, 0 = the
last), of one head (1-based) or the heads averaged (0).
"""
import math

import torch
import torch.nn as nn

from .common import PAD, length_mask


def sinusoidal_positions(n, d, dtype):
    """P[t, 2i] = sin(t / 10000^(2i/d)), P[t, 2i+1] = cos(t / 10000^(2i/d)), (n, d)."""
    t = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    c = torch.arange(d)
    angle = t / torch.pow(10000.0, (c - c % 2).double() / d)
    return torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle)).to(dtype)


class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=256, heads=4, ff_dim=1024, enc_layers=1,
                 dec_layers=1, norm="pre", positions="sinusoidal", max_positions=512,
                 dropout=0.0, alignment_layer=0, alignment_head=0, tie_embeddings=False,
                 share_embeddings=False):
        super().__init__()
        self.d, self.heads = d_model, heads
        self.learned = positions == "learned"
        self.align_layer = (alignment_layer or dec_layers) - 1
        self.align_head = alignment_head
        self.src_emb = nn.Embedding(src_vocab, d_model, padding_idx=PAD)
        if share_embeddings:     # one table: heed's model.share_embeddings
            if src_vocab != tgt_vocab:
                raise ValueError(f"share_embeddings needs one vocabulary, got src_vocab "
                                 f"{src_vocab} and tgt_vocab {tgt_vocab}")
            self.tgt_emb = self.src_emb
        else:
            self.tgt_emb = nn.Embedding(tgt_vocab, d_model, padding_idx=PAD)
        if self.learned:
            self.src_pos = nn.Embedding(max_positions, d_model)
        first = norm == "pre"
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, heads, ff_dim, dropout, batch_first=True,
                                       norm_first=first),
            enc_layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        if self.learned:
            self.tgt_pos = nn.Embedding(max_positions, d_model)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model, heads, ff_dim, dropout, batch_first=True,
                                       norm_first=first),
            dec_layers, norm=nn.LayerNorm(d_model))
        self.W_s = nn.Linear(d_model, tgt_vocab)
        if tie_embeddings:
            self.W_s.weight = self.tgt_emb.weight
        # The alignment layer's encoder-decoder attention, asked for its weights.
        mha = self.decoder.layers[self.align_layer].multihead_attn
        plain = mha.forward
        self._weights = None

        def with_weights(*args, **kwargs):
            kwargs["need_weights"] = True
            kwargs["average_attn_weights"] = False
            out, w = plain(*args, **kwargs)
            self._weights = w                                   # (B, heads, n, m)
            return out, w
        mha.forward = with_weights

    def _embed(self, emb, pos, ids):
        n = ids.size(1)
        x = emb(ids) * math.sqrt(self.d)
        if self.learned:
            return x + pos(torch.arange(n).unsqueeze(0).expand(ids.size(0), n))
        return x + sinusoidal_positions(n, self.d, x.dtype)

    def encode(self, src, src_len):
        mask = length_mask(src_len, src.size(1))
        x = self._embed(self.src_emb, getattr(self, "src_pos", None), src)
        memory = self.encoder(x, src_key_padding_mask=~mask)
        state = (src.new_zeros(src.size(0), 0),)                 # the prefix of tokens
        return (memory, mask), state

    def features(self, tgt_in, enc):
        """The decoder's output (B, n, d) and the attention output alpha (B, n, m)."""
        memory, mask = enc
        n = tgt_in.size(1)
        y = self._embed(self.tgt_emb, getattr(self, "tgt_pos", None), tgt_in)
        causal = torch.triu(torch.full((n, n), float("-inf"), dtype=y.dtype), diagonal=1)
        h = self.decoder(y, memory, tgt_mask=causal, memory_key_padding_mask=~mask)
        w = self._weights
        alpha = w.mean(1) if self.align_head == 0 else w[:, self.align_head - 1]
        return h, alpha

    def _decode(self, tgt_in, enc):
        h, alpha = self.features(tgt_in, enc)
        return self.W_s(h), alpha                                # (B, n, V), (B, n, m)

    def step(self, y_prev, state, enc):
        prefix = torch.cat([state[0], y_prev.unsqueeze(1)], 1)
        logits, alpha = self._decode(prefix, enc)
        return logits[:, -1], (prefix,), alpha[:, -1]

    def forward(self, src, src_len, tgt_in):
        enc, _ = self.encode(src, src_len)
        return self._decode(tgt_in, enc)[0]
