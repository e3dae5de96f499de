/*
 * The wall clock littlefs stamps files with (mp_hal_time_ns, which ports/qemu lacks).
 * The emulated boards have no real-time clock: time starts at the epoch at power-on, as
 * on an ESP32 whose RTC was never set.
 */
#include "py/mphal.h"

uint64_t mp_hal_time_ns(void) {
    return (uint64_t)mp_hal_ticks_ms() * 1000000u;
}
