"""What can go wrong between the host and a board, each carrying what did arrive.

Every exception keeps the bytes the board sent before things went wrong (`partial`)
and the transcript file of the run, so a failure can be read afterwards.
"""


class HilError(Exception):
    """Base of every harness failure."""

    def __init__(self, message, partial=b"", transcript=None):
        super().__init__(message)
        self.message = message
        self.partial = bytes(partial or b"")
        self.transcript = transcript
        #: for a failure while code ran: what the code had printed so far
        self.stdout = b""

    def __str__(self):
        text = self.message
        if self.partial:
            tail = self.partial[-200:]
            text += " (last bytes received: %r)" % tail
        if self.transcript:
            text += " [transcript: %s]" % self.transcript
        return text


class BoardTimeout(HilError):
    """The board did not send what was expected within the step's timeout."""


class BoardRebooted(HilError):
    """The board reset while we were talking to it (banner, soft reboot, ROM log)."""


class BoardDisconnected(HilError):
    """The connection went away: port unplugged, socket closed, process gone."""


class ProtocolError(HilError):
    """The board answered, but not in the raw-REPL protocol (garbage, wrong bytes)."""


class RemoteError(HilError):
    """Code ran on the board and raised: `stderr` holds its traceback."""

    def __init__(self, message, stdout=b"", stderr=b"", transcript=None):
        super().__init__(message, b"", transcript)
        self.stdout = stdout
        self.stderr = stderr

    def __str__(self):
        text = "%s\n%s" % (self.message, self.stderr.decode("utf-8", "replace").rstrip())
        if self.transcript:
            text += "\n[transcript: %s]" % self.transcript
        return text
