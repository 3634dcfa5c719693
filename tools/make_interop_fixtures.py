#!/usr/bin/python3
"""Writes the PyTorch -> heed fixtures tests/golden/interop_<case>[.logits].safetensors.

For every model case of tools/make_model_goldens.py (every kind and score the model goldens
cover), at the same tiny sizes, a reference model (tools/reference/models.py) is built from
torch.manual_seed and saved by tools/heed_torch.py exactly as a PyTorch user would save it for
`heed import`:

  interop_<case>.safetensors         the state_dict, in one of F32, F64, BF16, F16 (the cases
                                     take them in turn), with the metadata heed export
                                     writes: heed.config (a heed training config whose
                                     model: section describes the architecture),
                                     heed.src_vocab, heed.tgt_vocab, heed.model_config
  interop_<case>.logits.safetensors  F64: in.src, in.src_len, in.tgt_in (the batch of
                                     make_model_goldens.py) and out.logits (B, n, V): the
                                     reference's forward in float64 with the stored (rounded)
                                     weights

and for the image kinds (tools/reference/images.py; IMAGE_CASES below: fc, cnn, ram with an
RNN and an LSTM core, image2seq with soft, hard and no attention), likewise with a config
whose data section reads images and only heed.tgt_vocab (the classes, or image2seq's words):

  interop_<case>.logits.safetensors  F64: in.images (B, 1, H, W), pixel / 255 of small
                                     random images; image2seq also in.tgt_in; out.logits:
                                     the classifiers' test pass (B, classes) (ram: the mean
                                     locations) or image2seq's teacher-forced (B, n, V)

A ram case is drawn again (the next seed) until every location it looks at is at least
1e-3 pixels from where the sensor's rounding changes, and a hard-attention case until every
step's largest weight leads the next by 1e-3: heed's float32 models must pick the same pixels
and cells as the float64 reference.

and for the memory network (tools/reference/memory.py's MemN2N; MEMORY_CASES below: with
position and temporal encoding over three hops, and a bag of words over one), with a config
whose data section reads bAbI and the one vocabulary under both heed.src_vocab and
heed.tgt_vocab:

  interop_<case>.logits.safetensors  F64: in.memory, in.counts, in.time, in.question,
                                     in.answer (make_batch of three stories of 3, 1 and 9
                                     statements, the last keeping memory_size of them) and
                                     out.logits (B, V), out.p (K, B, S): forward in float64

and for the speech model (tools/reference/speech.py's Las; SPEECH_CASES below: an LSTM
listener of three layers over a pyramid of 4, a GRU one of two over 2, and that one with a
CTC head trained jointly, ctc_weight 0.3), with a config whose
data section reads a .tsv manifest and only heed.tgt_vocab:

  interop_<case>.logits.safetensors  F64: in.frames (B, T, F) zero after each row's
                                     in.frame_len frames, in.tgt_in, in.tgt_out;
                                     out.logits (B, n, V) teacher forced, out.loss (the mean
                                     cross-entropy over the real target tokens; with a CTC
                                     head the joint training loss) and
                                     out.grad.<name>, its gradient for every parameter, in
                                     float64 with the stored weights

tests/store/interop_test.cpp imports each state through heed's import code path and compares
heed's logits with out.logits. Usage: /usr/bin/python3 tools/make_interop_fixtures.py [--out DIR]
"""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

STORE = ["F32", "F64", "BF16", "F16"]  # the state's dtype, case i takes STORE[i % 4]
# The model cases of make_model_goldens.py that came before the image cases (the numbering of
# seeds and dtypes: models, images, memory networks, then the later model cases).
MODEL_CASES_BEFORE_IMAGES = 9


def vocab_text(size):
    """A vocabulary file of size entries: the four specials, then letters."""
    return "\n".join(["<pad>", "<s>", "</s>", "<unk>"]
                     + [chr(ord("a") + i) for i in range(size - 4)]) + "\n"


