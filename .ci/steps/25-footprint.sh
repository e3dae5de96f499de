# The core's cost on each target: code, static data, stack, planner scratch.
# Fails unless there is no .data/.bss anywhere and, on Cortex-M4F and the ESP32 (Xtensa
# built with ESP-IDF's flags: -mlongcalls etc., at -Os), .text stays under 48 KB and 54.5 KB
# (bench/footprint.py's TEXT_LIMITS, where the ESP32's is explained) and the deepest stack (a public function and its
# callees) < 1 KB.  MicroPython's -O2 ESP32 figure is printed, not held to the limit.
set -euo pipefail
python3 bench/footprint.py --check
