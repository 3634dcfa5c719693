#!/usr/bin/python3
"""heed -> PyTorch -> heed for every model case of the goldens (docs/INTEROP.md).

For each case of tools/make_model_goldens.py (every kind and score the model goldens cover):
  1. `heed train` a tiny model (word reversal over the letters a-g, a few steps),
  2. `heed export` it; tools/heed_torch.py loads the file and builds the reference model
     (tools/reference/models.py) from its metadata; PyTorch computes, on a fixed set of
     sentences, the log-probability of each token heed's greedy decode emitted, checks that
     each is the argmax of PyTorch's logits, and the teacher-forced attention,
  3. PyTorch saves model.state_dict() back (nothing perturbed), `heed import` turns it into a
     new model directory (with --config and the vocabularies given as files; and saved
     once more with the export's metadata, imported without them),
  4. `heed translate --beam 1 --alpha 0 --attention` on the imported directory: its outputs
     must be those of the trained directory, every weight must be bit-identical, and its
     scores and attention must match PyTorch's.
Prints max |score diff| and max |attention diff| per case and exits 1 on a mismatch.

Needs python3-torch (Debian) and a built heed; not run by CI (tests/store/interop_test.cpp
checks committed fixtures there). Usage:
  /usr/bin/python3 tools/interop_roundtrip.py --heed build/heed [--dtype f32|f64] [--keep DIR]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

LETTERS = "abcdefg"
TEST = ["abc", "gfedcba", "dad", "bbbeef", "cage", "fed"]


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}")
    return r.stdout


def write_task(d):
    rng = random.Random(5)
    src = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 6))) for _ in range(300)]
    for name, lines in (("train.src", src), ("train.tgt", [s[::-1] for s in src]),
                        ("test.src", TEST)):
        with open(os.path.join(d, name), "w") as f:
            f.write("".join(" ".join(s) + "\n" for s in lines))


def config(d, section, dtype, steps):
    lines = ["data:", f"  train_source: {d}/train.src", f"  train_target: {d}/train.tgt",
             "  source:", "    tokenizer: whitespace", "  target:", "    tokenizer: whitespace",
             "model:"]
    lines += [f"  {k}: {json.dumps(v)}" for k, v in section.items()]
    lines += ["training:", "  lr: 0.02", "  max_tokens: 200", f"  max_steps: {steps}",
              f"  validate_every: {steps}", f"  dtype: {dtype}", "  log_every: 1000",
              f"output: {d}/trained"]
    path = os.path.join(d, "config.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def torch_scores(torch, ref, model, src_vocab, tgt_vocab, records):
    """For each heed record (translate --attention): the sum of PyTorch's log p of heed's
    output tokens, PyTorch's attention rows (T, m) or None, and whether every output token
    is PyTorch's argmax (heed decoded greedily)."""
    src_ids = {t: i for i, t in enumerate(src_vocab)}
    tgt_ids = {t: i for i, t in enumerate(tgt_vocab)}
    dtype = next(model.parameters()).dtype
    out = []
    with torch.no_grad():
        for r in records:
            src = torch.tensor([[src_ids[t] for t in r["source"]]])
            enc, state = model.encode(src, torch.tensor([src.size(1)]))
            y_prev = torch.tensor([ref.BOS])
            total, rows, argmax_ok = torch.zeros((), dtype=dtype), [], True
            for tok in r["output"]:
                logits, state, alpha = model.step(y_prev, state, enc)
                logp = torch.log_softmax(logits, -1)[0]
                y = tgt_ids[tok]
                total = total + logp[y]
                argmax_ok &= int(logp.argmax()) == y
                if alpha is not None:
                    rows.append(alpha[0])
                y_prev = torch.tensor([y])
            out.append((float(total), torch.stack(rows) if rows else None, argmax_ok))
    return out


def read_records(path):
    with open(path) as f:
        return sorted((json.loads(l) for l in f if l.strip()), key=lambda r: r["index"])


