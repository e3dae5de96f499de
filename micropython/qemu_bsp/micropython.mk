# Board support for MicroPython's ports/qemu boards (MPS2_AN385, VIRT_RV32, ...), for
# testing only: it makes an emulated board behave like an ESP32 running MicroPython.
#   - a writable filesystem: littlefs on a RAM block device, mounted at / on every boot
#     and soft reset (the RAM keeps its contents across a soft reset), then boot.py and
#     main.py run as on a board;
#   - Ctrl-C interrupts running code: the UART is polled from the VM loop.
# It is picked up by USER_C_MODULES=<repo>/micropython beside the memcore module, and does
# nothing outside ports/qemu (QEMU_ARCH is set only by that port's board files).  Not part
# of any real board's build: micropython.cmake (ESP32, RP2) includes memcore alone.
ifneq ($(QEMU_ARCH),)
QEMU_BSP_DIR := $(USERMOD_DIR)

SRC_USERMOD_C += $(addprefix $(QEMU_BSP_DIR)/,ramdisk.c boot.c uart_poll.c clock.c)

# littlefs v2, as on ESP32 (read by extmod/extmod.mk, which is included after this file).
MICROPY_VFS_LFS2 = 1

# The port has no hooks of its own for these, so they go in as MicroPython's config macros
# (py/mpconfig.h leaves them empty unless defined), declaring what they call in place as
# ports/esp8266 does for its VM hook.
#   MICROPY_PORT_INIT_FUNC  end of mp_init(): every boot and soft reset
#   MICROPY_VM_HOOK_*       backward jumps and returns in the bytecode VM
CFLAGS_USERMOD += '-DMICROPY_PORT_INIT_FUNC=do { extern void qemu_bsp_boot(void); qemu_bsp_boot(); } while (0)'
CFLAGS_USERMOD += '-DMICROPY_VM_HOOK_LOOP={ extern void qemu_bsp_vm_hook(void); qemu_bsp_vm_hook(); }'
CFLAGS_USERMOD += '-DMICROPY_VM_HOOK_RETURN={ extern void qemu_bsp_vm_hook(void); qemu_bsp_vm_hook(); }'

# The UART bytes the VM hook reads while code runs are kept for the REPL: the port's
# uart_rx_chr/uart_rx_any (ports/qemu/uart.c) are wrapped to serve them first.  time.sleep
# polls too, so Ctrl-C stops a sleeping program as on a real board.
LDFLAGS_USERMOD += -Wl,--wrap=uart_rx_chr -Wl,--wrap=uart_rx_any -Wl,--wrap=mp_hal_delay_ms
endif
