#!/usr/bin/env python3
"""Changes the metadata of a safetensors file in place, as another writer (or an older heed)
would have left it: KEY=VALUE sets a key, KEY- removes it. The tensor data, and so the
heed.checksum of it, stay as they are.
Usage: set_metadata.py FILE.safetensors KEY=VALUE|KEY- ..."""
import json, struct, sys

path = sys.argv[1]
data = open(path, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
meta = header.setdefault("__metadata__", {})
for arg in sys.argv[2:]:
    if arg.endswith("-") and "=" not in arg:
        meta.pop(arg[:-1], None)
    else:
        key, value = arg.split("=", 1)
        meta[key] = value
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
open(path, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + n:])
