"""python -m memcore"""
import sys

from memcore.cli import main

sys.exit(main())
