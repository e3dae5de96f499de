/*
 * The names the host's report and the board's report line share (memcore.h §13).
 *
 * A check's report is a list of named fields read off mc_check_t by offset, so the
 * host package and the MicroPython module both iterate this one table: a field added
 * here appears on both sides with the same name, and none can be spelled differently.
 */
#include <stddef.h>
#include <string.h>

#include "memcore.h"

#define SCHEMA "memcore.report/1"
#define PREFIX "@memcore "

/* Storage of a field in mc_check_t, numbered as the kind of field it reports. */
enum { INT64 = MC_FIELD_INTEGER, DOUBLE = MC_FIELD_REAL, BOOL = MC_FIELD_BOOL, INT32_NAME = MC_FIELD_NAME };

/* Which names an INT32_NAME field takes (namers[], below). */
enum { NAMES_NUMERIC = 0, NAMES_KERNELS, NAMES_VERDICT, NAMES_RESOURCE };

/* Each field once, in report order: its name, its member of mc_check_t, its storage and
 * which names it takes.  The names go into one NUL-separated string and the rest into a
 * 2-byte row, so a field costs its name and 2 bytes, not a pointer besides. */
#define RESOURCE(X, r, prefix)                                                                      \
    X(prefix "_checked", resources[r].checked, BOOL, 0) X(prefix "_fits", resources[r].fits, BOOL, 0) \
    X(prefix "_need", resources[r].need, DOUBLE, 0) X(prefix "_limit", resources[r].limit, DOUBLE, 0) \
    X(prefix "_margin", resources[r].margin, DOUBLE, 0)

#define CHECK_FIELDS(X)                                                       \
    /* the model */                                                           \
    X("tensors", tensors, INT64, 0)                                           \
    X("operators", ops, INT64, 0)                                             \
    X("parameters", parameters, INT64, 0)                                     \
    X("weights_bytes", weights_bytes, INT64, 0)                               \
    X("activation_bytes", activation_bytes, INT64, 0)                         \
    X("input_bytes", input_bytes, INT64, 0)                                   \
    X("macs", macs, INT64, 0)                                                 \
    X("operations", operations, INT64, 0)                                     \
    X("numeric", numeric, INT32_NAME, NAMES_NUMERIC)                          \
    X("kernels", kernels, INT32_NAME, NAMES_KERNELS)                          \
    /* the arena */                                                           \
    X("arena_tflm_bytes", arena_tflm_bytes, INT64, 0)                         \
    X("arena_best_bytes", arena_best_bytes, INT64, 0)                         \
    X("arena_lower_bound_bytes", arena_lower_bound_bytes, INT64, 0)           \
    X("best_is_optimal", best_is_optimal, BOOL, 0)                            \
    X("scratch_buffer_bytes", scratch_buffer_bytes, INT64, 0)                 \
    X("buffers", buffers, INT64, 0)                                           \
    X("check_scratch_bytes", check_scratch_bytes, INT64, 0)                   \
    X("minimum_arena_bytes", tflm.minimum_arena_bytes, INT64, 0)              \
    X("tflm_upper_bound", tflm.upper_bound, BOOL, 0)                          \
    X("unknown_operators", tflm.unknown_ops, INT64, 0)                        \
    /* memory */                                                              \
    X("runtime_overhead_bytes", runtime_overhead_bytes, INT64, 0)             \
    X("runtime_bytes", runtime_bytes, INT64, 0)                               \
    X("recommended_arena_bytes", recommended_arena_bytes, INT64, 0)           \
    X("loaded_model_bytes", loaded_model_bytes, INT64, 0)                     \
    X("required_bytes", required_bytes, INT64, 0)                             \
    X("available_bytes", available_bytes, INT64, 0)                           \
    X("headroom_bytes", headroom_bytes, INT64, 0)                             \
    X("needs_heap_growth", needs_heap_growth, BOOL, 0)                        \
    /* time */                                                                \
    X("timed", timed, BOOL, 0)                                                \
    X("fetch_seconds", latency.fetch_seconds, DOUBLE, 0)                      \
    X("compute_seconds", latency.compute_seconds, DOUBLE, 0)                  \
    X("setup_seconds", latency.setup_seconds, DOUBLE, 0)                      \
    X("total_seconds", latency.total_seconds, DOUBLE, 0)                      \
    X("ops_per_second", ops_per_second, DOUBLE, 0)                            \
    X("max_inferences_per_hour", max_inferences_per_hour, DOUBLE, 0)          \
    X("latency_limit_is_period", latency_limit_is_period, BOOL, 0)            \
    /* energy */                                                              \
    X("energy_joules", energy_joules, DOUBLE, 0)                              \
    X("radio_joules", radio_joules, DOUBLE, 0)                                \
    X("radio_seconds", radio_seconds, DOUBLE, 0)                              \
    X("duty_cycle", duty_cycle, DOUBLE, 0)                                    \
    X("average_watts", average_watts, DOUBLE, 0)                              \
    X("battery_life_seconds", battery_life_seconds, DOUBLE, 0)                \
    X("cheaper_to_send", cheaper_to_send, BOOL, 0)                            \
    /* the verdict */                                                         \
    X("verdict", verdict, INT32_NAME, NAMES_VERDICT)                          \
    X("limiting_resource", limiting, INT32_NAME, NAMES_RESOURCE)              \
    RESOURCE(X, MC_RESOURCE_RAM, "ram")                                       \
    RESOURCE(X, MC_RESOURCE_PSRAM, "psram")                                   \
    RESOURCE(X, MC_RESOURCE_FLASH, "flash")                                   \
    RESOURCE(X, MC_RESOURCE_LATENCY, "latency")                               \
    RESOURCE(X, MC_RESOURCE_BATTERY, "battery")

