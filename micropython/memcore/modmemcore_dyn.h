/*
 * What modmemcore.c needs from MicroPython that a dynamic native module (.mpy, built with
 * py/dynruntime.mk) does not get: a native module reaches the firmware only through
 * mp_fun_table, so each runtime function the binding calls that is not in that table is
 * written here in terms of ones that are.  Only conversions and plumbing: the arithmetic
 * is the C core's, as in the user C module.  Included by modmemcore.h when
 * MICROPY_ENABLE_DYNRUNTIME is set (micropython/memcore/natmod.mk), never otherwise.
 *
 * This file is also scanned for qstr names by mpy_ld (natmod.mk lists it), since
 * qstrs of a native module are looked up when it is loaded.
 */
#ifndef MEMCORE_MODMEMCORE_DYN_H
#define MEMCORE_MODMEMCORE_DYN_H

#include <stdarg.h>

#include "py/smallint.h"

/* ---- types the table does not name ------------------------------------------------- */

#define mp_type_dict (*mp_fun_table.type_dict)
#undef mp_obj_is_float
#define mp_obj_is_float(o) (mp_obj_get_type(o) == (const mp_obj_type_t *)MP_OBJ_TO_PTR(mp_load_global(MP_QSTR_float)))
#define mp_type_MemoryError (*(mp_obj_type_t *)(mp_load_global(MP_QSTR_MemoryError)))
#define mp_obj_dict_get_map(o) (&((mp_obj_dict_t *)MP_OBJ_TO_PTR(o))->map)

/* ---- ints: the sign, and int64 out through small-int pieces --------------------------- */

static inline int memcore_dyn_int_sign(mp_obj_t o)
{
    if (mp_obj_is_true(mp_binary_op(MP_BINARY_OP_LESS, o, MP_OBJ_NEW_SMALL_INT(0)))) {
        return -1;
    }
    return mp_obj_is_true(o) ? 1 : 0;
}

/* The table converts machine words only (32 bits on a microcontroller): a wider value is
 * put together from 30-bit pieces, each a small int on every build, by the runtime's own
 * long-int arithmetic. */
static inline mp_obj_t memcore_dyn_new_int_from_ll(long long v)
{
    unsigned long long magnitude;
    mp_obj_t r;
    if (v >= (long long)MP_SMALL_INT_MIN && v <= (long long)MP_SMALL_INT_MAX) {
        return MP_OBJ_NEW_SMALL_INT((mp_int_t)v);
    }
    magnitude = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    r = MP_OBJ_NEW_SMALL_INT((mp_int_t)(magnitude >> 60));
    r = mp_binary_op(MP_BINARY_OP_OR, mp_binary_op(MP_BINARY_OP_LSHIFT, r, MP_OBJ_NEW_SMALL_INT(30)),
                     MP_OBJ_NEW_SMALL_INT((mp_int_t)((magnitude >> 30) & 0x3fffffff)));
    r = mp_binary_op(MP_BINARY_OP_OR, mp_binary_op(MP_BINARY_OP_LSHIFT, r, MP_OBJ_NEW_SMALL_INT(30)),
                     MP_OBJ_NEW_SMALL_INT((mp_int_t)(magnitude & 0x3fffffff)));
    return v < 0 ? mp_unary_op(MP_UNARY_OP_NEGATIVE, r) : r;
}

/* ---- formatted exceptions, through the firmware's own printf ------------------------- */

/* mp_raise_msg_varg: the message formatted into a memcore_text_t, then raised.  Defined
 * once, in modmemcore.c, for both of the binding's files. */
MP_NORETURN void memcore_dyn_raise_varg(const mp_obj_type_t *type, const char *fmt, ...);
#define mp_raise_msg_varg(type, ...) memcore_dyn_raise_varg((type), __VA_ARGS__)

/* ---- attribute tuples: the firmware's type, found through sys.implementation --------- */

