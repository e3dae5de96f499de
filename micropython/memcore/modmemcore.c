/*
 * The MicroPython module `memcore`: the device-side API of the host package, over the
 * same C core (csrc/).  This file only converts types: arguments in (range-checked, so a
 * big int is never silently truncated), one call into the core, results out as
 * attribute tuples with the host's field names.  No estimation logic lives here.
 *
 *   budget(parameters, bytes_per_parameter, batch, activation_bytes_per_example,
 *          runtime_bytes, limit_bytes)
 *   max_batch(parameters, bytes_per_parameter, activation_bytes_per_example,
 *             runtime_bytes, limit_bytes)                      -> int or None
 *   mlp_training(inputs, hidden, layers, batch, optimizer_state_per_parameter=0,
 *                bytes_per_value=4)
 *   mlp_max_batch(inputs, hidden, layers, budget_values=None,
 *                 optimizer_state_per_parameter=0, budget_bytes=None, bytes_per_value=4)
 *                                                             -> int or None
 *   latency(bytes_moved, operations, bandwidth_bytes_per_second,
 *           operations_per_second, overhead_seconds=0.0)
 *   roofline(weight_bytes, activation_bytes_per_example, operations_per_example,
 *            machine_ops_per_byte, batch=1)
 *   plan(sizes, first_use, last_use, alignment=16, strategy="tflm", budget_steps=MC_PLAN_DEFAULT_STEPS)
 *   check(model, board, config)                               -> dict
 *   version()                                                 -> (str, int)
 *
 * Bad arguments raise TypeError (wrong type) or ValueError (right type, bad value); the
 * message names the argument and carries mc_strerror's text.
 */
#include "modmemcore.h"

/* (memcore_text_t: modmemcore.h) */
void memcore_text_add(void *data, const char *str, size_t len)
{
    memcore_text_t *t = (memcore_text_t *)data;
    while (len-- > 0 && t->len + 1 < sizeof t->text) {
        t->text[t->len++] = *str++;
    }
    t->text[t->len] = 0;
}

#if MICROPY_ENABLE_DYNRUNTIME
MP_NORETURN void memcore_dyn_raise_varg(const mp_obj_type_t *type, const char *fmt, ...)
{
    memcore_text_t t;
    mp_print_t print = {&t, memcore_text_add};
    va_list args;
    t.len = 0;
    va_start(args, fmt);
    mp_vprintf(&print, fmt, args);
    va_end(args);
    mp_raise_dyn(mp_obj_new_exception_arg1(type, mp_obj_new_str(t.text, t.len)));
}
#endif

/* ---- arguments in -------------------------------------------------------------- */

MP_NORETURN void memcore_raise_status(qstr name, mc_status_t rc)
{
    mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%q: %s"), name, mc_strerror(rc));
}

static MP_NORETURN void raise_item_status(qstr name, size_t index, mc_status_t rc)
{
    mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%q[%d]: %s"), name, (int)index,
                      mc_strerror(rc));
}

/* A non-bool int in [0, maximum], as int64_t; returns the status that describes why not
 * (TypeError is raised directly).  mp_obj_get_ll() would wrap big ints modulo 2**64, so a
 * big int is compared against the bound first and then read in 30-bit pieces, each a
 * small int on every build (32-bit small ints hold 31 bits). */
