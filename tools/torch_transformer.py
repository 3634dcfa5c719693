#!/usr/bin/python3
"""The Transformer of `heed bench --config transformer` in PyTorch, written the ordinary way on
torch.nn.Transformer and timed on the text models' protocol (shared/bench/torch_ref/bench.py:
the same synthetic data, steps, decoding lengths and JSON lines), so that bench/compare can
run the two alternately (docs/PERFORMANCE.md#transformer). A development tool: heed neither
needs nor imports it.

    /usr/bin/python3 tools/torch_transformer.py [--threads 2] [--steps 20] [--warmup 3]
        [--batch 64] [--decode-sents 512] [--beam-sents 128] [--decode-steps 30] [--beam 5]
        [--only train,greedy,beam] [--seed 1234] [--tag T] [--config transformer]
        [--decoder cached|prefix] [--precision fp32|bf16] [--dropout P]

The model: g2p's vocabularies (32 source, 80 target tokens) and lengths (6..12), d_model 256,
4 heads, ff_dim 1024, 2 encoder and 2 decoder layers, pre-norm (norm_first) with the final
layer norms, sinusoidal positions, embeddings scaled by sqrt(d_model), an untied output layer,
dropout 0 (3.74 M parameters, as heed's). --dropout P trains with dropout, as heed bench's
--dropout does (not the protocol): nn.Transformer's own (attention weights, residual branches,
the feed-forward activations) and the scaled embeddings', where heed's model.dropout acts.
Training: Adam 1e-3, gradients clipped at norm 5, cross-entropy averaged over the non-pad
target tokens; 3 untimed and 20 timed steps, a new batch each. Greedy: 512 sentences in
batches of 64, exactly 30 steps (no stop at EOS) under inference_mode, after one untimed
batch. Beam: width 5, 128 sentences, exactly 30 steps, scores summed log-probabilities.
nn.TransformerDecoder keeps no cache of the earlier positions' keys and values. Decoding
(--decoder cached, the default) therefore runs the decoder layers' own modules one position
at a time, as heed does: each layer's self-attention keys and values appended to a cache, the
encoder-decoder keys and values projected once per batch (the same weights and the same
arithmetic as nn.TransformerDecoder over the prefix, whose last position it equals; checked
at start-up). --decoder prefix decodes as PyTorch's translation tutorial does: the whole
nn.TransformerDecoder over the prefix at every step (quadratic in the length). The encoder's
output is computed once per batch either way. The reference computes no attention weights
while decoding (heed's bench keeps them): nothing is added to its time for them.
--precision bf16 is the counterpart of heed's `--precision bf16`: training runs its forward
pass under CPU autocast to bfloat16 (PyTorch's mixed precision: products in bf16 through
oneDNN; weights, the loss and Adam in fp32); decoding runs a bfloat16 copy of the model
(autocast does not reach nn.TransformerEncoder's inference fast path), its logits compared
and summed in fp32.
FLOPs: heed's analytic count for the config (measure/protocol.cpp flop_terms: per layer the
four projections and the feed-forward network, the encoder-decoder attention's products, the
output layer; the self-attention scores left out), forward x 3 for training; the decoding
counts are those of an incremental decoder, so the reference's recomputed prefixes count as
no extra work.
"""
import argparse
import copy
import json
import math
import platform
import resource
import time

import torch
import torch.nn as nn

PAD, BOS, EOS = 0, 1, 2
CONFIG = dict(model="transformer", src_vocab=32, tgt_vocab=80, emb_dim=256, d_model=256,
              heads=4, ff_dim=1024, layers=2, lengths=(6, 12))


def emit(obj):
    print(json.dumps(obj), flush=True)


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def length_mask(lengths, n):
    """(B, n) True at the real positions."""
    return torch.arange(n).unsqueeze(0) < lengths.unsqueeze(1)


