/* What the board-support files of qemu_bsp share; see micropython.mk for what it does. */
#ifndef QEMU_BSP_H
#define QEMU_BSP_H

#include "py/obj.h"

#if !MICROPY_VFS_LFS2
#error "qemu_bsp needs littlefs v2: MICROPY_VFS_LFS2=1 (its micropython.mk sets it)"
#endif
#if !MICROPY_KBD_EXCEPTION
#error "qemu_bsp raises KeyboardInterrupt on Ctrl-C: it needs MICROPY_KBD_EXCEPTION"
#endif

extern const mp_obj_type_t qemu_bsp_ramdisk_type;

/* The one RAM block device (ramdisk.c). */
mp_obj_t qemu_bsp_ramdisk(void);

/* Every boot and soft reset, from mp_init(): mount the RAM disk at /, run boot.py and
 * main.py (boot.c). */
void qemu_bsp_boot(void);

/* From the VM loop: look at the UART now and then (uart_poll.c). */
void qemu_bsp_vm_hook(void);

/* Read what the UART holds: Ctrl-C (while code runs) schedules KeyboardInterrupt, other
 * bytes are kept for the REPL (uart_poll.c). */
void qemu_bsp_poll_uart(void);

/* The UART's receive FIFO on where the board's UART has one (at every boot). */
void qemu_bsp_uart_fifo(void);

#endif /* QEMU_BSP_H */
