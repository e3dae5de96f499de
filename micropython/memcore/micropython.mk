# memcore as a MicroPython user C module, for make-based ports (unix, stm32, ...):
#   make -C ports/unix USER_C_MODULES=<repo>/micropython
# MicroPython v1.28 and earlier look for */micropython.mk one level below USER_C_MODULES,
# which is why this file sits in micropython/memcore/.  The core's sources are taken from
# csrc/ by glob, so the firmware always builds the C the host package wraps (but reorder.c).
MEMCORE_MOD_DIR := $(USERMOD_DIR)
# abspath: a relative ../../csrc would put the core's objects outside $(BUILD), shared
# (and clashing) between builds for different targets.
MEMCORE_CSRC := $(abspath $(MEMCORE_MOD_DIR)/../../csrc)

# The binding is QSTR-scanned; the core is plain C and only compiled and linked.
SRC_USERMOD_C += $(MEMCORE_MOD_DIR)/modmemcore.c $(MEMCORE_MOD_DIR)/modmemcore_check.c
# (but reorder.c, the host's: `memcore shrink` reorders the model file on the host, the
# board runs the order written, and no binding calls it)
SRC_USERMOD_LIB_C += $(filter-out %/reorder.c,$(sort $(wildcard $(MEMCORE_CSRC)/src/*.c)))
CFLAGS_USERMOD += -I$(MEMCORE_CSRC)/include -I$(MEMCORE_CSRC)/src -Werror