# name -> (kind, reference constructor keywords, image height, width). The classifiers'
# classes and image2seq's words are the target vocabulary: IMAGE_TGT_V entries.
IMAGE_CASES = {
    "interop_fc": ("fc", dict(image_height=7, image_width=6, fc_layers=2, fc_hidden=5), 7, 6),
    "interop_cnn": ("cnn", dict(image_height=9, image_width=8, conv_layers=2, conv_channels=3),
                    9, 8),
    "interop_ram": ("ram", dict(glimpses=3, glimpse_size=3, scales=2, glimpse_hidden=6,
                                location_hidden=4, glimpse_dim=5, core="rnn", core_hidden=6,
                                location_std=0.15), 11, 9),
    "interop_ram_lstm": ("ram", dict(glimpses=4, glimpse_size=2, scales=3, glimpse_hidden=5,
                                     location_hidden=3, glimpse_dim=6, core="lstm",
                                     core_hidden=5, location_std=0.2), 10, 12),
    "interop_image2seq": ("image2seq", dict(emb_dim=5, dec_hidden=6, attn_dim=4, out_dim=7,
                                            conv_layers=2, conv_channels=2, attention="soft"),
                          8, 12),
    "interop_image2seq_none": ("image2seq", dict(emb_dim=5, dec_hidden=6, out_dim=7,
                                                 conv_layers=2, conv_channels=2,
                                                 attention="none"), 8, 12),
    "interop_image2seq_hard": ("image2seq", dict(emb_dim=4, dec_hidden=5, attn_dim=6,
                                                 conv_layers=1, conv_channels=3,
                                                 attention="hard", hard_eval="argmax"), 6, 8),
}
IMAGE_B, IMAGE_TGT_V = 3, 9
IMAGE_TGT_LEN = [4, 2, 3]     # image2seq decoder inputs, BOS first, then padding


# name -> the MemN2N keywords after vocab (heed_torch.heed_model_config makes the section).
MEMORY_CASES = {
    "interop_memn2n": dict(d=5, hops=3, memory_size=6, position_encoding=True,
                           temporal_encoding=True),
    "interop_memn2n_plain": dict(d=4, hops=1, memory_size=6, position_encoding=False,
                                 temporal_encoding=False),
}
MEMORY_V = 12
MEMORY_STATEMENTS = [[3, 1, 4], [2], [2, 3, 1, 4, 2, 3, 1, 2, 3]]  # words per statement
MEMORY_QUESTIONS = [3, 2, 4]


# name -> the Las keywords after tgt_vocab (feature_dim SPEECH_F). Frames per utterance:
# SPEECH_FRAMES (odd counts: every joining layer pairs a last step with zeros).
SPEECH_CASES = {
    "interop_las": dict(emb_dim=5, enc_hidden=3, enc_layers=3, pyramid=4, cell="lstm",
                        dec_hidden=6, attn_dim=4, out_dim=7),
    "interop_las_gru": dict(emb_dim=4, enc_hidden=4, enc_layers=2, pyramid=2, cell="gru",
                            dec_hidden=5, attn_dim=3),
    "interop_las_ctc": dict(emb_dim=4, enc_hidden=3, enc_layers=2, pyramid=2, cell="gru",
                            dec_hidden=5, attn_dim=3, ctc_weight=0.3),
    "interop_las_frontend": dict(emb_dim=4, enc_hidden=3, enc_layers=2, pyramid=2, cell="gru",
                                 dec_hidden=5, attn_dim=3, frontend_layers=2,
                                 frontend_channels=2),
}
SPEECH_F, SPEECH_TGT_V = 6, 9
SPEECH_FRAMES = [11, 5, 8]
SPEECH_TGT_LEN = [4, 2, 3]    # decoder inputs, BOS first, then padding


