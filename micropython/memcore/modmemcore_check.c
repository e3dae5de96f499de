/*
 * memcore.check(model, board, config) -> dict: the whole check of a .tflite file on the
 * board, the function of the MicroPython module `memcore` (modmemcore.c) that reads a
 * model.  As there, this file only converts: the board and configuration dicts into the
 * C core's fields, the file into the core's reads, the core's report and problems out.
 */
#include <string.h>

#include "modmemcore.h"

/* The model file: in memory where it has the buffer protocol (a file of a ROMFS, which
 * maps it from flash as TFLM needs a model whose weights stay there, or bytes), else
 * read through MicroPython's stream protocol a window at a time, so the board never
 * loads the model to check it. */
typedef struct {
    mp_obj_t file;
    const mp_stream_p_t *stream; /* NULL: the file is in memory, at mapped */
    mp_buffer_info_t mapped;
    int error;
} model_file_t;

static mc_status_t read_model(void *context, int64_t offset, uint8_t *buffer, int32_t bytes)
{
    model_file_t *f = (model_file_t *)context;
    struct mp_stream_seek_t seek;
    int error = 0;
    seek.offset = (mp_off_t)offset;
    seek.whence = MP_SEEK_SET;
    if (f->stream->ioctl(f->file, MP_STREAM_SEEK, (uintptr_t)&seek, &error) == MP_STREAM_ERROR ||
        mp_stream_rw(f->file, buffer, (mp_uint_t)bytes, &error, MP_STREAM_RW_READ) != (mp_uint_t)bytes) {
        f->error = error;
        return MC_E_READ;
    }
    return MC_OK;
}

/* One value of a board or configuration dict as the field the C core takes. */
static void to_field(mp_obj_t key, mp_obj_t value, mc_field_t *out)
{
    memset(out, 0, sizeof *out);
    if (value == mp_const_true || value == mp_const_false) {
        out->kind = MC_FIELD_BOOL;
        out->integer = value == mp_const_true;
    } else if (mp_obj_is_int(value)) {
        /* as int64 when it is one; out of range is refused, never wrapped */
        if (mp_obj_int_sign(value) < 0) {
            if (mp_obj_is_true(mp_binary_op(MP_BINARY_OP_LESS, value, mp_obj_new_int_from_ll(-1)))) {
                mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%s: a count or size is negative"),
                                  mp_obj_str_get_str(key));
            }
            out->integer = -1;
        } else {
            /* the key by its text, not as a qstr: a native module cannot intern one */
            mc_status_t rc = memcore_to_count(MP_QSTR_check, value, INT64_MAX, &out->integer);
            if (rc != MC_OK) {
                mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%s: %s"), mp_obj_str_get_str(key),
                                  mc_strerror(rc));
            }
        }
        out->kind = MC_FIELD_INTEGER;
    } else if (mp_obj_is_float(value)) {
        out->kind = MC_FIELD_REAL;
        out->real = (double)mp_obj_get_float(value);
    } else if (mp_obj_is_str(value)) {
        out->kind = MC_FIELD_NAME;
        out->text = mp_obj_str_get_str(value);
    } else {
        mp_raise_msg_varg(&mp_type_TypeError, MP_ERROR_TEXT("%s must be a number, a bool or a name, not %q"),
                          mp_obj_str_get_str(key), (qstr)mp_obj_get_type(value)->name);
    }
}

/* Every key of `dict` through `set` into `target` (mc_board_set / mc_check_config_set). */
static void set_fields(const char *what, mp_obj_t dict, void *target,
                       mc_status_t (*set)(void *target, const char *name, const mc_field_t *value))
{
    mp_map_t *map;
    size_t i;
    if (!mp_obj_is_type(dict, &mp_type_dict)) {
        mp_raise_msg_varg(&mp_type_TypeError, MP_ERROR_TEXT("%s must be a dict, not %q"), what,
                          (qstr)mp_obj_get_type(dict)->name);
    }
    map = mp_obj_dict_get_map(dict);
    for (i = 0; i < map->alloc; i++) {
        mc_field_t field;
        if (!mp_map_slot_is_filled(map, i)) {
            continue;
        }
        if (!mp_obj_is_str(map->table[i].key)) {
            mp_raise_msg_varg(&mp_type_TypeError, MP_ERROR_TEXT("%s keys must be names"), what);
        }
        to_field(map->table[i].key, map->table[i].value, &field);
        if (set(target, mp_obj_str_get_str(map->table[i].key), &field) != MC_OK) {
            mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%s: %s is not one of its fields, or not a value it takes"),
                              what, mp_obj_str_get_str(map->table[i].key));
        }
    }
}

