#!/usr/bin/python3
"""Listen, attend and spell of `heed bench --config las` in PyTorch, timed on the protocol of
tools/torch_memn2n.py and printing the same JSON lines (utterances where it says questions), so
that bench/compare can run the two alternately (docs/PERFORMANCE.md#listen-attend-and-spell).
A development tool: heed neither needs nor imports it.

    /usr/bin/python3 tools/torch_las.py [--threads 2] [--steps 20] [--warmup 3] [--batch 32]
                                        [--decode-sents 512] [--decode-steps 10]
                                        [--only train,infer] [--seed 1234] [--tag T]
                                        [--config las]

The model (model.kind las) at examples/digits' sizes: 40 log-mel bins stacked by 3 (120 values
a frame), a GRU listener of 3 bidirectional layers of 96 (pyramid 4), emb_dim 32, dec_hidden
128, attn_dim 64, 14 symbols (897,230 parameters). Data: per utterance n = 1..7 words uniform,
its stacked frames uniform in 12n + 5 .. 20n + 10, each value standard normal, words uniform
in 4..13, the target the n words and EOS; each batch padded to its longest; all drawn before
any timing (torch's generator: the same distribution as heed's, not the same numbers).
Training: teacher forcing, the mean cross-entropy over the real target positions, backward,
the gradients' norm clipped at 5, Adam (lr 1e-3). Inference: greedy decoding of
--decode-sents utterances in batches of --batch, exactly --decode-steps symbols each (no early
stop), no autograd, after one untimed batch. audio_s_per_s counts 30 ms a stacked frame.

The model is tools/reference/speech.py's Las, under heed's parameter names: the one PyTorch
definition the goldens use too (tests/golden/interop_las_gru.safetensors); this file adds the protocol and
the timing.
"""
import argparse
import json
import math
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402 (tools/reference: the model)

VOCAB, FEATURES, FIRST_WORD = 14, 120, 4
WORDS = (1, 7)
SECONDS_PER_FRAME = 0.03
LR, CLIP = 1e-3, 5.0


def make_model():
    return reference.Las(VOCAB, FEATURES, emb_dim=32, enc_hidden=96, enc_layers=3, pyramid=4,
                         cell="gru", dec_hidden=128, attn_dim=64)


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def uniform(lo, hi, gen):
    return int(torch.randint(lo, hi + 1, (1,), generator=gen))


def batches(n, batch, gen):
    """n batches (frames (B, T, F), lengths (B,), tgt_in (B, m), tgt_out (B, m), real frames)."""
    out = []
    for _ in range(n):
        frames, lengths, words = [], [], []
        for _ in range(batch):
            w = uniform(*WORDS, gen)
            t = uniform(12 * w + 5, 20 * w + 10, gen)
            frames.append(torch.randn(t, FEATURES, generator=gen))
            lengths.append(t)
            words.append([uniform(FIRST_WORD, VOCAB - 1, gen) for _ in range(w)])
        x = torch.nn.utils.rnn.pad_sequence(frames, batch_first=True)
        m = max(len(w) for w in words) + 1
        tgt_in = torch.full((batch, m), reference.PAD, dtype=torch.long)
        tgt_out = torch.full((batch, m), reference.PAD, dtype=torch.long)
        for b, w in enumerate(words):
            tgt_in[b, :len(w) + 1] = torch.tensor([reference.BOS] + w)
            tgt_out[b, :len(w) + 1] = torch.tensor(w + [reference.EOS])
        out.append((x, torch.tensor(lengths), tgt_in, tgt_out, sum(lengths)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="las", choices=["las"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--decode-sents", type=int, default=512, help="inference: timed utterances")
    ap.add_argument("--decode-steps", type=int, default=10, help="inference: symbols each")
    ap.add_argument("--only", default="train,infer")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    only = set(args.only.split(","))
    model = make_model()
    base = {"config": "las", "threads": torch.get_num_threads(), "torch": torch.__version__,
            "tag": args.tag}
    print(json.dumps({**base, "measure": "info", "model": "las", "batch": args.batch,
                      "params": sum(p.numel() for p in model.parameters()),
                      "peak_rss_mb": peak_rss_mb()}), flush=True)

    if "train" in only:
        gen = torch.Generator().manual_seed(args.seed)
        data = batches(args.warmup + args.steps, args.batch, gen)
        params = list(model.parameters())
        opt = torch.optim.Adam(params, lr=LR)
        model.train()
        fwd, bwd, upd, steps = [], [], [], []
        last, frames = math.nan, 0
        for i, (x, lengths, tgt_in, tgt_out, real) in enumerate(data):
            t0 = time.perf_counter()
            opt.zero_grad()
            logits = model(x, lengths, tgt_in)
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt_out.reshape(-1),
                                   ignore_index=reference.PAD)
            last = loss.item()
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
            torch.nn.utils.clip_grad_norm_(params, CLIP)
            opt.step()
            t3 = time.perf_counter()
            if i >= args.warmup:
                fwd.append(t1 - t0)
                bwd.append(t2 - t1)
                upd.append(t3 - t2)
                steps.append(t3 - t0)
                frames += real
        dt = sum(steps)
        utterances = args.steps * args.batch
        print(json.dumps({**base, "measure": "train", "precision": "fp32", "steps": args.steps,
                          "batch": args.batch, "utterances": utterances, "seconds": round(dt, 3),
                          "utterances_per_s": round(utterances / dt, 1),
                          "audio_s_per_s": round(frames * SECONDS_PER_FRAME / dt, 1),
                          "ms_per_step_mean": round(1000 * dt / args.steps, 2),
                          "ms_per_step_median": round(1000 * statistics.median_high(steps), 2),
                          "loss_last": round(last, 4),
                          "forward_ms_median": round(1000 * statistics.median_high(fwd), 2),
                          "backward_ms_median": round(1000 * statistics.median_high(bwd), 2),
                          "update_ms_median": round(1000 * statistics.median_high(upd), 2),
                          "peak_rss_mb": peak_rss_mb()}), flush=True)

    if "infer" in only:
        gen = torch.Generator().manual_seed(args.seed + 1)
        n = max(1, args.decode_sents // args.batch)
        data = batches(n + 1, args.batch, gen)
        model.eval()

        def greedy(x, lengths):
            enc, state = model.encode(x, lengths)
            y = torch.full((x.size(0),), reference.BOS, dtype=torch.long)
            for _ in range(args.decode_steps):
                logits, state, _ = model.step(y, state, enc)
                y = logits.argmax(1)

        with torch.no_grad():
            greedy(data[0][0], data[0][1])  # warm-up
            t0 = time.perf_counter()
            frames = 0
            for x, lengths, _, _, real in data[1:]:
                greedy(x, lengths)
                frames += real
            dt = time.perf_counter() - t0
        print(json.dumps({**base, "measure": "infer", "precision": "fp32",
                          "utterances": n * args.batch, "batch": args.batch,
                          "decode_steps": args.decode_steps, "seconds": round(dt, 3),
                          "utterances_per_s": round(n * args.batch / dt, 1),
                          "audio_s_per_s": round(frames * SECONDS_PER_FRAME / dt, 1),
                          "peak_rss_mb": peak_rss_mb()}), flush=True)


if __name__ == "__main__":
    main()
