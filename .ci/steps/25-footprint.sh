# The core's cost on each target: code, static data, stack, planner scratch.
# Fails unless there is no .data/.bss anywhere and, on Cortex-M4F and Xtensa, .text stays
# under 40 KB (bench/footprint.py's TEXT_LIMIT) and the deepest stack (a public
# function and its callees) < 1 KB.
set -euo pipefail
python3 bench/footprint.py --check