/* sys.implementation is the firmware's one attrtuple that every port has (when
 * MICROPY_PY_ATTRTUPLE is on, as the user C module requires too).  The field names are
 * copied into the GC heap: the tuple's last slot points at them, which keeps them alive,
 * and a native module's qstr numbers are only known once it is loaded. */
static inline mp_obj_t memcore_dyn_new_attrtuple(const qstr *fields, size_t n, const mp_obj_t *items)
{
    mp_obj_t sys = mp_import_name(MP_QSTR_sys, mp_const_none, MP_OBJ_NEW_SMALL_INT(0));
    const mp_obj_type_t *type = mp_obj_get_type(mp_load_attr(sys, MP_QSTR_implementation));
    mp_obj_tuple_t *o = MP_OBJ_TO_PTR(mp_obj_new_tuple(n + 1, NULL));
    qstr *names = m_new(qstr, n);
    size_t i;
    if (type == &mp_type_tuple) {
        mp_raise_msg(&mp_type_RuntimeError, "memcore needs MICROPY_PY_ATTRTUPLE");
    }
    for (i = 0; i < n; i++) {
        names[i] = fields[i];
        o->items[i] = items[i];
    }
    o->base.type = type;
    o->len = n;
    o->items[n] = MP_OBJ_FROM_PTR(names);
    return MP_OBJ_FROM_PTR(o);
}

/* ---- files: open, read, close -------------------------------------------------------- */

#define mp_builtin_open(n_args, args, kwargs) (mp_call_function_n_kw(mp_load_global(MP_QSTR_open), (n_args), 0, (args)))

/* The stream's own read, looped until `size` bytes or the end (what mp_stream_rw does). */
static inline mp_uint_t memcore_dyn_stream_rw(mp_obj_t stream, void *buf, mp_uint_t size, int *errcode, byte flags)
{
    const mp_stream_p_t *p = mp_get_stream_raise(stream, MP_STREAM_OP_READ);
    byte *at = (byte *)buf;
    mp_uint_t done = 0;
    (void)flags;
    while (done < size) {
        mp_uint_t got = p->read(stream, at + done, size - done, errcode);
        if (got == MP_STREAM_ERROR) {
            return done;
        }
        if (got == 0) {
            break;
        }
        done += got;
    }
    return done;
}

static inline void memcore_dyn_stream_close(mp_obj_t stream)
{
    mp_obj_t dest[2];
    mp_load_method(stream, MP_QSTR_close, dest);
    mp_fun_table.call_method_n_kw(0, 0, dest);
}

/* ---- catching an exception to close the file ------------------------------------------ */

/* The firmware's nlr_push through the table, as native code emitted by mpy-cross calls it.
 * The buffer has room beyond this build's nlr_buf_t, in case the firmware's is larger. */
typedef struct {
    nlr_buf_t nlr;
    void *spare[8];
} memcore_nlr_t;
#define MEMCORE_NLR_VALUE(buf) ((buf).nlr.ret_val)
#undef nlr_push
#undef nlr_pop
#undef nlr_jump
#define nlr_push(buf) (mp_fun_table.nlr_push(&(buf)->nlr))
#define nlr_pop() (mp_fun_table.nlr_pop())
#define nlr_jump(val) (mp_raise_dyn(MP_OBJ_FROM_PTR(val)))

/* the names modmemcore.c calls, as dynruntime.h does it: a macro to the _dyn version */
#define mp_obj_int_sign(o) memcore_dyn_int_sign(o)
#define mp_obj_new_int_from_ll(v) memcore_dyn_new_int_from_ll(v)
#define mp_obj_new_attrtuple(fields, n, items) memcore_dyn_new_attrtuple((fields), (n), (items))
#define mp_stream_rw(stream, buf, size, errcode, flags) memcore_dyn_stream_rw((stream), (buf), (size), (errcode), (flags))
#define mp_stream_close(stream) memcore_dyn_stream_close(stream)

#endif
