#!/usr/bin/env python3
"""Writes README.md from cases.sh: run it after adding or changing a case.
The intro and the table of earlier unit tests are kept from the current README."""
import pathlib, re, shlex

here = pathlib.Path(__file__).resolve().parent
old = (here / "README.md").read_text()
intro = old[old.index("Every bad input here"):old.index("\n## Command line")].rstrip() + "\n"
earlier = old[old.index("## Covered by earlier unit tests"):]
earlier_count = sum(1 for l in earlier.splitlines() if l.startswith("| ") and not l.startswith("| bad input"))

out, count, counted = [], 0, True
for line in (here / "cases.sh").read_text().splitlines():
    m = re.match(r"# ---- (.*?) -+$", line)
    if m:
        title = m.group(1)
        counted = not title.startswith("first-hour")
        head = title[0].upper() + title[1:] if counted else \
            "Not bad inputs: regressions of issue 18 (not counted)"
        out.append(f"\n## {head}\n\n| test | exit | key words |\n|---|---|---|\n")
    elif line.startswith("check "):
        name, code, words = shlex.split(line[6:])[:3]
        shown = " · ".join("`" + w.replace("|", "\\|") + "`" for w in words.split(";") if w)
        out.append(f"| `bad_inputs.{name}` | {code} | {shown or '(none)'} |\n")
        count += counted

text = (f"# The bad-input catalogue\n\n{count} bad inputs are tested here as `bad_inputs.*` ctest "
        f"tests, and {earlier_count} more\nby the earlier unit tests listed at the end: "
        f"{count + earlier_count} in all.\n\n" + intro + "\n" + "".join(out) + "\n" + earlier)
(here / "README.md").write_text(text)
print(count, earlier_count)