mc_status_t memcore_to_count(qstr name, mp_obj_t o, int64_t maximum, int64_t *out)
{
    if (mp_obj_is_small_int(o)) {
        mp_int_t v = MP_OBJ_SMALL_INT_VALUE(o);
        if (v < 0) {
            return MC_E_NEGATIVE;
        }
        if ((int64_t)v > maximum) {
            return MC_E_RANGE;
        }
        *out = (int64_t)v;
        return MC_OK;
    }
    if (!mp_obj_is_exact_type(o, &mp_type_int)) {
        /* bool is not an int here, as on the host: True is not a byte count. */
        mp_raise_msg_varg(&mp_type_TypeError, MP_ERROR_TEXT("%q must be an integer, not %q"), name,
                          (qstr)mp_obj_get_type(o)->name);
    }
    if (mp_obj_int_sign(o) < 0) {
        return MC_E_NEGATIVE;
    }
    if (mp_obj_is_true(mp_binary_op(MP_BINARY_OP_MORE, o, mp_obj_new_int_from_ll(INT64_MAX)))) {
        return MC_E_OVERFLOW;
    }
    if (mp_obj_is_true(mp_binary_op(MP_BINARY_OP_MORE, o, mp_obj_new_int_from_ll(maximum)))) {
        return MC_E_RANGE;
    }
    {
        mp_obj_t mask = MP_OBJ_NEW_SMALL_INT(0x3fffffff);
        uint64_t lo = (uint64_t)mp_obj_get_int(mp_binary_op(MP_BINARY_OP_AND, o, mask));
        uint64_t mid = (uint64_t)mp_obj_get_int(mp_binary_op(
            MP_BINARY_OP_AND, mp_binary_op(MP_BINARY_OP_RSHIFT, o, MP_OBJ_NEW_SMALL_INT(30)), mask));
        uint64_t hi = (uint64_t)mp_obj_get_int(mp_binary_op(MP_BINARY_OP_RSHIFT, o, MP_OBJ_NEW_SMALL_INT(60)));
        *out = (int64_t)((hi << 60) | (mid << 30) | lo);
    }
    return MC_OK;
}

static int64_t get_count(qstr name, mp_obj_t o)
{
    int64_t v = 0;
    mc_status_t rc = memcore_to_count(name, o, INT64_MAX, &v);
    if (rc != MC_OK) {
        memcore_raise_status(name, rc);
    }
    return v;
}

/* A real number (int or float, not bool) as the double the core takes.  On a
 * single-precision build the value is already a float; widening it loses nothing.
 * (Constants below are integers, not 0.0: single-precision ports compile with
 * -fsingle-precision-constant -Wdouble-promotion, see csrc/src/floats.h.) */
static double get_real(qstr name, mp_obj_t o)
{
    if (o == mp_const_false || o == mp_const_true ||
        !(mp_obj_is_int(o) || mp_obj_is_float(o))) {
        mp_raise_msg_varg(&mp_type_TypeError, MP_ERROR_TEXT("%q must be a number, not %q"), name,
                          (qstr)mp_obj_get_type(o)->name);
    }
    return (double)mp_obj_get_float(o);
}

/* A rate or time: finite, and > 0 (positive) or >= 0. */
static double get_rate(qstr name, mp_obj_t o, bool positive)
{
    double v = get_real(name, o);
    if (!(v >= -DBL_MAX && v <= DBL_MAX)) {
        memcore_raise_status(name, MC_E_NOT_FINITE);
    }
    if (v < 0) {
        memcore_raise_status(name, positive ? MC_E_RANGE : MC_E_NEGATIVE);
    }
    if (positive && v == 0) {
        memcore_raise_status(name, MC_E_RANGE);
    }
    return v;
}

/* Storage width in bits from bytes per value (4, 2, 1, 0.5 for int4 ...): a whole number of
 * bits from 1 to 64, as the core's mc_check_bits requires. */
static int64_t get_bits(qstr name, mp_obj_t o)
{
    if (mp_obj_is_int(o)) {
        int64_t bytes = 0;
        mc_status_t rc = memcore_to_count(name, o, 8, &bytes);
        if (rc == MC_OK && bytes == 0) {
            rc = MC_E_RANGE;
        }
        if (rc != MC_OK) {
            memcore_raise_status(name, rc == MC_E_OVERFLOW ? MC_E_RANGE : rc);
        }
        return bytes * 8;
    } else {
        double bits = get_real(name, o) * 8;
        if (!(bits >= 1 && bits <= 64) || bits != (double)(int64_t)bits) {
            memcore_raise_status(name, bits < 0 ? MC_E_NEGATIVE : MC_E_RANGE);
        }
        return (int64_t)bits;
    }
}

/* ---- results out --------------------------------------------------------------- */

mp_obj_t memcore_new_count(int64_t v)
{
    return mp_obj_new_int_from_ll((long long)v);
}

/* The core's -1 ("none") becomes None, as on the host. */
static mp_obj_t new_count_or_none(int64_t v)
{
    return v < 0 ? mp_const_none : memcore_new_count(v);
}

mp_obj_t memcore_new_real(double v)
{
    return mp_obj_new_float((mp_float_t)v);
}

static void check_call(qstr function, mc_status_t rc)
{
    if (rc != MC_OK) {
        memcore_raise_status(function, rc);
    }
}

