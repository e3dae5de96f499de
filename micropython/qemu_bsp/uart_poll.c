/*
 * Ctrl-C interrupts running code, as on an ESP32, whose UART interrupt handler schedules
 * KeyboardInterrupt when the interrupt character arrives and keeps every other byte in
 * the REPL's input buffer (ports/esp32/uart.c).  ports/qemu reads its UART only while the
 * REPL waits for input, so here the VM loop polls it instead (MICROPY_VM_HOOK_LOOP and
 * _RETURN, see micropython.mk), and time.sleep polls while it waits.
 *
 * Bytes read that way are kept and handed to the REPL first: the linker wraps the port's
 * uart_rx_chr/uart_rx_any (--wrap), so nothing typed while code runs is lost.  When the
 * buffer is full the UART is left unread (QEMU holds further bytes), never dropped.
 */
#include "py/mphal.h"
#include "py/runtime.h"
#include "shared/runtime/interrupt_char.h"

#include "qemu_bsp.h"

/* A UART register read is an exit into QEMU's device model: not at every jump. */
#define VM_HOOKS_PER_POLL (64)
#define KEPT_BYTES (256)

int __real_uart_rx_chr(void);
int __real_uart_rx_any(void);
int __wrap_uart_rx_chr(void);
int __wrap_uart_rx_any(void);
void __wrap_mp_hal_delay_ms(mp_uint_t ms);

static uint8_t kept[KEPT_BYTES];
static unsigned int kept_first, kept_count;
static unsigned int hooks_until_poll = VM_HOOKS_PER_POLL;

void qemu_bsp_poll_uart(void) {
    while (kept_count < KEPT_BYTES && __real_uart_rx_any()) {
        int c = __real_uart_rx_chr();
        if (c < 0) {
            break;
        }
        if (c == mp_interrupt_char) {
            mp_sched_keyboard_interrupt();
        } else {
            kept[(kept_first + kept_count) % KEPT_BYTES] = (uint8_t)c;
            kept_count++;
        }
    }
}

/* The virt board's UART is a 16550, which ports/qemu leaves in its power-on
 * character mode: QEMU then delivers one byte per turn of its main loop (about 6 KB/s).
 * Its receive FIFO on, with the 14-byte trigger level, as drivers of real 16550s set it
 * (ESP32's UART has a 128-byte FIFO), QEMU hands over up to 14 bytes at a time.  The
 * reads stay the same: LSR's data-ready bit, then the data register, byte by byte. */
void qemu_bsp_uart_fifo(void) {
    #if defined(QEMU_SOC_VIRT)
    volatile uint8_t *fcr = (volatile uint8_t *)(0x10000000 + 2);
    *fcr = 0xc7; /* FIFO enable, clear both FIFOs, receive trigger at 14 bytes */
    #endif
}

void qemu_bsp_vm_hook(void) {
    if (--hooks_until_poll == 0) {
        hooks_until_poll = VM_HOOKS_PER_POLL;
        qemu_bsp_poll_uart();
    }
}

int __wrap_uart_rx_chr(void) {
    if (kept_count > 0) {
        int c = kept[kept_first];
        kept_first = (kept_first + 1) % KEPT_BYTES;
        kept_count--;
        return c;
    }
    return __real_uart_rx_chr();
}

int __wrap_uart_rx_any(void) {
    return kept_count > 0 || __real_uart_rx_any();
}

/* The port's busy wait, polling: a pending KeyboardInterrupt is raised from here. */
void __wrap_mp_hal_delay_ms(mp_uint_t ms) {
    mp_uint_t start = mp_hal_ticks_ms();
    do {
        qemu_bsp_poll_uart();
        mp_handle_pending(MP_HANDLE_PENDING_CALLBACKS_AND_EXCEPTIONS);
    } while (mp_hal_ticks_ms() - start < ms);
}