def config_text(model_section, dtype, images=False, babi=False, speech=False):
    """A heed training config (docs/CONFIG.md) for the model section; data paths are never read."""
    if speech:
        data = ["  train_manifest: train.tsv"]
    elif babi:
        data = ["  babi:", "    dir: babi"]
    else:
        data = ["  train_images: train-images-idx3-ubyte.gz"] if images else \
            ["  train_source: train.src"]
    if not (babi or speech):
        data.append("  train_target: train.tgt")
    if speech:  # the features' bins are the listener's feature_dim
        data += ["  audio:", f"    mels: {model_section['feature_dim']}"]
    lines = ["data:"] + data + ["model:"]
    lines += [f"  {k}: {json.dumps(v)}" for k, v in model_section.items()]
    lines += ["training:", f"  dtype: {dtype}", "output: model"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "golden"))
    args = ap.parse_args()

    import torch
    import heed_torch
    import make_goldens
    import make_model_goldens as mmg
    import reference
    make_goldens.torch = mmg.torch = torch
    mmg.ref = reference
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    os.makedirs(args.out, exist_ok=True)
    for k, (case, (kind, kw, _)) in enumerate(mmg.CASES.items()):
        name = case.replace("models_", "interop_")
        # The model cases made after the image and memory cases number after them, so that
        # every earlier fixture keeps its seed and dtype.
        i = k if k < MODEL_CASES_BEFORE_IMAGES else k + len(IMAGE_CASES) + len(MEMORY_CASES)
        store = STORE[i % len(STORE)]
        heed_dtype = "f64" if i % 2 == 0 else "f32"   # the model dtype heed converts to
        src_v, tgt_v = mmg.vocab_sizes(kw)
        torch.manual_seed(300 + i)
        model = reference.build_model(kind, src_vocab=src_v, tgt_vocab=tgt_v, **kw)
        # One name per tensor (a tied weight under its first name, as named_parameters() and
        # safetensors' save_model keep it): the state a user can write to safetensors.
        keep = set(dict(model.named_parameters())) | set(dict(model.named_buffers()))
        state = {k: v.detach().to(heed_torch.DTYPES[store]) for k, v in
                 model.state_dict().items() if k in keep}
        # The reference in float64 with exactly the stored values.
        model = model.double()
        result = model.load_state_dict({k: v.double() for k, v in state.items()}, strict=False)
        assert not result.unexpected_keys and set(result.missing_keys) <= \
            set(model.state_dict()) - keep, result         # only the tied copies
        model.eval()
        gen = torch.Generator().manual_seed(4000 + i)
        src, src_len, tgt_in, _ = mmg.make_batch(gen, src_v)
        with torch.no_grad():
            logits = model(src, src_len, tgt_in)

        section = heed_torch.heed_model_config(kind, kw)
        meta = {"format": "pt", "heed.model": kind,
                "heed.model_config": json.dumps(dict(section, src_vocab=src_v,
                                                     tgt_vocab=tgt_v)),
                "heed.config": config_text(section, heed_dtype),
                "heed.src_vocab": vocab_text(src_v), "heed.tgt_vocab": vocab_text(tgt_v),
                "heed.dtype": heed_dtype,
                "interop.case": f"{case}: reference.build_model({kind!r}, src_vocab={src_v}, "
                                f"tgt_vocab={tgt_v}, " + ", ".join(
                                    f"{k}={v!r}" for k, v in kw.items())
                                + f") after torch.manual_seed({300 + i}), saved as {store}",
                "torch": torch.__version__}
        path = os.path.join(args.out, name + ".safetensors")
        heed_torch.save(state, path, meta)
        make_goldens.write_safetensors(
            os.path.join(args.out, name + ".logits.safetensors"),
            [("in.src", src), ("in.src_len", src_len), ("in.tgt_in", tgt_in),
             ("out.logits", logits)],
            {"case": name, "logits": "the reference's forward(src, src_len, tgt_in) in float64 "
                                     f"with the {store} weights of {name}.safetensors",
             "torch": torch.__version__})
        print(f"{path}: {len(state)} tensors as {store}, heed dtype {heed_dtype}")

    first = MODEL_CASES_BEFORE_IMAGES
    for j, (name, (kind, kw, H, W)) in enumerate(IMAGE_CASES.items()):
        i = first + j
        write_image_case(args.out, name, kind, kw, H, W, i, torch, heed_torch, make_goldens,
                         reference)
    first += len(IMAGE_CASES)
    for j, (name, kw) in enumerate(MEMORY_CASES.items()):
        write_memory_case(args.out, name, kw, first + j, torch, heed_torch, make_goldens,
                          reference)
    first += len(MEMORY_CASES)
    for j, (name, kw) in enumerate(SPEECH_CASES.items()):
        write_speech_case(args.out, name, kw, first + j, torch, heed_torch, make_goldens,
                          reference)


