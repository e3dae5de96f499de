# memcore as a MicroPython dynamic native module, memcore.mpy: the same binding
# (modmemcore.c and modmemcore_check.c, with modmemcore_dyn.h for what a native module reaches differently) and
# the same csrc/ as the user C module, linked by MicroPython's tools/mpy_ld.py.
#
#   make -C BUILD_DIR -f <repo>/micropython/memcore/natmod.mk MPY_DIR=<micropython> ARCH=armv7m
#
# writes BUILD_DIR/memcore.mpy (`memcore firmware-module` runs this; see micropython/README.md).
# Needs python3 with pyelftools (mpy_ld reads the objects) and the architecture's compiler.
MEMCORE_MOD_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
MEMCORE_CSRC := $(abspath $(MEMCORE_MOD_DIR)/../../csrc)

MOD = memcore
ARCH ?= x64
# reorder.c (operator reordering) is the host's: `memcore shrink` writes the order into the
# model file on the host and the board runs it as written, and no binding calls it; in the
# module it would cost ~5.9 KB of the largest block (bench/footprint.py)
SRC = $(MEMCORE_MOD_DIR)/modmemcore.c $(MEMCORE_MOD_DIR)/modmemcore_check.c $(filter-out %/reorder.c,$(sort $(wildcard $(MEMCORE_CSRC)/src/*.c)))
# The few C library functions called (natmod_libc.c), except where dynruntime.mk links a
# whole C library already (picolibc's libc.a on RISC-V): mpy_ld would take its copies too
# and stop on the duplicates.
ifneq ($(ARCH),rv32imc)
SRC += $(MEMCORE_MOD_DIR)/natmod_libc.c
endif
# libgcc (and the C library's maths) linked into the module: the core's int64 division
# and, on cores without a double FPU, its soft-float double arithmetic
LINK_RUNTIME = 1
# The firmware of ESP32-C3/C6 (rv32imc) and ESP8266 (xtensa) has single-precision floats;
# dynruntime.mk's default for those architectures is none, which the binding cannot build
ifneq ($(filter rv32imc xtensa,$(ARCH)),)
MICROPY_FLOAT_IMPL ?= float
endif
CFLAGS_EXTRA += -I$(MEMCORE_CSRC)/include -I$(MEMCORE_CSRC)/src

include $(MPY_DIR)/py/dynruntime.mk

# mpy_ld numbers the qstrs it finds in these files: the compatibility header names some too
$(CONFIG_H): $(MEMCORE_MOD_DIR)/modmemcore_dyn.h
# dynruntime.mk's rules depend on a Makefile in the build folder, which this one is not
Makefile: ;
