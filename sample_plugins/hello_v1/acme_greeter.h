/*
 * acme_greeter.h: the API of the hello_v1 sample plugin, "acme.greeter" version 1.
 *
 * A third party mints its own API id by hashing its name (ct_hash32("acme.greeter"), or
 * tools/cuttle-hash); no central table is involved. Other plugins use it like a kernel API:
 *
 *     const acme_greeter_api_v1 *greeter = get_engine_api(ACME_GREETER_API, 1);
 *     if (greeter) greeter->greet("world", buf, sizeof buf);
 *
 * and list { ACME_GREETER_API, 1, 0, 0, "acme.greeter" } in their plugin API's `requires`.
 * Keep the table pointer: the kernel owns it and swaps the code underneath on a hot reload.
 * Frozen: a change would be acme_greeter_api_v2, served next to this one.
 */
#ifndef ACME_GREETER_H
#define ACME_GREETER_H

#include "ct_types.h"

#define ACME_GREETER_API 0x754c9f9fu /* "acme.greeter" */

typedef struct acme_greeter_api_v1 {
    /* Writes "Hello, <who>!" into buf (size bytes, always NUL-terminated when size > 0) and
     * returns the length of the whole greeting, as snprintf does. */
    uint32_t (*greet)(const char *who, char *buf, uint32_t size);
    /* Greetings made since the plugin was loaded; the count survives hot reloads. */
    uint64_t (*greetings)(void);
} acme_greeter_api_v1;

#endif