/* ---- budget, max_batch ----------------------------------------------------------- */

static mp_obj_t budget_result(const mc_budget_t *b)
{
    MEMCORE_TABLE qstr fields[] = {
        MP_QSTR_required_bytes, MP_QSTR_headroom_bytes, MP_QSTR_parameter_bytes,
        MP_QSTR_activation_bytes, MP_QSTR_runtime_bytes, MP_QSTR_dominant, MP_QSTR_fits,
        MP_QSTR_max_batch,
    };
    MEMCORE_TABLE qstr terms[] = {MP_QSTR_parameters, MP_QSTR_activations, MP_QSTR_runtime};
    mp_obj_t items[8] = {
        memcore_new_count(b->required_bytes), memcore_new_count(b->headroom_bytes), memcore_new_count(b->parameter_bytes),
        memcore_new_count(b->activation_bytes), memcore_new_count(b->runtime_bytes),
        MP_OBJ_NEW_QSTR(terms[b->dominant]), mp_obj_new_bool(b->fits),
        new_count_or_none(b->max_batch),
    };
    return mp_obj_new_attrtuple(fields, 8, items);
}

static mp_obj_t memcore_budget(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    enum { ARG_parameters, ARG_bytes_per_parameter, ARG_batch, ARG_activation_bytes_per_example,
           ARG_runtime_bytes, ARG_limit_bytes };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_parameters, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_bytes_per_parameter, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_batch, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_activation_bytes_per_example, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_runtime_bytes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_limit_bytes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    mc_budget_t b;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    check_call(MP_QSTR_budget, mc_budget(
        get_count(MP_QSTR_parameters, a[ARG_parameters].u_obj),
        get_bits(MP_QSTR_bytes_per_parameter, a[ARG_bytes_per_parameter].u_obj),
        get_count(MP_QSTR_batch, a[ARG_batch].u_obj),
        get_count(MP_QSTR_activation_bytes_per_example, a[ARG_activation_bytes_per_example].u_obj),
        get_count(MP_QSTR_runtime_bytes, a[ARG_runtime_bytes].u_obj),
        get_count(MP_QSTR_limit_bytes, a[ARG_limit_bytes].u_obj), &b));
    return budget_result(&b);
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_budget_obj, 0, memcore_budget);

static mp_obj_t memcore_max_batch(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    enum { ARG_parameters, ARG_bytes_per_parameter, ARG_activation_bytes_per_example,
           ARG_runtime_bytes, ARG_limit_bytes };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_parameters, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_bytes_per_parameter, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_activation_bytes_per_example, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_runtime_bytes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_limit_bytes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    mc_budget_t b;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    check_call(MP_QSTR_max_batch, mc_budget(
        get_count(MP_QSTR_parameters, a[ARG_parameters].u_obj),
        get_bits(MP_QSTR_bytes_per_parameter, a[ARG_bytes_per_parameter].u_obj),
        0,
        get_count(MP_QSTR_activation_bytes_per_example, a[ARG_activation_bytes_per_example].u_obj),
        get_count(MP_QSTR_runtime_bytes, a[ARG_runtime_bytes].u_obj),
        get_count(MP_QSTR_limit_bytes, a[ARG_limit_bytes].u_obj), &b));
    return new_count_or_none(b.max_batch);
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_max_batch_obj, 0, memcore_max_batch);

/* ---- mlp_training, mlp_max_batch -------------------------------------------------- */

