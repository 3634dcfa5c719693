#!/usr/bin/python3
"""Writes the copy-attention goldens (tests/golden/copy_<model>.safetensors) from the reference.

tools/reference/copy.py's CopyBahdanau (copy_bahdanau) and CopyTransformer (copy_transformer)
at tiny sizes in float64, on a fixed padded batch whose copy map holds K = 3 extended words and
whose targets copy them (all F64):
  param.<name>          every parameter under its state_dict key (p_gen.weight, p_gen.bias last)
  in.src, in.src_len, in.tgt_in    the batch (tgt_in reads UNK where a target was extended)
  in.tgt_out            the targets over the extended vocabulary (B, n)
  in.copy_ids           each source position's extended id (B, m), PAD after the length
  in.extended           K (1)
  out.probs             P over the extended vocabulary (B, n, V + K), teacher forced (the
                        probabilities, not their logs: an extended word a sentence lacks has 0)
  out.p_gen             sigmoid of the gate (B, n)
  out.loss              copy_loss (1), grad.<name>: d loss / d param

Usage: /usr/bin/python3 tools/make_copy_goldens.py [--out DIR]   (Debian: python3-torch)
"""
import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

B, SRC_V, TGT_V, K = 3, 11, 13, 3
SRC_LEN = [5, 3, 6]
# The cases: the reference class, its keyword arguments, and the kind heed builds.
CASES = {
    "copy_bahdanau": ("CopyBahdanau", "bahdanau",
                      dict(emb_dim=5, enc_hidden=4, dec_hidden=6, attn_dim=5, out_dim=7)),
    "copy_transformer": ("CopyTransformer", "transformer",
                         dict(d_model=6, heads=2, ff_dim=8, enc_layers=1, dec_layers=2)),
}
# Each source position's id over the extended vocabulary (EOS last), and the targets: target
# words, extended words the row's source holds, EOS. Extended ids are 13, 14, 15.
COPY_IDS = [[13, 5, 14, 13, 2], [7, 15, 2], [4, 14, 9, 15, 6, 2]]
TGT_OUT = [[13, 5, 14, 2], [15, 8, 15, 7, 2], [14, 2]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    args = ap.parse_args()
    import torch
    import make_goldens
    import reference as ref
    import reference.copy as reference_copy
    make_goldens.torch = torch
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float64)

    gen = torch.Generator().manual_seed(3000)
    m, n = max(SRC_LEN), max(len(t) for t in TGT_OUT)
    src = torch.zeros(B, m, dtype=torch.long)
    copy_ids = torch.zeros(B, m, dtype=torch.long)
    tgt_in = torch.zeros(B, n, dtype=torch.long)
    tgt_out = torch.zeros(B, n, dtype=torch.long)
    for b in range(B):
        src[b, :SRC_LEN[b] - 1] = torch.randint(4, SRC_V, (SRC_LEN[b] - 1,), generator=gen)
        src[b, SRC_LEN[b] - 1] = ref.EOS
        copy_ids[b, :SRC_LEN[b]] = torch.tensor(COPY_IDS[b])
        y = TGT_OUT[b]
        tgt_out[b, :len(y)] = torch.tensor(y)
        fed = [ref.BOS] + [ref.UNK if t >= TGT_V else t for t in y[:-1]]
        tgt_in[b, :len(y)] = torch.tensor(fed)
    src_len = torch.tensor(SRC_LEN)

    for name, (cls, kind, kw) in CASES.items():
        write_case(args.out, name, getattr(reference_copy, cls), kind, kw, src, src_len, tgt_in,
                   tgt_out, copy_ids)


def write_case(out_dir, name, cls, kind, kw, src, src_len, tgt_in, tgt_out, copy_ids):
    import torch
    import make_goldens
    from reference.copy import copy_loss, extended_log_probs
    torch.manual_seed(300)
    model = cls(SRC_V, TGT_V, **kw).double()
    # A few Adam steps on the batch, so that p_gen and the attention are not near uniform.
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(10):
        opt.zero_grad()
        copy_loss(*model.forward_copy(src, src_len, tgt_in), copy_ids, K, tgt_out).backward()
        opt.step()
    opt.zero_grad()
    params = list(model.named_parameters())
    logits, gate, alpha = model.forward_copy(src, src_len, tgt_in)
    loss = copy_loss(logits, gate, alpha, copy_ids, K, tgt_out)
    grads = torch.autograd.grad(loss, [p for _, p in params])
    with torch.no_grad():
        probs = extended_log_probs(logits, gate, alpha, copy_ids, K).exp()

    tensors = [("param." + n, p) for n, p in params]
    tensors += [("in.src", src), ("in.src_len", src_len), ("in.tgt_in", tgt_in),
                ("in.tgt_out", tgt_out), ("in.copy_ids", copy_ids),
                ("in.extended", torch.tensor([K]))]
    tensors += [("out.probs", probs), ("out.p_gen", torch.sigmoid(gate)),
                ("out.loss", loss.reshape(1))]
    tensors += [("grad." + n, g) for (n, _), g in zip(params, grads)]
    args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    meta = {"case": name, "dtype": "F64 (computed in float64)",
            "torch": torch.__version__,
            # golden_model_config (tests/support/golden.h) reads the build_model( ... ) call.
            "module": f"copy.{cls.__name__}: models.build_model({kind!r}, src_vocab={SRC_V}, "
                      f"tgt_vocab={TGT_V}, {args}) with the gate p_gen",
            "init": "torch.manual_seed(300); then 10 steps of torch.optim.Adam(lr=0.05) on "
                    "copy_loss of the batch itself",
            "batch": f"B={B}, src lengths {SRC_LEN} (EOS last), extended words {K}",
            "loss": "copy_loss(*forward_copy(src, src_len, tgt_in), copy_ids, K, tgt_out)"}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name + ".safetensors")
    make_goldens.write_safetensors(path, tensors, meta)
    print(f"{path}: {len(tensors)} tensors, loss {float(loss):.6f}, "
          f"p_gen in [{float(torch.sigmoid(gate).min()):.3f}, {float(torch.sigmoid(gate).max()):.3f}]")

if __name__ == "__main__":
    main()
