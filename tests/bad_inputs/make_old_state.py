#!/usr/bin/env python3
"""Turns a training state into one as heed wrote it before issue 18: no train-loss window
in the metadata, history epochs counted from 0. Usage: make_old_state.py STATE.safetensors"""
import json, struct, sys

path = sys.argv[1]
data = open(path, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
meta = header["__metadata__"]
meta.pop("heed.window_loss")
meta.pop("heed.window_tokens")
lines = []
for line in meta["heed.history"].splitlines():
    entry = json.loads(line)
    entry["epoch"] -= 1
    lines.append(json.dumps(entry, separators=(",", ":"), sort_keys=True))
meta["heed.history"] = "\n".join(lines) + ("\n" if lines else "")
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
open(path, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + n:])
