"""How every `memcore` command writes: to a terminal, a pipe, a file, in any encoding.

- On a terminal: colours (unless NO_COLOR is set, https://no-color.org), tables with
  rules, lines wrapped to the terminal's width.
- Anywhere else (a pipe, a file, a test's StringIO): plain lines, never wrapped, no
  colour, no rules, no trailing spaces, so `grep`, `diff` and `cut` see what a person
  reads.
- In an encoding that cannot print the symbols (PYTHONIOENCODING=ascii, a C locale):
  each symbol is spelled in ASCII, so nothing ever fails with UnicodeEncodeError.
- rich's highlighter is off: it colours any number it sees (the "32" in WROOM-32), and
  only what memcore marks is meant to stand out.

Commands print through `Out`; tables come from `table()`, so they read the same
everywhere.
"""
import io
import os
import re
import shutil
import sys

from rich import box
from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.table import Table

# Characters that steer a terminal instead of showing: C0 and C1 controls (ESC starts the
# sequences that clear the screen, move the cursor, retitle the window), DEL, and the
# Unicode marks that reorder text (a right-to-left override makes "stif" read "fits").
_STEERING = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile("[\x00-\x1f" + _STEERING + "]")
_CONTROL_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f" + _STEERING + "]")
#: the ones json.dumps(ensure_ascii=False) leaves raw (it escapes C0 itself)
BEYOND_C0 = re.compile("[" + _STEERING + "]")


def _spelled(match):
    c = ord(match.group())
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def visible(text, newlines=False):
    """`text` with every control character spelled as its escape (\\x1b, \\x0a, \\u202e): what a
    board, a model file or a device file provides is shown, never obeyed by the terminal.
    `newlines` keeps line breaks (memcore's own multi-line text)."""
    return (_CONTROL_BUT_NEWLINE if newlines else _CONTROL).sub(_spelled, str(text))


def escape(text):
    """Untrusted text for rich markup: its control characters spelled (visible) and its
    markup escaped, so it prints as written and can neither style nor steer the terminal."""
    return _markup_escape(visible(text))


# Every non-ASCII symbol memcore prints, and how it is spelled where it cannot be.
SYMBOLS = {
    "✔": "OK", "✘": "X", "◀": "<", "▲": "^", "×": "x", "−": "-", "–": "-", "—": "-", "µ": "u",
    "→": "->", "←": "<-", "÷": "/", "…": "...", "·": "|", "≤": "<=", "≥": ">=", "≈": "~", "─": "-",
    "━": "-", "│": "|", "’": "'",
}
_PROBE = "".join(SYMBOLS)

# Box with only a rule under the header, in ASCII.
ASCII_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def no_color():
    """NO_COLOR set to anything but the empty string turns colour off."""
    return bool(os.environ.get("NO_COLOR"))


def is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def can_print(stream, text=_PROBE):
    """Whether `stream`'s encoding can print `text` (a stream without an encoding, such
    as io.StringIO, takes any text)."""
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def spell_ascii(text):
    for symbol, spelled in SYMBOLS.items():
        text = text.replace(symbol, spelled)
    return text


def printable(text, stream):
    """`text` as `stream` can print it: symbols spelled in ASCII if need be, and any
    other character its encoding lacks replaced, never an exception."""
    if can_print(stream, text):
        return text
    text = spell_ascii(text)
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        return text.encode(encoding, "replace").decode(encoding)
    except LookupError:
        return text.encode("ascii", "replace").decode("ascii")


def write(text, stream=None):
    """Writes `text` to `stream` (default: standard output) so that it always prints."""
    stream = stream or sys.stdout
    stream.write(printable(text, stream))
    stream.flush()


def shorten_middle(text, most):
    """`text` in at most `most` characters: a long name (a fused Keras tensor name runs to
    hundreds) keeps its start and its end, which tell names apart, around an ellipsis."""
    if len(text) <= most:
        return text
    tail = (most - 1) // 2
    return text[:most - 1 - tail] + "…" + text[len(text) - tail:]


def plain_lines(text):
    """Each line without trailing spaces."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


class Out:
    """One command's standard output, rendered by rich into a buffer and written
    as the stream can take it.  `plain` is true off a terminal."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.terminal = is_terminal(self.stream)
        self.plain = not self.terminal
        self.unicode = can_print(self.stream)
        self.colour = self.terminal and not no_color()
        self._buffer = io.StringIO()
        width = shutil.get_terminal_size().columns if self.terminal else 100_000
        self.console = Console(file=self._buffer, force_terminal=self.colour, no_color=not self.colour,
                               color_system="auto" if self.colour else None, highlight=False, emoji=False,
                               width=width, soft_wrap=self.plain, legacy_windows=False)

    def print(self, *objects, **kwargs):
        self.console.print(*objects, **kwargs)
        self.flush()

    def line(self, text=""):
        """A line of plain text: no markup, no highlighting, no control characters."""
        self.print(visible(text, newlines=True), markup=False)

    def command(self, text):
        """A command line to paste, never wrapped: a terminal folds a long line itself, so
        no newline or trailing space lands inside the command."""
        self.print(text, markup=False, soft_wrap=True)

    def flush(self):
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        if self.plain:
            text = plain_lines(text)
        write(text, self.stream)

    def table(self, *columns, **kwargs):
        return table(self, *columns, **kwargs)


def table(out, *columns, **kwargs):
    """A table that suits `out`: rules under the header on a terminal (ASCII ones in an
    encoding without box characters), none when plain.  `columns` are names or
    (name, {rich column options}) pairs.  Titles and captions are printed as lines by
    the caller, never by rich, which would wrap them to the table's width."""
    if out.plain:
        style = None
    elif out.unicode:
        style = box.SIMPLE_HEAD
    else:
        style = ASCII_HEAD
    t = Table(box=style, show_edge=False, pad_edge=False, header_style="bold" if out.colour else "",
              **kwargs)
    for column in columns:
        name, options = (column, {}) if isinstance(column, str) else column
        t.add_column(name, **options)
    return t
