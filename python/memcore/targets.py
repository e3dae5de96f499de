"""Targets and kernel libraries by name, as the C core numbers and names them (memcore.h
§9 and §13).

A target is an ABI plus a TFLM build: TFLM's persistent structures differ between a
64-bit host, 32-bit Arm Linux, bare-metal Cortex-M (1-byte enums), RV32 and Xtensa.
"""
from memcore._memcore import ffi, lib
from memcore.errors import MemcoreError

def enum_names(function, count):
    """{code: name} of an enum, from the C core's table of its names (memcore.h §13)."""
    return {code: ffi.string(function(code)).decode() for code in range(count) if function(code) != ffi.NULL}


TARGET_NAMES = enum_names(lib.mc_target_name, lib.MC_TARGET_COUNT)
KERNEL_NAMES = enum_names(lib.mc_kernels_name, 2)
TARGETS = {name: code for code, name in TARGET_NAMES.items()}
KERNELS = {name: code for code, name in KERNEL_NAMES.items()}


def target_code(name):
    if name not in TARGETS:
        raise MemcoreError("unknown target %r; known: %s" % (name, ", ".join(TARGETS)))
    return TARGETS[name]


def kernels_code(name):
    if name not in KERNELS:
        raise MemcoreError("kernels must be 'reference' or 'optimised', got %r" % (name,))
    return KERNELS[name]
