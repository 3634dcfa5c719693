#!/usr/bin/python3
"""Writes the model golden values (tests/golden/models_*.safetensors) from the PyTorch reference.

Each case builds one model of heed's reference (tools/reference/models.py, docs/MODELS.md) at
tiny sizes in float64, runs it on a fixed padded batch and stores (all F64, see tests/golden/README.md):
  param.<name>        every parameter under its state_dict key
  in.src, in.src_len, in.tgt_in, in.tgt_out      the batch (token ids as F64)
  out.logits          forward(src, src_len, tgt_in), (B, n, V)
  out.loss            seq2seq_loss(logits, tgt_out) (1)
  out.loss_ls         the same with label_smoothing 0.1 (1)
  grad.<name>         d loss / d param,   grad_ls.<name>: d loss_ls / d param
  out.alpha           teacher-forced attention (B, n, m), collected from step() calls
  out.greedy.*        greedy_decode(model, src, src_len, max_len=10): tokens (B, T), attention
  out.beam.*          beam_search(beam=3, n_best=2, max_len=10, alpha=0): tokens (B, 2, T),
                      scores, raw_scores, lengths (B, 2), attention (B, 2, T, m)
  out.beam_gnmt.*     the same with norm='gnmt', alpha=0.6
  out.coverage_loss   (coverage cases) coverage_loss(alphas, tgt_out), unweighted (1)
  out.loss_cov        loss + weight * out.coverage_loss (1); grad_cov.<name>: its gradient
(no attention outputs for the no-attention model).

Usage: /usr/bin/python3 tools/make_model_goldens.py [--out DIR] [--cases NAME...]
(Debian: python3-torch)
"""
import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

B, SRC_V, TGT_V = 3, 11, 13   # a case with share_embeddings has TGT_V words on both sides
SRC_LEN = [5, 3, 6]          # unsorted, so packing and padding are exercised
TGT_LEN = [4, 6, 2]          # target lengths counting EOS
DECODE_MAX = 10

# name -> (kind, reference constructor keywords, training steps before the goldens)
CASES = {
    "models_bahdanau": ("bahdanau", dict(emb_dim=5, enc_hidden=4, dec_hidden=6, attn_dim=5,
                                         out_dim=7), 20),
    "models_noattn": ("noattn", dict(emb_dim=5, enc_hidden=4, dec_hidden=6, out_dim=7), 20),
    "models_luong_general_feed": ("luong", dict(emb_dim=5, hidden=6, layers=2, score="general",
                                                input_feed=True), 20),
    "models_luong_dot_nofeed": ("luong", dict(emb_dim=5, hidden=6, layers=2, score="dot",
                                              input_feed=False), 20),
    "models_luong_concat": ("luong", dict(emb_dim=5, hidden=6, layers=1, score="concat",
                                          attn_dim=5), 20),
    "models_luong_mlp": ("luong", dict(emb_dim=5, hidden=6, layers=1, score="mlp",
                                       attn_dim=5), 20),
    "models_luong_location": ("luong", dict(emb_dim=5, hidden=6, layers=1, score="location",
                                            max_src_len=8), 20),
    "models_luong_local_p": ("luong", dict(emb_dim=5, hidden=6, layers=1, score="general",
                                           local_p=True, window=2), 20),
    "models_luong_bidir": ("luong", dict(emb_dim=5, hidden=6, layers=2, score="general",
                                         bidirectional=True), 20),
    "models_bahdanau_location": ("bahdanau", dict(emb_dim=5, enc_hidden=4, dec_hidden=6,
                                                  attn_dim=5, out_dim=7, location_filters=3,
                                                  location_width=3), 20),
    "models_bahdanau_coverage": ("bahdanau", dict(emb_dim=5, enc_hidden=4, dec_hidden=6,
                                                  attn_dim=5, out_dim=7, coverage=True), 20),
    "models_transformer": ("transformer", dict(d_model=8, heads=2, ff_dim=12, enc_layers=2,
                                               dec_layers=2), 20),
    "models_transformer_post": ("transformer", dict(d_model=8, heads=2, ff_dim=12, enc_layers=1,
                                                    dec_layers=2, norm="post",
                                                    positions="learned", max_positions=12,
                                                    alignment_layer=1, alignment_head=2,
                                                    tie_embeddings=True), 20),
    "models_transformer_shared": ("transformer", dict(d_model=8, heads=2, ff_dim=12,
                                                      enc_layers=1, dec_layers=2,
                                                      tie_embeddings=True,
                                                      share_embeddings=True), 20),
}
# Cases whose golden also holds the coverage loss (out.coverage_loss, out.loss_cov = loss +
# COVERAGE_WEIGHT * coverage_loss, grad_cov.*), with this weight.
COVERAGE_WEIGHT = {"models_bahdanau_coverage": 1.0}