def make_batches(n_batches, batch, lo, hi, src_vocab, tgt_vocab, seed):
    """The text protocol's batches: lengths uniform in lo..hi (the target's counts its EOS),
    tokens uniform in 3..V-1, each batch padded to its longest; (src, src_len, tgt_in,
    tgt_out, tgt_len)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_batches):
        sl = torch.randint(lo, hi + 1, (batch,), generator=g)
        tl = torch.randint(lo, hi + 1, (batch,), generator=g)
        src = torch.randint(3, src_vocab, (batch, int(sl.max())), generator=g)
        src = src.masked_fill(~length_mask(sl, src.size(1)), PAD)
        y = torch.randint(3, tgt_vocab, (batch, int(tl.max())), generator=g)
        y[torch.arange(batch), tl - 1] = EOS
        tgt_out = y.masked_fill(~length_mask(tl, y.size(1)), PAD)
        tgt_in = torch.cat([torch.full((batch, 1), BOS), tgt_out[:, :-1]], 1)
        tgt_in = tgt_in.masked_fill(~length_mask(tl, y.size(1)), PAD)
        out.append((src, sl, tgt_in, tgt_out, tl))
    return out


def sinusoidal(n, d):
    t = torch.arange(n, dtype=torch.float32).unsqueeze(1)
    c = torch.arange(d)
    angle = t / torch.pow(10000.0, (c - c % 2).float() / d)
    return torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle))


class Model(nn.Module):
    def __init__(self, c, dropout=0.0):
        super().__init__()
        self.d = c["d_model"]
        self.drop = nn.Dropout(dropout)
        self.src_emb = nn.Embedding(c["src_vocab"], self.d, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(c["tgt_vocab"], self.d, padding_idx=PAD)
        self.transformer = nn.Transformer(self.d, c["heads"], c["layers"], c["layers"],
                                          c["ff_dim"], dropout=dropout, batch_first=True,
                                          norm_first=True)
        self.W_s = nn.Linear(self.d, c["tgt_vocab"])
        self.register_buffer("pos", sinusoidal(512, self.d), persistent=False)

    def embed(self, emb, ids):
        return self.drop(emb(ids) * math.sqrt(self.d) + self.pos[:ids.size(1)])

    def encode(self, src, src_len):
        pad = ~length_mask(src_len, src.size(1))
        return self.transformer.encoder(self.embed(self.src_emb, src),
                                        src_key_padding_mask=pad), pad

    def decode(self, tgt_in, memory, pad):
        n = tgt_in.size(1)
        causal = self.transformer.generate_square_subsequent_mask(n)
        h = self.transformer.decoder(self.embed(self.tgt_emb, tgt_in), memory, tgt_mask=causal,
                                     memory_key_padding_mask=pad)
        return self.W_s(h)

    def forward(self, src, src_len, tgt_in):
        memory, pad = self.encode(src, src_len)
        return self.decode(tgt_in, memory, pad)


def heads(x, h):
    """(B, n, d) -> (B, h, n, d / h)."""
    return x.view(x.size(0), x.size(1), h, -1).transpose(1, 2)


def attend(q, k, v, h, pad=None):
    """Scaled dot-product attention of q (B, n, d) over k, v (B, m, d); pad (B, m) True at
    padding."""
    q, k, v = heads(q, h), heads(k, h), heads(v, h)
    s = q @ k.transpose(2, 3) / math.sqrt(q.size(-1))
    if pad is not None:
        s = s.masked_fill(pad[:, None, None, :], -math.inf)
    o = s.softmax(-1) @ v
    return o.transpose(1, 2).reshape(q.size(0), -1, h * q.size(-1))


class Cached:
    """Incremental decoding with the decoder layers' own modules (pre-norm): per layer the
    self-attention's keys and values so far, and the encoder-decoder keys and values."""

    def __init__(self, model, memory, pad):
        self.m, self.pad, self.t = model, pad, 0
        self.h = model.transformer.decoder.layers[0].self_attn.num_heads
        d = model.d
        self.cache = [None] * len(model.transformer.decoder.layers)
        self.memory_kv = []
        for layer in model.transformer.decoder.layers:
            a = layer.multihead_attn
            kv = nn.functional.linear(memory, a.in_proj_weight[d:], a.in_proj_bias[d:])
            self.memory_kv.append(kv.chunk(2, -1))

    def reorder(self, rows):
        self.cache = [c[rows] for c in self.cache]

    def step(self, y):
        """y (B,) -> logits (B, V) of the next position."""
        m, d = self.m, self.m.d
        x = m.tgt_emb(y.unsqueeze(1)) * math.sqrt(d) + m.pos[self.t:self.t + 1]
        for l, layer in enumerate(m.transformer.decoder.layers):
            a = layer.self_attn
            qkv = nn.functional.linear(layer.norm1(x), a.in_proj_weight, a.in_proj_bias)
            q, kv = qkv[..., :d], qkv[..., d:]
            self.cache[l] = kv if self.cache[l] is None else torch.cat([self.cache[l], kv], 1)
            k, v = self.cache[l].chunk(2, -1)
            x = x + a.out_proj(attend(q, k, v, self.h))
            c = layer.multihead_attn
            q = nn.functional.linear(layer.norm2(x), c.in_proj_weight[:d], c.in_proj_bias[:d])
            k, v = self.memory_kv[l]
            x = x + c.out_proj(attend(q, k, v, self.h, self.pad))
            x = x + layer.linear2(torch.relu(layer.linear1(layer.norm3(x))))
        self.t += 1
        return m.W_s(m.transformer.decoder.norm(x))[:, 0]


