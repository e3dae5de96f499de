"""The exceptions memcore raises, and the hints that turn an OS error into advice."""
import errno


class MemcoreError(ValueError):
    """Bad input, or a result that cannot be represented: the message names the
    argument (or file) and the problem.  A subclass of ValueError so callers that
    already handle ValueError keep working.  `hint`, when set, says what to try."""

    hint = None


def with_hint(exc, hint):
    """`exc` with a hint for the CLI's error line."""
    exc.hint = hint
    return exc


def looks_like_serial_port(name):
    name = str(name or "")
    return name.startswith(("/dev/tty", "/dev/cu.", "/dev/serial", "COM")) or "://" in name


def os_error_hint(exc, name=None, writing=False):
    """What to try after `exc` (an OSError) on file or port `name` (read, or written
    when `writing`), or None."""
    name = name or getattr(exc, "filename", None)
    code = getattr(exc, "errno", None)
    serial = looks_like_serial_port(name)
    if code == errno.EACCES or isinstance(exc, PermissionError):
        if serial:
            return ("on Linux, add yourself to the dialout group (sudo usermod -aG dialout $USER) and log in "
                    "again; on macOS check no other program holds the port")
        return "check the file's permissions (ls -l), or write somewhere you own"
    if code == errno.ENOENT or isinstance(exc, FileNotFoundError):
        if serial:
            return "is the board plugged in? python -m serial.tools.list_ports lists the ports there are"
        return "check the path; the folder must exist already" if writing else \
            "check the path; ls shows what is there"
    if code == errno.EBUSY:
        return "another program has the port open: close any serial monitor (screen, minicom, an IDE)"
    if code == errno.EISDIR or isinstance(exc, IsADirectoryError):
        return "give a file, not a folder"
    if code == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    if code == errno.ENOSPC:
        return "the disk is full"
    if code == errno.EROFS:
        return "that file system is read-only: write somewhere else"
    return None


def os_error_message(exc, action="cannot use"):
    """One line for an OSError: '<action> NAME: Reason', never '[Errno 2] ...'."""
    reason = getattr(exc, "strerror", None) or str(exc)
    name = getattr(exc, "filename", None)
    if name is None:
        return "%s: %s" % (action, reason) if action else reason
    return "%s %s: %s" % (action, name, reason)


def open_for_writing(path, mode="w", **kwargs):
    """open(path, mode) for a file memcore writes, failing with one MemcoreError that
    names the file, the reason and a hint, never '[Errno 2] ...'."""
    try:
        return open(path, mode, **kwargs)
    except OSError as exc:
        raise with_hint(MemcoreError("cannot write %s: %s" % (path, exc.strerror or exc)),
                        os_error_hint(exc, path, writing=True)) from None
