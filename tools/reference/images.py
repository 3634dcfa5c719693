"""heed's image models in PyTorch: fc, cnn, ram and image2seq (docs/MODELS.md#images).

Each class computes what docs/MODELS.md gives for it and names its parameters as heed's
checkpoints do, so that a state_dict moves between heed and PyTorch unchanged
(docs/INTEROP.md has the tables):
  FcClassifier   docs/MODELS.md#fully-connected-classifier   hidden<i>, classifier
  CnnClassifier  docs/MODELS.md#small-cnn                    features.conv<l>, classifier
  Ram            docs/MODELS.md#recurrent-attention-model    glimpse.*, core.*, location,
                                                             baseline, classifier
  Image2Seq      docs/MODELS.md#image-to-sequence            cnn.conv<l>, then the Bahdanau
                                                             decoder's tgt_emb, W_init,
                                                             attention, decoder, W_o, W_out

Images are (B, C, H, W) floats in [0, 1] (heed reads pixel / 255). The classifiers'
forward(images) gives the logits (B, classes) of heed's deterministic test pass
(ImageClassifier::test_logits): for Ram the mean locations l_t = mu_t. Image2Seq's
forward(images, tgt_in) gives the teacher-forced logits (B, n, V) of heed's forward in eval
mode, for attention modes soft, none and hard (whose test pass reads the most probable cell,
hard_eval argmax, or the soft context, hard_eval expectation).

Ram.run(images, sample=True) is the training pass (sampled locations, the policy's
log-probabilities and the baseline's predictions), which tools/torch_ram.py times against
`heed bench --config ram`.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import AdditiveAttention
from .common import PAD


class ConvStack(nn.Module):
    """nn/conv_stack.h: layer l = 0..layers-1 is maxpool2x2(ReLU(conv3x3(x))) with zero
    padding 1 and channels * 2^l output channels; parameters conv<l>.weight (out, in, 3, 3)
    and conv<l>.bias, nn.Conv2d's layout."""

    def __init__(self, in_channels, layers, channels):
        super().__init__()
        self.layers = layers
        c_in = in_channels
        for l in range(layers):
            setattr(self, f"conv{l}", nn.Conv2d(c_in, channels << l, 3, padding=1))
            c_in = channels << l

    def forward(self, x):
        for l in range(self.layers):
            x = F.max_pool2d(F.relu(getattr(self, f"conv{l}")(x)), 2, 2)
        return x


def conv_stack_output(layers, channels, height, width):
    """(C, H', W') of a ConvStack's output for height x width images."""
    for _ in range(layers):
        height, width = height // 2, width // 2
    return channels << (layers - 1), height, width


class FcClassifier(nn.Module):
    """model.kind fc: h_0 = flatten(x), h_i = ReLU(W_i h_{i-1} + b_i) for i = 1..fc_layers,
    logits = W_c h_L + b_c."""

    def __init__(self, classes, image_height, image_width, fc_layers=1, fc_hidden=256,
                 channels=1):
        super().__init__()
        self.fc_layers = fc_layers
        n_in = channels * image_height * image_width
        for i in range(1, fc_layers + 1):
            setattr(self, f"hidden{i}", nn.Linear(n_in, fc_hidden))
            n_in = fc_hidden
        self.classifier = nn.Linear(n_in, classes)

    def forward(self, images):
        h = images.flatten(1)
        for i in range(1, self.fc_layers + 1):
            h = F.relu(getattr(self, f"hidden{i}")(h))
        return self.classifier(h)


class CnnClassifier(nn.Module):
    """model.kind cnn: logits = W_c flatten(ConvStack(x)) + b_c."""

    def __init__(self, classes, image_height, image_width, conv_layers=3, conv_channels=16,
                 channels=1):
        super().__init__()
        C, H, W = conv_stack_output(conv_layers, conv_channels, image_height, image_width)
        if H < 1 or W < 1:
            raise ValueError(f"{conv_layers} poolings leave nothing of {image_height}x"
                             f"{image_width} images")
        self.features = ConvStack(channels, conv_layers, conv_channels)
        self.classifier = nn.Linear(C * H * W, classes)

    def forward(self, images):
        return self.classifier(self.features(images).flatten(1))


