"""One exit-status table for every `memcore` command, so a script or CI job reads any
command's status the same way:

    0  fits (and meets every budget the user gave)
    1  does not fit in memory or flash
    3  fits, but misses a latency or battery budget the user gave
    2  bad input (arguments, model, device file, a board's malformed or forged report)
       or a board error

A command without a verdict (plan, devices, export, ...) gives 0 or 2.  Each command's
`--help` prints the table with what that command's verdict is (docs/exit-status.md)."""

FITS = 0
DOES_NOT_FIT = 1
ERROR = 2
MISSES_BUDGET = 3

#: a check's verdict (the C core's mc_verdict names) as the exit status
OF_VERDICT = {"fits": FITS, "does_not_fit": DOES_NOT_FIT, "misses_budget": MISSES_BUDGET}

TABLE = ("exit status (the same for every memcore command):\n"
         "  0  fits (and meets every budget you gave)\n"
         "  1  does not fit in memory or flash\n"
         "  3  fits, but misses a latency or battery budget you gave\n"
         "  2  bad input (arguments, model, device file, a malformed or forged board report) or a board error")


def of_verdicts(verdicts):
    """The status of several verdicts: does not fit if one does not, else misses its
    budget if one does, else fits.  No verdict at all is not "fits": the caller decides."""
    verdicts = list(verdicts)
    if "does_not_fit" in verdicts:
        return DOES_NOT_FIT
    if "misses_budget" in verdicts:
        return MISSES_BUDGET
    return FITS


def help_text(applies):
    """The table for one command's --help, with `applies`: what its verdict is."""
    return TABLE + "\n  " + applies
