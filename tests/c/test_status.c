/* Every status has its own text, and the version is the one the header announces. */
#include <string.h>

#include "check.h"
#include "memcore.h"

int main(void)
{
    int code, other;
    for (code = MC_OK; code >= MC_E_LAST; code--) {
        const char *text = mc_strerror((mc_status_t)code);
        CHECK(text != NULL && strcmp(text, "unknown memcore status") != 0);
        for (other = code - 1; other >= MC_E_LAST; other--) {
            CHECK(strcmp(text, mc_strerror((mc_status_t)other)) != 0);
        }
    }
    CHECK(strcmp(mc_strerror((mc_status_t)-99), "unknown memcore status") == 0);
    CHECK(strcmp(mc_strerror((mc_status_t)5), "unknown memcore status") == 0);
    CHECK(strcmp(mc_version(), MC_VERSION_STRING) == 0);
    CHECK_EQ_I64(mc_api_version(), MC_API_VERSION);
    return check_report("test_status");
}