def glimpse(images, l, size, scales):
    """The glimpse sensor (docs/MODELS.md#glimpse-sensor, kernels/glimpse.h): images
    (B, C, H, W), l (B, 2) rows (row, col) in [-1, 1] -> (B, scales * C * size * size).

    Patch i has side S = size * 2^i and starts at floor((l + 1) / 2 * H - S / 2 + 1/2),
    computed in float64 as heed computes it whatever the model's dtype (so that both pick
    the same pixels); outside the image counts as 0; each patch is average-pooled to
    size x size, the finest first, each as C planes."""
    B, C, H, W = images.shape
    pad = size << (scales - 1)  # zeros enough for any patch of a location in [-1, 1]
    flat = F.pad(images, (pad, pad, pad, pad)).reshape(B, C, -1)
    row_stride = W + 2 * pad
    ld = l.detach().to(torch.float64)
    centre_r = (ld[:, 0] + 1) * 0.5 * H
    centre_c = (ld[:, 1] + 1) * 0.5 * W
    out = []
    for i in range(scales):
        side = size << i
        r0 = torch.floor(centre_r - 0.5 * side + 0.5).long() + pad
        c0 = torch.floor(centre_c - 0.5 * side + 0.5).long() + pad
        steps = torch.arange(side)
        index = ((r0.view(B, 1, 1) + steps.view(1, side, 1)) * row_stride + c0.view(B, 1, 1)
                 + steps.view(1, 1, side)).view(B, 1, side * side).expand(B, C, side * side)
        patch = flat.gather(2, index).view(B, C, side, side)
        if side > size:
            patch = F.avg_pool2d(patch, side // size)
        out.append(patch.reshape(B, -1))
    return torch.cat(out, 1)


class _Glimpse(nn.Module):
    """The glimpse network's four affine maps (glimpse.patches, .location, .what, .where)."""

    def __init__(self, channels, glimpse_size, scales, glimpse_hidden, location_hidden,
                 glimpse_dim):
        super().__init__()
        self.patches = nn.Linear(scales * channels * glimpse_size * glimpse_size,
                                 glimpse_hidden)
        self.location = nn.Linear(2, location_hidden)
        self.what = nn.Linear(glimpse_hidden, glimpse_dim)
        self.where = nn.Linear(location_hidden, glimpse_dim)


class Ram(nn.Module):
    """model.kind ram (docs/MODELS.md#recurrent-attention-model, models/ram.h).

    Per step t = 1..T from l_0 = (0, 0): h_g = ReLU(W_rho glimpse(x, l_{t-1})), h_l =
    ReLU(W_loc l_{t-1}), g_t = ReLU(W_what h_g + W_where h_l), h_t = core(g_t, h_{t-1}) (a
    ReLU nn.RNNCell or an nn.LSTMCell); for t < T, mu_t = tanh(W_mu sg(h_t)), l_t = mu_t
    (test) or ~ N(mu_t, sigma^2) (training), clamped to [-1, 1]; logits = W_c h_T."""

    def __init__(self, classes, channels=1, glimpses=6, glimpse_size=8, scales=3,
                 glimpse_hidden=128, location_hidden=128, glimpse_dim=256, core="rnn",
                 core_hidden=256, location_std=0.15):
        super().__init__()
        if core not in ("rnn", "lstm"):
            raise ValueError(f"core must be rnn or lstm, got {core!r}")
        self.glimpses, self.glimpse_size, self.scales = glimpses, glimpse_size, scales
        self.core_hidden, self.location_std, self.lstm = core_hidden, location_std, core == "lstm"
        self.glimpse = _Glimpse(channels, glimpse_size, scales, glimpse_hidden,
                                location_hidden, glimpse_dim)
        self.core = (nn.LSTMCell(glimpse_dim, core_hidden) if self.lstm else
                     nn.RNNCell(glimpse_dim, core_hidden, nonlinearity="relu"))
        self.location = nn.Linear(core_hidden, 2)
        self.baseline = nn.Linear(core_hidden, 1)
        self.classifier = nn.Linear(core_hidden, classes)

    def run(self, images, sample=False):
        """(logits, log_probs, baselines, locations): sample=False follows the mean locations
        (no log-probabilities or baselines); sample=True draws l_t from torch's generator and
        returns, per chosen location, log pi(l_t | mu_t) (B) and the baseline's b_t (B).
        locations: l_0..l_{T-1}, each (B, 2), as the sensor read them."""
        B = images.shape[0]
        l = images.new_zeros(B, 2)
        h = images.new_zeros(B, self.core_hidden)
        state = (h, images.new_zeros(B, self.core_hidden)) if self.lstm else h
        log_probs, baselines, locations = [], [], []
        g_net = self.glimpse
        for t in range(1, self.glimpses + 1):
            locations.append(l)
            h_g = F.relu(g_net.patches(glimpse(images, l, self.glimpse_size, self.scales)))
            h_l = F.relu(g_net.location(l))
            g = F.relu(g_net.what(h_g) + g_net.where(h_l))
            state = self.core(g, state)
            h = state[0] if self.lstm else state
            if t == self.glimpses:
                break
            hd = h.detach()  # the policy and the baseline read the core state detached
            mu = torch.tanh(self.location(hd))
            if sample:
                s = (mu + self.location_std * torch.randn_like(mu)).detach()
                log_probs.append(torch.distributions.Normal(mu, self.location_std)
                                 .log_prob(s).sum(1))
                baselines.append(self.baseline(hd).squeeze(1))
            else:
                s = mu
            l = s.clamp(-1, 1).detach()
        return self.classifier(h), log_probs, baselines, locations

    def forward(self, images):
        """The logits of the test pass along the mean locations (heed's test_logits)."""
        return self.run(images, sample=False)[0]


class Image2Seq(nn.Module):
    """model.kind image2seq (docs/MODELS.md#image-to-sequence): the ConvStack's cells in
    reading order are the annotations a_1..a_L (B, L, C); s_0 = tanh(W_init mean(a)); the
    Bahdanau decoder with c_t = attention(s_{t-1}, a) (soft), the mean annotation (none), or
    in the test pass of hard attention a_{argmax alpha_t} (hard_eval argmax) or the soft
    context (expectation). attention: soft | hard | none."""

    def __init__(self, tgt_vocab, emb_dim=128, dec_hidden=256, attn_dim=None, out_dim=None,
                 conv_layers=3, conv_channels=16, attention="soft", hard_eval="argmax",
                 channels=1):
        super().__init__()
        if attention not in ("soft", "hard", "none"):
            raise ValueError(f"attention must be soft, hard or none, got {attention!r}")
        if hard_eval not in ("argmax", "expectation"):
            raise ValueError(f"hard_eval must be argmax or expectation, got {hard_eval!r}")
        self.mode, self.hard_eval = attention, hard_eval
        C = conv_channels << (conv_layers - 1)                 # the annotation size
        out_dim = out_dim or dec_hidden
        # Registration order = heed's parameter order: the encoder, then the decoder.
        self.cnn = ConvStack(channels, conv_layers, conv_channels)
        self.tgt_emb = nn.Embedding(tgt_vocab, emb_dim, padding_idx=PAD)
        self.W_init = nn.Linear(C, dec_hidden)
        self.attention = None
        if attention != "none":
            self.attention = AdditiveAttention(dec_hidden, C, attn_dim or dec_hidden)
        self.decoder = nn.GRUCell(emb_dim + C, dec_hidden)
        self.W_o = nn.Linear(dec_hidden + C + emb_dim, out_dim)
        self.W_out = nn.Linear(out_dim, tgt_vocab)

    def annotations(self, images):
        """(B, L, C): the last feature map's cells, cell i = r * gw + c."""
        x = self.cnn(images)
        return x.flatten(2).transpose(1, 2)

    def encode(self, images):
        """(enc, state0) as the text models' encode: enc = (A, keys, mask, mean) with A the
        annotations (B, L, C) and keys None without attention; state0 = (s_0,)."""
        A = self.annotations(images)
        mean = A.mean(1)
        s0 = torch.tanh(self.W_init(mean))
        mask = torch.ones(A.shape[0], A.shape[1], dtype=torch.bool)
        keys = self.attention.keys(A) if self.attention is not None else None
        return (A, keys, mask, mean), (s0,)

    def _context(self, s_prev, enc):
        A, K, mask, mean = enc
        if self.attention is None:
            return mean, None
        c, alpha = self.attention(s_prev, A, K, mask)
        if self.mode == "hard" and self.hard_eval == "argmax":
            best = alpha.argmax(1)                              # the first largest weight
            c = A[torch.arange(A.shape[0]), best]
        return c, alpha

    def step(self, y_prev, state, enc):
        """One decoder step: (logits (B, V), (s_t,), alpha (B, L) or None)."""
        e = self.tgt_emb(y_prev)
        c, alpha = self._context(state[0], enc)
        s = self.decoder(torch.cat([e, c], 1), state[0])
        logits = self.W_out(torch.tanh(self.W_o(torch.cat([s, c, e], 1))))
        return logits, (s,), alpha

    def forward(self, images, tgt_in):
        """Teacher-forced logits (B, n, V) for decoder inputs tgt_in (B, n), BOS first."""
        enc, state = self.encode(images)
        rows = []
        for y in tgt_in.unbind(1):
            logits, state, _ = self.step(y, state, enc)
            rows.append(logits)
        return torch.stack(rows, 1)


IMAGE_KINDS = {"fc": FcClassifier, "cnn": CnnClassifier, "ram": Ram, "image2seq": Image2Seq}