static mp_obj_t memcore_mlp_training(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    MEMCORE_TABLE qstr fields[] = {
        MP_QSTR_parameters, MP_QSTR_gradients, MP_QSTR_optimizer_state, MP_QSTR_activations, MP_QSTR_total,
        MP_QSTR_total_bytes, MP_QSTR_activation_share,
    };
    enum { ARG_inputs, ARG_hidden, ARG_layers, ARG_batch, ARG_state, ARG_bytes_per_value };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_inputs, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_hidden, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_layers, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_batch, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_optimizer_state_per_parameter, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(0)} },
        { MP_QSTR_bytes_per_value, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(4)} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    mc_mlp_training_t r;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    check_call(MP_QSTR_mlp_training, mc_mlp_training(
        get_count(MP_QSTR_inputs, a[ARG_inputs].u_obj), get_count(MP_QSTR_hidden, a[ARG_hidden].u_obj),
        get_count(MP_QSTR_layers, a[ARG_layers].u_obj), get_count(MP_QSTR_batch, a[ARG_batch].u_obj),
        get_count(MP_QSTR_optimizer_state_per_parameter, a[ARG_state].u_obj),
        get_bits(MP_QSTR_bytes_per_value, a[ARG_bytes_per_value].u_obj), &r));
    {
        mp_obj_t items[7] = {
            memcore_new_count(r.parameters), memcore_new_count(r.gradients), memcore_new_count(r.optimizer_state), memcore_new_count(r.activations),
            memcore_new_count(r.total), memcore_new_count(r.total_bytes), memcore_new_real(r.activation_share),
        };
        return mp_obj_new_attrtuple(fields, 7, items);
    }
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_mlp_training_obj, 0, memcore_mlp_training);

static mp_obj_t memcore_mlp_max_batch(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    enum { ARG_inputs, ARG_hidden, ARG_layers, ARG_budget_values, ARG_state, ARG_budget_bytes,
           ARG_bytes_per_value };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_inputs, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_hidden, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_layers, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_budget_values, MP_ARG_OBJ, {.u_obj = mp_const_none} },
        { MP_QSTR_optimizer_state_per_parameter, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(0)} },
        { MP_QSTR_budget_bytes, MP_ARG_OBJ, {.u_obj = mp_const_none} },
        { MP_QSTR_bytes_per_value, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(4)} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    int64_t amount, bits = 0, largest = 0;
    bool values;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    values = a[ARG_budget_values].u_obj != mp_const_none;
    if (values == (a[ARG_budget_bytes].u_obj != mp_const_none)) {
        mp_raise_ValueError(MP_ERROR_TEXT("give exactly one of budget_values and budget_bytes"));
    }
    if (values) {
        amount = get_count(MP_QSTR_budget_values, a[ARG_budget_values].u_obj);
    } else {
        amount = get_count(MP_QSTR_budget_bytes, a[ARG_budget_bytes].u_obj);
        bits = get_bits(MP_QSTR_bytes_per_value, a[ARG_bytes_per_value].u_obj);
    }
    check_call(MP_QSTR_mlp_max_batch, mc_mlp_max_batch(
        get_count(MP_QSTR_inputs, a[ARG_inputs].u_obj), get_count(MP_QSTR_hidden, a[ARG_hidden].u_obj),
        get_count(MP_QSTR_layers, a[ARG_layers].u_obj), amount,
        get_count(MP_QSTR_optimizer_state_per_parameter, a[ARG_state].u_obj), bits, &largest));
    return new_count_or_none(largest);
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_mlp_max_batch_obj, 0, memcore_mlp_max_batch);

/* ---- latency --------------------------------------------------------------------- */

static mp_obj_t memcore_latency(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    MEMCORE_TABLE qstr fields[] = {
        MP_QSTR_fetch_seconds, MP_QSTR_compute_seconds, MP_QSTR_setup_seconds, MP_QSTR_total_seconds,
        MP_QSTR_dominant, MP_QSTR_saving_if_compute_doubled, MP_QSTR_saving_if_bandwidth_doubled,
        MP_QSTR_saving_seconds_if_compute_doubled, MP_QSTR_saving_seconds_if_bandwidth_doubled,
    };
    enum { ARG_bytes_moved, ARG_operations, ARG_bandwidth, ARG_ops_per_second, ARG_overhead };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_bytes_moved, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_operations, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_bandwidth_bytes_per_second, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_operations_per_second, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_overhead_seconds, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(0)} },
    };
    MEMCORE_TABLE qstr parts[] = {MP_QSTR_fetch, MP_QSTR_compute, MP_QSTR_setup};
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    mc_latency_t r;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    check_call(MP_QSTR_latency, mc_latency(
        get_count(MP_QSTR_bytes_moved, a[ARG_bytes_moved].u_obj),
        get_count(MP_QSTR_operations, a[ARG_operations].u_obj),
        get_rate(MP_QSTR_bandwidth_bytes_per_second, a[ARG_bandwidth].u_obj, true),
        get_rate(MP_QSTR_operations_per_second, a[ARG_ops_per_second].u_obj, true),
        get_rate(MP_QSTR_overhead_seconds, a[ARG_overhead].u_obj, false), &r));
    {
        mp_obj_t items[9] = {
            memcore_new_real(r.fetch_seconds), memcore_new_real(r.compute_seconds), memcore_new_real(r.setup_seconds),
            memcore_new_real(r.total_seconds), MP_OBJ_NEW_QSTR(parts[r.dominant]),
            memcore_new_real(r.saving_if_compute_doubled), memcore_new_real(r.saving_if_bandwidth_doubled),
            memcore_new_real(r.saving_seconds_if_compute_doubled), memcore_new_real(r.saving_seconds_if_bandwidth_doubled),
        };
        return mp_obj_new_attrtuple(fields, 9, items);
    }
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_latency_obj, 0, memcore_latency);

