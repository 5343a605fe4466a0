/* Fuzz target: RPC decoding against declared schemas, then the write-then-read round trip of
 * every call that decodes. */
#include "network_rpc.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static net_rpc_registry_t registry;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!registry.n) {
        const char *why;
        net_rpc_declare(&registry, "hit", "number number string:16", &why);
        net_rpc_declare(&registry, "chat", "string:200", &why);
        net_rpc_declare(&registry, "flags", "boolean boolean number", &why);
        net_rpc_declare(&registry, "ping", "", &why);
    }
    /* The first 4 bytes of an input pick a declared function, so mutations reach the
     * argument decoding, not only the "not declared" path. */
    uint8_t msg[NET_MTU];
    if (size < 1 || size > sizeof msg)
        return 0;
    memcpy(msg, data, size);
    msg[0] = NET_RPC;
    if (size >= 5)
        memcpy(msg + 1, &registry.fns[data[1] % registry.n].hash, 4);
    net_rpc_call_t call;
    const char *why = NULL;
    if (!net_rpc_decode(&registry, msg, (uint32_t)size, &call, &why)) {
        if (!why)
            abort();
        return 0;
    }
    uint8_t out[NET_MTU + 64];
    net_writer_t w = net_writer(out, sizeof out);
    if (!net_rpc_encode(call.fn, call.args, call.fn->argc, &w, &why))
        abort();
    net_rpc_call_t again;
    if (!net_rpc_decode(&registry, out, w.n, &again, &why) || again.fn != call.fn)
        abort();
    for (uint32_t i = 0; i < call.fn->argc; i++)
        if (again.args[i].len != call.args[i].len ||
            (call.args[i].type == NET_RPC_NUMBER && again.args[i].number != call.args[i].number) ||
            (call.args[i].len &&
             memcmp(again.args[i].string, call.args[i].string, call.args[i].len)))
            abort();
    return 0;
}
