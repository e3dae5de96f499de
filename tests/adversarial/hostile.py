"""Hostile inputs for everything memcore reads from outside, and the outcome each must get.

One generator per kind of untrusted input; each attempt ends in one outcome:

  accepted           a valid input, read and answered (or a mutant that happens to be valid)
  refused            a clean refusal: MemcoreError, a HilError, an error report, exit 2
  traceback          any other exception, or a traceback in a command's output   -> a bug
  false_ok           an input built to be invalid (or a board that lied) passed  -> a bug
  fits_for_tampered  a tampered input got the verdict "fits"                      -> a bug
  refused_valid      a valid input built to be accepted was refused               -> a bug

The tests in this folder run each category with a small count and assert that the last
four never happen; bench/adversarial.py runs the same generators with larger counts.
Every generator is seeded: the same count and seed give the same attempts.

The generators live in hostile_*.py by kind of input; this module gathers them, as the
tests and bench/adversarial.py use them.
"""
from hostile_boards import (ESCAPES, _fakeboard, c_check_report, hil_boards, hil_scripts, monitor_boards,  # noqa: F401
                            monitor_on, monitor_scripts)
from hostile_descriptors import (base_descriptors, descriptor_attempts, descriptors_on_cpython,  # noqa: F401
                                 descriptors_on_micropython)
from hostile_devices import BOARD, board_toml, device_file_attempts, device_files, toml_value  # noqa: F401
from hostile_models import _vi, _w, onnx_bases, onnx_bytes, onnx_mutants, tflite_mutants  # noqa: F401
from hostile_onnx import onnx_attributes, onnx_operands  # noqa: F401
from hostile_tally import (BAD, DEVICE_DIR, FIRMWARE_TESTS, MODELS, OUTCOMES, ROOT, Tally,  # noqa: F401
                           assert_clean, model_outcome, timed, traceback_text, use_model)

_use_model, _model_outcome = use_model, model_outcome   # the names tests/adversarial/test_graphs.py uses
