/* Status texts and the version, shared by every binding. */
#include "memcore.h"

const char *mc_strerror(mc_status_t status)
{
    /* Designated initializers keep each text beside its code, so the table cannot
     * drift from the enum when codes are added or reordered. */
    static const char *const texts[] = {
        [-MC_OK] = "ok",
        [-MC_E_NULL] = "a required pointer argument is NULL",
        [-MC_E_NEGATIVE] = "a count or size is negative",
        [-MC_E_RANGE] = "a value is outside its allowed range",
        [-MC_E_NOT_FINITE] = "a number is NaN or infinite",
        [-MC_E_OVERFLOW] = "a size does not fit in 64 bits",
        [-MC_E_SCRATCH] = "the scratch buffer is too small or not 8-byte aligned",
        [-MC_E_LIFETIME] = "a buffer's first use is negative or after its last use",
        [-MC_E_MODEL] = "the model file is malformed",
        [-MC_E_GRAPH] = "the model's graph is invalid",
        [-MC_E_READ] = "reading the model file failed",
        [-MC_E_UNSUPPORTED] = "the model uses something memcore does not model",
        [-MC_E_LIMIT] = "past a documented limit of memcore (model size, or the planner's buffers, pairs live together or steps)",
    };
    int index = -(int)status;
    if (index < 0 || index >= (int)(sizeof texts / sizeof texts[0]) || texts[index] == 0) {
        return "unknown memcore status";
    }
    return texts[index];
}

const char *mc_version(void)
{
    return MC_VERSION_STRING;
}

int32_t mc_api_version(void)
{
    return MC_API_VERSION;
}