def write_speech_case(out, name, kw, i, torch, heed_torch, make_goldens, reference):
    store = STORE[i % len(STORE)]
    heed_dtype = "f64" if i % 2 == 0 else "f32"
    gen = torch.Generator().manual_seed(5000 + i)
    B, T = len(SPEECH_FRAMES), max(SPEECH_FRAMES)
    frames = torch.randn(B, T, SPEECH_F, generator=gen, dtype=torch.float64)
    frame_len = torch.tensor(SPEECH_FRAMES, dtype=torch.long)
    frames = frames * length_mask(frame_len, T, torch).unsqueeze(2)
    n = max(SPEECH_TGT_LEN)
    tgt_in = torch.zeros(B, n, dtype=torch.long)
    tgt_out = torch.zeros(B, n, dtype=torch.long)
    for b, m in enumerate(SPEECH_TGT_LEN):
        words = torch.randint(4, SPEECH_TGT_V, (m - 1,), generator=gen)
        tgt_in[b, 0] = reference.BOS
        tgt_in[b, 1:m] = words
        tgt_out[b, :m - 1] = words
        tgt_out[b, m - 1] = reference.EOS
    full_kw = dict(kw, tgt_vocab=SPEECH_TGT_V, feature_dim=SPEECH_F)
    seed = 300 + i
    torch.manual_seed(seed)
    model = reference.build_model("las", **full_kw)
    state = {k: v.detach().to(heed_torch.DTYPES[store]) for k, v in model.state_dict().items()}
    model = model.double()
    model.load_state_dict({k: v.double() for k, v in state.items()})
    model.eval()
    logits = model(frames, frame_len, tgt_in)
    loss = model.loss(frames, frame_len, tgt_in, tgt_out)   # with the CTC term when ctc_weight
    loss.backward()
    grads = [("out.grad." + k, p.grad.detach()) for k, p in model.named_parameters()]

    section = heed_torch.heed_model_config("las", full_kw)
    tgt_vocab = "\n".join(["<pad>", "<s>", "</s>", "<unk>"]
                          + [chr(ord("a") + k) for k in range(SPEECH_TGT_V - 4)]) + "\n"
    meta = {"format": "pt", "heed.model": "las",
            "heed.model_config": json.dumps(dict(section, src_vocab=0, tgt_vocab=SPEECH_TGT_V)),
            "heed.config": config_text(section, heed_dtype, speech=True),
            "heed.tgt_vocab": tgt_vocab, "heed.dtype": heed_dtype,
            "interop.case": f"{name}: reference.build_model('las', " + ", ".join(
                f"{k}={v!r}" for k, v in full_kw.items())
                            + f") after torch.manual_seed({seed}), saved as {store}",
            "torch": torch.__version__}
    path = os.path.join(out, name + ".safetensors")
    heed_torch.save(state, path, meta)
    make_goldens.write_safetensors(
        os.path.join(out, name + ".logits.safetensors"),
        [("in.frames", frames), ("in.frame_len", frame_len), ("in.tgt_in", tgt_in),
         ("in.tgt_out", tgt_out), ("out.logits", logits.detach()), ("out.loss", loss.detach())]
        + grads,
        {"case": name, "logits": "the reference's forward(frames, frame_len, tgt_in) in float64 "
                                 f"with the {store} weights of {name}.safetensors; out.loss "
                                 "the training loss model.loss(frames, frame_len, tgt_in, tgt_out) (the mean "
                                 "cross-entropy; with ctc_weight the joint loss), out.grad.<name> "
                                 "its gradients",
         "torch": torch.__version__})
    print(f"{path}: {len(state)} tensors as {store}, heed dtype {heed_dtype}")


