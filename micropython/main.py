# main.py: load the model only if the boot check said it fits; otherwise report and stay
# up at the REPL, so the operator can read the report, change the model or free memory.
import sys

try:
    import memcore_boot
except Exception as exc:  # boot.py has reported it; nothing to check with
    memcore_boot = None
    print("memcore: cannot load memcore_boot (%s: %s)" % (type(exc).__name__, exc))

report = None
if memcore_boot is not None:
    report = memcore_boot.last_report
    if not memcore_boot.checked:  # boot.py did not run the check: run it now (one report line)
        report = memcore_boot.main()


def _app_file():
    import os
    for name in ("app.py", "app.mpy"):
        try:
            os.stat(name)
            return True
        except OSError:
            pass
    return False


def _app_failed(exc):
    print("memcore: app.py failed: %s: %s" % (type(exc).__name__, exc))
    try:
        sys.print_exception(exc)
    except AttributeError:  # CPython
        import traceback
        traceback.print_exception(exc)


def start_app(report):
    """Your application: app.start(report) loads the model into an arena of
    report["recommended_arena_bytes"] bytes and runs it (e.g. with emlearn-micropython's
    tflm module).  Its own errors, an ImportError inside app.py included, are shown as
    app.py's; only a board with no app module at all has "no app.py to start"."""
    try:
        import app
    except ImportError as exc:
        if str(exc).lower() == "no module named 'app'" and not _app_file():
            print("memcore: the model fits (%d bytes of headroom); no app.py to start" % report["headroom_bytes"])
        else:
            _app_failed(exc)
        return
    except Exception as exc:
        _app_failed(exc)
        return
    try:
        app.start(report)
    except Exception as exc:
        _app_failed(exc)


# Memory decides whether the model can be loaded without crashing the board; a missed
# latency or battery budget is worth saying, not a reason to stay idle.
if report is not None and report["verdict"] in ("fits", "misses_budget"):
    if report["verdict"] == "misses_budget":
        print("memcore: %s fits, but misses its %s budget" % (report["model"], report.get("limiting_resource",
                                                                                           "time")))
    memcore_boot.release()  # the fallback (stock firmware): the app does not need it
    start_app(report)
else:
    if report is not None:
        print("memcore: not loading %s: needs %d bytes, %d available"
              % (report["model"], report["required_bytes"], report["available_bytes"]))
    else:
        print("memcore: no fit check (see the report above): not loading the model")
    print("memcore: staying up at the REPL")
