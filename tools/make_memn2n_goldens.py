#!/usr/bin/python3
"""Writes the memory network's golden values (tests/golden/memn2n.safetensors) from the
PyTorch reference (tools/reference/memory.py, model.kind memn2n).

One batch of B = 3 stories (3, 1 and 10 statements, the last keeping its last 8 =
memory_size; statements of 1 to 5 words), V = 20, d = 6, 3 hops, three models of float64
weights drawn with fixed seeds: softmax attention with position and temporal encoding,
linear start (no softmax) with the same encodings, and a model without position or temporal
encoding ("plain"). All stored as F64 (token ids, counts and times as F64 integers; see
tests/golden/README.md):
  param.<name>          the weights under their PyTorch names (embeddings.k.weight,
                        temporal.k.weight); param_linear.<name>, param_plain.<name> the
                        other two models'
  in.memory, in.counts, in.time, in.question, in.answer     the batch of make_batch
  out.logits, out.p, out.loss                 forward(memory, counts, time, question)
  out.<x>_linear                              the same with linear=True
  out.<x>_plain                               the plain model
  grad.<name>, grad_linear.<name>, grad_plain.<name>    d loss / d parameter

Before writing, the vectorised reference is checked against a naive loop over examples,
statements and words written from the equations (outputs and gradients, and a story of no
statements), so that the goldens are the equations' and not only the reference's.

Usage: /usr/bin/python3 tools/make_memn2n_goldens.py [--out DIR]   (Debian: python3-torch)
"""
import argparse
import math
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

V, D, HOPS, MEMORY_SIZE = 20, 6, 3, 8
# Per example: the words of each statement (oldest first), of the question.
STATEMENT_LENGTHS = [[4, 1, 3], [5], [2, 3, 4, 5, 1, 2, 3, 4, 5, 3]]
QUESTION_LENGTHS = [3, 2, 4]
# suffix -> (seed, weights' std, constructor keywords, linear start). The weights are wider
# than the model's N(0, 0.1^2) so that attention is far from uniform; linear start's are
# narrower than softmax's because without the softmax u grows by the sum of the c_i at every
# hop (at 0.5 its logits reach 150).
CASES = {
    "": (400, 0.5, dict(position_encoding=True, temporal_encoding=True), False),
    "_linear": (401, 0.3, dict(position_encoding=True, temporal_encoding=True), True),
    "_plain": (402, 0.5, dict(position_encoding=False, temporal_encoding=False), False),
}


def make_examples(gen):
    """(statements, question, answer) per example; words and answers in 4..V-1."""
    def words(n):
        return torch.randint(4, V, (n,), generator=gen).tolist()
    return [([words(n) for n in lengths], words(q), int(torch.randint(4, V, (1,), generator=gen)))
            for lengths, q in zip(STATEMENT_LENGTHS, QUESTION_LENGTHS)]


def build(seed, std, **kw):
    torch.manual_seed(seed)
    model = ref.MemN2N(V, D, hops=HOPS, memory_size=MEMORY_SIZE, **kw)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, std)
    return model


# --------------------------------------------------------------------------- naive check

def naive(model, examples, linear):
    """The equations, one example, statement and word at a time: (logits (B, V), p (K, B, S),
    loss). Statements are the last memory_size of each story, t_i = n - i."""
    E = [e.weight for e in model.embeddings]
    T = [t.weight for t in model.temporal] if model.temporal is not None else None
    d, K = model.d, model.hops
    S = max(1, max(min(len(s), model.memory_size) for s, _, _ in examples))

    def bag(matrix, sentence):
        total = torch.zeros(d)
        J = len(sentence)
        for j, x in enumerate(sentence, start=1):
            if model.position_encoding:
                l = torch.tensor([(1 - j / J) - (k / d) * (1 - 2 * j / J) for k in range(1, d + 1)])
            else:
                l = torch.ones(d)
            total = total + l * matrix[x]
        return total

    all_logits, all_p, losses = [], [], []
    for statements, question, answer in examples:
        story = statements[-model.memory_size:]
        n = len(story)
        u = bag(E[0], question)
        hops_p = []
        for k in range(1, K + 1):
            m = [bag(E[k - 1], s) + (T[k - 1][n - i] if T else 0) for i, s in enumerate(story, 1)]
            c = [bag(E[k], s) + (T[k][n - i] if T else 0) for i, s in enumerate(story, 1)]
            scores = [torch.dot(u, mi) for mi in m]
            if linear:
                p = scores
            else:
                top = max(scores) if scores else 0.0
                exps = [torch.exp(s - top) for s in scores]
                p = [e / sum(exps) for e in exps]
            o = torch.zeros(d)
            for pi, ci in zip(p, c):
                o = o + pi * ci
            u = u + o
            hops_p.append(torch.stack(list(p) + [torch.zeros(())] * (S - n)))
        logits = torch.stack([torch.dot(E[K][v], u) for v in range(E[K].shape[0])])
        losses.append(torch.logsumexp(logits, 0) - logits[answer])
        all_logits.append(logits)
        all_p.append(torch.stack(hops_p))
    return torch.stack(all_logits), torch.stack(all_p, 1), sum(losses) / len(losses)


def assert_close(a, b, what, tol=1e-12):
    worst = (a - b).abs().max().item() if a.numel() else 0.0
    scale = 1 + b.abs().max().item() if b.numel() else 1
    assert a.shape == b.shape and worst <= tol * scale, \
        f"{what}: {worst} (shapes {a.shape} {b.shape})"