def length_mask(lengths, width, torch):
    return (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)).double()


def write_memory_case(out, name, kw, i, torch, heed_torch, make_goldens, reference):
    store = STORE[i % len(STORE)]
    heed_dtype = "f64" if i % 2 == 0 else "f32"
    gen = torch.Generator().manual_seed(5000 + i)

    def words(n):
        return torch.randint(4, MEMORY_V, (n,), generator=gen).tolist()
    examples = [([words(n) for n in lengths], words(q), words(1)[0])
                for lengths, q in zip(MEMORY_STATEMENTS, MEMORY_QUESTIONS)]
    memory, counts, time, question, answer = reference.make_batch(examples, kw["memory_size"])
    seed = 300 + i
    torch.manual_seed(seed)
    model = reference.build_model("memn2n", vocab=MEMORY_V, **kw)
    # Wider than the model's N(0, 0.1^2), so that the attention is far from uniform.
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.5)
    state = {k: v.detach().to(heed_torch.DTYPES[store]) for k, v in model.state_dict().items()}
    model = model.double()
    model.load_state_dict({k: v.double() for k, v in state.items()})
    model.eval()
    with torch.no_grad():
        logits, p = model(memory, counts, time, question)

    section = heed_torch.heed_model_config("memn2n", kw)
    vocab = vocab_text(MEMORY_V)
    meta = {"format": "pt", "heed.model": "memn2n",
            "heed.model_config": json.dumps(dict(section, src_vocab=MEMORY_V,
                                                 tgt_vocab=MEMORY_V)),
            "heed.config": config_text(section, heed_dtype, babi=True),
            "heed.src_vocab": vocab, "heed.tgt_vocab": vocab, "heed.dtype": heed_dtype,
            "interop.case": f"{name}: reference.build_model('memn2n', vocab={MEMORY_V}, "
                            + ", ".join(f"{k}={v!r}" for k, v in kw.items())
                            + f") after torch.manual_seed({seed}), weights N(0, 0.5^2), "
                            f"saved as {store}",
            "torch": torch.__version__}
    path = os.path.join(out, name + ".safetensors")
    heed_torch.save(state, path, meta)
    make_goldens.write_safetensors(
        os.path.join(out, name + ".logits.safetensors"),
        [("in.memory", memory), ("in.counts", counts), ("in.time", time),
         ("in.question", question), ("in.answer", answer), ("out.logits", logits),
         ("out.p", p)],
        {"case": name, "logits": "the reference's forward(memory, counts, time, question) in "
                                 f"float64 with the {store} weights of {name}.safetensors: "
                                 "out.logits (B, V), out.p (K, B, S)",
         "torch": torch.__version__})
    print(f"{path}: {len(state)} tensors as {store}, heed dtype {heed_dtype}")


def image_margin(model, kind, images, torch):
    """How far the float64 reference is from a decision that float32 could take the other
    way: ram, the distance in pixels of every patch origin it computes (before the floor) to
    the nearest integer; hard attention, the least lead of a step's largest weight over the
    next. inf for the other cases."""
    if kind == "ram":
        _, _, _, locations = model.run(images)
        H, W = images.shape[2], images.shape[3]
        worst = float("inf")
        for l in locations[1:]:                  # l_0 = (0, 0) is exact in any dtype
            for i in range(model.scales):
                side = model.glimpse_size << i
                for extent, col in ((H, 0), (W, 1)):
                    v = (l[:, col] + 1) * 0.5 * extent - 0.5 * side + 0.5
                    worst = min(worst, float((v - v.round()).abs().min()))
        return worst
    if kind == "image2seq" and model.mode == "hard":
        return model.hard_margin
    return float("inf")