/* ---- roofline -------------------------------------------------------------------- */

static mp_obj_t memcore_roofline(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    MEMCORE_TABLE qstr fields[] = {
        MP_QSTR_intensity, MP_QSTR_bound, MP_QSTR_crossover_batch, MP_QSTR_ceiling,
    };
    enum { ARG_weight_bytes, ARG_activation_bytes_per_example, ARG_operations_per_example,
           ARG_machine_ops_per_byte, ARG_batch };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_weight_bytes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_activation_bytes_per_example, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_operations_per_example, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_machine_ops_per_byte, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_batch, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(1)} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    mc_roofline_t r;
    int64_t batch;
    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    batch = get_count(MP_QSTR_batch, a[ARG_batch].u_obj);
    if (batch == 0) {
        memcore_raise_status(MP_QSTR_batch, MC_E_RANGE);
    }
    check_call(MP_QSTR_roofline, mc_roofline(
        get_count(MP_QSTR_weight_bytes, a[ARG_weight_bytes].u_obj),
        get_count(MP_QSTR_activation_bytes_per_example, a[ARG_activation_bytes_per_example].u_obj),
        get_count(MP_QSTR_operations_per_example, a[ARG_operations_per_example].u_obj),
        get_rate(MP_QSTR_machine_ops_per_byte, a[ARG_machine_ops_per_byte].u_obj, true),
        batch, &r));
    {
        mp_obj_t items[4] = {
            memcore_new_real(r.intensity),
            MP_OBJ_NEW_QSTR(r.bound == MC_BOUND_MEMORY ? MP_QSTR_memory : MP_QSTR_compute),
            new_count_or_none(r.crossover_batch), memcore_new_real(r.ceiling),
        };
        return mp_obj_new_attrtuple(fields, 4, items);
    }
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_roofline_obj, 0, memcore_roofline);

/* ---- plan ------------------------------------------------------------------------ */

