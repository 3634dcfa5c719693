#!/usr/bin/python3
"""The end-to-end memory network of `heed bench --config memn2n` in PyTorch, timed on the
protocol of tools/torch_ram.py and printing the same JSON lines (questions where it says
images), so that bench/compare can run the two alternately
(docs/PERFORMANCE.md#memory-network). A development tool: heed neither needs nor imports it.

    /usr/bin/python3 tools/torch_memn2n.py [--threads 2] [--steps 20] [--warmup 3] [--batch 32]
                                           [--decode-sents 1024] [--only train,infer]
                                           [--optimizer sgd|adam] [--seed 1234] [--tag T]
                                           [--config memn2n]

The model (Sukhbaatar et al. 2015, model.kind memn2n) at the sizes of the joint bAbI model:
V = 180 words, d = 50, 3 hops with adjacent tying, memory_size 50, position and temporal
encoding, softmax attention (46,000 parameters). Data: per question n = min of three draws
uniform in 2..50 statements (mean 13.8), each of 3..10 words, a question of 3..6 words,
words and answers uniform in 4..179 (never a special token), t_i = n - i; each batch padded
to its own most statements and longest statement and question. A new batch per step, all
drawn before any timing (torch's generator: the same distribution as heed's, not the same
numbers). Training: the mean cross-entropy of the answers, backward, the gradients' norm
clipped at 40, SGD (default) or Adam, lr 0.01. Inference: forward and the answers' softmax,
no autograd, --decode-sents questions in batches of --batch after one untimed batch.

The model is tools/reference/memory.py's MemN2N, under heed's parameter names: the one
PyTorch definition the goldens use too (tests/golden/memn2n.safetensors); this file adds the
protocol and the timing.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402 (tools/reference: the model, the batch layout)

VOCAB, DIM, HOPS, MEMORY_SIZE = 180, 50, 3, 50
STATEMENTS = (2, 50)        # per question: the min of three uniform draws in this range
STATEMENT_WORDS = (3, 10)
QUESTION_WORDS = (3, 6)
LR, CLIP = 0.01, 40.0
FIRST_WORD = 4              # after PAD, BOS, EOS, UNK


def make_model(dim=DIM, hops=HOPS):
    return reference.MemN2N(VOCAB, dim, hops=hops, memory_size=MEMORY_SIZE,
                            position_encoding=True, temporal_encoding=True)


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def uniform(lo, hi, gen, n=1):
    """n integers uniform in lo..hi (both included)."""
    return torch.randint(lo, hi + 1, (n,), generator=gen).tolist()


def example(gen):
    n = min(uniform(*STATEMENTS, gen, 3))
    words = lambda k: uniform(FIRST_WORD, VOCAB - 1, gen, k)  # noqa: E731
    statements = [words(k) for k in uniform(*STATEMENT_WORDS, gen, n)]
    question = words(uniform(*QUESTION_WORDS, gen)[0])
    return statements, question, uniform(FIRST_WORD, VOCAB - 1, gen)[0]


def batches(n, batch, gen):
    """n batches (memory, counts, time, question, answer) of reference.make_batch."""
    return [reference.make_batch([example(gen) for _ in range(batch)], MEMORY_SIZE)
            for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="memn2n", choices=["memn2n"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--decode-sents", type=int, default=1024, help="inference: timed questions")
    ap.add_argument("--only", default="train,infer")
    ap.add_argument("--optimizer", default="sgd", choices=["sgd", "adam"])
    ap.add_argument("--memn2n-dim", type=int, default=DIM, help="d (heed bench's option)")
    ap.add_argument("--memn2n-hops", type=int, default=HOPS, help="K (heed bench's option)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    only = set(args.only.split(","))
    model = make_model(args.memn2n_dim, args.memn2n_hops)
    base = {"config": "memn2n", "threads": torch.get_num_threads(), "torch": torch.__version__,
            "tag": args.tag}
    print(json.dumps({**base, "measure": "info", "model": "memn2n", "batch": args.batch,
                      "params": sum(p.numel() for p in model.parameters()),
                      "peak_rss_mb": peak_rss_mb()}), flush=True)

    if "train" in only:
        gen = torch.Generator().manual_seed(args.seed)
        data = batches(args.warmup + args.steps, args.batch, gen)
        params = list(model.parameters())
        opt = (torch.optim.SGD(params, lr=LR) if args.optimizer == "sgd"
               else torch.optim.Adam(params, lr=LR))
        model.train()
        fwd, bwd, upd, steps = [], [], [], []
        last = math.nan
        for i, (memory, counts, t, question, answer) in enumerate(data):
            t0 = time.perf_counter()
            opt.zero_grad()
            logits, _ = model(memory, counts, t, question)
            loss = reference.memn2n_loss(logits, answer)
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
        dt = sum(steps)
        questions = args.steps * args.batch
        print(json.dumps({**base, "measure": "train", "precision": "fp32",
                          "optimizer": args.optimizer, "steps": args.steps,
                          "batch": args.batch, "questions": questions, "seconds": round(dt, 3),
                          "questions_per_s": round(questions / dt, 1),
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
        with torch.no_grad():
            model(*data[0][:4])  # warm-up
            t0 = time.perf_counter()
            for memory, counts, t, question, _ in data[1:]:
                logits, _ = model(memory, counts, t, question)
                logits.softmax(1)
            dt = time.perf_counter() - t0
        print(json.dumps({**base, "measure": "infer", "precision": "fp32",
                          "questions": n * args.batch, "batch": args.batch,
                          "seconds": round(dt, 3),
                          "questions_per_s": round(n * args.batch / dt, 1),
                          "peak_rss_mb": peak_rss_mb()}), flush=True)


if __name__ == "__main__":
    main()
