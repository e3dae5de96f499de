"""The code blocks of README.md and micropython/README.md, each with how it is tested.

Every fenced block follows a comment naming how a test runs it (the convention is in
docs/docs-tests.md):

    <!-- docs-test: KIND ARGS -->
    ```sh
    ...
    ```

A block without one fails tests/test_docs.py, so no example goes untested unnoticed.
"""
import pathlib
import re
import shlex

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCS = ("README.md", "micropython/README.md")

#: kind -> where it runs (the host's tests/test_docs.py or the firmware suite's test_board_docs.py)
KINDS = {
    "shell": "host",          # bash, from a folder that sees the checkout; exit=N, fresh-checkout
    "ci": "host",             # what CI runs: each command is in the named CI files
    "doctest": "host",        # a Python session, run by doctest from the checkout's top
    "signatures": "host",     # the board API's names and parameters, against memcore_fallback
    "build": "host",          # a firmware recipe: its make variables are build_firmware.sh's TARGET
    "report-line": "host",    # a boot report: its fields documented; the board prints the same fields
    "boot-line": "host",      # a line memcore_boot prints for a descriptor changed as ARGS say
    "vector-lines": "host",   # a vector run: each case's fields are the shared vectors'
    "board": "firmware",      # run on the board (Python) or against its port (sh, PORT=...)
    "sim": "firmware",        # a memcore sim deploy, run with the suite's unix port or firmware
    "not-run": None,          # not run anywhere: the comment says why
}

MARK = re.compile(r"<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")

#: line comments that make a line of a deploy block apply to one kind of firmware only
WITH_MODULE = "# with the C module"
WITHOUT_MODULE = "# without the C module"


class Block:
    def __init__(self, doc, line, lang, text, mark):
        self.doc, self.line, self.lang, self.text = doc, line, lang, text
        self.mark = mark
        words = mark.split(None, 1) if mark else []
        self.kind = words[0].rstrip(":") if words else None
        self.args = words[1] if len(words) > 1 else ""

    def option(self, name, default=None):
        for word in shlex.split(self.args):
            if word.startswith(name + "="):
                return word[len(name) + 1:]
        return default

    def flag(self, name):
        return name in self.args.split()

    def where(self):
        return "%s:%d" % (self.doc, self.line)

    def __repr__(self):
        return "<block %s %s>" % (self.where(), self.kind)


def blocks(docs=DOCS):
    """Every fenced block of the docs, in order, with its docs-test comment (or None)."""
    found = []
    for doc in docs:
        lines = (REPO / doc).read_text(encoding="utf-8").splitlines()
        i, mark = 0, None
        while i < len(lines):
            line = lines[i]
            m = MARK.search(line)
            if m:
                mark = m.group(1)
            fence = FENCE.match(line)
            if fence:
                start = i
                body = []
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    body.append(lines[i])
                    i += 1
                found.append(Block(doc, start + 1, fence.group(1), "\n".join(body) + "\n", mark))
                mark = None
            elif line.strip() and not m:
                mark = None  # the comment must come right before its block (blank lines aside)
            i += 1
    return found


def of_kind(kind):
    return [b for b in blocks() if b.kind == kind]


def for_firmware(text, has_module):
    """A deploy block's lines for this firmware: lines marked for the other kind dropped."""
    keep = []
    for line in text.splitlines():
        if line.rstrip().endswith(WITH_MODULE) and not has_module:
            continue
        if line.rstrip().endswith(WITHOUT_MODULE) and has_module:
            continue
        keep.append(line)
    return "\n".join(keep) + "\n"


def checkout_view(folder):
    """`folder` sees the checkout's top-level entries (symlinks), so that a block's relative
    paths (examples/, micropython/) work while what it writes stays in `folder`."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for entry in REPO.iterdir():
        if entry.name.startswith(".") or entry.name in ("build",):
            continue
        link = folder / entry.name
        if not link.exists():
            link.symlink_to(entry)
    return folder
