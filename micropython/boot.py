# boot.py: the fit check runs first, while the heap is fresh and before anything else
# fragments it.  It prints one `@memcore {...}` report line on the serial console and
# keeps the report for main.py.  Deploy with: mpremote cp boot.py main.py memcore_*.py model.json :
import memcore_boot

memcore_boot.main("model.json")
