/*
 * Targets, not pointer widths: what TFLM's runtime structures cost on each target, and
 * where those numbers come from.
 *
 * TFLM's tail depends on the ABI (pointer and size_t width, the alignment of 8-byte
 * members, the size of an enum), on the TFLM version and on its build (compression
 * adds members to kernels' OpData).  Measured here:
 *   host64   the PyPI tflite-micro wheel's interpreter (x86-64), RecordingMicroAllocator;
 *   armhf    TFLM 90b983c2 compiled with arm-linux-gnueabihf-g++ (ILP32 AAPCS: 4-byte
 *            pointers and enums, 8-byte alignment of int64_t and double; the runtime
 *            structs hold no 8-byte member, so they align to 4);
 *   cortex-m TFLM 90b983c2 compiled with arm-none-eabi-g++: the same, but 1-byte enums
 *            (the bare-metal EABI's -fshort-enums), so TfLiteTensor is 32 bytes and
 *            several options structs shrink (TfLiteAddParams 2, ...);
 *   esp32    esp-tflite-micro 99f49e14 (its own copy of TFLM, built as its CMakeLists.txt
 *            builds it: no USE_TFLM_COMPRESSION, ESP-NN d45b843c's plain-ESP32 C kernels)
 *            compiled with Xtensa GCC 12.2 (xtensa-lx106-elf-g++, ESP-IDF's -mlongcalls
 *            etc.) and run under qemu-system-xtensa: 4-byte pointers and enums, 8-aligned
 *            8-byte types, so armhf's layout without compression's members
 *            (tests/corpus/truth/esp32.json).
 * MicroResourceVariables and its MicroResourceVariable (the last two sizes of each row)
 * were measured with each target's compiler by tools/tflm_oracle/abi_probe.py's probe
 * (16 and 40 B on host64, 12 and 20 B on the 32-bit targets).
 * Derived (no TFLM build for them here), from the closest measured ABI:
 *   riscv32  RV32 ILP32 lays out C structs as armhf does (4-byte pointers and enums,
 *            8-byte alignment of 8-byte types).
 */
#include <stddef.h>
#include <string.h>

#include "memcore.h"
#include "tflm_internal.h"

/* The facts a report states about each target's tables, in numbers and short names.
 * The prose that explains them (what each target is, how it was measured or why its
 * tables are derived) is the host's to print and lives in python/memcore/tflm.py: a
 * board never reports it, and it would take some 900 bytes of a board's flash. */
#define PYPI_WHEEL "PyPI tflite-micro 0.dev20261023182759"
#define TFLM "tflite-micro 90b983c2"
#define ESP_TFLM "esp-tflite-micro 99f49e14"
#define CMSIS_NN "CMSIS-NN (DSP cores)"
#define ESP_NN "ESP-NN d45b843c (plain ESP32)"

/* The names, each once; a row holds where its names start here (a byte, not a pointer). */
typedef struct {
    char none[1];
    char pypi_wheel[sizeof PYPI_WHEEL];
    char tflm[sizeof TFLM];
    char esp_tflm[sizeof ESP_TFLM];
    char cmsis_nn[sizeof CMSIS_NN];
    char esp_nn[sizeof ESP_NN];
} target_texts_t;

static const target_texts_t texts = {"", PYPI_WHEEL, TFLM, ESP_TFLM, CMSIS_NN, ESP_NN};
#define TEXT(member) ((uint8_t)offsetof(target_texts_t, member))

/* The rows of abis[]: riscv32 has armhf's (RV32 ILP32 lays out C structs as armhf does). */
enum { ABI_HOST64, ABI_ARMHF, ABI_CORTEX_M, ABI_ESP32, ABI_COUNT };

typedef struct {
    uint8_t abi;                 /* ABI_* */
    uint8_t tflm_version;        /* TEXT(...) */
    uint8_t optimised_kernels;   /* TEXT(...) */
    uint8_t enum_bytes;
    uint8_t int64_alignment;
    bool compression;
    bool measured;
    int8_t derived_from;
} target_facts_t;

