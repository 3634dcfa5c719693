#!/usr/bin/python3
"""Writes the golden values the C++ tests compare against (tests/golden/*.safetensors).

Every number comes from heed's PyTorch reference (tools/reference, the mathematics of
docs/MODELS.md) or from torch itself (nn.GRU, nn.LSTM, torch.optim), computed in float64 and
stored as F64, so a
C++ test may run in f64 (tight) or f32 (loose). Files are written with a small safetensors
writer of our own (struct + json), so neither the safetensors package nor numpy is needed.

Layout of each file (see tests/golden/README.md):
  param.<name>   a parameter, under its exact PyTorch name (module-relative)
  in.<name>      an input (lengths are stored as F64 integers)
  out.<name>     an output
  seed.<name>    the fixed random weight R of output <name> in the loss sum(out * R)
  grad.<name>    d loss / d (param or input) <name>
and __metadata__ with the case's hyper-parameters and the loss formula.

Usage: /usr/bin/python3 tools/make_goldens.py [--out DIR]   (Debian: apt-get install python3-torch)
"""
import argparse
import json
import math
import os
import struct
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------- writer

def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, torch tensor); every tensor is stored as contiguous F64."""
    header = {"__metadata__": {k: str(v) for k, v in metadata.items()}}
    blobs, offset = [], 0
    names = set()
    for name, t in tensors:
        assert name not in names, name
        names.add(name)
        t = t.detach().to(torch.float64).contiguous()
        values = t.flatten().tolist()
        blob = struct.pack("<%dd" % len(values), *values)
        header[name] = {"dtype": "F64", "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


# --------------------------------------------------------------------------- helpers

def with_grads(module, inputs, outputs_fn, gen):
    """Runs outputs_fn(**inputs), weights each output by a fixed random R and returns the
    file's tensors: params, inputs, outputs, seeds and the gradients of sum(out * R)."""
    for n, t in inputs.items():
        if n != "lengths":               # lengths are integers stored as F64: no gradient
            t.requires_grad_(True)
    outputs = outputs_fn(**inputs)
    seeds = {k: torch.rand(v.shape, generator=gen, dtype=torch.float64) * 2 - 1
             for k, v in outputs.items()}
    loss = sum((outputs[k] * seeds[k]).sum() for k in outputs)
    params = list(module.named_parameters()) if module is not None else []
    wrt = [p for _, p in params] + [t for t in inputs.values() if t.requires_grad]
    grads = torch.autograd.grad(loss, wrt, allow_unused=True)
    names = [n for n, _ in params] + [n for n, t in inputs.items() if t.requires_grad]
    out = [("param." + n, p) for n, p in params]
    out += [("in." + n, t) for n, t in inputs.items()]
    out += [("out." + n, t) for n, t in outputs.items()]
    out += [("seed." + n, t) for n, t in seeds.items()]
    for n, g, w in zip(names, grads, wrt):
        out.append(("grad." + n, torch.zeros_like(w) if g is None else g))
    return out


def rand(gen, *shape, lo=-1.0, hi=1.0):
    return torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo


LOSS = "sum over outputs X of sum(out.X * seed.X)"


# --------------------------------------------------------------------------- cases

def case_gru(gen):
    torch.manual_seed(1)
    rnn = nn.GRU(3, 4, num_layers=1, batch_first=True).double()
    inputs = {"x": rand(gen, 3, 5, 3), "h0": rand(gen, 1, 3, 4)}

    def run(x, h0):
        output, h_n = rnn(x, h0)
        return {"output": output, "h_n": h_n}
    meta = {"module": "nn.GRU(input_size=3, hidden_size=4, num_layers=1, batch_first=True)",
            "call": "output, h_n = rnn(x, h0)", "loss": LOSS}
    return with_grads(rnn, inputs, run, gen), meta


def case_lstm2(gen):
    torch.manual_seed(2)
    rnn = nn.LSTM(3, 5, num_layers=2, batch_first=True).double()
    inputs = {"x": rand(gen, 3, 4, 3), "h0": rand(gen, 2, 3, 5), "c0": rand(gen, 2, 3, 5)}

    def run(x, h0, c0):
        output, (h_n, c_n) = rnn(x, (h0, c0))
        return {"output": output, "h_n": h_n, "c_n": c_n}
    meta = {"module": "nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)",
            "call": "output, (h_n, c_n) = rnn(x, (h0, c0))", "loss": LOSS}
    return with_grads(rnn, inputs, run, gen), meta