/* A field's row: its offset in mc_check_t in the low 10 bits, its storage in the next
 * two, the names it takes in the two above.  mc_check_t is 960 bytes on x86-64, the
 * largest of its layouts; the typedef below fails to compile should it pass 1024. */
typedef uint16_t field_t;
typedef char mc_check_offsets_fit_10_bits[sizeof(mc_check_t) <= 1024 ? 1 : -1];
#define FIELD_OFFSET(f) ((f) & 0x3FFu)
#define FIELD_STORAGE(f) (((f) >> 10) & 3u)
#define FIELD_NAMES(f) ((f) >> 12)

#define FIELD_NAME(name, member, storage, names) name "\0"
#define FIELD_ROW(name, member, storage, names) \
    (field_t)(offsetof(mc_check_t, member) | (storage) << 10 | (names) << 12),
static const char field_names[] = CHECK_FIELDS(FIELD_NAME);
static const field_t fields[] = {CHECK_FIELDS(FIELD_ROW)};

/* The index-th of a run of NUL-separated names (index in range: the caller checks). */
static const char *nth_name(const char *names, int32_t index)
{
    while (index-- > 0) {
        names += strlen(names) + 1;
    }
    return names;
}

/* The i-th of n NUL-separated names, or NULL out of range or for an empty name (a code
 * no name stands for). */
static const char *pick(const char *names, int32_t n, int32_t i)
{
    const char *name = i >= 0 && i < n ? nth_name(names, i) : "";
    return *name != '\0' ? name : NULL;
}

/* Each list in its enum's order (memcore.h). */
static const char target_names[] = "host64\0armhf\0cortex-m\0riscv32\0esp32";

const char *mc_target_name(int32_t target)
{
    return pick(target_names, MC_TARGET_COUNT, target);
}

/* Lists that rate_offset also reads word by word end in an empty name. */
static const char kernels_names[] = "reference\0optimised\0";
static const char numeric_names[] = "int8\0float32\0";
static const char opclass_names[] = "conv\0depthwise\0matmul\0other\0";

const char *mc_kernels_name(int32_t kernels)
{
    return pick(kernels_names, 2, kernels);
}

/* The memory resources are the regions, in the same order. */
static const char resource_names[] = "ram\0psram\0flash\0latency\0battery";

const char *mc_region_name(int32_t region)
{
    return pick(resource_names, MC_REGION_COUNT, region);
}

const char *mc_resource_name(int32_t resource)
{
    return pick(resource_names, MC_RESOURCE_COUNT, resource);
}

const char *mc_verdict_name(int32_t verdict)
{
    return pick("fits\0does_not_fit\0\0misses_budget", 4, verdict);
}