static mp_obj_t memcore_plan(size_t n_args, const mp_obj_t *pos_args, mp_map_t *kw_args)
{
    MEMCORE_TABLE qstr fields[] = {
        MP_QSTR_arena_bytes, MP_QSTR_offsets, MP_QSTR_lower_bound_bytes, MP_QSTR_strategy,
        MP_QSTR_proven_optimal, MP_QSTR_steps,
    };
    enum { ARG_sizes, ARG_first_use, ARG_last_use, ARG_alignment, ARG_strategy, ARG_budget_steps };
    MEMCORE_TABLE mp_arg_t allowed[] = {
        { MP_QSTR_sizes, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_first_use, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_last_use, MP_ARG_REQUIRED | MP_ARG_OBJ, {.u_obj = MP_OBJ_NULL} },
        { MP_QSTR_alignment, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(16)} },
        { MP_QSTR_strategy, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_QSTR(MP_QSTR_tflm)} },
        { MP_QSTR_budget_steps, MP_ARG_OBJ, {.u_obj = MP_OBJ_NEW_SMALL_INT(MC_PLAN_DEFAULT_STEPS)} },
    };
    mp_arg_val_t a[MP_ARRAY_SIZE(allowed)];
    size_t n, n_first, n_last, i, words;
    mp_obj_t *size_items, *first_items, *last_items;
    const char *name;
    mc_strategy_t strategy;
    qstr strategy_name;
    int64_t alignment, budget_steps, need = 0;
    int64_t *block, *sizes, *offsets, *scratch;
    int32_t *first, *last;
    mc_plan_t r;
    mc_status_t rc;
    mp_obj_t result;

    mp_arg_parse_all(n_args, pos_args, kw_args, MP_ARRAY_SIZE(allowed), allowed, a);
    name = mp_obj_str_get_str(a[ARG_strategy].u_obj);
    if (strcmp(name, "tflm") == 0) {
        strategy = MC_PLAN_TFLM;
        strategy_name = MP_QSTR_tflm;
    } else if (strcmp(name, "best") == 0) {
        strategy = MC_PLAN_BEST;
        strategy_name = MP_QSTR_best;
    } else {
        mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("strategy must be 'tflm' or 'best', not '%s'"),
                          name);
    }
    mp_obj_get_array(a[ARG_sizes].u_obj, &n, &size_items);
    mp_obj_get_array(a[ARG_first_use].u_obj, &n_first, &first_items);
    mp_obj_get_array(a[ARG_last_use].u_obj, &n_last, &last_items);
    if (n_first != n || n_last != n) {
        mp_raise_msg_varg(&mp_type_ValueError,
                          MP_ERROR_TEXT("sizes, first_use and last_use must have the same length, not %d, %d, %d"),
                          (int)n, (int)n_first, (int)n_last);
    }
    alignment = get_count(MP_QSTR_alignment, a[ARG_alignment].u_obj);
    if (alignment == 0) {
        memcore_raise_status(MP_QSTR_alignment, MC_E_RANGE);
    }
    budget_steps = get_count(MP_QSTR_budget_steps, a[ARG_budget_steps].u_obj);
    check_call(MP_QSTR_plan, mc_plan_scratch_bytes((int64_t)n, &need));

    /* One GC block, in int64 words: sizes, offsets, the planner's scratch (the GC hands out
     * blocks aligned to at least 8 bytes, as the planner asks), then the two int32 arrays. */
    if ((uint64_t)need / 8u + 3u * (uint64_t)n + 2u > (uint64_t)(SIZE_MAX / sizeof(int64_t))) {
        mp_raise_type(&mp_type_MemoryError);
    }
    words = 3 * n + (size_t)((need + 7) / 8) + 1;
    block = m_new(int64_t, words);
    sizes = block;
    offsets = sizes + n;
    scratch = offsets + n;
    first = (int32_t *)(scratch + (need + 7) / 8);
    last = first + n;
    for (i = 0; i < n; i++) {
        int64_t f = 0, l = 0;
        rc = memcore_to_count(MP_QSTR_sizes, size_items[i], INT64_MAX, &sizes[i]);
        if (rc != MC_OK) {
            m_del(int64_t, block, words);
            raise_item_status(MP_QSTR_sizes, i, rc);
        }
        rc = memcore_to_count(MP_QSTR_first_use, first_items[i], INT32_MAX, &f);
        if (rc != MC_OK) {
            m_del(int64_t, block, words);
            raise_item_status(MP_QSTR_first_use, i, rc);
        }
        rc = memcore_to_count(MP_QSTR_last_use, last_items[i], INT32_MAX, &l);
        if (rc != MC_OK) {
            m_del(int64_t, block, words);
            raise_item_status(MP_QSTR_last_use, i, rc);
        }
        first[i] = (int32_t)f;
        last[i] = (int32_t)l;
    }
    rc = mc_plan(strategy, sizes, first, last, (int64_t)n, alignment, budget_steps, scratch, need, offsets, &r);
    if (rc != MC_OK) {
        m_del(int64_t, block, words);
        memcore_raise_status(MP_QSTR_plan, rc);
    }
    {
        mp_obj_t items[6];
        mp_obj_list_t *list = MP_OBJ_TO_PTR(mp_obj_new_list(n, NULL));
        for (i = 0; i < n; i++) {
            list->items[i] = memcore_new_count(offsets[i]);
        }
        items[0] = memcore_new_count(r.arena_bytes);
        items[1] = MP_OBJ_FROM_PTR(list);
        items[2] = memcore_new_count(r.lower_bound_bytes);
        items[3] = MP_OBJ_NEW_QSTR(strategy_name);
        items[4] = mp_obj_new_bool(r.proven_optimal);
        items[5] = memcore_new_count(r.steps);
        result = mp_obj_new_attrtuple(fields, 6, items);
    }
    m_del(int64_t, block, words);
    return result;
}
static MP_DEFINE_CONST_FUN_OBJ_KW(memcore_plan_obj, 0, memcore_plan);