class Prefix:
    """nn.TransformerDecoder over the whole prefix at every step."""

    def __init__(self, model, memory, pad):
        self.m, self.memory, self.pad = model, memory, pad
        self.prefix = torch.full((memory.size(0), 1), BOS)

    def reorder(self, rows):
        self.prefix = self.prefix[rows]

    def step(self, y):
        """y (B,), or None for the first step (the prefix is BOS)."""
        if y is not None:
            self.prefix = torch.cat([self.prefix, y.unsqueeze(1)], 1)
        return self.m.decode(self.prefix, self.memory, self.pad)[:, -1]


def decoder(kind, model, memory, pad):
    return Cached(model, memory, pad) if kind == "cached" else Prefix(model, memory, pad)


def first_logits(dec, batch):
    """The logits after BOS (Prefix starts from its BOS, Cached is fed it)."""
    return dec.step(None) if isinstance(dec, Prefix) else dec.step(torch.full((batch,), BOS))


def greedy(model, src, src_len, steps, kind):
    memory, pad = model.encode(src, src_len)
    dec = decoder(kind, model, memory, pad)
    out = []
    logits = first_logits(dec, src.size(0))
    for t in range(steps):
        y = logits.argmax(-1)
        out.append(y)
        if t + 1 < steps:
            logits = dec.step(y)
    return torch.stack(out, 1)


def beam(model, src, src_len, k, steps, kind):
    B = src.size(0)
    memory, pad = model.encode(src, src_len)
    dec = decoder(kind, model, memory.repeat_interleave(k, 0), pad.repeat_interleave(k, 0))
    score = torch.full((B, k), -math.inf)
    score[:, 0] = 0.0
    tokens = torch.zeros(B * k, 0, dtype=torch.long)
    logits = first_logits(dec, B * k)
    for t in range(steps):
        logp = logits.float().log_softmax(-1)                                      # (B k, V)
        V = logp.size(-1)
        total = (score.unsqueeze(2) + logp.view(B, k, V)).view(B, k * V)
        score, idx = total.topk(k, dim=1)
        rows = (torch.div(idx, V, rounding_mode="floor") + torch.arange(B).unsqueeze(1) * k).view(-1)
        y = (idx % V).view(-1)
        tokens = torch.cat([tokens[rows], y.unsqueeze(1)], 1)
        dec.reorder(rows)
        if t + 1 < steps:
            logits = dec.step(y)
    return tokens.view(B, k, steps)


def check_cached(model):
    """The cached decoder equals nn.TransformerDecoder over the prefix (float64 rounding)."""
    batches = make_batches(1, 4, *CONFIG["lengths"], CONFIG["src_vocab"], CONFIG["tgt_vocab"], 7)
    src, sl = batches[0][0], batches[0][1]
    model.eval()
    with torch.inference_mode():
        a = greedy(model, src, sl, 8, "cached")
        b = greedy(model, src, sl, 8, "prefix")
        memory, pad = model.encode(src, sl)
        c, p = Cached(model, memory, pad), Prefix(model, memory, pad)
        x, y = first_logits(c, 4), first_logits(p, 4)
        for t in range(4):
            assert torch.allclose(x, y, atol=1e-4), f"cached decoder differs at step {t}"
            x, y = c.step(a[:, t]), p.step(a[:, t])
    assert torch.equal(a, b), "cached and prefix greedy decoding differ"


def flop_terms(c):
    """heed's measure/protocol.cpp flop_terms for the Transformer, term for term."""
    d, F, L, V = c["d_model"], c["ff_dim"], c["layers"], c["tgt_vocab"]
    layer = 2 * (4 * d * d + 2 * d * F)
    return dict(per_src_token=L * layer + L * 2 * 2 * d * d, per_sentence=0,
                per_tgt_step=L * (layer + 2 * 2 * d * d) + 2 * d * V,
                per_tgt_step_per_src_token=L * 2 * 2 * d)


def fwd_flops(t, sl, tl):
    sl, tl = sl.double(), tl.double()
    return float((t["per_src_token"] * sl + t["per_sentence"] + t["per_tgt_step"] * tl
                  + t["per_tgt_step_per_src_token"] * sl * tl).sum())


def decode_flops(t, sl, steps, rows):
    sl = sl.double()
    return float((t["per_src_token"] * sl + t["per_sentence"] + rows * steps
                  * (t["per_tgt_step"] + t["per_tgt_step_per_src_token"] * sl)).sum())


def autocast(args):
    """bf16 mixed precision on the CPU, or nothing."""
    return torch.autocast(device_type="cpu", dtype=torch.bfloat16,
                          enabled=args.precision == "bf16")


