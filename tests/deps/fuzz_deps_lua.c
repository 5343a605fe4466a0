/* Fuzz target for cuttle-deps's Lua literal scanner. Beyond "no crash, no read past the end":
 * every literal lies inside the input, and its line and column point at its first byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"

typedef struct check_t {
    const char *text;
    size_t len;
} check_t;

static void found(void *user, const char *s, size_t n, uint32_t line, uint32_t column)
{
    const check_t *c = user;
    if (s < c->text || s + n > c->text + c->len || line == 0 || column == 0)
        abort();
    /* Walk to (line, column) and compare with where the literal starts. */
    size_t at = 0;
    for (uint32_t l = 1; l < line; l++) {
        const char *nl = memchr(c->text + at, '\n', c->len - at);
        if (!nl)
            abort();
        at = (size_t)(nl - c->text) + 1;
    }
    if (c->text + at + column - 1 != s)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1); /* exactly size bytes: no terminator to lean on */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    check_t c = {copy, size};
    deps_lua_literals(copy, size, found, &c);
    free(copy);
    return 0;
}
