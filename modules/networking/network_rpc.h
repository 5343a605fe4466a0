/*
 * network_rpc.h: RPC argument schemas, encoding and checked decoding (network_rpc.c).
 */
#ifndef NETWORK_RPC_H
#define NETWORK_RPC_H

#include "network_session.h" /* a call is a session message: NET_RPC */

/* ---- RPC (network_rpc.c) --------------------------------------------------------------------
 * A script declares a function with its argument schema; a call travels as
 *   [NET_RPC][u32 name hash][u8 argc][per argument: number f64 | boolean u8 0/1 | string varint
 *   length + bytes]
 * and is decoded against the receiver's own schema: the hash must name a declared function, the
 * count must match, every value must be of its declared type, finite, and strings within their
 * declared length. Nothing remote is ever loaded as code. */

#define NET_RPC_MAX_ARGS 16u
#define NET_RPC_MAX_FUNCTIONS 256u
#define NET_RPC_MAX_STRING 4096u

typedef enum net_rpc_type {
    NET_RPC_NUMBER = 1,
    NET_RPC_BOOLEAN = 2,
    NET_RPC_STRING = 3
} net_rpc_type;

typedef struct net_rpc_schema_t {
    char name[64];
    uint32_t hash;
    uint8_t argc;
    uint8_t types[NET_RPC_MAX_ARGS];
    uint16_t max_len[NET_RPC_MAX_ARGS]; /* strings */
    int lua_ref;                        /* the Lua function (module side) */
} net_rpc_schema_t;

typedef struct net_rpc_value_t {
    uint8_t type;
    bool boolean;
    double number;
    const uint8_t *string; /* into the message; valid while it is */
    uint32_t len;
} net_rpc_value_t;

typedef struct net_rpc_registry_t {
    net_rpc_schema_t fns[NET_RPC_MAX_FUNCTIONS];
    uint32_t n;
} net_rpc_registry_t;

typedef struct net_rpc_call_t {
    const net_rpc_schema_t *fn;
    net_rpc_value_t args[NET_RPC_MAX_ARGS];
} net_rpc_call_t;

uint32_t net_rpc_hash(const char *name);
/* Declares (or redeclares, for hot reload) a function. `spec` lists the arguments, e.g.
 * "number boolean string:32" (a string's default limit is 256 bytes). Returns the schema or NULL
 * with *why set. */
net_rpc_schema_t *net_rpc_declare(net_rpc_registry_t *r, const char *name, const char *spec,
                                  const char **why);
const net_rpc_schema_t *net_rpc_find(const net_rpc_registry_t *r, uint32_t hash);
/* Writes a call; false when the values do not fit the schema or the buffer. */
bool net_rpc_encode(const net_rpc_schema_t *fn, const net_rpc_value_t *args, uint32_t argc,
                    net_writer_t *w, const char **why);
/* Reads a call against the registry; false with *why when it does not match. */
bool net_rpc_decode(const net_rpc_registry_t *r, const uint8_t *d, uint32_t len,
                    net_rpc_call_t *out, const char **why);

#endif
