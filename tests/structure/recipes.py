#!/usr/bin/python3
"""The recipes of ARCHITECTURE.md's "How to add things" name real places.

usage: recipes.py ARCHITECTURE.md [ROOT]
Every backticked path in the section exists under ROOT; every backticked
identifier is found (as a word, or as a prefix where it ends in "_") in the
code of the first file named after it in the same paragraph (a C file's
comments left out: a name only a comment mentions is not its place), and a
paragraph that names an identifier names a file after it. Each recipe of
RECIPES is there. Prints one line per fault and exits 1 on
any, 0 (silently) when every recipe holds.
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


# The recipes the map must hold, as their paragraphs start.
RECIPES = ["A source", "A sink", "An option", "A finding rule", "A column"]
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_of(path):
    """The file's text; for C sources and headers without their comments."""
    text = open(path, errors="replace").read()
    return C_COMMENT.sub(" ", text) if path.endswith((".c", ".h")) else text


def section(text):
    m = re.search(r"^## \d+\. How to add things$(.*?)(?=^## )", text, re.M | re.S)
    return m.group(1) if m else None


def is_path(tok):
    return "/" in tok or re.search(r"\.(c|h|py|sh|md|js|css|8)\Z", tok)


def check(doc, root):
    faults = []
    sec = section(open(doc).read())
    if sec is None:
        return ["no section 'How to add things'"]
    for what in RECIPES:
        if not re.search(r"^\*\*" + re.escape(what) + r"\*\*:", sec, re.M):
            faults.append(f"no recipe for {what[0].lower() + what[1:]} (a paragraph starting **{what}**:)")
    for para in re.split(r"\n\s*\n", sec):
        toks = re.findall(r"`([^`]+)`", para)
        for i, tok in enumerate(toks):
            if is_path(tok):
                if not os.path.exists(os.path.join(root, tok.replace("<area>", ""))):
                    faults.append(f"{tok}: no such file or folder")
                continue
            if not IDENT.match(tok):
                continue    # an option, a command: not a place
            where = next((t for t in toks[i + 1:] if is_path(t) and not t.endswith("/")), None)
            if where is None:
                faults.append(f"{tok}: the recipe names no file after it")
                continue
            path = os.path.join(root, where)
            pat = re.escape(tok) if tok.endswith("_") else re.escape(tok) + r"\b"
            if os.path.isfile(path) and not re.search(r"\b" + pat, code_of(path)):
                faults.append(f"{tok}: not in {where}")
    return faults


if __name__ == "__main__":
    out = check(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ".")
    for f in out:
        print(f)
    sys.exit(1 if out else 0)