def case_bigru_packed(gen):
    torch.manual_seed(3)
    rnn = nn.GRU(3, 4, num_layers=1, batch_first=True, bidirectional=True).double()
    lengths = torch.tensor([3, 5, 2])
    x = rand(gen, 3, 5, 3)
    mask = ref.length_mask(lengths, 5).unsqueeze(2).double()
    x = x * mask                      # padding holds zeros (its value never matters)
    inputs = {"x": x, "lengths": lengths.double()}

    def run(x, lengths):
        output, h_n = ref.run_packed(rnn, x, lengths.long())
        return {"output": output, "h_n": h_n}
    meta = {"module": "nn.GRU(input_size=3, hidden_size=4, num_layers=1, batch_first=True, "
                      "bidirectional=True)",
            "call": "output, h_n = run_packed(rnn, x, lengths) (packed, enforce_sorted=False; "
                    "output zero at padding; h_n (2, B, 4): forward final state at each "
                    "sequence's last token, backward state at its first)",
            "loss": LOSS}
    return with_grads(rnn, inputs, run, gen), meta


ATTENTION_CASES = [
    # name, constructor, dq, dk
    ("attention_additive", lambda: ref.AdditiveAttention(4, 6, 5), 4, 6),
    ("attention_dot", lambda: ref.GlobalAttention("dot", 6, 6), 6, 6),
    ("attention_scaled_dot", lambda: ref.GlobalAttention("scaled_dot", 6, 6), 6, 6),
    ("attention_general", lambda: ref.GlobalAttention("general", 4, 6), 4, 6),
    ("attention_concat", lambda: ref.GlobalAttention("concat", 4, 6, attn_dim=5), 4, 6),
    ("attention_location", lambda: ref.GlobalAttention("location", 4, 6, max_src_len=7), 4, 6),
    ("attention_mlp", lambda: ref.GlobalAttention("mlp", 4, 6, attn_dim=5), 4, 6),
    ("attention_local_p_general",
     lambda: ref.GlobalAttention("general", 4, 6, local_p=True, window=2), 4, 6),
]
ATTENTION_CTORS = {
    "attention_additive": "AdditiveAttention(query_dim=4, key_dim=6, attn_dim=5)",
    "attention_dot": "GlobalAttention('dot', 6, 6)",
    "attention_scaled_dot": "GlobalAttention('scaled_dot', 6, 6)",
    "attention_general": "GlobalAttention('general', 4, 6)",
    "attention_concat": "GlobalAttention('concat', 4, 6, attn_dim=5)",
    "attention_location": "GlobalAttention('location', 4, 6, max_src_len=7)",
    "attention_mlp": "GlobalAttention('mlp', 4, 6, attn_dim=5)",
    "attention_local_p_general": "GlobalAttention('general', 4, 6, local_p=True, window=2)",
}


def case_attention(gen, index):
    name, ctor, dq, dk = ATTENTION_CASES[index]
    torch.manual_seed(10 + index)
    att = ctor().double()
    lengths = torch.tensor([4, 2, 5])
    m = 5
    H = rand(gen, 3, m, dk) * ref.length_mask(lengths, m).unsqueeze(2).double()
    inputs = {"q": rand(gen, 3, dq), "H": H, "lengths": lengths.double()}

    def run(q, H, lengths):
        mask = ref.length_mask(lengths.long(), m)
        K = att.keys(H)
        context, alpha = att(q, H, K, mask)
        return {"context": context, "alpha": alpha}
    if getattr(att, "local_p", False):
        # The window edge |j - p_t| <= D is a step: keep every p_t well away from it so that
        # float32 and float64 implementations agree on membership.
        with torch.no_grad():
            p = att.centres(inputs["q"], lengths.double())
            j = torch.arange(1, m + 1, dtype=torch.float64)
            edge = ((j.unsqueeze(0) - p.unsqueeze(1)).abs() - att.window).abs().min()
            assert edge > 1e-3, f"p_t too close to a window edge ({edge})"
    meta = {"module": "models." + ATTENTION_CTORS[name],
            "call": "mask = length_mask(lengths, 5); K = att.keys(H); "
                    "context, alpha = att(q, H, K, mask)",
            "loss": LOSS}
    return with_grads(att, inputs, run, gen), meta


