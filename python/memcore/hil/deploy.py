"""Copy files onto the board through the raw REPL, and prove they arrived whole.

Each file is written in chunks of base64 text the board decodes (binascii.a2b_base64: a
third more characters than bytes, where a `bytes` literal of binary data takes three to
four times as many), or of `bytes` literals on firmware without binascii; then its size
and SHA-256 are read back from the board (size alone where the firmware has no hashlib).
A file that is already there with the same hash is not written again: flash wears, and
serial is slow.  Round trips are few (one state query for all the files, the file opened
with its first chunks, closed with its state read back): each costs a raw-REPL
handshake, which on an emulated UART is most of the time a small file takes.
"""
import base64
import hashlib
import pathlib

from memcore.hil.errors import HilError

CHUNK = 768  # bytes a line writes: 1024 characters of base64
CHUNKS_PER_EXEC = 8

_STATE = """
import os
def _mc_state(name):
    try:
        size = os.stat(name)[6]
    except OSError:
        print('-1 -')
        return
    try:
        import hashlib, binascii
        h = hashlib.sha256()
        with open(name, 'rb') as f:
            while True:
                b = f.read(512)
                if not b:
                    break
                h.update(b)
        print(size, binascii.hexlify(h.digest()).decode())
    except ImportError:
        print(size, '-')
"""

_MKDIR = """
import os
p = ''
for part in %r.split('/')[:-1]:
    p = p + '/' + part if p else part
    try:
        os.mkdir(p)
    except OSError:
        pass
"""

_OPEN = """
f = open(%r, 'wb')
w = f.write
try:
    from binascii import a2b_base64 as a
    print('b64')
except ImportError:
    a = None
    print('bytes')
"""


class DeployError(HilError):
    """A file did not arrive on the board as it left the host."""


def _parse_states(repl, names, out):
    rows = out.split("\n")[-len(names):] if names else []
    rows = [r.split() for r in rows]
    try:
        if len(rows) != len(names) or any(len(r) != 2 for r in rows):
            raise ValueError
        return {n: (int(r[0]), None if r[1] == "-" else r[1]) for n, r in zip(names, rows)}
    except ValueError:
        raise DeployError("cannot read the state of %s on the board: %r" % (", ".join(names), out[-400:]),
                          transcript=repl.transcript) from None


def remote_states(repl, names, timeout_s=None):
    """{name: (size or -1, sha256 hex or None)} for files on the board, in one round trip."""
    names = list(names)
    if not names:
        return {}
    out = repl.exec(_STATE + "for _n in %r:\n    _mc_state(_n)\ndel _mc_state\n" % names, timeout_s)
    return _parse_states(repl, names, out.strip().replace("\r\n", "\n"))


def remote_state(repl, name, timeout_s=None):
    """(size or -1, sha256 hex or None) of a file on the board."""
    return remote_states(repl, [name], timeout_s)[name]


def put(repl, data, name, timeout_s=None, force=False, there=None):
    """Write `data` (bytes) to `name` on the board; returns True if it was written.
    `there`: the file's (size, sha256) on the board when already known."""
    digest = hashlib.sha256(data).hexdigest()
    if not force:
        size, on_board = there if there is not None else remote_state(repl, name, timeout_s)
        if size == len(data) and on_board == digest:
            return False
    if "/" in name:
        repl.exec(_MKDIR % name, timeout_s)
    chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]
    # The open, and whether the board decodes base64, in the first round trip; the first
    # chunks follow in the second, written the way the board said it reads them.
    decodes = repl.exec(_OPEN % name, timeout_s).strip().endswith("b64")
    line = (lambda c: "w(a(%r))" % base64.b64encode(c).decode()) if decodes else (lambda c: "w(%r)" % c)
    closed = False
    try:
        for i in range(0, len(chunks), CHUNKS_PER_EXEC):
            code = "\n".join(line(c) for c in chunks[i:i + CHUNKS_PER_EXEC])
            if i + CHUNKS_PER_EXEC >= len(chunks):
                # the last chunks, the close and the state read back: one round trip
                code += "\nf.close()\ndel f, w, a\n" + _STATE + "_mc_state(%r)\ndel _mc_state\n" % name
                out = repl.exec(code, timeout_s)
                closed = True
            else:
                repl.exec(code, timeout_s)
        if not closed:  # an empty file
            out = repl.exec("f.close()\ndel f, w, a\n" + _STATE + "_mc_state(%r)\ndel _mc_state\n" % name,
                            timeout_s)
            closed = True
    finally:
        if not closed:
            repl.exec("f.close()\ndel f, w, a", timeout_s)
    size, on_board = _parse_states(repl, [name], out.strip().replace("\r\n", "\n"))[name]
    if size != len(data) or (on_board is not None and on_board != digest):
        raise DeployError("%s on the board is %d bytes, sha256 %s; sent %d bytes, sha256 %s"
                          % (name, size, on_board, len(data), digest), transcript=repl.transcript)
    return True


def deploy(repl, files, timeout_s=None, force=False):
    """Put every {board name: local path or bytes}; returns the names actually written."""
    blobs = {}
    for name, source in files.items():
        data = source if isinstance(source, (bytes, bytearray)) else pathlib.Path(source).read_bytes()
        blobs[name] = bytes(data)
    states = {} if force else remote_states(repl, blobs, timeout_s)
    written = []
    for name, data in blobs.items():
        if put(repl, data, name, timeout_s, force, there=states.get(name)):
            written.append(name)
    return written
