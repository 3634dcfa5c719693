"""Runs the worked example of docs/PYTHON.md as written: the ```python block under its
"## A worked example" heading, in a fresh temporary directory (it writes its data and model
there). ctest runs it against the build tree (python.doc_example), CI against the installed
python3-heed (tools/package/check_installed.sh).
    python3 python/doc_example.py docs/PYTHON.md"""
import os
import re
import sys
import tempfile

# Not this file's folder: its heed/ is the module's source, without the compiled part; the
# module comes from PYTHONPATH (the build tree) or the installed package.
here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]

text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n## A worked example\n", 1)
if len(section) != 2:
    sys.exit(f"{sys.argv[1]}: no '## A worked example' section")
block = re.search(r"```python\n(.*?)```", section[1], re.S)
if not block:
    sys.exit(f"{sys.argv[1]}: the worked example has no ```python block")
with tempfile.TemporaryDirectory() as directory:
    os.chdir(directory)
    exec(compile(block.group(1), f"{sys.argv[1]} (worked example)", "exec"), {"__name__": "__main__"})
