/* Stands in for ESP-IDF's esp_timer.h in the armhf-esp-nn oracle build: esp-tflite-micro's
 * kernels/esp_nn/ glue includes it only to time each kernel's Eval (never its Prepare,
 * where the arena is decided), so a clock that reads 0 changes no size. */
#ifndef ORACLE_ESP_TIMER_H
#define ORACLE_ESP_TIMER_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
static inline int64_t esp_timer_get_time(void) { return 0; }
#ifdef __cplusplus
}
#endif
#endif
