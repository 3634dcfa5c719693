"""heed's encoder-decoder models in PyTorch, for the golden values of tests/golden.

Each class computes what docs/MODELS.md gives for it and names its parameters as heed's
checkpoints do (the state_dict keys: `encoder.weight_ih_l0_reverse`, `W_init.weight`,
`attention.W_q.weight`, `cells.1.bias_hh`, ...), so that heed can load these weights and be
compared with these outputs number for number:
  Bahdanau     docs/MODELS.md#bahdanau      bi-GRU encoder, mlp attention before the GRU step,
                                            deep output; optional location features and
                                            coverage (#location-aware-attention, #coverage)
  NoAttention  docs/MODELS.md#no-attention  the same decoder with one fixed context
  Luong        docs/MODELS.md#luong         LSTM stacks, attention after the step, input feeding
  Transformer  docs/MODELS.md#transformer   nn.TransformerEncoder / Decoder (transformer.py)

Every model answers the same three calls (the decoders of decode.py use the first two):
  encode(src, src_len)     -> (enc, state0), tuples of batch-major tensors
  step(y_prev, state, enc) -> (logits (B, V), state, alpha (B, m) or None)
  forward(src, src_len, tgt_in) -> logits (B, n, V), teacher forced

Only what the goldens exercise is here: heed's extensions (an LSTM or deeper encoder for
Bahdanau, dropout on embeddings and on the deep output, tied embeddings) are described in
docs/MODELS.md and tested in C++ without a golden. The reference runs in whatever dtype the
model is cast to (the goldens use float64).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import AdditiveAttention, Attention, GlobalAttention  # noqa: F401 (re-exported)
from .common import PAD, length_mask, run_packed


class _FixedOrAttendedGRU(nn.Module):
    """What Bahdanau and NoAttention share (docs/MODELS.md#bahdanau, #no-attention).

    A bidirectional GRU encoder, s_0 = tanh(W_init <-h_1 + b_init), a GRU cell reading
    [e(y_{t-1}); c_t] and the deep output W_out tanh(W_o [s_t; c_t; e(y_{t-1})] + b_o). The
    two differ only in c_t: attention over the annotations, read from s_{t-1}, or the fixed
    [->h_m; <-h_1]. attn_dim=None builds no attention."""

    def __init__(self, src_vocab, tgt_vocab, emb_dim, enc_hidden, dec_hidden, out_dim,
                 attn_dim, location_filters=0, location_width=0, coverage=False):
        super().__init__()
        out_dim = out_dim or dec_hidden
        ctx_dim = 2 * enc_hidden                          # [->h_j; <-h_j]
        # Creation order = initialisation order = state_dict order: keep it.
        self.src_emb = nn.Embedding(src_vocab, emb_dim, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(tgt_vocab, emb_dim, padding_idx=PAD)
        self.encoder = nn.GRU(emb_dim, enc_hidden, batch_first=True, bidirectional=True)
        self.W_init = nn.Linear(enc_hidden, dec_hidden)
        self.attention = None
        if attn_dim is not None:
            self.attention = AdditiveAttention(dec_hidden, ctx_dim, attn_dim, location_filters,
                                               location_width, coverage)
        self.decoder = nn.GRUCell(emb_dim + ctx_dim, dec_hidden)
        self.W_o = nn.Linear(dec_hidden + ctx_dim + emb_dim, out_dim)
        self.W_out = nn.Linear(out_dim, tgt_vocab)

    def _run_encoder(self, src, src_len):
        """Annotations H (B, m, 2d), final states h_n (2, B, d) and s_0 (B, dec_hidden)."""
        H, h_n = run_packed(self.encoder, self.src_emb(src), src_len)
        s0 = torch.tanh(self.W_init(h_n[1]))              # h_n[1] = <-h_1
        return H, h_n, s0

    def _context(self, state, enc):
        """(c_t, alpha_t): attention reads s_{t-1} (and the previous weights, the coverage:
        the rest of the state); without attention c is fixed."""
        if self.attention is None:
            return enc[0], None
        H, K, mask = enc
        coverage = state[2] if self.attention.coverage else None
        return self.attention(state[0], H, K, mask, state[1], coverage)

    def _recur(self, e, state, enc):
        """One decoder step up to the deep output: (s_t, c_t, alpha_t, the next state). With
        attention the state is (s, alpha_{t-1}) or, with coverage, (s, alpha_{t-1}, c_t)."""
        c, alpha = self._context(state, enc)
        s = self.decoder(torch.cat([e, c], 1), state[0])
        if self.attention is None:
            return s, c, alpha, (s,)
        if self.attention.coverage:
            return s, c, alpha, (s, alpha, state[2] + alpha)
        return s, c, alpha, (s, alpha)

    def _deep_output(self, features):
        """W_out tanh(W_o [s; c; e] + b_o) + b_out over any leading dimensions."""
        return self.W_out(torch.tanh(self.W_o(features)))

    def step(self, y_prev, state, enc):
        e = self.tgt_emb(y_prev)
        s, c, alpha, state = self._recur(e, state, enc)
        return self._deep_output(torch.cat([s, c, e], 1)), state, alpha


class Bahdanau(_FixedOrAttendedGRU):
    """RNNsearch (docs/MODELS.md#bahdanau)."""

    def __init__(self, src_vocab, tgt_vocab, emb_dim=128, enc_hidden=256, dec_hidden=256,
                 attn_dim=256, out_dim=None, location_filters=0, location_width=0,
                 coverage=False):
        super().__init__(src_vocab, tgt_vocab, emb_dim, enc_hidden, dec_hidden, out_dim,
                         attn_dim, location_filters, location_width, coverage)

    def encode(self, src, src_len):
        H, _, s0 = self._run_encoder(src, src_len)
        mask = length_mask(src_len, src.size(1))
        # alpha_0 = 0 (and c_1 = 0): docs/MODELS.md#location-aware-attention.
        zeros = H.new_zeros(src.size(0), src.size(1))
        state = (s0, zeros, zeros) if self.attention.coverage else (s0, zeros)
        return (H, self.attention.keys(H), mask), state

    def teacher_forced(self, src, src_len, tgt_in):
        """(logits (B, n, V), alpha (B, n, m)) under teacher forcing."""
        enc, state = self.encode(src, src_len)
        E = self.tgt_emb(tgt_in)
        rows, alphas = [], []
        for e in E.unbind(1):    # unbind: one backward for all steps, not n slices
            s, c, alpha, state = self._recur(e, state, enc)
            rows.append(torch.cat([s, c], 1))
            alphas.append(alpha)
        # [s_t; c_t; e(y_{t-1})] for every step, then the deep output in one product.
        logits = self._deep_output(torch.cat([torch.stack(rows, 1), E], 2))
        return logits, torch.stack(alphas, 1)

    def forward(self, src, src_len, tgt_in):
        return self.teacher_forced(src, src_len, tgt_in)[0]


class NoAttention(_FixedOrAttendedGRU):
    """The fixed-context baseline (docs/MODELS.md#no-attention)."""

    def __init__(self, src_vocab, tgt_vocab, emb_dim=128, enc_hidden=256, dec_hidden=256,
                 out_dim=None):
        super().__init__(src_vocab, tgt_vocab, emb_dim, enc_hidden, dec_hidden, out_dim,
                         attn_dim=None)

    def encode(self, src, src_len):
        _, h_n, s0 = self._run_encoder(src, src_len)
        c = torch.cat([h_n[0], h_n[1]], 1)                 # [->h_m; <-h_1]
        return (c,), (s0,)

    def forward(self, src, src_len, tgt_in):
        enc, (s,) = self.encode(src, src_len)
        c = enc[0]
        E = self.tgt_emb(tgt_in)
        states = []
        for e in E.unbind(1):
            s, _, _, _ = self._recur(e, (s,), enc)
            states.append(s)
        n = tgt_in.size(1)
        every_step = c.unsqueeze(1).expand(-1, n, -1)      # the same c at each step
        return self._deep_output(torch.cat([torch.stack(states, 1), every_step, E], 2))


class Luong(nn.Module):
    """Global or local-p attention on an LSTM stack (docs/MODELS.md#luong).

    The decoder has as many layers as the encoder; layer l starts from encoder layer l's
    final (h, c), through bridge_h / bridge_c when the encoder is bidirectional. The decoder
    state is the tuple (h_1..h_L, c_1..c_L, h~)."""

    def __init__(self, src_vocab, tgt_vocab, emb_dim=256, hidden=256, layers=2, score="general",
                 input_feed=True, bidirectional=False, dropout=0.0, attn_dim=None,
                 max_src_len=100, local_p=False, window=None):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.input_feed, self.bidirectional = input_feed, bidirectional
        key_dim = hidden * (2 if bidirectional else 1)
        self.src_emb = nn.Embedding(src_vocab, emb_dim, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(tgt_vocab, emb_dim, padding_idx=PAD)
        self.encoder = nn.LSTM(emb_dim, hidden, layers, batch_first=True,
                               dropout=dropout if layers > 1 else 0.0,
                               bidirectional=bidirectional)
        if bidirectional:
            self.bridge_h = nn.Linear(2 * hidden, hidden)
            self.bridge_c = nn.Linear(2 * hidden, hidden)
        first_input = emb_dim + (hidden if input_feed else 0)   # [e(y_{t-1}); h~_{t-1}]
        self.cells = nn.ModuleList([nn.LSTMCell(first_input if l == 0 else hidden, hidden)
                                    for l in range(layers)])
        self.drop = nn.Dropout(dropout)                          # between decoder layers
        self.attention = GlobalAttention(score, hidden, key_dim, attn_dim,
                                         max_src_len=max_src_len, local_p=local_p,
                                         window=window)
        self.W_c = nn.Linear(key_dim + hidden, hidden, bias=False)
        self.W_s = nn.Linear(hidden, tgt_vocab)

    def _bridge(self, final, bridge):
        """(2L, B, d) final states of a bidirectional stack -> (L, B, hidden): layer l's
        [->; <-] through the bridge."""
        B = final.size(1)
        per_layer = final.view(self.layers, 2, B, -1).transpose(1, 2)
        return bridge(per_layer.reshape(self.layers, B, -1))

    def encode(self, src, src_len):
        mask = length_mask(src_len, src.size(1))
        H, (h_n, c_n) = run_packed(self.encoder, self.src_emb(src), src_len)
        if self.bidirectional:
            h_n, c_n = self._bridge(h_n, self.bridge_h), self._bridge(c_n, self.bridge_c)
        h_tilde = H.new_zeros(src.size(0), self.hidden)          # h~_0 = 0
        state = tuple(h_n.unbind(0)) + tuple(c_n.unbind(0)) + (h_tilde,)
        return (H, self.attention.keys(H), mask), state

    def _attentional(self, e, state, enc):
        """One decoder step up to h~_t: (h~_t, new state, alpha_t)."""
        L = self.layers
        hs, cs, h_tilde = state[:L], state[L:2 * L], state[2 * L]
        x = torch.cat([e, h_tilde], 1) if self.input_feed else e
        new_h, new_c = [], []
        for l, cell in enumerate(self.cells):
            if l > 0:
                x = self.drop(x)
            h, c = cell(x, (hs[l], cs[l]))
            new_h.append(h)
            new_c.append(c)
            x = h
        H, K, mask = enc
        context, alpha = self.attention(x, H, K, mask)           # reads h_t, the top layer
        h_tilde = torch.tanh(self.W_c(torch.cat([context, x], 1)))
        return h_tilde, tuple(new_h) + tuple(new_c) + (h_tilde,), alpha

    def step(self, y_prev, state, enc):
        h_tilde, state, alpha = self._attentional(self.tgt_emb(y_prev), state, enc)
        return self.W_s(h_tilde), state, alpha

    def forward(self, src, src_len, tgt_in):
        enc, state = self.encode(src, src_len)
        outs = []
        for e in self.tgt_emb(tgt_in).unbind(1):
            h_tilde, state, _ = self._attentional(e, state, enc)
            outs.append(h_tilde)
        return self.W_s(torch.stack(outs, 1))


MODEL_KINDS = {"bahdanau": Bahdanau, "luong": Luong, "noattn": NoAttention}


def _transformer(**kwargs):
    from .transformer import Transformer
    return Transformer(**kwargs)


MODEL_KINDS["transformer"] = _transformer


def build_model(kind, **kwargs):
    """A model by heed's `model.kind` name: bahdanau | luong | noattn, one of the image
    kinds of images.py (fc | cnn | ram | image2seq), memn2n (memory.py's MemN2N) or las
    (speech.py's Las)."""
    from .images import IMAGE_KINDS
    if kind in IMAGE_KINDS:
        return IMAGE_KINDS[kind](**kwargs)
    if kind == "memn2n":
        from .memory import MemN2N
        return MemN2N(**kwargs)
    if kind == "las":
        from .speech import Las
        return Las(**kwargs)
    return MODEL_KINDS[kind](**kwargs)


def coverage_loss(alphas, tgt_out):
    """docs/MODELS.md#coverage: sum_b sum_{t < n_b} sum_j min(alpha_btj, c_btj), c_bt the sum
    of the steps before t, over the non-pad target tokens of the batch (unweighted)."""
    covered = torch.cumsum(alphas, 1) - alphas                   # c_t = sum_{t' < t} alpha_t'
    real = (tgt_out != PAD).to(alphas.dtype).unsqueeze(2)        # (B, n, 1)
    return (torch.minimum(alphas, covered) * real).sum() / real.sum()


def seq2seq_loss(logits, tgt_out, label_smoothing=0.0):
    """docs/MODELS.md#training-loss: cross-entropy (optionally label-smoothed) averaged over
    the non-pad target tokens of the batch."""
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=PAD,
                           label_smoothing=label_smoothing)