const char *mc_numeric_name(int32_t numeric)
{
    return pick(numeric_names, MC_NUMERIC_COUNT, numeric);
}

const char *mc_opclass_name(int32_t opclass)
{
    return pick(opclass_names, MC_OPCLASS_COUNT, opclass);
}

const char *mc_report_schema(void)
{
    return SCHEMA;
}

const char *mc_report_prefix(void)
{
    return PREFIX;
}

int32_t mc_check_field_count(void)
{
    return (int32_t)(sizeof fields / sizeof fields[0]);
}

mc_status_t mc_check_field(const mc_check_t *check, int32_t index, mc_field_t *out)
{
    /* The lists an INT32_NAME field's value is named from, by NAMES_*. */
    static const char *(*const namers[])(int32_t) = {mc_numeric_name, mc_kernels_name, mc_verdict_name,
                                                      mc_resource_name};
    field_t f;
    const unsigned char *at;
    if (check == NULL || out == NULL) {
        return MC_E_NULL;
    }
    if (index < 0 || index >= mc_check_field_count()) {
        return MC_E_RANGE;
    }
    f = fields[index];
    at = (const unsigned char *)check + FIELD_OFFSET(f);
    out->name = nth_name(field_names, index);
    out->kind = (int32_t)FIELD_STORAGE(f);
    out->integer = 0;
    out->real = 0;
    out->text = NULL;
    switch (FIELD_STORAGE(f)) {
    case INT64:
        out->integer = *(const int64_t *)(const void *)at;
        break;
    case DOUBLE:
        out->real = *(const double *)(const void *)at;
        break;
    case BOOL:
        out->integer = *(const bool *)(const void *)at ? 1 : 0;
        break;
    default:
        out->integer = *(const int32_t *)(const void *)at;
        out->text = namers[FIELD_NAMES(f)]((int32_t)out->integer);
        break;
    }
    return MC_OK;
}

/* ---- inputs: a board and a configuration, by name ------------------------------ */

/* Storage of an input field, and which names a name-kind field takes; IN_BIT + b is
 * bit b of a uint32_t. */
enum { IN_INT64 = 0, IN_DOUBLE, IN_TARGET, IN_KERNELS, IN_REGION, IN_BIT };

/* As the report's fields: names in one NUL-separated string, the rest in 2-byte rows.
 * mc_board_t is 248 bytes on x86-64, the largest of its layouts (mc_check_config_t 88):
 * offsets fit a byte, and the typedef below fails to compile should they not. */
typedef struct {
    uint8_t offset;
    uint8_t storage;
} input_t;
typedef char mc_input_offsets_fit_a_byte[sizeof(mc_board_t) <= 256 && sizeof(mc_check_config_t) <= 256
                                             ? 1 : -1];

/* The board's rates are not in the table: see rate_offset. */
#define BOARD_INPUTS(X)                                                                       \
    X("target", target, IN_TARGET, 0)                                                         \
    X("ram_bytes", regions[MC_REGION_RAM].bytes, IN_INT64, 0)                                 \
    X("ram_read_bytes_per_second", regions[MC_REGION_RAM].read_bytes_per_second, IN_DOUBLE, 0) \
    X("psram_bytes", regions[MC_REGION_PSRAM].bytes, IN_INT64, 0)                             \
    X("psram_read_bytes_per_second", regions[MC_REGION_PSRAM].read_bytes_per_second, IN_DOUBLE, 0) \
    X("flash_bytes", regions[MC_REGION_FLASH].bytes, IN_INT64, 0)                             \
    X("flash_read_bytes_per_second", regions[MC_REGION_FLASH].read_bytes_per_second, IN_DOUBLE, 0) \
    X("ram_bytes_at_boot", ram_bytes_at_boot, IN_INT64, 0)                                    \
    X("model_partition_bytes", model_partition_bytes, IN_INT64, 0)                            \
    X("ram_traffic_in_rates", rates_include_region, IN_BIT, MC_REGION_RAM)                    \
    X("psram_traffic_in_rates", rates_include_region, IN_BIT, MC_REGION_PSRAM)                \
    X("flash_traffic_in_rates", rates_include_region, IN_BIT, MC_REGION_FLASH)                \
    X("overhead_seconds", overhead_seconds, IN_DOUBLE, 0)                                     \
    X("active_watts", active_watts, IN_DOUBLE, 0)                                             \
    X("sleep_watts", sleep_watts, IN_DOUBLE, 0)                                               \
    X("radio_tx_watts", radio_tx_watts, IN_DOUBLE, 0)                                         \
    X("radio_bytes_per_second", radio_bytes_per_second, IN_DOUBLE, 0)