def optimizer_case(gen, make, meta, steps=5):
    """Two parameters p0 (3, 4) and p1 (5,); a fresh random gradient at every step."""
    params = {"p0": rand(gen, 3, 4), "p1": rand(gen, 5)}
    live = [torch.nn.Parameter(params["p0"].clone()), torch.nn.Parameter(params["p1"].clone())]
    opt = make(live)
    out = [("param." + n, t) for n, t in params.items()]
    for k in range(1, steps + 1):
        for i, (n, p) in enumerate(zip(("p0", "p1"), live)):
            g = rand(gen, *p.shape)
            p.grad = g.clone()
            out.append((f"in.grad.step{k}.{n}", g))
        opt.step()
        for n, p in zip(("p0", "p1"), live):
            out.append((f"out.step{k}.{n}", p.detach().clone()))
    for i, p in enumerate(live):
        for field, value in opt.state[p].items():
            t = value if torch.is_tensor(value) else torch.tensor(float(value))
            out.append((f"out.state.{i}.{field}", t.reshape(-1) if t.dim() == 0 else t))
    meta = dict(meta)
    meta["protocol"] = ("params p0, p1 = param.*; for step k = 1..5: grad = in.grad.step<k>.*, "
                        "optimizer.step(); out.step<k>.* = params after step k; "
                        "out.state.<i>.* = torch's optimizer state after step 5")
    return out, meta


def case_adam(gen):
    hp = dict(lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1)
    return optimizer_case(gen, lambda ps: torch.optim.Adam(ps, **hp),
                          {"optimizer": "torch.optim.Adam", **hp})


def case_adamw(gen):
    hp = dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)
    return optimizer_case(gen, lambda ps: torch.optim.AdamW(ps, **hp),
                          {"optimizer": "torch.optim.AdamW", **hp})


def case_sgd_momentum(gen):
    hp = dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False)
    return optimizer_case(gen, lambda ps: torch.optim.SGD(ps, **hp),
                          {"optimizer": "torch.optim.SGD", **hp})


def case_sgd_nesterov(gen):
    hp = dict(lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.01, nesterov=True)
    return optimizer_case(gen, lambda ps: torch.optim.SGD(ps, **hp),
                          {"optimizer": "torch.optim.SGD", **hp})


def case_clip(gen):
    grads = {"p0": rand(gen, 3, 4), "p1": rand(gen, 5)}
    out = [("in.grad." + n, g) for n, g in grads.items()]
    for max_norm in (0.5, 100.0):
        live = [torch.nn.Parameter(torch.zeros_like(g)) for g in grads.values()]
        for p, g in zip(live, grads.values()):
            p.grad = g.clone()
        total = torch.nn.utils.clip_grad_norm_(live, max_norm)
        tag = "clip" if max_norm < 1 else "noclip"
        out.append((f"out.{tag}.total_norm", total.reshape(1)))
        for n, p in zip(grads, live):
            out.append((f"out.{tag}.grad.{n}", p.grad.clone()))
    meta = {"function": "torch.nn.utils.clip_grad_norm_(params, max_norm), norm_type 2",
            "protocol": "grads in.grad.*; max_norm 0.5 -> out.clip.*, max_norm 100 -> "
                        "out.noclip.*; out.<tag>.total_norm is the returned norm"}
    return out, meta


def case_multi_head_attention(gen):
    """nn.MultiheadAttention(6, 2, batch_first=True): encoder-decoder attention (queries
    over a padded memory) and causal self-attention with the same weights."""
    torch.manual_seed(30)
    mha = nn.MultiheadAttention(6, 2, batch_first=True).double()
    with torch.no_grad():                 # PyTorch starts both biases at 0: make them count
        mha.in_proj_bias.copy_(rand(gen, 18) * 0.5)
        mha.out_proj.bias.copy_(rand(gen, 6) * 0.5)
    lengths = torch.tensor([5, 2, 4])
    inputs = {"query": rand(gen, 3, 4, 6), "memory": rand(gen, 3, 5, 6), "x": rand(gen, 3, 4, 6),
              "lengths": lengths.double()}
    causal = torch.triu(torch.full((4, 4), float("-inf"), dtype=torch.float64), diagonal=1)

    def attend(query, memory, x, lengths, need_weights=False):
        pad = ~ref.length_mask(lengths.long(), 5)
        cross, cross_w = mha(query, memory, memory, key_padding_mask=pad,
                             need_weights=need_weights, average_attn_weights=False)
        self_, self_w = mha(x, x, x, attn_mask=causal, need_weights=need_weights,
                            average_attn_weights=False)
        return {"cross": cross, "self": self_}, {"cross_weights": cross_w, "self_weights": self_w}

    tensors = with_grads(mha, inputs, lambda **kw: attend(**kw)[0], gen)
    with torch.no_grad():
        weights = attend(**{k: v.detach() for k, v in inputs.items()}, need_weights=True)[1]
    tensors += [("aux." + k, w) for k, w in weights.items()]
    meta = {"module": "nn.MultiheadAttention(embed_dim=6, num_heads=2, batch_first=True), "
                      "biases drawn",
            "call": "cross, cross_weights = mha(query, memory, memory, key_padding_mask="
                    "~length_mask(lengths, 5), average_attn_weights=False); self, self_weights "
                    "= mha(x, x, x, attn_mask=causal (-inf above the diagonal), "
                    "average_attn_weights=False)",
            "loss": "sum(out.cross * seed.cross) + sum(out.self * seed.self) (the weights, aux.*, are "
                    "outputs only)"}
    return tensors, meta