static const target_facts_t facts[MC_TARGET_COUNT] = {
    {ABI_HOST64, TEXT(pypi_wheel), TEXT(none), 4, 8, true, true, -1},
    {ABI_ARMHF, TEXT(tflm), TEXT(none), 4, 8, true, true, -1},
    {ABI_CORTEX_M, TEXT(tflm), TEXT(cmsis_nn), 1, 8, true, true, -1},
    {ABI_ARMHF, TEXT(tflm), TEXT(none), 4, 8, true, false, MC_TARGET_ARMHF},
    {ABI_ESP32, TEXT(esp_tflm), TEXT(esp_nn), 4, 8, false, true, -1},
};

static const mc_target_abi_t abis[ABI_COUNT] = {
    /* host64 */
    {MC_SZ(104, 8), MC_SZ(72, 8), MC_SZ(272, 8), MC_SZ(16, 8), MC_SZ(24, 8), MC_SZ(24, 8),
     MC_SZ(64, 8), MC_SZ(64, 8), MC_SZ(24, 8), MC_SZ(16, 8), MC_SZ(8, 8), MC_SZ(32, 8),
     MC_SZ(16, 8), MC_SZ(40, 8), 8, MC_VENDOR_NONE},
    /* armhf */
    {MC_SZ(52, 4), MC_SZ(44, 4), MC_SZ(136, 4), MC_SZ(8, 4), MC_SZ(12, 4), MC_SZ(12, 4),
     MC_SZ(32, 4), MC_SZ(40, 4), MC_SZ(12, 4), MC_SZ(12, 4), MC_SZ(4, 4), MC_SZ(24, 4),
     MC_SZ(12, 4), MC_SZ(20, 4), 4, MC_VENDOR_NONE},
    /* cortex-m: TfLiteTensor holds enums */
    {MC_SZ(52, 4), MC_SZ(44, 4), MC_SZ(136, 4), MC_SZ(8, 4), MC_SZ(12, 4), MC_SZ(12, 4),
     MC_SZ(32, 4), MC_SZ(32, 4), MC_SZ(12, 4), MC_SZ(12, 4), MC_SZ(4, 4), MC_SZ(24, 4),
     MC_SZ(12, 4), MC_SZ(20, 4), 4, MC_VENDOR_CMSIS_NN},
    /* esp32 (measured on Xtensa): no compression, so RecordingMicroAllocator and
     * SubgraphAllocations lose their compression members */
    {MC_SZ(52, 4), MC_SZ(44, 4), MC_SZ(124, 4), MC_SZ(8, 4), MC_SZ(8, 4), MC_SZ(12, 4),
     MC_SZ(32, 4), MC_SZ(40, 4), MC_SZ(12, 4), MC_SZ(12, 4), MC_SZ(4, 4), MC_SZ(24, 4),
     MC_SZ(12, 4), MC_SZ(20, 4), 4, MC_VENDOR_ESP_NN},
};

const mc_target_abi_t *mc__target_abi(mc_target_t target)
{
    return ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT) ? NULL : &abis[facts[target].abi];
}

mc_status_t mc_target_info(mc_target_t target, mc_target_info_t *out)
{
    const target_facts_t *f;
    if (out == NULL) {
        return MC_E_NULL;
    }
    if ((uint32_t)target >= (uint32_t)MC_TARGET_COUNT) {
        return MC_E_RANGE;
    }
    f = &facts[target];
    out->tflm_version = (const char *)&texts + f->tflm_version;
    out->optimised_kernels = (const char *)&texts + f->optimised_kernels;
    out->pointer_bytes = abis[f->abi].pointer_bytes;
    out->enum_bytes = f->enum_bytes;
    out->int64_alignment = f->int64_alignment;
    out->compression = f->compression;
    out->measured = f->measured;
    out->derived_from = f->derived_from;
    return MC_OK;
}