def nbest_records(src_path, nbest):
    """The n-best lines `INDEX ||| pieces ||| score` as records like translate --attention's
    (whitespace tokens, EOS appended on both sides)."""
    sources = open(src_path).read().splitlines()
    records = []
    for line in nbest.splitlines():
        index, hyp, score = (x.strip() for x in line.split("|||"))
        records.append({"source": sources[int(index)].split() + ["</s>"],
                        "output": hyp.split() + ["</s>"], "score": float(score)})
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--heed", default=os.path.join(REPO, "build", "heed"))
    ap.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--keep", help="work here and keep the files (default: a temporary folder)")
    args = ap.parse_args()

    import torch
    import heed_torch
    import make_model_goldens as mmg
    import reference as ref
    torch.set_num_threads(1)
    tol = 1e-4 if args.dtype == "f32" else 1e-9

    heed = os.path.abspath(args.heed)
    root = args.keep or tempfile.mkdtemp(prefix="heed_interop_")
    failures = []
    print(f"{'case':28} {'tensors':>7} {'bits':>5} {'tokens':>6} {'max|score|':>11} "
          f"{'max|attn|':>10}")
    for case, (kind, kw, _) in mmg.CASES.items():
        d = os.path.join(root, case)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        write_task(d)
        section = heed_torch.heed_model_config(kind, kw)
        cfg = config(d, section, args.dtype, args.steps)
        run([heed, "train", cfg])
        trained, exported = f"{d}/trained", f"{d}/export.safetensors"
        run([heed, "export", "--model", trained, "--out", exported])

        state, meta = heed_torch.load(exported)
        model = heed_torch.build_reference(meta)
        model.load_state_dict(state)                 # strict: every name, every shape
        back = f"{d}/back.safetensors"
        heed_torch.save(model.state_dict(), back)    # a plain state_dict, no heed metadata

        imported = f"{d}/imported"
        run([heed, "import", "--from-pytorch", back, "--config", f"{trained}/config.yaml",
             "--src-vocab", f"{trained}/src.vocab", "--tgt-vocab", f"{trained}/tgt.vocab",
             "--out", imported])
        # The same state saved with the export's metadata imports without --config.
        back_meta, imported_meta = f"{d}/back_meta.safetensors", f"{d}/imported_meta"
        heed_torch.save(model.state_dict(), back_meta, meta)
        run([heed, "import", "--from-pytorch", back_meta, "--out", imported_meta])
        outs = {}
        for tag, m in (("trained", trained), ("imported", imported)):
            cmd = [heed, "translate", "--model", m, "--alpha", "0", "--input", f"{d}/test.src",
                   "--output", f"{d}/{tag}.out"]
            if kind == "noattn":   # no attention output: scores from the n-best list
                cmd += ["--beam", "2", "--nbest", "2"]
            else:
                cmd += ["--beam", "1", "--attention", f"{d}/{tag}.jsonl"]
            run(cmd)
            outs[tag] = open(f"{d}/{tag}.out").read()
        same_tokens = outs["trained"] == outs["imported"]
        a, _ = heed_torch.load(f"{trained}/best.safetensors")
        b, _ = heed_torch.load(f"{imported}/best.safetensors")
        c, _ = heed_torch.load(f"{imported_meta}/best.safetensors")
        bits = a.keys() == b.keys() == c.keys() and \
            all(torch.equal(a[k], b[k]) and torch.equal(a[k], c[k]) for k in a)

        attn_diff = float("nan")
        if kind == "noattn":
            records = nbest_records(f"{d}/test.src", outs["imported"])
        else:
            records = read_records(f"{d}/imported.jsonl")
        results = torch_scores(torch, ref, model, meta["heed.src_vocab"].splitlines(),
                               meta["heed.tgt_vocab"].splitlines(), records)
        score_diff = max(abs(r["score"] - s) for r, (s, _, _) in zip(records, results))
        argmax_ok = kind == "noattn" or all(ok for _, _, ok in results)   # greedy only
        if kind != "noattn":
            attn_diff = max(float((torch.tensor(r["attention"], dtype=al.dtype) - al).abs().max())
                            for r, (_, al, _) in zip(records, results))
        # The n-best list prints scores with 6 decimals.
        ok = bits and same_tokens and argmax_ok and \
            not (score_diff > (max(tol, 1e-6) if kind == "noattn" else tol)) and \
            not (attn_diff > 1e-5)
        if not ok:
            failures.append(case)
        print(f"{case:28} {len(b):7d} {'same' if bits else 'DIFF':>5} "
              f"{'same' if same_tokens and argmax_ok else 'DIFF':>6} {score_diff:11.3g} "
              f"{attn_diff:10.3g}{'' if ok else '  MISMATCH'}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        sys.exit(f"mismatch: {', '.join(failures)}")
    print(f"all {len(mmg.CASES)} cases round-trip (heed {args.dtype}, score tolerance {tol:g})")


if __name__ == "__main__":
    main()
