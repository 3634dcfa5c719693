#!/usr/bin/env python3
"""Writes a synthetic reversal task into a directory: each source line is a random string of
letters a-l, its target the same string reversed. Files: train.src train.tgt (20000 pairs),
dev.src dev.tgt (500), test.src test.tgt (500, or --test N). Deterministic for a given --seed.
With --spaced the symbols are written space-separated (whitespace tokeniser; then `heed score
--metric g2p` gives the sequence error rate and the symbol error rate).

usage: make_data.py DIR [--train 20000] [--dev 500] [--test 500] [--min-len 3] [--max-len 12]
                    [--spaced] [--seed 1]
"""
import argparse
import os
import random


def write(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--train", type=int, default=20000)
    p.add_argument("--dev", type=int, default=500)
    p.add_argument("--min-len", type=int, default=3)
    p.add_argument("--max-len", type=int, default=12)
    p.add_argument("--test", type=int, default=None, help="test pairs (default: as --dev)")
    p.add_argument("--spaced", action="store_true", help="separate the symbols by spaces")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    letters = "abcdefghijkl"
    if not 1 <= a.min_len <= a.max_len:
        p.error("need 1 <= --min-len <= --max-len")
    sep = " " if a.spaced else ""
    test = a.dev if a.test is None else a.test
    for name, n in (("train", a.train), ("dev", a.dev), ("test", test)):
        src = [[rng.choice(letters) for _ in range(rng.randint(a.min_len, a.max_len))]
               for _ in range(n)]
        write(os.path.join(a.dir, name + ".src"), [sep.join(s) for s in src])
        write(os.path.join(a.dir, name + ".tgt"), [sep.join(reversed(s)) for s in src])


if __name__ == "__main__":
    main()
