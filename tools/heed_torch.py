"""heed models in PyTorch without the safetensors package (docs/INTEROP.md).

    import heed_torch                       # with tools/ on sys.path, or python3-heed's
    state, meta = heed_torch.load("model.safetensors")   # written by `heed export`
    model = heed_torch.build_reference(meta)             # tools/reference/ (text, images,
                                                         # memn2n)
    model.load_state_dict(state)            # the names are the reference's state_dict keys
    ...
    heed_torch.save(model.state_dict(), "back.safetensors", meta)   # for `heed import`

load and save are the whole file format (docs/FORMATS.md): 8 bytes of header length, a
JSON header, then the raw little-endian tensors. Debian has no python3-safetensors; these
lines need only torch (python3-torch). save drops heed.checksum from the metadata: it
described the file heed wrote, not this one.
"""
import json
import struct

import torch

DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
          "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32}


def load(path):
    """(state_dict, metadata) of a safetensors file; tensors on the CPU, in the file's dtype."""
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    state = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        raw = bytearray(data[8 + n + b:8 + n + end])
        flat = torch.frombuffer(raw, dtype=DTYPES[e["dtype"]]) if raw else \
            torch.empty(0, dtype=DTYPES[e["dtype"]])
        state[name] = flat.reshape(e["shape"])
    return state, meta


def save(state, path, metadata=None):
    """Writes state (name -> tensor, in its dtype) and string metadata as safetensors."""
    names = {v: k for k, v in DTYPES.items()}
    header = {"__metadata__": {k: str(v) for k, v in (metadata or {}).items()
                               if k != "heed.checksum"}}
    blobs, offset = [], 0
    for name, t in state.items():
        t = t.detach().cpu().contiguous().reshape(-1)
        blob = t.view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": names[t.dtype], "shape": list(state[name].shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# ---------------------------------------------------------------- the reference model

def reference_kwargs(model_config):
    """(kind, keyword arguments of tools/reference/models.py) for heed's model: section (the
    JSON of heed.model_config). Raises ValueError for what the reference does not implement."""
    c = model_config
    kind = c["kind"]
    unsupported = []
    if kind == "transformer":   # tools/reference/transformer.py
        return kind, dict(src_vocab=c["src_vocab"], tgt_vocab=c["tgt_vocab"],
                          enc_layers=c["enc_layers"], dec_layers=c["dec_layers"],
                          dropout=c.get("dropout", 0.0),
                          tie_embeddings=bool(c.get("tie_embeddings")),
                          share_embeddings=bool(c.get("share_embeddings")),
                          **{k: c[k] for k in TRANSFORMER_KEYS})
    if c.get("tie_embeddings"):
        unsupported.append("tie_embeddings: true")
    attention = c.get("attention", {})
    if kind in IMAGE_KINDS:
        return _image_kwargs(c, unsupported)
    if kind == "las":      # tools/reference/speech.py: the listener and the speller
        if attention.get("mode", "soft") != "soft":
            unsupported.append("attention.mode: hard (the reference attends softly)")
        if not c["bidirectional"] or c["dec_layers"] != 1:
            unsupported.append("a unidirectional listener or more than one decoder layer")
        if unsupported:
            raise ValueError("the reference las model does not implement: "
                             + "; ".join(unsupported))
        return kind, dict(tgt_vocab=c["tgt_vocab"], feature_dim=c["feature_dim"],
                          emb_dim=c["emb_dim"], enc_hidden=c["enc_hidden"],
                          enc_layers=c["enc_layers"], pyramid=c["pyramid"],
                          cell=c.get("encoder_cell") or "lstm", dec_hidden=c["dec_hidden"],
                          attn_dim=c["attn_dim"] or None, out_dim=c["out_dim"] or None,
                          ctc_weight=c.get("ctc_weight", 0.0),
                          frontend_layers=c.get("frontend_layers", 0),
                          frontend_channels=c.get("frontend_channels", 16))
    if kind == "memn2n":   # tools/reference/memory.py: one vocabulary, no attention section
        return kind, dict(vocab=c["src_vocab"], d=c["emb_dim"],
                          **{k: c[k] for k in MEMORY_KEYS if k in c})
    if attention.get("mode", "soft") != "soft":
        unsupported.append("attention.mode: hard (the reference attends softly)")
    common = dict(src_vocab=c["src_vocab"], tgt_vocab=c["tgt_vocab"], emb_dim=c["emb_dim"])
    if kind in ("bahdanau", "noattn"):
        if c.get("encoder_cell") not in ("", None, "gru"):
            unsupported.append(f"encoder_cell: {c['encoder_cell']}")
        if c["enc_layers"] != 1 or not c["bidirectional"] or c["dec_layers"] != 1:
            unsupported.append("an encoder other than one bidirectional GRU layer")
        kw = dict(common, enc_hidden=c["enc_hidden"], dec_hidden=c["dec_hidden"],
                  out_dim=c["out_dim"] or None)
        if kind == "bahdanau":
            kw["attn_dim"] = c["attn_dim"] or c["dec_hidden"]
            if c.get("location_filters", 0) > 0:
                kw.update(location_filters=c["location_filters"],
                          location_width=c["location_width"])
            if c.get("coverage"):
                kw["coverage"] = True
    elif kind == "luong":
        if c.get("location_filters", 0) > 0 or c.get("coverage"):
            unsupported.append("location_filters or coverage (the reference's Luong has no "
                               "location features)")
        if c.get("encoder_cell") not in ("", None, "lstm"):
            unsupported.append(f"encoder_cell: {c['encoder_cell']}")
        if c["enc_hidden"] != c["dec_hidden"] or c["enc_layers"] != c["dec_layers"]:
            unsupported.append("encoder and decoder of different sizes or depths")
        kw = dict(common, hidden=c["dec_hidden"], layers=c["dec_layers"], score=c["score"],
                  input_feed=c["input_feed"], bidirectional=c["bidirectional"],
                  attn_dim=c["attn_dim"] or None, max_src_len=c["max_src_len"],
                  local_p=c["local_p"], window=c["window"] if c["local_p"] else None)
    else:
        raise ValueError(f"model kind {kind!r} has no PyTorch reference in tools/reference")
    if unsupported:
        raise ValueError(f"the reference {kind} model does not implement: "
                         + "; ".join(unsupported))
    return kind, kw


