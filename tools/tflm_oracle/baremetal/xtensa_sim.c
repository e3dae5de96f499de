/*
 * Startup and system calls of the Xtensa oracle (build.sh xtensa-esp-nn) under
 * qemu-system-xtensa -M sim -cpu lx106 -semihosting: no board, no crt0 of picolibc's
 * (it expects a stack and passes no arguments), so this file is the whole platform.
 *
 *   _reset    the ELF entry at the start of RAM (xtensa_sim.ld): points VECBASE at
 *             oracle_vectors, loads the stack pointer from a literal placed before it
 *             (l32r reaches backwards only) and calls oracle_start with the call0 ABI the
 *             LX106 uses.
 *   argv      QEMU's "arg=" semihosting options, read with simcall 1001/1002 (argv's
 *             size, then the pointers and strings, written by QEMU into our buffer).
 *   files     open/read/lseek/close: simcalls 5, 3, 19, 6 (QEMU's xtensa-semi.c; open's
 *             flags are GDB's File-I/O flags, whose O_RDONLY is 0 as picolibc's).
 *   stdout    picolibc's tiny stdio on a FILE whose put function collects a line and
 *             writes it with simcall 4 to the host's fd 1 (stderr: fd 2).
 *   exit      simcall 1 ends QEMU with the program's status (abort: 128 + SIGABRT).
 * The heap (picolibc's sbrk) is the RAM between the end of the program and the stack.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { SYS_EXIT = 1, SYS_READ = 3, SYS_WRITE = 4, SYS_OPEN = 5, SYS_CLOSE = 6,
       SYS_LSEEK = 19, SYS_ARGV_SZ = 1001, SYS_ARGV = 1002 };

/* The simcall instruction: number in a2, arguments in a3..a5, result back in a2. */
static int simcall(int nr, int a, int b, int c)
{
    register int a2 __asm__("a2") = nr;
    register int a3 __asm__("a3") = a;
    register int a4 __asm__("a4") = b;
    register int a5 __asm__("a5") = c;
    __asm__ volatile("simcall" : "+r"(a2), "+r"(a3) : "r"(a4), "r"(a5) : "memory");
    return a2;
}

__asm__(
    "    .section .reset, \"ax\"\n"
    "    .global _reset\n"
    "_reset:\n"
    "    j 1f\n"
    "    .align 4\n"
    "2:  .word __stack_top\n"
    "3:  .word oracle_start\n"
    "5:  .word oracle_vectors\n"
    "1:  l32r a2, 5b\n"
    "    wsr a2, vecbase\n"
    "    l32r a1, 2b\n"
    "    l32r a0, 3b\n"
    "    callx0 a0\n"
    "4:  j 4b\n"
    /* Every exception vector (VECBASE + 0x10 .. 0x70 on this core; the reset state's
     * PS.EXCM makes any fault a double exception, 0x70) ends the run with status 139,
     * as a crash on Linux would: a probe TFLM crashes on (an arena too small to hold
     * the allocator) then fails at once instead of looping in an unmapped vector. */
    "    .section .vectors, \"ax\"\n"
    "    .balign 1024\n"
    "    .global oracle_vectors\n"
    "oracle_vectors:\n"
    "    .rept 16\n"
    "    movi a2, 1\n"
    "    movi a3, 139\n"
    "    simcall\n"
    "    .balign 16\n"
    "    .endr\n"
    "    .text\n");

void _exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    for (;;) {
        simcall(SYS_EXIT, status, 0, 0);
    }
}

/* abort() raises SIGABRT through kill(getpid(), ...): end the run as a signal would. */
pid_t getpid(void)
{
    return 1;
}

int kill(pid_t pid, int sig)
{
    (void)pid;
    _exit(128 + sig);
}

int open(const char *path, int flags, ...)
{
    return simcall(SYS_OPEN, (int)(uintptr_t)path, flags, 0);
}

ssize_t read(int fd, void *buf, size_t n)
{
    return simcall(SYS_READ, fd, (int)(uintptr_t)buf, (int)n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    return simcall(SYS_WRITE, fd, (int)(uintptr_t)buf, (int)n);
}

off_t lseek(int fd, off_t offset, int whence)
{
    return simcall(SYS_LSEEK, fd, (int)offset, whence);
}

int close(int fd)
{
    return simcall(SYS_CLOSE, fd, 0, 0);
}

/* stdout and stderr: one line at a time through simcall write. */
typedef struct {
    FILE file;  /* first: picolibc passes this FILE * to put and flush */
    int fd;
    size_t len;
    char line[256];
} sim_stream_t;

static int sim_flush(FILE *f)
{
    sim_stream_t *s = (sim_stream_t *)f;
    if (s->len > 0) {
        write(s->fd, s->line, s->len);
        s->len = 0;
    }
    return 0;
}

static int sim_put(char c, FILE *f)
{
    sim_stream_t *s = (sim_stream_t *)f;
    s->line[s->len++] = c;
    if (c == '\n' || s->len == sizeof s->line) {
        sim_flush(f);
    }
    return (unsigned char)c;
}

static sim_stream_t sim_out = {FDEV_SETUP_STREAM(sim_put, NULL, sim_flush, _FDEV_SETUP_WRITE), 1, 0, {0}};
static sim_stream_t sim_err = {FDEV_SETUP_STREAM(sim_put, NULL, sim_flush, _FDEV_SETUP_WRITE), 2, 0, {0}};
FILE *const stdout = &sim_out.file;
FILE *const stderr = &sim_err.file;
FILE *const stdin = NULL;

extern char __bss_start[], __bss_end[];
extern void (*__init_array_start[])(void), (*__init_array_end[])(void);
int main(int argc, char **argv);
void oracle_start(void);

void oracle_start(void)
{
    static char args[4096];
    void (**ctor)(void);
    int argc = 0;
    memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
    for (ctor = __init_array_start; ctor < __init_array_end; ++ctor) {
        (*ctor)();
    }
    if (simcall(SYS_ARGV_SZ, 0, 0, 0) <= (int)sizeof args) {
        simcall(SYS_ARGV, (int)(uintptr_t)args, 0, 0);
        while (((char **)args)[argc] != NULL) {
            ++argc;
        }
    }
    exit(main(argc, (char **)args));
}
