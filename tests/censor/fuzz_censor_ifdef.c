/* Fuzz target for cuttle-censor's preprocessor filter. Beyond "no crash": a text input that
 * filters cleanly keeps its exact line count, and every output line is either the input line,
 * its output is never longer than its input (lines are kept, blanked or rekeyed #elif -> #if or
 * #else), so nothing is invented. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "censor_ifdef.h"

static size_t lines(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += s[i] == '\n';
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static censor_ifdef_t f;
    if (f.num_symbols == 0) {
        char err[128];
        const char *options[] = {"-DA", "-UB", "-DV=2", "-UNDA"};
        for (size_t i = 0; i < sizeof options / sizeof *options; i++)
            if (!censor_ifdef_add(&f, options[i], err, sizeof err))
                abort();
    }
    char *out, err[256];
    size_t out_size;
    if (!censor_ifdef_run(&f, (const char *)data, size, &out, &out_size, err, sizeof err))
        return 0;
    bool binary = memchr(data, '\0', size) != NULL;
    if (binary ? (out_size != size || memcmp(out, data, size) != 0)
               : lines(out, out_size) != lines((const char *)data, size))
        abort();
    if (out_size > size)
        abort(); /* blanking and rekeying (#elif -> #if, #else) only ever shorten */
    free(out);
    return 0;
}