def vocab_sizes(kw):
    """(source, target) vocabulary sizes of a case: one vocabulary with share_embeddings."""
    return (TGT_V, TGT_V) if kw.get("share_embeddings") else (SRC_V, TGT_V)


def make_batch(gen, src_v=SRC_V):
    m, n = max(SRC_LEN), max(TGT_LEN)
    src = torch.zeros(B, m, dtype=torch.long)
    tgt_in = torch.zeros(B, n, dtype=torch.long)
    tgt_out = torch.zeros(B, n, dtype=torch.long)
    for b in range(B):
        src[b, :SRC_LEN[b]] = torch.randint(4, src_v, (SRC_LEN[b],), generator=gen)
        y = torch.randint(4, TGT_V, (TGT_LEN[b] - 1,), generator=gen).tolist() + [ref.EOS]
        tgt_in[b, :TGT_LEN[b]] = torch.tensor([ref.BOS] + y[:-1])
        tgt_out[b, :TGT_LEN[b]] = torch.tensor(y)
    return src, torch.tensor(SRC_LEN), tgt_in, tgt_out


def local_p_margin(model, queries, src_len):
    """Smallest distance of a window edge |j - p_t| = D to any position, over queries."""
    att = model.attention
    S = src_len.double()
    j = torch.arange(1, max(SRC_LEN) + 1, dtype=torch.float64)
    worst = float("inf")
    for q in queries:
        p = att.centres(q, S)
        edge = ((j.unsqueeze(0) - p.unsqueeze(1)).abs() - att.window).abs().min()
        worst = min(worst, float(edge))
    return worst


def teacher_forced_alphas(model, src, src_len, tgt_in):
    """Attention of each step() call under teacher forcing (B, n, m), and the queries."""
    enc, state = model.encode(src, src_len)
    alphas, queries = [], []
    if isinstance(model, ref.Luong):
        orig = model.attention.forward

        def spy(q, *args):
            queries.append(q)
            return orig(q, *args)
        model.attention.forward = spy
    for t in range(tgt_in.size(1)):
        _, state, alpha = model.step(tgt_in[:, t], state, enc)
        alphas.append(alpha)
    if isinstance(model, ref.Luong):
        del model.attention.forward
    return (None if alphas[0] is None else torch.stack(alphas, 1)), queries