def case_layer_norm(gen):
    torch.manual_seed(31)
    norm = nn.LayerNorm(5).double()
    with torch.no_grad():                 # PyTorch starts at 1 and 0: make them count
        norm.weight.copy_(rand(gen, 5))
        norm.bias.copy_(rand(gen, 5))
    inputs = {"x": rand(gen, 3, 4, 5, lo=-2.0, hi=2.0)}
    meta = {"module": "nn.LayerNorm(5), weight and bias drawn", "call": "y = norm(x)",
            "loss": LOSS}
    return with_grads(norm, inputs, lambda x: {"y": norm(x)}, gen), meta


def case_ctc(gen):
    """F.ctc_loss over log_softmax of batch-first logits: blank 0, reduction "sum",
    zero_infinity=True; rows with a repeated symbol, an empty target and an infeasible one."""
    B, T, V = 4, 6, 5
    logits = rand(gen, B, T, V, lo=-2.0, hi=2.0).requires_grad_(True)
    lengths = [6, 4, 5, 2]
    targets = [[1, 2, 2], [3, 1], [], [1, 2, 3]]   # row 3: 3 symbols in 2 frames, infeasible
    padded = torch.zeros(B, 3, dtype=torch.long)
    for b, t in enumerate(targets):
        padded[b, :len(t)] = torch.tensor(t, dtype=torch.long)
    target_lengths = torch.tensor([len(t) for t in targets])

    def run(reduction):
        return torch.nn.functional.ctc_loss(
            logits.log_softmax(-1).transpose(0, 1), padded, torch.tensor(lengths),
            target_lengths, blank=0, reduction=reduction, zero_infinity=True)
    loss = run("sum")
    seed = torch.rand((), generator=gen, dtype=torch.float64) * 2 - 1
    (grad,) = torch.autograd.grad(loss * seed, [logits])
    tensors = [("in.logits", logits), ("in.lengths", torch.tensor(lengths, dtype=torch.float64)),
               ("in.targets", padded.double()), ("in.target_lengths", target_lengths.double()),
               ("out.loss", loss), ("seed.loss", seed), ("grad.logits", grad),
               ("aux.row_loss", run("none").detach())]
    meta = {"module": "torch.nn.functional.ctc_loss",
            "call": "loss = ctc_loss(log_softmax(logits, -1).transpose(0, 1), targets (padded "
                    "with 0), lengths, target_lengths, blank=0, reduction='sum', "
                    "zero_infinity=True); aux.row_loss the same with reduction='none'",
            "loss": "loss * seed.loss"}
    return tensors, meta


# --------------------------------------------------------------------------- main

def main():
    global torch, nn, ref
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    args = ap.parse_args()

    import torch as _torch
    import torch.nn as _nn
    torch, nn = _torch, _nn
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import reference as _reference
    ref = _reference
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    cases = [("gru", case_gru), ("lstm2", case_lstm2), ("bigru_packed", case_bigru_packed)]
    cases += [(c[0], (lambda i: lambda gen: case_attention(gen, i))(i))
              for i, c in enumerate(ATTENTION_CASES)]
    cases += [("adam", case_adam), ("adamw", case_adamw), ("sgd_momentum", case_sgd_momentum),
              ("sgd_nesterov", case_sgd_nesterov), ("clip_grad_norm", case_clip)]
    cases += [("multi_head_attention", case_multi_head_attention), ("layer_norm", case_layer_norm),
              ("ctc", case_ctc)]
    os.makedirs(args.out, exist_ok=True)
    for seed, (name, fn) in enumerate(cases):
        gen = torch.Generator().manual_seed(1000 + seed)
        tensors, meta = fn(gen)
        meta = {"case": name, "dtype": "F64 (computed in float64)",
                "torch": torch.__version__, **meta}
        path = os.path.join(args.out, name + ".safetensors")
        write_safetensors(path, tensors, meta)
        print(f"{path}: {len(tensors)} tensors")


if __name__ == "__main__":
    main()
