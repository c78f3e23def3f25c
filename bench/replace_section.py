"""Replaces the section of bench/RESULTS.md that starts with HEADING (up to
the next "## " heading) with the contents of NEW_FILE, or appends it.

    python3 bench/replace_section.py RESULTS.md "## Dump and restore" section.md
"""
import sys

path, heading, new_path = sys.argv[1:4]
text = open(path).read()
new = open(new_path).read()
start = text.find(heading + "\n")
if start < 0:
    text = text.rstrip("\n") + "\n\n" + new
else:
    end = text.find("\n## ", start + 1)
    text = text[:start] + new + ("" if end < 0 else text[end:])
open(path, "w").write(text)
