# The README's test command: install with test dependencies, run every Python test.
set -euo pipefail
pip install -q '.[test]'
python -m pytest -q
