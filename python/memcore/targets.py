"""Targets and kernel libraries by name, as the C core numbers them (memcore.h §9).

A target is an ABI plus a TFLM build: TFLM's persistent structures differ between a
64-bit host, 32-bit Arm Linux, bare-metal Cortex-M (1-byte enums), RV32 and Xtensa.
"""
from memcore._memcore import lib
from memcore.errors import MemcoreError

TARGETS = {
    "host64": lib.MC_TARGET_HOST64,
    "armhf": lib.MC_TARGET_ARMHF,
    "cortex-m": lib.MC_TARGET_CORTEX_M,
    "riscv32": lib.MC_TARGET_RISCV32,
    "esp32": lib.MC_TARGET_ESP32,
}
KERNELS = {"reference": lib.MC_KERNELS_REFERENCE, "optimised": lib.MC_KERNELS_OPTIMISED}
TARGET_NAMES = {code: name for name, code in TARGETS.items()}
KERNEL_NAMES = {code: name for name, code in KERNELS.items()}


def target_code(name):
    if name not in TARGETS:
        raise MemcoreError("unknown target %r; known: %s" % (name, ", ".join(TARGETS)))
    return TARGETS[name]


def kernels_code(name):
    if name not in KERNELS:
        raise MemcoreError("kernels must be 'reference' or 'optimised', got %r" % (name,))
    return KERNELS[name]
