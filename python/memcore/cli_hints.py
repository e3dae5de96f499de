"""Errors from a board or its port, as the CLI's one line with a hint."""
import errno
import re

from memcore.cli import CommandError
from memcore.errors import os_error_hint

_ERRNO = re.compile(r"\[Errno (\d+)\] ([^:\]]+)")


def board_error(exc, port=None):
    """A CommandError for a HilError: the message without Python's '[Errno N]', and the
    hint its cause calls for (dialout group, a busy or missing port)."""
    message = str(exc)
    hint = None
    cause = exc.__cause__
    if isinstance(cause, OSError) and cause.errno is not None:
        hint = os_error_hint(cause, port)
    match = _ERRNO.search(message)
    if match:
        code = int(match.group(1))
        if hint is None:
            hint = os_error_hint(OSError(code, match.group(2)), port)
        message = _ERRNO.sub(lambda m: m.group(2), message)
        message = re.sub(r"(: [^:]+): '[^']*'", r"\1", message)   # the port named twice
    elif "ermission denied" in message:
        hint = os_error_hint(PermissionError(errno.EACCES, "Permission denied"), port)
    message = re.sub(r"could not open port [^:]+: ", "", message)
    return CommandError(message, hint)
