# main.py: load the model only if the boot check said it fits; otherwise report and stay
# up at the REPL, so the operator can read the report, change the model or free memory.
import memcore_boot

report = memcore_boot.last_report
if report is None:  # boot.py did not run the check (or the descriptor was missing)
    report = memcore_boot.main("model.json")

if report is not None and report["verdict"] == "fits":
    try:
        # Your application: load the model into an arena of report["recommended_arena_bytes"]
        # bytes and run it, e.g. with emlearn-micropython's tflm module.
        import app
        app.start(report)
    except ImportError:
        print("memcore: the model fits (%d bytes of headroom); no app.py to start"
              % report["headroom_bytes"])
else:
    if report is not None:
        print("memcore: not loading %s: needs %d bytes, %d available"
              % (report["model"], report["required_bytes"], report["available_bytes"]))
    print("memcore: staying up at the REPL")