#define CONFIG_INPUTS(X)                                                      \
    X("kernels", kernels, IN_KERNELS, 0)                                      \
    X("arena_region", arena_region, IN_REGION, 0)                             \
    X("weights_region", weights_region, IN_REGION, 0)                         \
    X("batch", batch, IN_INT64, 0)                                            \
    X("model_file_bytes", model_file_bytes, IN_INT64, 0)                      \
    X("available_bytes", available_bytes, IN_INT64, 0)                        \
    X("latency_budget_seconds", latency_budget_seconds, IN_DOUBLE, 0)         \
    X("inferences_per_hour", inferences_per_hour, IN_DOUBLE, 0)               \
    X("battery_joules", battery_joules, IN_DOUBLE, 0)                         \
    X("battery_life_seconds", battery_life_seconds, IN_DOUBLE, 0)             \
    X("plan_steps", plan_steps, IN_INT64, 0)                                  \
    X("allow_unknown_ops", flags, IN_BIT, 0)                                  \
    X("memcore_plan", flags, IN_BIT, 1)

#define BOARD_ROW(name, member, storage, bit) {(uint8_t)offsetof(mc_board_t, member), (storage) + (bit)},
#define CONFIG_ROW(name, member, storage, bit) {(uint8_t)offsetof(mc_check_config_t, member), (storage) + (bit)},
static const char board_names[] = BOARD_INPUTS(FIELD_NAME);
static const input_t board_inputs[] = {BOARD_INPUTS(BOARD_ROW)};
static const char config_names[] = CONFIG_INPUTS(FIELD_NAME);
static const input_t config_inputs[] = {CONFIG_INPUTS(CONFIG_ROW)};

/* The index of `text` among the first n of NUL-separated names, or -1 (and for NULL). */
static int32_t name_index(const char *names, int32_t n, const char *text)
{
    int32_t i;
    for (i = 0; i < n && text != NULL; i++, names += strlen(names) + 1) {
        if (strcmp(names, text) == 0) {
            return i;
        }
    }
    return -1;
}

/* The row named `name` among n, or NULL. */
static const input_t *find(const input_t *inputs, const char *names, int32_t n, const char *name)
{
    int32_t i = name_index(names, n, name);
    return i < 0 ? NULL : &inputs[i];
}

/* The code of the name among `names` (NUL-separated, ending in an empty one) that starts
 * `text` followed by '_', and the text after that '_'; NULL when none does. */
static const char *word(const char *text, const char *names, int32_t *code)
{
    int32_t i;
    for (i = 0; *names != '\0'; i++, names += strlen(names) + 1) {
        size_t n = strlen(names);
        if (strncmp(text, names, n) == 0 && text[n] == '_') {
            *code = i;
            return text + n + 1;
        }
    }
    return NULL;
}

/* A board's rates, one per operator class, numeric type and kernel library, are named
 * "<opclass>_<numeric>_<kernels>_ops_per_second" ("conv_int8_optimised_ops_per_second"):
 * read by their parts rather than kept as sixteen names (600 bytes on a board). */
static bool rate_offset(const char *name, uint8_t *offset)
{
    /* The parts in order, and how many names each has: the rate's index counts in them. */
    static const char *const parts[] = {opclass_names, numeric_names, kernels_names};
    static const uint8_t counts[] = {MC_OPCLASS_COUNT, MC_NUMERIC_COUNT, 2};
    int32_t k, code = 0, index = 0;
    const char *rest = name;
    for (k = 0; k < 3 && rest != NULL; k++) {
        rest = word(rest, parts[k], &code);
        index = index * counts[k] + code;
    }
    if (rest == NULL || strcmp(rest, "ops_per_second") != 0) {
        return false;
    }
    *offset = (uint8_t)(offsetof(mc_board_t, ops_per_second) + sizeof(double) * (size_t)index);
    return true;
}

