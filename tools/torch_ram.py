#!/usr/bin/python3
"""The recurrent attention model of `heed bench --config ram` (src/heed/measure/ram_bench.h) in
PyTorch, timed on the same protocol and printing the same JSON lines, so that bench/compare
can run the two alternately (docs/PERFORMANCE.md#recurrent-attention-model). A development
tool: heed neither needs nor imports it.

    /usr/bin/python3 tools/torch_ram.py [--threads 2] [--steps 20] [--warmup 3] [--batch 64]
                                        [--decode-sents 512] [--only train,infer] [--seed 1234]
                                        [--tag T] [--config ram]

The model (Mnih et al. 2014, heed's models/ram.h, the paper's sizes): 60x60 images, 6 glimpses;
the sensor takes k = 3 square patches of side g 2^i (g = 8) centred at l in [-1, 1]^2 (pixel
centre (l + 1) / 2 * 60, a patch starting at the nearest integer to centre - side / 2), zeros
outside the image, each averaged down to g x g; glimpse network h_g = ReLU(W x), h_l =
ReLU(W l), g = ReLU(W h_g + W h_l) (128, 128, 256); ReLU RNN core 256; location policy
tanh(W h) with sigma 0.15 on the detached core state, a linear baseline on it, a linear
classifier over 10 classes. Training: sampled locations, cross-entropy + REINFORCE with the
baseline + the baseline's squared error, Adam (lr 1e-3). Inference: the mean locations, no
autograd. Data: pixels uniform in [0, 1), labels uniform over the 10 classes, a new batch
per step (torch's generator: the same distribution as heed's, not the same numbers).

The model and its sensor are tools/reference/images.py's Ram, under heed's parameter names:
the one PyTorch definition that heed's interop fixtures and round trip use too
(docs/INTEROP.md); this file adds the protocol and the timing.
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
import reference  # noqa: E402 (tools/reference: the model, the sensor)

SIDE, CLASSES = 60, 10
T, G, K = 6, 8, 3
GLIMPSE_HIDDEN, LOCATION_HIDDEN, GLIMPSE_DIM, CORE_HIDDEN, STD = 128, 128, 256, 256, 0.15


def make_model():
    """The paper's sizes of the reference RAM (tools/reference/images.py, heed's parameter
    names and sensor), the one definition the interop fixtures and tests use too."""
    return reference.Ram(classes=CLASSES, channels=1, glimpses=T, glimpse_size=G, scales=K,
                         glimpse_hidden=GLIMPSE_HIDDEN, location_hidden=LOCATION_HIDDEN,
                         glimpse_dim=GLIMPSE_DIM, core="rnn", core_hidden=CORE_HIDDEN,
                         location_std=STD)


def ram_loss(logits, log_probs, baselines, labels):
    ce = F.cross_entropy(logits, labels)
    reward = (logits.argmax(1) == labels).float()
    lp = torch.stack(log_probs, 1)
    b = torch.stack(baselines, 1)
    advantage = (reward.unsqueeze(1) - b).detach()
    reinforce = -(advantage * lp).sum(1).mean()
    baseline = ((b - reward.unsqueeze(1)) ** 2).mean()
    return ce, ce + reinforce + baseline


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def batches(n, batch, gen):
    return [(torch.rand(batch, 1, SIDE, SIDE, generator=gen),
             torch.randint(0, CLASSES, (batch,), generator=gen)) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="ram", choices=["ram"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--decode-sents", type=int, default=512, help="inference: timed images")
    ap.add_argument("--only", default="train,infer")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    only = set(args.only.split(","))
    model = make_model()
    base = {"config": "ram", "threads": torch.get_num_threads(), "torch": torch.__version__,
            "tag": args.tag}
    print(json.dumps({**base, "measure": "info", "model": "ram", "batch": args.batch,
                      "params": sum(p.numel() for p in model.parameters()),
                      "peak_rss_mb": peak_rss_mb()}), flush=True)

    if "train" in only:
        gen = torch.Generator().manual_seed(args.seed)
        data = batches(args.warmup + args.steps, args.batch, gen)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        model.train()
        fwd, bwd, upd, steps = [], [], [], []
        last = math.nan
        for i, (x, y) in enumerate(data):
            t0 = time.perf_counter()
            opt.zero_grad()
            logits, lp, b, _ = model.run(x, sample=True)
            ce, total = ram_loss(logits, lp, b, y)
            last = ce.item()
            t1 = time.perf_counter()
            total.backward()
            t2 = time.perf_counter()
            opt.step()
            t3 = time.perf_counter()
            if i >= args.warmup:
                fwd.append(t1 - t0)
                bwd.append(t2 - t1)
                upd.append(t3 - t2)
                steps.append(t3 - t0)
        dt = sum(steps)
        images = args.steps * args.batch
        print(json.dumps({**base, "measure": "train", "precision": "fp32", "steps": args.steps,
                          "batch": args.batch, "images": images, "seconds": round(dt, 3),
                          "images_per_s": round(images / dt, 1),
                          "ms_per_step_mean": round(1000 * dt / args.steps, 2),
                          "ms_per_step_median": round(1000 * statistics.median_high(steps), 2),
                          "loss_last": round(last, 4),
                          "forward_ms_median": round(1000 * statistics.median_high(fwd), 2),
                          "backward_ms_median": round(1000 * statistics.median_high(bwd), 2),
                          "adam_ms_median": round(1000 * statistics.median_high(upd), 2),
                          "peak_rss_mb": peak_rss_mb()}), flush=True)

    if "infer" in only:
        gen = torch.Generator().manual_seed(args.seed + 1)
        n = max(1, args.decode_sents // args.batch)
        data = batches(n + 1, args.batch, gen)
        model.eval()
        with torch.no_grad():
            model(data[0][0])  # warm-up: the mean locations
            t0 = time.perf_counter()
            for x, _ in data[1:]:
                logits = model(x)
                logits.softmax(1)
            dt = time.perf_counter() - t0
        print(json.dumps({**base, "measure": "infer", "precision": "fp32", "images": n * args.batch,
                          "batch": args.batch, "seconds": round(dt, 3),
                          "images_per_s": round(n * args.batch / dt, 1),
                          "peak_rss_mb": peak_rss_mb()}), flush=True)


if __name__ == "__main__":
    main()
