/* OUT_OF_LINE: keep a static helper a function of its own.  Internal to the core.
 *
 * For a static helper gcc would otherwise inline at every call site (-Os misjudges
 * functions that store many 64-bit fields or pass doubles), or whose locals must not
 * add up in its caller's frame.  Plain C99 compilers just get an ordinary function. */
#ifndef MEMCORE_OUT_OF_LINE_H
#define MEMCORE_OUT_OF_LINE_H

#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

#endif /* MEMCORE_OUT_OF_LINE_H */
