#!/usr/bin/python3
"""Compares regenerated golden files with the committed ones (tests/golden/*.safetensors).

For every committed file it reports whether the regenerated one is byte-identical and, if
not, the largest absolute difference over all tensors, any tensor missing on either side or
with another shape, and any metadata that differs. Plain Python (struct + json): the golden
files hold F64 tensors only.

Usage: /usr/bin/python3 tools/compare_goldens.py NEW_DIR [--ref DIR] [--tol 1e-12]
  e.g. /usr/bin/python3 tools/make_goldens.py --out /tmp/g
       /usr/bin/python3 tools/make_model_goldens.py --out /tmp/g
       /usr/bin/python3 tools/make_memn2n_goldens.py --out /tmp/g
       /usr/bin/python3 tools/compare_goldens.py /tmp/g
Exit status 0 when every file is present and agrees within --tol (absolute), else 1.
"""
import argparse
import glob
import json
import math
import os
import struct
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_safetensors(path):
    """(metadata dict, {name: (shape, list of floats)}) of an all-F64 safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + header_len].decode("utf-8"))
    body = 8 + header_len
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F64":
            raise ValueError(f"{path}: {name} is {info['dtype']}, expected F64")
        begin, end = info["data_offsets"]
        values = struct.unpack_from("<%dd" % ((end - begin) // 8), data, body + begin)
        tensors[name] = (tuple(info["shape"]), values)
    return metadata, tensors


def max_abs_diff(a, b):
    worst = 0.0
    for x, y in zip(a, b):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        d = abs(x - y)
        if math.isnan(d):
            return math.inf
        worst = max(worst, d)
    return worst


def compare(committed, regenerated, tol):
    """One report line and whether the file agrees."""
    name = os.path.basename(committed)
    if not os.path.exists(regenerated):
        return f"{name}: MISSING in the regenerated set", False
    with open(committed, "rb") as f, open(regenerated, "rb") as g:
        if f.read() == g.read():
            return f"{name}: byte-identical (max |diff| 0)", True
    meta_a, ta = read_safetensors(committed)
    meta_b, tb = read_safetensors(regenerated)
    problems = []
    for key in sorted(set(meta_a) | set(meta_b)):
        if meta_a.get(key) != meta_b.get(key):
            problems.append(f"metadata {key!r}: {meta_a.get(key)!r} -> {meta_b.get(key)!r}")
    only_a, only_b = sorted(set(ta) - set(tb)), sorted(set(tb) - set(ta))
    if only_a:
        problems.append(f"missing tensors {only_a}")
    if only_b:
        problems.append(f"extra tensors {only_b}")
    worst, worst_name = 0.0, None
    for t in sorted(set(ta) & set(tb)):
        (sa, va), (sb, vb) = ta[t], tb[t]
        if sa != sb:
            problems.append(f"{t}: shape {sa} -> {sb}")
            continue
        d = max_abs_diff(va, vb)
        if d > worst:
            worst, worst_name = d, t
    ok = not only_a and not only_b and worst <= tol and \
        not any("shape" in p for p in problems)
    where = f" (at {worst_name})" if worst_name else ""
    line = f"{name}: differs in bytes; max |diff| {worst:.3g}{where}"
    if problems:
        line += "; " + "; ".join(problems)
    return line, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("new_dir", help="folder of regenerated .safetensors files")
    ap.add_argument("--ref", default=os.path.join(REPO, "tests", "golden"),
                    help="folder of the committed files (default tests/golden)")
    ap.add_argument("--tol", type=float, default=1e-12, help="largest absolute difference allowed")
    args = ap.parse_args()
    committed = sorted(glob.glob(os.path.join(args.ref, "*.safetensors")))
    if not committed:
        sys.exit(f"no .safetensors files in {args.ref}")
    all_ok = True
    for path in committed:
        line, ok = compare(path, os.path.join(args.new_dir, os.path.basename(path)), args.tol)
        print(("ok   " if ok else "FAIL ") + line)
        all_ok &= ok
    extra = sorted(set(map(os.path.basename, glob.glob(os.path.join(args.new_dir, "*.safetensors"))))
                   - set(map(os.path.basename, committed)))
    for name in extra:
        print(f"note {name}: regenerated but not committed")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
