"""The speech model of docs/MODELS.md#listen-attend-and-spell (model.kind las).

Las: the pyramidal listener (an nn.ModuleList of one-layer bidirectional nn.LSTM / nn.GRU;
layers 1..log2(pyramid) read adjacent pairs of the layer below joined, an odd row's last step
paired with zeros) and the Bahdanau decoder over its annotations (the speller), starting from
s_0 = tanh(W_init <-h_1) of the top layer. Frames come as a padded batch (B, T, F) with each
row's frame count; everything is batch-first. With frontend_layers L > 0 (model.frontend_layers)
a convolutional front end first: the frames as a one-channel image, time padded with zeros to a
multiple of 2^L, L times conv 3x3 (padding 1) + ReLU + 2x2 max-pool with each row's steps past
its length zeroed after the ReLU, then each step's channels x bins flattened channel-major.
With ctc_weight > 0 (model.ctc_weight) a CTC
head over the annotations (ctc: nn.Linear) and loss() the joint training loss
(docs/MODELS.md#joint-ctc-training).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import AdditiveAttention
from .common import EOS, PAD, length_mask, run_packed


class Las(nn.Module):
    def __init__(self, tgt_vocab, feature_dim, emb_dim=128, enc_hidden=256, enc_layers=4,
                 pyramid=8, cell="lstm", dec_hidden=256, attn_dim=None, out_dim=None,
                 ctc_weight=0.0, frontend_layers=0, frontend_channels=16):
        super().__init__()
        P = pyramid.bit_length() - 1
        if pyramid < 1 or 1 << P != pyramid or P >= enc_layers:
            raise ValueError(f"pyramid {pyramid}: a power of two below 2^enc_layers")
        if cell not in ("lstm", "gru"):
            raise ValueError(f"cell must be lstm or gru, got {cell!r}")
        self.joins = P
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        ctx = 2 * enc_hidden
        out_dim = out_dim or dec_hidden
        # Registration order = heed's parameter order: the front end, the listener, the speller.
        first = feature_dim
        if frontend_layers:
            if feature_dim >> frontend_layers < 1:
                raise ValueError(f"{frontend_layers} front-end layers halve {feature_dim} bins "
                                 "to nothing")
            self.frontend = nn.Module()
            for l in range(frontend_layers):
                self.frontend.add_module(f"conv{l}", nn.Conv2d(
                    1 if l == 0 else frontend_channels << (l - 1), frontend_channels << l, 3,
                    padding=1))
            first = (frontend_channels << (frontend_layers - 1)) * (feature_dim >> frontend_layers)
        self.frontend_layers = frontend_layers
        self.listener = nn.ModuleList(
            rnn(first if l == 0 else 2 * ctx if l <= P else ctx, enc_hidden,
                batch_first=True, bidirectional=True) for l in range(enc_layers))
        self.tgt_emb = nn.Embedding(tgt_vocab, emb_dim, padding_idx=PAD)
        self.ctc_weight = ctc_weight
        if ctc_weight > 0:      # heed registers the listener's head after the first decoder module
            self.ctc = nn.Linear(ctx, tgt_vocab)
        self.W_init = nn.Linear(enc_hidden, dec_hidden)
        self.attention = AdditiveAttention(dec_hidden, ctx, attn_dim or dec_hidden)
        self.decoder = nn.GRUCell(emb_dim + ctx, dec_hidden)
        self.W_o = nn.Linear(dec_hidden + ctx + emb_dim, out_dim)
        self.W_out = nn.Linear(out_dim, tgt_vocab)

    def front_end(self, frames, lengths):
        """(B, ceil(T / 2^L), channels x bins) and each row's steps."""
        r = 1 << self.frontend_layers
        B, T, _ = frames.shape
        x = F.pad(frames, (0, 0, 0, (T + r - 1) // r * r - T)).unsqueeze(1)
        n = lengths
        for l in range(self.frontend_layers):
            y = torch.relu(getattr(self.frontend, f"conv{l}")(x))
            y = y * length_mask(n, y.size(2))[:, None, :, None].to(y.dtype)
            x = F.max_pool2d(y, 2)
            n = (n + 1) // 2
        return x.transpose(1, 2).reshape(B, x.size(2), -1), n

    def listen(self, frames, lengths):
        """(annotations (B, U, 2d), their lengths (B,), the top layer's final h_n (2, B, d))."""
        x, n = frames, lengths
        if self.frontend_layers:
            x, n = self.front_end(x, n)
        for l, rnn in enumerate(self.listener):
            if 1 <= l <= self.joins:
                if x.size(1) % 2:
                    x = torch.cat([x, x.new_zeros(x.size(0), 1, x.size(2))], 1)
                x = x.reshape(x.size(0), x.size(1) // 2, 2 * x.size(2))
                n = (n + 1) // 2
            x, final = run_packed(rnn, x, n)
        h_n = final[0] if isinstance(final, tuple) else final
        return x, n, h_n

    def encode(self, frames, lengths):
        H, n, h_n = self.listen(frames, lengths)
        s0 = torch.tanh(self.W_init(h_n[1]))              # h_n[1] = <-h_1 of the top layer
        return (H, self.attention.keys(H), length_mask(n, H.size(1))), (s0,)

    def step(self, y_prev, state, enc):
        """One speller step: (logits (B, V), (s_t,), alpha (B, U))."""
        H, K, mask = enc
        e = self.tgt_emb(y_prev)
        c, alpha = self.attention(state[0], H, K, mask)
        s = self.decoder(torch.cat([e, c], 1), state[0])
        return self.W_out(torch.tanh(self.W_o(torch.cat([s, c, e], 1)))), (s,), alpha

    def forward(self, frames, lengths, tgt_in):
        """Teacher-forced logits (B, n, V) for decoder inputs tgt_in (B, n), BOS first."""
        enc, state = self.encode(frames, lengths)
        rows = []
        for y in tgt_in.unbind(1):
            logits, state, _ = self.step(y, state, enc)
            rows.append(logits)
        return torch.stack(rows, 1)

    def loss(self, frames, lengths, tgt_in, tgt_out):
        """heed's training loss: the mean cross-entropy over the real target tokens (tgt_out,
        PAD-padded, EOS last), and with ctc_weight lambda > 0 (1 - lambda) times it plus lambda
        times the CTC loss of the head over the annotations (blank = PAD, each transcript
        without its EOS), summed over the rows and divided by the same token count."""
        logits = self.forward(frames, lengths, tgt_in)
        ce = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1),
                                         ignore_index=PAD)
        if self.ctc_weight <= 0:
            return ce
        H, n, _ = self.listen(frames, lengths)
        log_probs = self.ctc(H).log_softmax(-1).transpose(0, 1)      # (U, B, V)
        tokens = (tgt_out != PAD).sum(1)
        targets = torch.where(tgt_out == EOS, torch.zeros_like(tgt_out), tgt_out)
        ctc = nn.functional.ctc_loss(log_probs, targets, n, tokens - 1, blank=PAD,
                                     reduction="sum", zero_infinity=True)
        return (1 - self.ctc_weight) * ce + self.ctc_weight * ctc / tokens.sum()
