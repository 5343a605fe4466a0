/* Fuzz target: the input recording parser and the bindings blob check (modules/input/input_core.c)
 * take any bytes without reading out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input_core.h"

static bool accept(void *ud, const input__parsed *p)
{
    (void)ud;
    return p->event.type >= CT_INPUT_DOWN && p->event.type <= CT_INPUT_AXIS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static input__core core;
    memset(&core, 0, sizeof core);
    char err[192];
    (void)input__parse_recording(&core, (const char *)data, size, accept, NULL, err, sizeof err);
    if (input__bindings_check(data, size, err, sizeof err))
        (void)input__bindings_apply(&core, data, size, err, sizeof err);
    return 0;
}