/* Stores v into the field `in` (NULL: no such field) of target. */
static mc_status_t set_input(const input_t *in, void *target, const mc_field_t *v)
{
    unsigned char *at;
    int32_t code = -1;
    if (in == NULL) {
        return MC_E_RANGE;
    }
    at = (unsigned char *)target + in->offset;
    switch (in->storage) {
    case IN_INT64:
        if (v->kind != MC_FIELD_INTEGER) {
            return MC_E_RANGE;
        }
        *(int64_t *)(void *)at = v->integer;
        return MC_OK;
    case IN_DOUBLE:
        if (v->kind != MC_FIELD_REAL && v->kind != MC_FIELD_INTEGER) {
            return MC_E_RANGE;
        }
        *(double *)(void *)at = v->kind == MC_FIELD_REAL ? v->real : (double)v->integer;
        return MC_OK;
    case IN_TARGET:
    case IN_KERNELS:
    case IN_REGION:
        if (v->kind != MC_FIELD_NAME) {
            return MC_E_RANGE;
        }
        code = in->storage == IN_TARGET    ? name_index(target_names, MC_TARGET_COUNT, v->text)
               : in->storage == IN_KERNELS ? name_index(kernels_names, 2, v->text)
                                           : name_index(resource_names, MC_REGION_COUNT, v->text);
        if (code < 0) {
            return MC_E_RANGE;
        }
        if (in->storage == IN_TARGET) {
            *(mc_target_t *)(void *)at = (mc_target_t)code;
        } else if (in->storage == IN_KERNELS) {
            *(mc_kernels_t *)(void *)at = (mc_kernels_t)code;
        } else {
            *(int32_t *)(void *)at = code;
        }
        return MC_OK;
    default: {
        uint32_t *flags = (uint32_t *)(void *)at, bit = (uint32_t)1u << (in->storage - IN_BIT);
        if (v->kind != MC_FIELD_BOOL) {
            return MC_E_RANGE;
        }
        *flags = v->integer ? (*flags | bit) : (*flags & ~bit);
        return MC_OK;
    }
    }
}

void mc_board_init(mc_board_t *board)
{
    if (board != NULL) {
        memset(board, 0, sizeof *board);
        board->target = MC_TARGET_ESP32;
    }
}

/* Sets the field `name` of target, whose n fields are inputs and names; a board's rates
 * (rates) are read by their parts. */
static mc_status_t set_named(void *target, const input_t *inputs, const char *names, int32_t n, bool rates,
                             const char *name, const mc_field_t *value)
{
    input_t rate = {0, IN_DOUBLE};
    const input_t *in;
    if (target == NULL || name == NULL || value == NULL) {
        return MC_E_NULL;
    }
    in = find(inputs, names, n, name);
    if (in == NULL && rates && rate_offset(name, &rate.offset)) {
        in = &rate;
    }
    return set_input(in, target, value);
}

mc_status_t mc_board_set(mc_board_t *board, const char *name, const mc_field_t *value)
{
    return set_named(board, board_inputs, board_names, mc_board_field_count(), true, name, value);
}

int32_t mc_board_field_count(void)
{
    return (int32_t)(sizeof board_inputs / sizeof board_inputs[0]);
}

const char *mc_board_field_name(int32_t index)
{
    return index >= 0 && index < mc_board_field_count() ? nth_name(board_names, index) : NULL;
}

void mc_check_config_init(mc_check_config_t *config)
{
    if (config != NULL) {
        memset(config, 0, sizeof *config);
        config->kernels = MC_KERNELS_OPTIMISED;
        config->arena_region = MC_REGION_RAM;
        config->weights_region = MC_REGION_FLASH;
        config->batch = 1;
        config->available_bytes = -1;
    }
}

mc_status_t mc_check_config_set(mc_check_config_t *config, const char *name, const mc_field_t *value)
{
    return set_named(config, config_inputs, config_names, mc_check_config_field_count(), false, name, value);
}

int32_t mc_check_config_field_count(void)
{
    return (int32_t)(sizeof config_inputs / sizeof config_inputs[0]);
}

const char *mc_check_config_field_name(int32_t index)
{
    return index >= 0 && index < mc_check_config_field_count() ? nth_name(config_names, index) : NULL;
}
