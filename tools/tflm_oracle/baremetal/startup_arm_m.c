/* Start-up for the bare-metal oracle on QEMU's MPS2 boards (mps2-an385 Cortex-M3,
 * mps2-an386 Cortex-M4F): no vendor files, only what the measuring program needs.
 *
 * - The reset vector pair lives alone at address 0; the real vector table sits above
 *   the first 4 KiB, and the MPU makes that first 4 KiB read-only.  TFLM dereferences
 *   a null pointer when the arena is too small for its own allocator objects; on Linux
 *   that is a segfault, here it becomes a MemManage fault that ends the run without a
 *   result line instead of silently overwriting code.
 * - Arguments come from the semihosting command line (QEMU's -semihosting-config
 *   arg=...), stdio and files go through newlib's rdimon semihosting library.
 * - Any fault ends QEMU with a non-zero status through SYS_EXIT. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv);
void initialise_monitor_handles(void);
void __libc_init_array(void);

extern uint32_t __bss_start__, __bss_end__, __stack_top, __vectors_start;

static int semihost(int op, void *arg) {
  register int r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* SYS_EXIT with a reason other than "application exit": QEMU exits with status 1. */
static void fail_exit(const char *why) {
  semihost(0x04 /* SYS_WRITE0 */, (void *)why);
  semihost(0x18 /* SYS_EXIT */, (void *)0x20024 /* ADP_Stopped_InternalError */);
  for (;;) {
  }
}

static void fault_handler(void) { fail_exit("tflm_oracle: fault (null pointer or bad access)\n"); }

/* What crti.o/crtbegin.o would give (-nostartfiles leaves them out): the hooks
 * __libc_init_array calls, and the handle static destructors register against. */
void _init(void) {}
void _fini(void) {}
void *__dso_handle = &__dso_handle;

#define REG(addr) (*(volatile uint32_t *)(addr))

void reset_handler(void) {
  for (uint32_t *p = &__bss_start__; p < &__bss_end__; p++) *p = 0;
  REG(0xE000ED08) = (uint32_t)&__vectors_start; /* VTOR */
#if defined(__ARM_FP)
  REG(0xE000ED88) |= 0xFu << 20; /* CPACR: enable CP10/CP11 for the hard-float build */
  __asm__ volatile("dsb; isb");
#endif
  /* MPU region 0: base 0, 4 KiB (SIZE=11), read-only for all (AP=0b110), no execute;
   * PRIVDEFENA keeps the default map everywhere else. */
  REG(0xE000ED98) = 0;                                          /* RNR */
  REG(0xE000ED9C) = 0x00000000;                                 /* RBAR */
  REG(0xE000EDA0) = (1u << 28) | (6u << 24) | (11u << 1) | 1u;  /* RASR */
  REG(0xE000ED24) |= 1u << 16;                                  /* SHCSR: MemManage on */
  REG(0xE000ED94) = (1u << 2) | 1u;                             /* MPU_CTRL */
  __asm__ volatile("dsb; isb");

  initialise_monitor_handles();
  __libc_init_array();

  static char cmdline[1024];
  struct {
    char *buf;
    int len;
  } block = {cmdline, sizeof(cmdline) - 1};
  if (semihost(0x15 /* SYS_GET_CMDLINE */, &block) != 0) fail_exit("tflm_oracle: no command line\n");
  cmdline[block.len] = '\0';
  static char *argv[16];
  int argc = 0;
  for (char *p = strtok(cmdline, " "); p && argc < 15; p = strtok(NULL, " ")) argv[argc++] = p;
  argv[argc] = NULL;
  exit(main(argc, argv));
}

/* Only SP and PC are read from address 0 at reset. */
__attribute__((section(".boot_vectors"), used)) static const void *const boot_vectors[2] = {
    &__stack_top, (const void *)reset_handler};

__attribute__((section(".vectors"), used, aligned(512))) static const void *const vectors[48] = {
    &__stack_top,  (const void *)reset_handler, (const void *)fault_handler,
    (const void *)fault_handler, (const void *)fault_handler, (const void *)fault_handler,
    (const void *)fault_handler};