IMAGE_KINDS = ("fc", "cnn", "ram", "image2seq")
MEMORY_KEYS = ("hops", "memory_size", "position_encoding", "temporal_encoding", "pad_memory")
RAM_KEYS = ("glimpses", "glimpse_size", "scales", "glimpse_hidden", "location_hidden",
            "glimpse_dim", "core", "core_hidden", "location_std")


def _image_kwargs(c, unsupported):
    """reference_kwargs for the image kinds (tools/reference/images.py). Their images have one
    channel, as heed's image sets; the classifiers' classes are tgt_vocab minus the 4
    specials."""
    kind = c["kind"]
    classes = c["tgt_vocab"] - 4
    if kind == "fc":
        kw = dict(classes=classes, image_height=c["image_height"], image_width=c["image_width"],
                  fc_layers=c["fc_layers"], fc_hidden=c["fc_hidden"])
    elif kind == "cnn":
        kw = dict(classes=classes, image_height=c["image_height"], image_width=c["image_width"],
                  conv_layers=c["conv_layers"], conv_channels=c["conv_channels"])
    elif kind == "ram":
        if c.get("random_locations"):
            unsupported.append("random_locations: true (the test pass looks at random places: "
                               "no deterministic logits to compare)")
        kw = dict(classes=classes, **{k: c[k] for k in RAM_KEYS})
    else:  # image2seq
        attention = c.get("attention", {})
        kw = dict(tgt_vocab=c["tgt_vocab"], emb_dim=c["emb_dim"], dec_hidden=c["dec_hidden"],
                  attn_dim=c["attn_dim"] or None, out_dim=c["out_dim"] or None,
                  conv_layers=c["conv_layers"], conv_channels=c["conv_channels"],
                  attention=attention.get("mode", "soft"),
                  hard_eval=attention.get("hard_eval", "argmax"))
    if unsupported:
        raise ValueError(f"the reference {kind} model does not implement: "
                         + "; ".join(unsupported))
    return kind, kw


TRANSFORMER_KEYS = ("d_model", "heads", "ff_dim", "norm", "positions", "max_positions",
                    "alignment_layer", "alignment_head")
TRANSFORMER_DEFAULTS = dict(d_model=256, heads=4, ff_dim=1024, norm="pre", positions="sinusoidal",
                            max_positions=512, alignment_layer=0, alignment_head=0)