/* ---- version ----------------------------------------------------------------------- */

static mp_obj_t memcore_version(void)
{
    const char *v = mc_version();
    mp_obj_t items[2] = {
        mp_obj_new_str(v, strlen(v)),
        MP_OBJ_NEW_SMALL_INT(mc_api_version()),
    };
    return mp_obj_new_tuple(2, items);
}
static MP_DEFINE_CONST_FUN_OBJ_0(memcore_version_obj, memcore_version);

#if MICROPY_ENABLE_DYNRUNTIME
/* The native module's entry: what `import memcore` runs when it loads memcore.mpy. */
mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args)
{
    MP_DYNRUNTIME_INIT_ENTRY
    /* byte counts pass 32 bits: firmware without long ints refuses the import here
     * (OverflowError) rather than giving wrong numbers later */
    (void)mp_binary_op(MP_BINARY_OP_LSHIFT, MP_OBJ_NEW_SMALL_INT(1), MP_OBJ_NEW_SMALL_INT(40));
    mp_store_global(MP_QSTR_IMPLEMENTATION, mp_obj_new_str("native-mpy", 10));
    mp_store_global(MP_QSTR_budget, MP_OBJ_FROM_PTR(&memcore_budget_obj));
    mp_store_global(MP_QSTR_max_batch, MP_OBJ_FROM_PTR(&memcore_max_batch_obj));
    mp_store_global(MP_QSTR_mlp_training, MP_OBJ_FROM_PTR(&memcore_mlp_training_obj));
    mp_store_global(MP_QSTR_mlp_max_batch, MP_OBJ_FROM_PTR(&memcore_mlp_max_batch_obj));
    mp_store_global(MP_QSTR_latency, MP_OBJ_FROM_PTR(&memcore_latency_obj));
    mp_store_global(MP_QSTR_roofline, MP_OBJ_FROM_PTR(&memcore_roofline_obj));
    mp_store_global(MP_QSTR_plan, MP_OBJ_FROM_PTR(&memcore_plan_obj));
    mp_store_global(MP_QSTR_check, MP_OBJ_FROM_PTR(&memcore_check_obj));
    mp_store_global(MP_QSTR_version, MP_OBJ_FROM_PTR(&memcore_version_obj));
    MP_DYNRUNTIME_INIT_EXIT
}
#else
/* what the board's report names (memcore.mpy says "native-mpy", the fallback "fallback") */
static const MP_DEFINE_STR_OBJ(memcore_implementation_obj, "c-module");

static const mp_rom_map_elem_t memcore_module_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_memcore) },
    { MP_ROM_QSTR(MP_QSTR_IMPLEMENTATION), MP_ROM_PTR(&memcore_implementation_obj) },
    { MP_ROM_QSTR(MP_QSTR_budget), MP_ROM_PTR(&memcore_budget_obj) },
    { MP_ROM_QSTR(MP_QSTR_max_batch), MP_ROM_PTR(&memcore_max_batch_obj) },
    { MP_ROM_QSTR(MP_QSTR_mlp_training), MP_ROM_PTR(&memcore_mlp_training_obj) },
    { MP_ROM_QSTR(MP_QSTR_mlp_max_batch), MP_ROM_PTR(&memcore_mlp_max_batch_obj) },
    { MP_ROM_QSTR(MP_QSTR_latency), MP_ROM_PTR(&memcore_latency_obj) },
    { MP_ROM_QSTR(MP_QSTR_roofline), MP_ROM_PTR(&memcore_roofline_obj) },
    { MP_ROM_QSTR(MP_QSTR_plan), MP_ROM_PTR(&memcore_plan_obj) },
    { MP_ROM_QSTR(MP_QSTR_check), MP_ROM_PTR(&memcore_check_obj) },
    { MP_ROM_QSTR(MP_QSTR_version), MP_ROM_PTR(&memcore_version_obj) },
};
static MP_DEFINE_CONST_DICT(memcore_module_globals, memcore_module_globals_table);

const mp_obj_module_t memcore_user_cmodule = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&memcore_module_globals,
};

MP_REGISTER_MODULE(MP_QSTR_memcore, memcore_user_cmodule);
#endif
