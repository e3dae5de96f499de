# The core's cost on each target: code, static data, stack, planner scratch.
# Fails unless there is no .data/.bss anywhere and, on Cortex-M4F and Xtensa, .text stays
# within bench/footprint.py's TEXT_LIMIT (the goal, 40 KB, is printed with the gap)
# and the deepest stack (a public function and its callees) < 1 KB.
set -euo pipefail
python3 bench/footprint.py --check