def bench_train(model, args, base, terms):
    lo, hi = CONFIG["lengths"]
    batches = make_batches(args.warmup + args.steps, args.batch, lo, hi, CONFIG["src_vocab"],
                           CONFIG["tgt_vocab"], args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()

    def step(b):
        src, sl, tin, tout, _ = b
        opt.zero_grad(set_to_none=True)
        with autocast(args):
            logits = model(src, sl, tin)
        logits = logits.float()
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), tout.reshape(-1),
                                           ignore_index=PAD)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        return loss.item()

    for b in batches[:args.warmup]:
        first = step(b)
    timed = batches[args.warmup:]
    times = []
    t0 = time.perf_counter()
    for b in timed:
        ts = time.perf_counter()
        last = step(b)
        times.append(time.perf_counter() - ts)
    dt = time.perf_counter() - t0
    tgt = sum(int(b[4].sum()) for b in timed)
    src = sum(int(b[1].sum()) for b in timed)
    flops = 3 * sum(fwd_flops(terms, b[1], b[4]) for b in timed)
    times.sort()
    emit(dict(base, measure="train", precision=args.precision, steps=len(timed), seconds=round(dt, 3),
              ms_per_step_mean=round(1000 * dt / len(timed), 2),
              ms_per_step_median=round(1000 * times[len(times) // 2], 2),
              tgt_tokens=tgt, src_tokens=src, tgt_tok_per_s=round(tgt / dt, 1),
              src_tgt_tok_per_s=round((tgt + src) / dt, 1), train_gflop=round(flops / 1e9, 2),
              achieved_gflop_per_s=round(flops / dt / 1e9, 2), loss_first_warmup=round(first, 4),
              loss_last=round(last, 4), peak_rss_mb=peak_rss_mb()))


def bench_decode(model, args, base, terms, kind):
    lo, hi = CONFIG["lengths"]
    n = args.decode_sents if kind == "greedy" else args.beam_sents
    batches = make_batches(max(1, n // args.batch) + 1, args.batch, lo, hi, CONFIG["src_vocab"],
                           CONFIG["tgt_vocab"], args.seed + (1 if kind == "greedy" else 2))
    model.eval()
    if args.precision == "bf16":
        model = copy.deepcopy(model).to(torch.bfloat16)
    T = args.decode_steps

    def run(b):
        with torch.inference_mode():
            out = greedy(model, b[0], b[1], T, args.decoder) if kind == "greedy" else \
                beam(model, b[0], b[1], args.beam, T, args.decoder)
        assert out.size(-1) == T
        return out

    run(batches[0])  # warm-up
    timed = batches[1:]
    t0 = time.perf_counter()
    for b in timed:
        run(b)
    dt = time.perf_counter() - t0
    sents = sum(b[0].size(0) for b in timed)
    rows = 1 if kind == "greedy" else args.beam
    flops = sum(decode_flops(terms, b[1], T, rows) for b in timed)
    rec = dict(base, measure=kind, precision=args.precision, sentences=sents, batch=args.batch,
               steps_per_sentence=T, seconds=round(dt, 3), sent_per_s=round(sents / dt, 2),
               out_tok_per_s=round(sents * T / dt, 1), decode_gflop=round(flops / 1e9, 2),
               achieved_gflop_per_s=round(flops / dt / 1e9, 2), peak_rss_mb=peak_rss_mb())
    if kind == "beam":
        rec["beam"] = args.beam
    rec["decoder"] = args.decoder
    emit(rec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="transformer", choices=["transformer"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--decode-sents", type=int, default=512)
    ap.add_argument("--beam-sents", type=int, default=128)
    ap.add_argument("--decode-steps", type=int, default=30)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--only", default="train,greedy,beam")
    ap.add_argument("--tag", default="")
    ap.add_argument("--decoder", default="cached", choices=["cached", "prefix"],
                    help="decoding: one position a step with caches, or the whole prefix")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"],
                    help="bf16: the forward passes under CPU autocast to bfloat16")
    ap.add_argument("--dropout", type=float, default=0.0,
                    help="train with this dropout (heed bench --dropout; the protocol's is 0)")
    args = ap.parse_args()
    if not 0 <= args.dropout < 1:
        ap.error("--dropout: expected a probability in [0, 1)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    only = set(args.only.split(","))
    model = Model(CONFIG, args.dropout)
    if only & {"greedy", "beam"}:
        check_cached(model)
    terms = flop_terms(CONFIG)
    base = dict(config="transformer", threads=torch.get_num_threads(), torch=torch.__version__,
                tag=args.tag)
    if args.dropout > 0:
        base["dropout"] = args.dropout
    emit(dict(base, measure="info", model="transformer", config_detail=CONFIG,
              batch=args.batch, params=sum(p.numel() for p in model.parameters()),
              flop_terms_fwd=terms, python=platform.python_version()))
    if "train" in only:
        bench_train(model, args, base, terms)
    for kind in ("greedy", "beam"):
        if kind in only:
            bench_decode(model, args, base, terms, kind)


if __name__ == "__main__":
    main()
