# The core's cost on each target: code, static data, stack, planner scratch.
# Fails unless there is no .data/.bss, .text < 16 KB and every mc_* frame < 512 B.
set -euo pipefail
python3 bench/footprint.py --check