def write_image_case(out, name, kind, kw, H, W, i, torch, heed_torch, make_goldens, reference):
    store = STORE[i % len(STORE)]
    heed_dtype = "f64" if i % 2 == 0 else "f32"
    classifier = kind != "image2seq"
    tgt_v = IMAGE_TGT_V
    full_kw = dict(kw, classes=tgt_v - 4) if classifier else dict(kw, tgt_vocab=tgt_v)
    gen = torch.Generator().manual_seed(5000 + i)
    images = torch.randint(0, 256, (IMAGE_B, 1, H, W), generator=gen).double() / 255
    tgt_in = torch.zeros(IMAGE_B, max(IMAGE_TGT_LEN), dtype=torch.long)
    for b, n in enumerate(IMAGE_TGT_LEN):
        tgt_in[b, 0] = reference.BOS
        tgt_in[b, 1:n] = torch.randint(4, tgt_v, (n - 1,), generator=gen)
    for seed in range(300 + i, 300 + i + 1000):
        torch.manual_seed(seed)
        model = reference.build_model(kind, **full_kw)
        # One name per tensor (a tied weight under its first name, as named_parameters() and
        # safetensors' save_model keep it): the state a user can write to safetensors.
        keep = set(dict(model.named_parameters())) | set(dict(model.named_buffers()))
        state = {k: v.detach().to(heed_torch.DTYPES[store]) for k, v in
                 model.state_dict().items() if k in keep}
        # The reference in float64 with exactly the stored values.
        model = model.double()
        model.load_state_dict({k: v.double() for k, v in state.items()})
        model.eval()
        with torch.no_grad():
            if classifier:
                logits = model(images)
            else:
                logits = model(images, tgt_in)
                if model.mode == "hard":
                    enc, st = model.encode(images)
                    lead = float("inf")
                    for y in tgt_in.unbind(1):
                        _, st, alpha = model.step(y, st, enc)
                        top = alpha.topk(2, 1).values
                        lead = min(lead, float((top[:, 0] - top[:, 1]).min()))
                    model.hard_margin = lead
            margin = image_margin(model, kind, images, torch)
        # The logits must tell the images apart, or the comparison would test little.
        spread = float(logits.std(0).max())
        if margin >= 1e-3 and spread > 1e-3:
            break
    else:
        raise SystemExit(f"{name}: no seed gives a margin of 1e-3")

    section = heed_torch.heed_model_config(kind, kw)
    words = [f"c{k}" for k in range(tgt_v - 4)] if classifier else \
        [chr(ord("a") + k) for k in range(tgt_v - 4)]
    tgt_vocab = "\n".join(["<pad>", "<s>", "</s>", "<unk>"] + words) + "\n"
    meta = {"format": "pt", "heed.model": kind,
            "heed.model_config": json.dumps(dict(section, src_vocab=0, tgt_vocab=tgt_v)),
            "heed.config": config_text(section, heed_dtype, images=True),
            "heed.tgt_vocab": tgt_vocab, "heed.dtype": heed_dtype,
            "interop.case": f"{name}: reference.build_model({kind!r}, " + ", ".join(
                f"{k}={v!r}" for k, v in full_kw.items())
                            + f") after torch.manual_seed({seed}), saved as {store}",
            "torch": torch.__version__}
    path = os.path.join(out, name + ".safetensors")
    heed_torch.save(state, path, meta)
    tensors = [("in.images", images)] + ([] if classifier else [("in.tgt_in", tgt_in)]) + \
        [("out.logits", logits)]
    what = "forward(images)" + (", the mean locations" if kind == "ram" else "") if classifier \
        else "forward(images, tgt_in), teacher forced"
    make_goldens.write_safetensors(
        os.path.join(out, name + ".logits.safetensors"), tensors,
        {"case": name, "logits": f"the reference's {what} in float64 with the {store} weights "
                                 f"of {name}.safetensors", "torch": torch.__version__})
    print(f"{path}: {len(state)} tensors as {store}, heed dtype {heed_dtype}, seed {seed}, "
          f"margin {margin:.3g}")


if __name__ == "__main__":
    main()
