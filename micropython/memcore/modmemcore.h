/*
 * What the files of the MicroPython module `memcore` share: MicroPython's headers for
 * the build at hand (the firmware's, or py/dynruntime.h for the native module), and the
 * conversions both modmemcore.c and modmemcore_check.c use.
 */
#ifndef MEMCORE_MODMEMCORE_H
#define MEMCORE_MODMEMCORE_H

#include <float.h>
#include <stdint.h>
#include <string.h>

#if MICROPY_ENABLE_DYNRUNTIME
/* the native module (.mpy): the firmware is reached through mp_fun_table only */
#include "py/dynruntime.h"
#include "py/stream.h"
#else
#include "py/builtin.h"
#include "py/nlr.h"
#include "py/obj.h"
#include "py/objint.h"
#include "py/objstr.h"
#include "py/objtuple.h"
#include "py/runtime.h"
#include "py/stream.h"
#endif

#include "memcore.h"

/* A message put together before it is raised (an error's place in the model): a bounded
 * buffer, cut rather than overrun, written by the firmware's printf in both builds. */
typedef struct {
    char text[240];
    size_t len;
} memcore_text_t;

void memcore_text_add(void *data, const char *str, size_t len);

#if MICROPY_ENABLE_DYNRUNTIME
#include "modmemcore_dyn.h"
/* A native module's qstrs are numbered when it is loaded, so tables of them are filled
 * on the stack at each call rather than stored. */
#define MEMCORE_TABLE const
#else
#define MEMCORE_TABLE static const
typedef nlr_buf_t memcore_nlr_t;
#define MEMCORE_NLR_VALUE(buf) ((buf).ret_val)
#if MICROPY_LONGINT_IMPL == MICROPY_LONGINT_IMPL_NONE
#error "memcore needs long ints (MICROPY_LONGINT_IMPL_MPZ or _LONGLONG): byte counts pass 32 bits"
#endif
#if !MICROPY_PY_ATTRTUPLE
#error "memcore returns attribute tuples: enable MICROPY_PY_ATTRTUPLE"
#endif
#endif

#ifndef MP_NORETURN
#define MP_NORETURN NORETURN /* MicroPython before 1.24 */
#endif

/* "name: <mc_strerror's text>" as a ValueError. */
MP_NORETURN void memcore_raise_status(qstr name, mc_status_t rc);

/* A non-bool int in [0, maximum], as int64_t; returns the status that describes why not
 * (TypeError is raised directly). */
mc_status_t memcore_to_count(qstr name, mp_obj_t o, int64_t maximum, int64_t *out);

/* A count or a real number as a MicroPython object. */
mp_obj_t memcore_new_count(int64_t v);
mp_obj_t memcore_new_real(double v);

/* check(model, board, config): modmemcore_check.c */
MP_DECLARE_CONST_FUN_OBJ_3(memcore_check_obj);

#endif