def model_case(name, gen, seed):
    kind, kw, train_steps = CASES[name]
    src_v, tgt_v = vocab_sizes(kw)
    torch.manual_seed(seed)
    model = ref.build_model(kind, src_vocab=src_v, tgt_vocab=tgt_v, **kw).double()
    src, src_len, tgt_in, tgt_out = make_batch(gen, src_v)
    # A few Adam steps on the batch itself, so that the decodes are not degenerate (a fresh
    # model repeats one token or stops at once) and finish at different lengths.
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(train_steps):
        opt.zero_grad()
        ref.seq2seq_loss(model(src, src_len, tgt_in), tgt_out).backward()
        opt.step()
    opt.zero_grad()
    params = list(model.named_parameters())
    logits = model(src, src_len, tgt_in)
    loss = ref.seq2seq_loss(logits, tgt_out)
    grads = torch.autograd.grad(loss, [p for _, p in params], retain_graph=True,
                                allow_unused=True)
    loss_ls = ref.seq2seq_loss(logits, tgt_out, label_smoothing=0.1)
    grads_ls = torch.autograd.grad(loss_ls, [p for _, p in params], allow_unused=True)

    cov_weight = COVERAGE_WEIGHT.get(name)
    if cov_weight is not None:
        logits_c, alphas = model.teacher_forced(src, src_len, tgt_in)   # a graph of its own
        cov = ref.coverage_loss(alphas, tgt_out)
        loss_cov = ref.seq2seq_loss(logits_c, tgt_out) + cov_weight * cov
        grads_cov = torch.autograd.grad(loss_cov, [p for _, p in params], allow_unused=True)

    out = [("param." + n, p) for n, p in params]
    out += [("in.src", src), ("in.src_len", src_len), ("in.tgt_in", tgt_in),
            ("in.tgt_out", tgt_out)]
    out += [("out.logits", logits), ("out.loss", loss.reshape(1)),
            ("out.loss_ls", loss_ls.reshape(1))]
    grad_sets = [("grad.", grads), ("grad_ls.", grads_ls)]
    if cov_weight is not None:
        out += [("out.coverage_loss", cov.reshape(1)), ("out.loss_cov", loss_cov.reshape(1))]
        grad_sets.append(("grad_cov.", grads_cov))
    for prefix, gs in grad_sets:
        for (n, p), g in zip(params, gs):
            out.append((prefix + n, torch.zeros_like(p) if g is None else g))

    with torch.no_grad():
        alpha, queries = teacher_forced_alphas(model, src, src_len, tgt_in)
        if isinstance(model, ref.Luong) and model.attention.local_p:
            margin = local_p_margin(model, queries, src_len)
            assert margin > 1e-3, f"{name}: p_t too close to a window edge ({margin})"
    if alpha is not None:
        out.append(("out.alpha", alpha))

    model.eval()
    tokens, attn = ref.greedy_decode(model, src, src_len, max_len=DECODE_MAX)
    out.append(("out.greedy.tokens", tokens))
    if attn is not None:
        out.append(("out.greedy.attention", attn))
    for tag, extra in (("beam", dict(alpha=0.0)), ("beam_gnmt", dict(alpha=0.6, norm="gnmt"))):
        r = ref.beam_search(model, src, src_len, beam=3, n_best=2, max_len=DECODE_MAX, **extra)
        for field in ("tokens", "scores", "raw_scores", "lengths", "attention"):
            if r[field] is not None:
                out.append((f"out.{tag}.{field}", r[field]))
    finished = int((tokens == ref.EOS).any(1).sum())

    meta = {"module": f"models.build_model({kind!r}, src_vocab={src_v}, tgt_vocab={tgt_v}, "
                      + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ").double()",
            "init": f"torch.manual_seed({seed}); then {train_steps} steps of "
                    "torch.optim.Adam(lr=0.05) on seq2seq_loss of the batch itself",
            "batch": f"B={B}, src lengths {SRC_LEN}, target lengths {TGT_LEN} (counting EOS)",
            "loss": "seq2seq_loss(forward(src, src_len, tgt_in), tgt_out) (grad.*); "
                    "label_smoothing=0.1 (loss_ls, grad_ls.*)",
            "alpha": "alphas of model.step(tgt_in[:, t], state, enc) for t = 0..n-1",
            "greedy": f"greedy_decode(model, src, src_len, max_len={DECODE_MAX})",
            "beam": f"beam_search(model, src, src_len, beam=3, n_best=2, max_len={DECODE_MAX}, "
                    "alpha=0.0)",
            "beam_gnmt": f"beam_search(model, src, src_len, beam=3, n_best=2, "
                         f"max_len={DECODE_MAX}, alpha=0.6, norm='gnmt')",
            "greedy_finished": str(finished)}
    if cov_weight is not None:
        meta["coverage"] = (f"coverage_loss(alphas of teacher_forced, tgt_out) (out.coverage_loss); "
                            f"loss + {cov_weight} * coverage_loss (out.loss_cov, grad_cov.*)")
    return out, meta


def main():
    global torch, ref
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    ap.add_argument("--cases", nargs="*", help="write only these cases (default: all)")
    args = ap.parse_args()

    import torch as _torch
    import make_goldens
    import reference as _reference   # tools/reference, on the path above
    torch = _torch
    make_goldens.torch = _torch       # its writer uses the module-level name
    ref = _reference
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float64)   # beam_search's score buffer uses the default

    os.makedirs(args.out, exist_ok=True)
    for i, name in enumerate(CASES):
        if args.cases and name not in args.cases:
            continue
        gen = torch.Generator().manual_seed(2000 + i)
        tensors, meta = model_case(name, gen, 100 + i)
        meta = {"case": name, "dtype": "F64 (computed in float64)", "torch": torch.__version__,
                **meta}
        path = os.path.join(args.out, name + ".safetensors")
        make_goldens.write_safetensors(path, tensors, meta)
        print(f"{path}: {len(tensors)} tensors, greedy finished {meta['greedy_finished']}/{B}")


if __name__ == "__main__":
    main()
