/*
 * network_rpc.c: RPC schemas and their wire form. Decoding checks everything against the
 * receiver's own declaration before any value reaches Lua; a mismatch is a protocol breach the
 * caller reports with the peer's name. Values stay in the message (strings are not copied).
 */
#include "network_rpc.h"

#include <math.h>
#include <stdlib.h>

/* FNV-1a: names are short and declared by scripts; collisions are refused at declaration. */
uint32_t net_rpc_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (; *name; name++)
        h = (h ^ (uint8_t)*name) * 16777619u;
    return h ? h : 1;
}

const net_rpc_schema_t *net_rpc_find(const net_rpc_registry_t *r, uint32_t hash)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->fns[i].hash == hash)
            return &r->fns[i];
    return NULL;
}

static bool parse_spec(const char *spec, net_rpc_schema_t *fn, const char **why)
{
    fn->argc = 0;
    for (const char *p = spec; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *start = p;
        while (*p && *p != ' ' && *p != ',' && *p != ':')
            p++;
        const size_t n = (size_t)(p - start);
        if (fn->argc == NET_RPC_MAX_ARGS) {
            *why = "more than 16 arguments";
            return false;
        }
        uint8_t type = n == 6 && !memcmp(start, "number", 6)    ? NET_RPC_NUMBER
                       : n == 7 && !memcmp(start, "boolean", 7) ? NET_RPC_BOOLEAN
                       : n == 6 && !memcmp(start, "string", 6)  ? NET_RPC_STRING
                                                                : 0;
        if (!type) {
            *why = "an argument type that is not number, boolean or string[:max]";
            return false;
        }
        uint32_t max = 256;
        if (*p == ':') {
            char *end;
            const unsigned long v = strtoul(p + 1, &end, 10);
            if (type != NET_RPC_STRING || end == p + 1 || v == 0 || v > NET_RPC_MAX_STRING) {
                *why = "a length limit that is not 1..4096 on a string";
                return false;
            }
            max = (uint32_t)v;
            p = end;
        }
        fn->types[fn->argc] = type;
        fn->max_len[fn->argc++] = (uint16_t)max;
    }
    return true;
}

net_rpc_schema_t *net_rpc_declare(net_rpc_registry_t *r, const char *name, const char *spec,
                                  const char **why)
{
    const size_t len = strlen(name);
    if (len == 0 || len >= sizeof r->fns[0].name) {
        *why = "a name of 1..63 bytes";
        return NULL;
    }
    const uint32_t hash = net_rpc_hash(name);
    net_rpc_schema_t *fn = (net_rpc_schema_t *)net_rpc_find(r, hash);
    if (fn && strcmp(fn->name, name)) {
        *why = "a name whose hash another function has";
        return NULL;
    }
    net_rpc_schema_t decl = {.hash = hash, .lua_ref = fn ? fn->lua_ref : 0};
    memcpy(decl.name, name, len + 1);
    if (!parse_spec(spec, &decl, why))
        return NULL;
    if (!fn) {
        if (r->n == NET_RPC_MAX_FUNCTIONS) {
            *why = "room for another function (256 at most)";
            return NULL;
        }
        fn = &r->fns[r->n++];
    }
    *fn = decl;
    return fn;
}

bool net_rpc_encode(const net_rpc_schema_t *fn, const net_rpc_value_t *args, uint32_t argc,
                    net_writer_t *w, const char **why)
{
    if (argc != fn->argc) {
        *why = "the wrong number of arguments";
        return false;
    }
    net_put_u8(w, NET_RPC);
    net_put_u32(w, fn->hash);
    net_put_u8(w, fn->argc);
    for (uint32_t i = 0; i < argc; i++) {
        const net_rpc_value_t *v = &args[i];
        if (v->type != fn->types[i]) {
            *why = "an argument of the wrong type";
            return false;
        }
        if (v->type == NET_RPC_NUMBER) {
            if (!isfinite(v->number)) {
                *why = "a number that is not finite";
                return false;
            }
            net_put_f64(w, v->number);
        } else if (v->type == NET_RPC_BOOLEAN) {
            net_put_u8(w, v->boolean ? 1 : 0);
        } else {
            if (v->len > fn->max_len[i]) {
                *why = "a string longer than its declared limit";
                return false;
            }
            net_put_varint(w, v->len);
            net_put_bytes(w, v->string, v->len);
        }
    }
    if (w->overflow)
        *why = "a call larger than a message";
    return !w->overflow;
}

bool net_rpc_decode(const net_rpc_registry_t *r, const uint8_t *d, uint32_t len,
                    net_rpc_call_t *out, const char **why)
{
    net_reader_t rd = net_reader(d, len);
    const uint8_t type = net_get_u8(&rd);
    const uint32_t hash = net_get_u32(&rd);
    const uint8_t argc = net_get_u8(&rd);
    if (rd.bad || type != NET_RPC) {
        *why = "a truncated RPC header";
        return false;
    }
    out->fn = net_rpc_find(r, hash);
    if (!out->fn) {
        *why = "a call to a function that is not declared";
        return false;
    }
    if (argc != out->fn->argc) {
        *why = "a call with the wrong number of arguments";
        return false;
    }
    for (uint32_t i = 0; i < argc; i++) {
        net_rpc_value_t *v = &out->args[i];
        *v = (net_rpc_value_t){.type = out->fn->types[i]};
        if (v->type == NET_RPC_NUMBER) {
            v->number = net_get_f64(&rd);
            if (!isfinite(v->number)) {
                *why = "a number that is not finite";
                return false;
            }
        } else if (v->type == NET_RPC_BOOLEAN) {
            const uint8_t b = net_get_u8(&rd);
            if (b > 1) {
                *why = "a boolean that is neither 0 nor 1";
                return false;
            }
            v->boolean = b;
        } else {
            v->len = net_get_varint(&rd);
            if (!rd.bad && v->len > out->fn->max_len[i]) {
                *why = "a string longer than its declared limit";
                return false;
            }
            v->string = net_get_bytes(&rd, v->len);
        }
        if (rd.bad) {
            *why = "a truncated argument";
            return false;
        }
    }
    if (net_left(&rd)) {
        *why = "trailing bytes after the arguments";
        return false;
    }
    return true;
}