def check_against_naive(model, examples, linear, what):
    memory, counts, time, question, answer = ref.make_batch(examples, model.memory_size)
    params = list(model.parameters())
    logits, p = model(memory, counts, time, question, linear=linear)
    loss = ref.memn2n_loss(logits, answer)
    grads = torch.autograd.grad(loss, params)
    n_logits, n_p, n_loss = naive(model, examples, linear)
    n_grads = torch.autograd.grad(n_loss, params)
    assert_close(logits, n_logits, f"{what}: logits")
    assert_close(p, n_p, f"{what}: p")
    assert_close(loss, n_loss, f"{what}: loss")
    for (name, _), g, ng in zip(model.named_parameters(), grads, n_grads):
        assert_close(g, ng, f"{what}: grad {name}")


def check_random_empty_memories():
    gen = torch.Generator().manual_seed(5)
    counts = torch.tensor([0, 1, 3, 9, 10, 25])
    for _ in range(50):
        t = ref.random_empty_memories(counts, 25, MEMORY_SIZE, gen)
        for b, n in enumerate(counts.tolist()):
            row = t[b, :n].tolist()
            assert all(x >= y for x, y in zip(row, row[1:])), row
            assert all(0 <= x <= min(MEMORY_SIZE - 1, n + math.ceil(0.1 * n) - 1) for x in row), row
            assert n == 0 or row[-1] <= math.ceil(0.1 * n), row
            assert t[b, n:].eq(0).all()


# --------------------------------------------------------------------------- main

def main():
    global torch, ref
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    args = ap.parse_args()

    import torch as _torch
    import make_goldens
    import reference as _reference   # tools/reference, on the path above
    torch = _torch
    make_goldens.torch = _torch       # its writer uses the module-level name
    ref = _reference
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float64)

    examples = make_examples(torch.Generator().manual_seed(3000))
    memory, counts, time, question, answer = ref.make_batch(examples, MEMORY_SIZE)
    assert counts.tolist() == [3, 1, 8] and memory.shape == (3, 8, 5), (counts, memory.shape)
    # Padded slots' times may hold anything; store a real index there, not 0, so that a model
    # that reads them shows it.
    real = torch.arange(memory.shape[1]).unsqueeze(0) < counts.unsqueeze(1)
    time = time.masked_fill(~real, MEMORY_SIZE - 1)

    tensors, meta_cases = [], {}
    inputs = [("in.memory", memory), ("in.counts", counts), ("in.time", time),
              ("in.question", question), ("in.answer", answer)]
    with_empty = examples + [([], [5, 6], 7)]
    check_random_empty_memories()
    for suffix, (seed, std, kw, linear) in CASES.items():
        model = build(seed, std, **kw)
        what = "memn2n" + suffix
        check_against_naive(model, examples, linear, what)
        check_against_naive(model, with_empty, linear, what + " with an empty story")
        params = list(model.named_parameters())
        logits, p = model(memory, counts, time, question, linear=linear)
        loss = ref.memn2n_loss(logits, answer)
        grads = torch.autograd.grad(loss, [w for _, w in params])
        several = p[:, counts > 1]  # a single statement always has p = 1 (softmax)
        if not linear:
            assert several.max() > 0.5, f"{what}: attention too flat ({several.max().item()})"
        tensors += [(f"param{suffix}.{n}", w) for n, w in params]
        if suffix == "":
            tensors += inputs
        tensors += [(f"out.logits{suffix}", logits), (f"out.p{suffix}", p),
                    (f"out.loss{suffix}", loss.reshape(1))]
        tensors += [(f"grad{suffix}.{n}", g) for (n, _), g in zip(params, grads)]
        args_text = ", ".join(f"{k}={v!r}" for k, v in kw.items())
        meta_cases[what] = (f"memory.MemN2N(vocab={V}, d={D}, hops={HOPS}, "
                            f"memory_size={MEMORY_SIZE}, {args_text}); torch.manual_seed({seed}) "
                            f"then every parameter normal_(0, {std}) in order; "
                            f"forward(memory, counts, time, question, linear={linear})")
        print(f"{what}: loss {loss.item():.6f}, largest p of a story of several statements "
              f"{several.max().item():.4f}, largest |logit| {logits.abs().max().item():.2f}; "
              "the naive loop agrees")

    meta = {"case": "memn2n", "dtype": "F64 (computed in float64)", "torch": torch.__version__,
            **{f"module{s}": meta_cases["memn2n" + s] for s in CASES},
            "batch": f"make_batch of B=3 stories of {[len(s) for s in STATEMENT_LENGTHS]} "
                     f"statements (memory_size {MEMORY_SIZE} keeps the last 8), statement "
                     f"lengths {STATEMENT_LENGTHS}, question lengths {QUESTION_LENGTHS}; "
                     f"in.time holds {MEMORY_SIZE - 1} on padded slots",
            "loss": "memn2n_loss(logits, answer): cross-entropy, mean over the batch",
            "check": "outputs and gradients equal a naive per-example loop of the equations "
                     "within 1e-12 (also with a story of no statements)"}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "memn2n.safetensors")
    make_goldens.write_safetensors(path, tensors, meta)
    print(f"{path}: {len(tensors)} tensors")


if __name__ == "__main__":
    main()