static mc_status_t board_set(void *b, const char *name, const mc_field_t *v)
{
    return mc_board_set((mc_board_t *)b, name, v);
}

static mc_status_t config_set(void *c, const char *name, const mc_field_t *v)
{
    return mc_check_config_set((mc_check_config_t *)c, name, v);
}

static mp_obj_t field_value(const mc_field_t *f)
{
    switch (f->kind) {
    case MC_FIELD_INTEGER:
        return memcore_new_count(f->integer);
    case MC_FIELD_REAL:
        return memcore_new_real(f->real);
    case MC_FIELD_BOOL:
        return mp_obj_new_bool(f->integer != 0);
    default:
        return f->text != NULL ? mp_obj_new_str(f->text, strlen(f->text)) : mp_const_none;
    }
}

/* `kind`: the builtin code of the operator the problem names, or -1 (no graph read yet). */
static MP_NORETURN void raise_check(mp_obj_t path, mc_status_t rc, const mc_problem_t *p, int error, int32_t kind)
{
    if (rc == MC_E_READ) {
        mp_raise_OSError(error != 0 ? error : MP_EIO);
    }
    if (p->kind != MC_PROBLEM_NONE) {
        /* "model.tflite: operator 3 (builtin 3), tensor 7: reads a tensor ...": where, then
         * what; the host names the builtin (CONV_2D), the board gives its code. */
        memcore_text_t where;
        mp_print_t print = {&where, memcore_text_add};
        where.len = 0;
        where.text[0] = 0;
        mp_printf(&print, "%s", mp_obj_is_str(path) ? mp_obj_str_get_str(path) : "model");
        if (p->op >= 0) {
            mp_printf(&print, ": operator %d", (int)p->op);
            if (kind >= 0) {
                mp_printf(&print, " (builtin %d)", (int)kind);
            }
        }
        if (p->tensor >= 0) {
            mp_printf(&print, "%s tensor %d", p->op >= 0 ? "," : ":", (int)p->tensor);
        }
        if (p->at >= 0) {
            mp_printf(&print, " (at byte %d)", (int)p->at);
        }
        mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("%s: %s"), where.text,
                          mc_problem_text(p->kind));
    }
    memcore_raise_status(MP_QSTR_check, rc);
}

/* The builtin code of the operator `p` names in `g`, or -1. */
static int32_t op_kind(const mc_graph_t *g, const mc_problem_t *p)
{
    return p->kind != MC_PROBLEM_NONE && p->op >= 0 && p->op < g->n_ops ? g->ops[p->op].kind : -1;
}

/* `words` 8-byte words of the GC heap for the check, or NULL when the heap has no free
 * block that large (m_new would raise MemoryError without saying it is the check's own
 * memory the board lacks, nor how much). */
static uint64_t *check_block(size_t words)
{
    return m_renew_maybe(uint64_t, NULL, 0, words, false);
}

/* MemoryError naming the file and what the check asked for: the block to read the graph
 * into, or (graph 0) the check's one block. */
static MP_NORETURN void raise_no_block(mp_obj_t path, size_t graph_bytes, size_t check_bytes)
{
    const char *name = mp_obj_is_str(path) ? mp_obj_str_get_str(path) : "model";
    if (graph_bytes != 0) {
        mp_raise_msg_varg(&mp_type_MemoryError,
                          MP_ERROR_TEXT("%s: the check needs a free block of %u bytes to read the graph into"), name,
                          (unsigned)graph_bytes);
    }
    mp_raise_msg_varg(&mp_type_MemoryError,
                      MP_ERROR_TEXT("%s: the check needs a free block of %u bytes (check_scratch_bytes)"), name,
                      (unsigned)check_bytes);
}

/* The check itself, once the inputs are converted: the file is open, and closed by the
 * caller whatever happens here. */
