/*
 * Runs a fuzz target on files without libFuzzer: each argument is a file or a
 * directory of files (a corpus).  CI uses it to replay the seed corpora and the
 * regression inputs with any compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    static uint8_t buf[1 << 20];
    size_t n;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 1;
}

int main(int argc, char **argv)
{
    int i, runs = 0;
    for (i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (d == NULL) {
            runs += run_file(argv[i]);
            continue;
        }
        for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
            char path[4096];
            if (e->d_name[0] == '.') {
                continue;
            }
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            runs += run_file(path);
        }
        closedir(d);
    }
    printf("%s: %d inputs replayed\n", argv[0], runs);
    return 0;
}
