"""Copy files onto the board through the raw REPL, and prove they arrived whole.

Each file is written in chunks of `bytes` literals, then its size and SHA-256 are read
back from the board (size alone where the firmware has no hashlib).  A file that is
already there with the same hash is not written again: flash wears, and serial is slow.
"""
import hashlib
import pathlib

from memcore.hil.errors import HilError

CHUNK = 256
CHUNKS_PER_EXEC = 8

_CHECK = """
import os
def _mc_check(name):
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
_mc_check(%r)
del _mc_check
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


class DeployError(HilError):
    """A file did not arrive on the board as it left the host."""


def remote_state(repl, name, timeout_s=None):
    """(size or -1, sha256 hex or None) of a file on the board."""
    out = repl.exec(_CHECK % name, timeout_s)
    try:
        size, digest = out.split()[-2:]
        return int(size), (None if digest == "-" else digest)
    except ValueError:
        raise DeployError("cannot read the state of %s on the board: %r" % (name, out),
                          transcript=repl.transcript) from None


def put(repl, data, name, timeout_s=None, force=False):
    """Write `data` (bytes) to `name` on the board; returns True if it was written."""
    digest = hashlib.sha256(data).hexdigest()
    if not force:
        size, there = remote_state(repl, name, timeout_s)
        if size == len(data) and there == digest:
            return False
    if "/" in name:
        repl.exec(_MKDIR % name, timeout_s)
    repl.exec("f = open(%r, 'wb')\nw = f.write" % name, timeout_s)
    try:
        chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]
        for i in range(0, len(chunks), CHUNKS_PER_EXEC):
            repl.exec("\n".join("w(%r)" % c for c in chunks[i:i + CHUNKS_PER_EXEC]), timeout_s)
    finally:
        repl.exec("f.close()\ndel f, w", timeout_s)
    size, there = remote_state(repl, name, timeout_s)
    if size != len(data) or (there is not None and there != digest):
        raise DeployError("%s on the board is %d bytes, sha256 %s; sent %d bytes, sha256 %s"
                          % (name, size, there, len(data), digest), transcript=repl.transcript)
    return True


def deploy(repl, files, timeout_s=None, force=False):
    """Put every {board name: local path or bytes}; returns the names actually written."""
    written = []
    for name, source in files.items():
        data = source if isinstance(source, (bytes, bytearray)) else pathlib.Path(source).read_bytes()
        if put(repl, bytes(data), name, timeout_s, force):
            written.append(name)
    return written