static mp_obj_t run_check(mp_obj_t path, model_file_t *f, const mc_board_t *board, mc_check_config_t *config)
{
    mc_source_t source;
    mc_tflite_size_t size;
    mc_problem_t problem;
    mc_check_t result;
    struct mp_stream_seek_t seek;
    int error = 0;
    int64_t need = 0, words;
    uint64_t *block;
    mc_graph_t graph;
    int32_t kind;
    mc_status_t rc;
    mp_obj_t dict;
    int32_t i, n;

    source.context = f;
    if (f->stream == NULL) {
        /* the reader leaves the operand lists and shapes where they are, as TFLM does */
        source.read = NULL;
        source.data = (const uint8_t *)f->mapped.buf;
        source.file_bytes = (int64_t)f->mapped.len;
    } else {
        source.read = read_model;
        source.data = NULL;
        seek.offset = 0;
        seek.whence = MP_SEEK_END;
        if (f->stream->ioctl(f->file, MP_STREAM_SEEK, (uintptr_t)&seek, &error) == MP_STREAM_ERROR) {
            mp_raise_OSError(error);
        }
        source.file_bytes = (int64_t)seek.offset;
    }
    if (config->model_file_bytes == 0) {
        config->model_file_bytes = source.file_bytes; /* what sits in flash, and is loaded whole */
    }
    memset(&problem, 0, sizeof problem); /* NONE, operator 0: what op_kind reads */
    memset(&graph, 0, sizeof graph);     /* no operators until the file is read */
    rc = mc_tflite_size(&source, &size, &problem);
    if (rc != MC_OK) {
        raise_check(path, rc, &problem, f->error, -1);
    }
    /* The graph is read once to size the check (mc_check_file_scratch_bytes), then the
     * check reads it into one block of that size, where it takes turns with the
     * planners' work: never two blocks at once. */
    words = (size.scratch_bytes + 7) / 8;
    block = check_block((size_t)words);
    if (block == NULL) {
        raise_no_block(path, (size_t)words * 8, 0);
    }
    rc = mc_tflite_read(&source, block, words * 8, &graph, &problem);
    if (rc == MC_OK) {
        rc = mc_check_file_scratch_bytes(&graph, board, config, &need, &problem);
    }
    kind = rc != MC_OK ? op_kind(&graph, &problem) : -1;
    m_del(uint64_t, block, (size_t)words);
    if (rc != MC_OK) {
        raise_check(path, rc, &problem, f->error, kind);
    }
    words = (need + 7) / 8;
    block = check_block((size_t)words);
    if (block == NULL) {
        raise_no_block(path, 0, (size_t)need);
    }
    rc = mc_check_file(&source, board, config, block, words * 8, &result, &graph, &problem);
    kind = rc != MC_OK ? op_kind(&graph, &problem) : -1;
    m_del(uint64_t, block, (size_t)words);
    if (rc != MC_OK) {
        raise_check(path, rc, &problem, f->error, kind);
    }
    n = mc_check_field_count();
    dict = mp_obj_new_dict((size_t)n);
    /* Insertion order, as an OrderedDict keeps it: the report reads in the C core's order. */
    ((mp_obj_dict_t *)MP_OBJ_TO_PTR(dict))->map.is_ordered = 1;
    for (i = 0; i < n; i++) {
        mc_field_t field;
        mc_check_field(&result, i, &field);
        mp_obj_dict_store(dict, mp_obj_new_str(field.name, strlen(field.name)), field_value(&field));
    }
    return dict;
}

/* check(model, board, config): model is a path, an open binary file or the file's bytes
 * in memory (a ROMFS file, bytes, a memoryview); board and config are dicts with the C
 * core's field names (mc_board_set, mc_check_config_set).  Returns the report's fields
 * as a dict, named as the host's `memcore check --json`. */
static mp_obj_t memcore_check(mp_obj_t model, mp_obj_t board_dict, mp_obj_t config_dict)
{
    mc_board_t board;
    mc_check_config_t config;
    model_file_t f;
    memcore_nlr_t nlr;
    bool opened = false;
    mp_obj_t result;

    mc_board_init(&board);
    mc_check_config_init(&config);
    set_fields("board", board_dict, &board, board_set);
    set_fields("config", config_dict, &config, config_set);
    if (mp_obj_is_str(model)) {
        mp_obj_t args[2] = {model, MP_OBJ_NEW_QSTR(MP_QSTR_rb)};
        f.file = mp_builtin_open(2, args, (mp_map_t *)&mp_const_empty_map);
        opened = true;
    } else {
        f.file = model;
    }
    f.error = 0;
    if (nlr_push(&nlr) == 0) {
        f.stream = mp_get_buffer(f.file, &f.mapped, MP_BUFFER_READ)
                       ? NULL
                       : mp_get_stream_raise(f.file, MP_STREAM_OP_READ | MP_STREAM_OP_IOCTL);
        result = run_check(model, &f, &board, &config);
        nlr_pop();
    } else {
        if (opened) {
            mp_stream_close(f.file);
        }
        nlr_jump(MEMCORE_NLR_VALUE(nlr));
    }
    if (opened) {
        mp_stream_close(f.file);
    }
    return result;
}
MP_DEFINE_CONST_FUN_OBJ_3(memcore_check_obj, memcore_check);
