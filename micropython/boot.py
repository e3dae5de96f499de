# boot.py: the fit check runs first, while the heap is fresh and before anything else
# fragments it.  It prints one `@memcore {...}` report line on the serial console and
# keeps the report for main.py.  Deploy with (micropython/README.md, "Deploy the check"):
#   mpremote cp boot.py main.py memcore_boot.py memcore_vectors.py model.json :
#   mpremote cp model.tflite :                              # firmware with the C module
#   mpremote cp memcore_fallback.py memcore_exact.py :      # firmware without it
# Nothing here may stop the board booting: if even the check's script cannot be loaded
# (missing, damaged, no memory), one error report says so and the boot goes on.
try:
    import memcore_boot
    memcore_boot.main()  # model.tflite (and its model.json) when present, else model.json alone
except Exception as exc:
    try:
        import json
        print('@memcore {"schema":"memcore.report-error/1","error":%s}'
              % json.dumps(("boot.py: %s: %s" % (type(exc).__name__, exc))[:200]))
    except Exception:
        pass
