/* Fuzz target: the console's framing and message decoding, as the server runs them on whatever
 * bytes a client sends (split at an input-chosen point, as TCP may split them). */
#include <stdint.h>
#include <stdio.h>

#include "base/memory.h"
#include "console/console_frame.h"
#include "console/console_message.h"

static bool on_frame(void *ctx, uint32_t type, const uint8_t *payload, uint32_t length)
{
    (void)ctx;
    (void)type;
    console_message_t m;
    char err[256];
    if (console_message__decode((const char *)payload, length, &m, err, sizeof err) == 0)
        console_message__free(&m);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ct_allocator_t *a;
    if (!a) {
        memory__init(0);
        a = memory__create(NULL, "fuzz_console");
    }
    console_reader_t r;
    /* A small limit so that mutated lengths reach both sides of it. */
    console_reader__init(&r, a, 4096);
    size_t split = size ? data[0] % (size + 1) : 0;
    char err[256];
    if (console_reader__feed(&r, data, split, on_frame, NULL, err, sizeof err) == 0)
        console_reader__feed(&r, data + split, size - split, on_frame, NULL, err, sizeof err);
    uint64_t have, length;
    console_reader__partial(&r, &have, &length);
    console_reader__free(&r);
    /* Every input is also decoded as a bare payload. */
    on_frame(NULL, 0, data, (uint32_t)size);
    return 0;
}
