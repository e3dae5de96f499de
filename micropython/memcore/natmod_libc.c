/*
 * The few C library functions the core and the binding call, for the native module only
 * (natmod.mk): a .mpy is linked against no C library, and mpy_ld would otherwise stop on
 * them as undefined.  Copies go through the firmware's own memmove and memset (through
 * mp_fun_table); the string functions are short loops over names of a few bytes.
 */
#include "py/dynruntime.h"

/* GCC turns a loop that finds a string's end into a call of strlen, which here would be
 * this function calling itself for ever */
#pragma GCC optimize("no-tree-loop-distribute-patterns")

void *memmove(void *dst, const void *src, size_t n)
{
    return mp_fun_table.memmove_(dst, src, n);
}

/* memcpy calls memmove rather than the table itself: with the same body, GCC's identical
 * code folding (-Os, x64 measured) made memmove a call of memcpy and then expanded that
 * as the builtin, a forward copy (rep movsb), which an overlapping move (the reader's
 * state moved up its scratch, past a small model's graph) corrupts. */
void *memcpy(void *dst, const void *src, size_t n)
{
    return memmove(dst, src, n);
}

void *memset(void *s, int c, size_t n)
{
    return mp_fun_table.memset_(s, c, n);
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != 0) {
        n++;
    }
    return n;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n > 0; n--, a++, b++) {
        if (*a != *b || *a == 0) {
            return (int)(unsigned char)*a - (int)(unsigned char)*b;
        }
    }
    return 0;
}

int strcmp(const char *a, const char *b)
{
    for (; *a == *b && *a != 0; a++, b++) {
    }
    return (int)(unsigned char)*a - (int)(unsigned char)*b;
}
