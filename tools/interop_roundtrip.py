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

The image kinds (IMAGE_CASES: fc, cnn, ram with an RNN and an LSTM core, image2seq with soft,
hard and no attention) go the same way on small images the script writes as gzipped IDX
(16x16 canvases with a bright 4x4 square in one quadrant; image2seq's canvases hold one or
two squares and their targets name the quadrants in reading order):
  1. `heed train` a few steps, `heed export`, the reference module (tools/reference/images.py)
     from the export's metadata,
  2. `heed eval --locations` (classifiers) or `--attention` (image2seq) on the test images;
     PyTorch runs the same images: every class heed predicts must be PyTorch's argmax, heed's
     class probabilities softmax(PyTorch's logits) and ram's glimpse locations PyTorch's
     (the JSON holds both in full precision); every word image2seq's greedy decode emits
     must be the argmax of PyTorch's logits along heed's output, and the grid attention
     PyTorch's (the JSON rounds it to float32),
  3. PyTorch saves the state_dict back (plain and with the export's metadata), `heed import`
     (--config and --tgt-vocab given; and from the metadata), and `heed eval` on the imported
     directories must print and write exactly what it did for the trained one, with every
     weight bit-identical.
The memory network (MEMORY_CASES: memn2n with position and temporal encoding, and without
either) goes the same way on a bAbI task the script writes (people moving between places,
"Where is Mary?"; stories longer than the memory, so that its oldest statements drop out):
  1. `heed train` a few steps, `heed export`, the reference module (tools/reference/memory.py's
     MemN2N) from the export's metadata,
  2. `heed eval --attention` on the test questions; PyTorch answers the same questions
     (make_batch of the same word ids): every answer heed gives must be PyTorch's argmax, its
     probability softmax(PyTorch's logits)'s and every hop's attention PyTorch's (the JSON
     holds both in full precision),
  3. PyTorch saves the state_dict back (plain and with the export's metadata), `heed import`
     (--config and --vocab, its one vocabulary, given; and from the metadata), and `heed eval`
     on the imported directories must print (but for the line naming the directory) and write
     exactly what it did for the trained one, with every weight bit-identical.
tests/store/interop_test.cpp compares the logits themselves with PyTorch's on committed
fixtures.

Needs python3-torch (Debian) and a built heed; not run by CI (tests/store/interop_test.cpp
checks committed fixtures there). Usage:
  /usr/bin/python3 tools/interop_roundtrip.py --heed build/heed [--dtype f32|f64] [--keep DIR]
                                              [--only text|images|memory]
"""
import argparse
import gzip
import json
import os
import random
import shutil
import struct
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


# ---------------------------------------------------------------- the image kinds

# name -> (kind, reference keywords (heed_torch.heed_model_config makes the model: section)).
# fc and cnn take the image size from the training images, as heed train fills it.
IMAGE_CASES = {
    "image fc": ("fc", dict(image_height=0, image_width=0, fc_layers=1, fc_hidden=16)),
    "image cnn": ("cnn", dict(image_height=0, image_width=0, conv_layers=2, conv_channels=4)),
    "image ram": ("ram", dict(glimpses=3, glimpse_size=4, scales=2, glimpse_hidden=16,
                              location_hidden=8, glimpse_dim=16, core="rnn", core_hidden=16)),
    "image ram lstm": ("ram", dict(glimpses=4, glimpse_size=2, scales=3, glimpse_hidden=12,
                                   location_hidden=6, glimpse_dim=12, core="lstm",
                                   core_hidden=10)),
    "image2seq soft": ("image2seq", dict(emb_dim=6, dec_hidden=12, attn_dim=8, conv_layers=2,
                                         conv_channels=4, attention="soft")),
    "image2seq none": ("image2seq", dict(emb_dim=6, dec_hidden=12, conv_layers=2,
                                         conv_channels=4, attention="none")),
    "image2seq hard": ("image2seq", dict(emb_dim=6, dec_hidden=12, attn_dim=8, conv_layers=2,
                                         conv_channels=4, attention="hard",
                                         hard_eval="argmax")),
}
QUADRANTS = ["top-left", "top-right", "bottom-left", "bottom-right"]
SIDE = 16


def write_idx_images(path, images):
    """images: a list of SIDE x SIDE lists of bytes -> gzipped IDX (magic 0x803)."""
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">IIII", 0x803, len(images), SIDE, SIDE))
        for im in images:
            f.write(bytes(v for row in im for v in row))


def write_image_task(d, sequences):
    """train/test sets of canvases: one square (classifiers) or one or two squares in
    distinct quadrants (sequences), the targets their quadrants in reading order. A
    classifier's test images are harder: two squares of random brightness, the target the
    brighter one's quadrant, so that many predictions are close calls that a small
    difference between heed and PyTorch would change. Returns the test images as lists of
    rows."""
    rng = random.Random(9)
    test = None
    for split, n in (("train", 400), ("test", 60)):
        images, targets = [], []
        for _ in range(n):
            im = [[0] * SIDE for _ in range(SIDE)]
            two = sequences or split == "test"
            qs = sorted(rng.sample(range(4), rng.randint(1, 2) if sequences else 1 + two))
            level = {q: 255 if sequences or not two else rng.randint(60, 255) for q in qs}
            for q in qs:
                r0, c0 = (q // 2) * 8 + rng.randint(0, 4), (q % 2) * 8 + rng.randint(0, 4)
                for r in range(r0, r0 + 4):
                    for c in range(c0, c0 + 4):
                        im[r][c] = level[q]
            images.append(im)
            if not sequences:
                qs = [max(qs, key=lambda q: level[q])]
            targets.append(" ".join(QUADRANTS[q] for q in qs))
        write_idx_images(os.path.join(d, f"{split}-images-idx3-ubyte.gz"), images)
        with open(os.path.join(d, f"{split}.tgt"), "w") as f:
            f.write("".join(t + "\n" for t in targets))
        test = images
    return test


def image_config(d, section, dtype, steps):
    section = {k: v for k, v in section.items() if not (k.startswith("image_") and v == 0)}
    lines = ["data:", f"  train_images: {d}/train-images-idx3-ubyte.gz",
             f"  train_target: {d}/train.tgt", "model:"]
    lines += [f"  {k}: {json.dumps(v)}" for k, v in section.items()]
    lines += ["training:", "  lr: 0.01", "  max_sentences: 32", "  max_epochs: 0",
              f"  max_steps: {steps}", f"  validate_every: {steps}", f"  dtype: {dtype}",
              "  threads: 1", f"output: {d}/trained"]
    path = os.path.join(d, "config.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def image_case(torch, ref, heed_torch, heed, d, kind, kw, dtype, steps):
    """One image case: returns (tensors, bits same, outputs same, heed == PyTorch, max
    |difference| of the numbers compared (ram: locations, image2seq: attention; nan when
    none), what they were)."""
    test = write_image_task(d, kind == "image2seq")
    cfg = image_config(d, heed_torch.heed_model_config(kind, kw), dtype, steps)
    run([heed, "train", cfg])
    trained, exported = f"{d}/trained", f"{d}/export.safetensors"
    run([heed, "export", "--model", trained, "--out", exported])
    state, meta = heed_torch.load(exported)
    model = heed_torch.build_reference(meta)
    model.load_state_dict(state)
    back, back_meta = f"{d}/back.safetensors", f"{d}/back_meta.safetensors"
    heed_torch.save(model.state_dict(), back)
    heed_torch.save(model.state_dict(), back_meta, meta)
    imported, imported_meta = f"{d}/imported", f"{d}/imported_meta"
    run([heed, "import", "--from-pytorch", back, "--config", f"{trained}/config.yaml",
         "--tgt-vocab", f"{trained}/tgt.vocab", "--out", imported])
    run([heed, "import", "--from-pytorch", back_meta, "--out", imported_meta])

    flag = "--attention" if kind == "image2seq" else "--locations"
    outs = {}
    for tag, m in (("trained", trained), ("imported", imported), ("imported_meta", imported_meta)):
        # The same file each time (the summary names it), then kept under the tag's name.
        printed = run([heed, "eval", "--model", m, "--images", f"{d}/test-images-idx3-ubyte.gz",
                       flag, f"{d}/eval.jsonl"])
        os.replace(f"{d}/eval.jsonl", f"{d}/{tag}.jsonl")
        outs[tag] = (printed, open(f"{d}/{tag}.jsonl").read())
    same_outputs = outs["trained"] == outs["imported"] == outs["imported_meta"]
    a, _ = heed_torch.load(f"{trained}/best.safetensors")
    b, _ = heed_torch.load(f"{imported}/best.safetensors")
    c, _ = heed_torch.load(f"{imported_meta}/best.safetensors")
    bits = list(a) == list(b) == list(c) and \
        all(torch.equal(a[k], b[k]) and torch.equal(a[k], c[k]) for k in a)

    pdtype = next(model.parameters()).dtype
    images = torch.tensor(test, dtype=torch.float64).unsqueeze(1).div(255).to(pdtype)
    records = [json.loads(l) for l in open(f"{d}/imported.jsonl") if l.strip()]  # image order
    classes = meta["heed.tgt_vocab"].splitlines()
    diffs, agree = [], True
    with torch.no_grad():
        if kind != "image2seq":
            logits, locations = (model(images), None) if kind != "ram" else \
                (lambda out: (out[0], out[3]))(model.run(images))
            agree = all(classes[int(p) + 4] == r["predicted"]
                        for p, r in zip(logits.argmax(1), records))
            # heed's class probabilities (printed in full) against softmax(PyTorch's logits).
            theirs = torch.tensor([r["probabilities"] for r in records], dtype=pdtype)
            diffs.append(float((logits.softmax(1) - theirs).abs().max()))
            if kind == "ram":   # and where each glimpse looked, l_0..l_{T-1}
                mine = torch.stack(locations, 1)                              # (N, T, 2)
                theirs = torch.tensor([r["paths"][0] for r in records], dtype=pdtype)
                diffs.append(float((mine - theirs).abs().max()))
        else:
            ids = {w: i for i, w in enumerate(classes)}
            for n, r in enumerate(records):
                enc, st = model.encode(images[n:n + 1])
                y = torch.tensor([ref.BOS])
                words = r["output"].split()
                if len(words) < 20:          # heed eval's --max-len 20 counts EOS
                    words.append("</s>")
                for t, w in enumerate(words):
                    logits, st, alpha = model.step(y, st, enc)
                    agree &= int(logits.argmax(1)) == ids[w]
                    if alpha is not None and t < len(r["attention"]):
                        row = torch.tensor(r["attention"][t], dtype=pdtype)
                        diffs.append(float((row - alpha[0]).abs().max()))
                    y = torch.tensor([ids[w]])
            # An untrained decoder that only says EOS would leave no attention to compare.
            if model.mode != "none" and not diffs:
                agree = False
    # What heed eval printed first: the test error or the sequence accuracy.
    summary = outs["trained"][0].split(" (")[0]
    return len(b), bits, same_outputs, agree, max(diffs) if diffs else float("nan"), summary


# ---------------------------------------------------------------- the memory network

# name -> the reference's keywords (heed_torch.heed_model_config makes the model: section).
# memory_size 8 keeps fewer statements than most stories hold before their last question.
MEMORY_CASES = {
    "memn2n": dict(d=16, hops=3, memory_size=8, position_encoding=True, temporal_encoding=True),
    "memn2n plain": dict(d=16, hops=2, memory_size=8, position_encoding=False,
                         temporal_encoding=False),
}
PEOPLE = ["Mary", "John", "Sandra", "Daniel"]
PLACES = ["kitchen", "garden", "hallway", "bathroom", "office"]


def write_babi_task(d):
    """babi/qa1_moves_{train,test}.txt: stories of people moving between places, three
    questions each ("Where is Mary?" after 2 to 6 new statements), supported by the person's
    last move."""
    rng = random.Random(11)
    os.makedirs(os.path.join(d, "babi"))
    for split, stories in (("train", 150), ("test", 30)):
        lines = []
        for _ in range(stories):
            where, n = {}, 0
            for _ in range(3):
                for _ in range(rng.randint(2, 6)):
                    n += 1
                    person = rng.choice(PEOPLE)
                    place = rng.choice([p for p in PLACES if p != where.get(person, ("",))[0]])
                    where[person] = (place, n)
                    lines.append(f"{n} {person} went to the {place}.")
                n += 1
                person = rng.choice(sorted(where))
                lines.append(f"{n} Where is {person}? \t{where[person][0]}\t{where[person][1]}")
        with open(os.path.join(d, "babi", f"qa1_moves_{split}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


def memory_config(d, section, dtype, steps):
    lines = ["data:", "  babi:", f"    dir: {d}/babi", "    tasks: '1'", "    dev_fraction: 0.1",
             "model:"]
    lines += [f"  {k}: {json.dumps(v)}" for k, v in section.items()]
    lines += ["training:", "  optimizer: adam", "  lr: 0.01", "  max_sentences: 32",
              f"  max_steps: {steps}", f"  validate_every: {steps}", f"  dtype: {dtype}",
              "  threads: 1", f"output: {d}/trained"]
    path = os.path.join(d, "config.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def memory_case(torch, ref, heed_torch, heed, d, kw, dtype, steps):
    """One memory network case: returns (tensors, bits same, outputs same, heed == PyTorch,
    max |probability difference|, max |attention difference|, heed eval's mean error)."""
    write_babi_task(d)
    cfg = memory_config(d, heed_torch.heed_model_config("memn2n", kw), dtype, steps)
    run([heed, "train", cfg])
    trained, exported = f"{d}/trained", f"{d}/export.safetensors"
    run([heed, "export", "--model", trained, "--out", exported])
    state, meta = heed_torch.load(exported)
    model = heed_torch.build_reference(meta)
    model.load_state_dict(state)
    back, back_meta = f"{d}/back.safetensors", f"{d}/back_meta.safetensors"
    heed_torch.save(model.state_dict(), back)
    heed_torch.save(model.state_dict(), back_meta, meta)
    imported, imported_meta = f"{d}/imported", f"{d}/imported_meta"
    run([heed, "import", "--from-pytorch", back, "--config", f"{trained}/config.yaml",
         "--vocab", f"{trained}/src.vocab", "--out", imported])
    run([heed, "import", "--from-pytorch", back_meta, "--out", imported_meta])

    outs = {}
    for tag, m in (("trained", trained), ("imported", imported), ("imported_meta", imported_meta)):
        printed = run([heed, "eval", "--model", m, "--babi", f"{d}/babi", "--attention",
                       f"{d}/{tag}.jsonl"])
        # The first line names the model directory and its weights file; the last the JSON.
        body = printed.splitlines()[1:-1]
        outs[tag] = (body, open(f"{d}/{tag}.jsonl").read())
    same_outputs = outs["trained"] == outs["imported"] == outs["imported_meta"]
    a, _ = heed_torch.load(f"{trained}/best.safetensors")
    b, _ = heed_torch.load(f"{imported}/best.safetensors")
    c, _ = heed_torch.load(f"{imported_meta}/best.safetensors")
    bits = list(a) == list(b) == list(c) and \
        all(torch.equal(a[k], b[k]) and torch.equal(a[k], c[k]) for k in a)

    ids = {w: i for i, w in enumerate(meta["heed.src_vocab"].splitlines())}
    records = [json.loads(l) for l in open(f"{d}/imported.jsonl") if l.strip()]
    examples = [([[ids.get(w, ref.UNK) for w in s] for s in r["story"]],
                 [ids.get(w, ref.UNK) for w in r["question"]], ids.get(r["answer"], ref.UNK))
                for r in records]
    memory, counts, time, question, _ = ref.make_batch(examples, model.memory_size)
    with torch.no_grad():
        logits, p = model(memory, counts, time, question)
    probs = logits.softmax(1)
    agree, prob_diff, attn_diff = True, 0.0, 0.0
    for i, r in enumerate(records):
        n = int(counts[i])
        # heed keeps the same last memory_size statements: story[first:].
        agree &= r["first"] == len(r["story"]) - n and len(r["hops"]) == model.hops
        agree &= int(logits[i].argmax()) == ids[r["predicted"]]
        prob_diff = max(prob_diff, abs(float(probs[i, ids[r["predicted"]]]) - r["probability"]))
        for k, hop in enumerate(r["hops"]):
            theirs = torch.tensor(hop, dtype=p.dtype)
            agree &= len(hop) == n
            attn_diff = max(attn_diff, float((p[k, i, :n] - theirs).abs().max()) if n else 0.0)
    error = next(l for l in outs["trained"][0] if l.startswith("mean error")).split(" over")[0]
    return len(b), bits, same_outputs, agree, prob_diff, attn_diff, error


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--heed", default=os.path.join(REPO, "build", "heed"))
    ap.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--image2seq-steps", type=int, default=300,
                    help="image2seq's training steps: enough to emit words, whose attention "
                         "is compared")
    ap.add_argument("--keep", help="work here and keep the files (default: a temporary folder)")
    ap.add_argument("--memory-steps", type=int, default=200,
                    help="memn2n's training steps: enough to answer better than chance")
    ap.add_argument("--only", choices=["text", "images", "memory"],
                    help="only the text kinds' cases, the image kinds' or the memory network's "
                         "(default: all)")
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
    if args.only in (None, "text"):
        print(f"{'case':28} {'tensors':>7} {'bits':>5} {'tokens':>6} {'max|score|':>11} "
              f"{'max|attn|':>10}")
    for case, (kind, kw, _) in (mmg.CASES.items() if args.only in (None, "text") else []):
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
    n_cases = len(mmg.CASES) if args.only in (None, "text") else 0
    if args.only in (None, "images"):
        print(f"{'' if args.only else chr(10)}{'case':28} {'tensors':>7} {'bits':>5} "
              f"{'outputs':>7} {'pytorch':>7} "
              f"{'max|diff|':>10}  heed eval (classifiers: probabilities and ram's locations, "
              f"image2seq: attention)")
    # Probabilities and locations are printed in full; the attention rounded to float32.
    tol_full = 1e-5 if args.dtype == "f32" else 1e-12
    for case, (kind, kw) in (IMAGE_CASES.items() if args.only in (None, "images") else []):
        n_cases += 1
        d = os.path.join(root, case.replace(" ", "_"))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        tensors, bits, same, agree, diff, summary = image_case(
            torch, ref, heed_torch, heed, d, kind, kw, args.dtype,
            args.image2seq_steps if kind == "image2seq" else args.steps)
        ok = bits and same and agree and \
            not (diff > (tol_full if kind != "image2seq" else 1e-6))
        if not ok:
            failures.append(case)
        print(f"{case:28} {tensors:7d} {'same' if bits else 'DIFF':>5} "
              f"{'same' if same else 'DIFF':>7} {'agrees' if agree else 'DIFF':>7} "
              f"{diff:10.3g}  {summary}{'' if ok else '  MISMATCH'}")
    if args.only in (None, "memory"):
        print(f"{'' if args.only else chr(10)}{'case':28} {'tensors':>7} {'bits':>5} "
              f"{'outputs':>7} {'pytorch':>7} {'max|prob|':>10} {'max|attn|':>10}  heed eval")
    for case, kw in (MEMORY_CASES.items() if args.only in (None, "memory") else []):
        n_cases += 1
        d = os.path.join(root, case.replace(" ", "_"))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        tensors, bits, same, agree, prob_diff, attn_diff, error = memory_case(
            torch, ref, heed_torch, heed, d, kw, args.dtype, args.memory_steps)
        ok = bits and same and agree and not (prob_diff > tol_full) and \
            not (attn_diff > tol_full)
        if not ok:
            failures.append(case)
        print(f"{case:28} {tensors:7d} {'same' if bits else 'DIFF':>5} "
              f"{'same' if same else 'DIFF':>7} {'agrees' if agree else 'DIFF':>7} "
              f"{prob_diff:10.3g} {attn_diff:10.3g}  {error}{'' if ok else '  MISMATCH'}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        sys.exit(f"mismatch: {', '.join(failures)}")
    print(f"all {n_cases} cases round-trip (heed {args.dtype}, score tolerance {tol:g})")


if __name__ == "__main__":
    main()