def heed_model_config(kind, kw):
    """The inverse of reference_kwargs: heed's model: section (a dict, YAML or JSON) for
    reference.build_model(kind, **kw); the vocabulary sizes are left to the vocabularies (a
    classifier's classes are its target vocabulary's entries after the 4 specials). The
    attention section is a nested dict (image2seq: {mode, hard_eval}). memn2n's d is
    emb_dim, its vocabulary both sides'."""
    if kind == "transformer":
        return dict(kind=kind, enc_layers=kw.get("enc_layers", 1), dec_layers=kw.get("dec_layers", 1),
                    tie_embeddings=kw.get("tie_embeddings", False),
                    # written only when set, as configs before the key have none
                    **({"share_embeddings": True} if kw.get("share_embeddings") else {}),
                    **{k: kw.get(k, v) for k, v in TRANSFORMER_DEFAULTS.items()})
    if kind == "memn2n":
        defaults = dict(hops=3, memory_size=50, position_encoding=True, temporal_encoding=True,
                        pad_memory=False)
        return dict(kind=kind, emb_dim=kw["d"],
                    **{k: kw.get(k, v) for k, v in defaults.items()})
    if kind == "las":
        return dict(kind=kind, emb_dim=kw.get("emb_dim", 128), encoder_cell=kw.get("cell", "lstm"),
                    enc_hidden=kw.get("enc_hidden", 256), enc_layers=kw.get("enc_layers", 4),
                    bidirectional=True, pyramid=kw.get("pyramid", 8),
                    feature_dim=kw["feature_dim"], dec_hidden=kw.get("dec_hidden", 256),
                    attn_dim=kw.get("attn_dim") or 0, out_dim=kw.get("out_dim") or 0,
                    ctc_weight=kw.get("ctc_weight", 0.0),
                    frontend_layers=kw.get("frontend_layers", 0),
                    frontend_channels=kw.get("frontend_channels", 16))
    if kind in ("fc", "cnn", "ram"):
        c = dict(kind=kind)
        if kind == "ram":
            c.update({k: kw[k] for k in RAM_KEYS if k in kw})
        else:
            c.update(image_height=kw["image_height"], image_width=kw["image_width"])
            keys = ("fc_layers", "fc_hidden") if kind == "fc" else ("conv_layers", "conv_channels")
            c.update({k: kw[k] for k in keys if k in kw})
        return c
    if kind == "image2seq":
        c = dict(kind=kind, emb_dim=kw.get("emb_dim", 128), dec_hidden=kw.get("dec_hidden", 256),
                 attn_dim=kw.get("attn_dim") or 0, out_dim=kw.get("out_dim") or 0,
                 conv_layers=kw.get("conv_layers", 3), conv_channels=kw.get("conv_channels", 16),
                 attention=dict(mode=kw.get("attention", "soft"),
                                hard_eval=kw.get("hard_eval", "argmax")))
        return c
    c = dict(kind=kind, emb_dim=kw.get("emb_dim", 128 if kind != "luong" else 256))
    if kind in ("bahdanau", "noattn"):
        c.update(encoder_cell="gru", enc_hidden=kw.get("enc_hidden", 256), enc_layers=1,
                 bidirectional=True, dec_hidden=kw.get("dec_hidden", 256), dec_layers=1,
                 out_dim=kw.get("out_dim") or 0)
        if kind == "bahdanau":
            c["attn_dim"] = kw.get("attn_dim", 256)
            if kw.get("location_filters"):
                c.update(location_filters=kw["location_filters"],
                         location_width=kw["location_width"])
            if kw.get("coverage"):
                c["coverage"] = True
    else:
        hidden, layers = kw.get("hidden", 256), kw.get("layers", 2)
        c.update(encoder_cell="lstm", enc_hidden=hidden, dec_hidden=hidden, enc_layers=layers,
                 dec_layers=layers, bidirectional=kw.get("bidirectional", False),
                 score=kw.get("score", "general"), input_feed=kw.get("input_feed", True),
                 attn_dim=kw.get("attn_dim") or 0, max_src_len=kw.get("max_src_len", 100),
                 local_p=kw.get("local_p", False))
        if kw.get("window") is not None:
            c["window"] = kw["window"]
    return c


def build_reference(metadata):
    """The reference torch.nn.Module (tools/reference/models.py, images.py for the image
    kinds, memory.py's MemN2N for memn2n, speech.py's Las for las) a `heed export` file describes, in eval mode and in
    the file's dtype (heed.dtype), weights not loaded."""
    try:  # python3-heed installs the reference inside the heed package
        from heed import reference
    except ImportError:  # a clone: tools/reference beside this file
        import os
        import sys
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import reference

    kind, kw = reference_kwargs(json.loads(metadata["heed.model_config"]))
    model = reference.build_model(kind, **kw)
    if metadata.get("heed.dtype") == "f64":
        model = model.double()
    return model.eval()
