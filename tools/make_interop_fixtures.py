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


def vocab_text(size):
    """A vocabulary file of size entries: the four specials, then letters."""
    return "\n".join(["<pad>", "<s>", "</s>", "<unk>"]
                     + [chr(ord("a") + i) for i in range(size - 4)]) + "\n"


def config_text(model_section, dtype):
    """A heed training config (docs/CONFIG.md) for the model section; data paths are never read."""
    lines = ["data:", "  train_source: train.src", "  train_target: train.tgt", "model:"]
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
    for i, (case, (kind, kw, _)) in enumerate(mmg.CASES.items()):
        name = case.replace("models_", "interop_")
        store = STORE[i % len(STORE)]
        heed_dtype = "f64" if i % 2 == 0 else "f32"   # the model dtype heed converts to
        torch.manual_seed(300 + i)
        model = reference.build_model(kind, src_vocab=mmg.SRC_V, tgt_vocab=mmg.TGT_V, **kw)
        state = {k: v.detach().to(heed_torch.DTYPES[store]) for k, v in
                 model.state_dict().items()}
        # The reference in float64 with exactly the stored values.
        model = model.double()
        model.load_state_dict({k: v.double() for k, v in state.items()})
        model.eval()
        gen = torch.Generator().manual_seed(4000 + i)
        src, src_len, tgt_in, _ = mmg.make_batch(gen)
        with torch.no_grad():
            logits = model(src, src_len, tgt_in)

        section = heed_torch.heed_model_config(kind, kw)
        meta = {"format": "pt", "heed.model": kind,
                "heed.model_config": json.dumps(dict(section, src_vocab=mmg.SRC_V,
                                                     tgt_vocab=mmg.TGT_V)),
                "heed.config": config_text(section, heed_dtype),
                "heed.src_vocab": vocab_text(mmg.SRC_V), "heed.tgt_vocab": vocab_text(mmg.TGT_V),
                "heed.dtype": heed_dtype,
                "interop.case": f"{case}: reference.build_model({kind!r}, src_vocab={mmg.SRC_V}, "
                                f"tgt_vocab={mmg.TGT_V}, " + ", ".join(
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


if __name__ == "__main__":
    main()
