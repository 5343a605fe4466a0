/*
 * ct_hash.h: the engine's hash functions, header-only so a plugin computes exactly what the kernel
 * computes without linking anything.
 *
 *   ct_murmur2_32   MurmurHash2, 32-bit (Austin Appleby). API ids are ct_hash32(name).
 *   ct_murmur64a    MurmurHash64A, 64-bit. Resource types and names, component types.
 *
 * Both read the key as little-endian 32/64-bit words (as on every platform we build for), so ids
 * are the same everywhere. Do not change them: ids are baked into compiled data and plugins.
 */
#ifndef CT_HASH_H
#define CT_HASH_H

#include "ct_types.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MurmurHash2 (32 bits) of len bytes at key: the API ids (ct_hash32). */
static inline uint32_t ct_murmur2_32(const void *key, size_t len, uint32_t seed)
{
    const uint32_t m = 0x5bd1e995u;
    const unsigned char *p = (const unsigned char *)key;
    uint32_t h = seed ^ (uint32_t)len;
    while (len >= 4) {
        uint32_t k;
        memcpy(&k, p, 4);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
        p += 4;
        len -= 4;
    }
    switch (len) {
    case 3: h ^= (uint32_t)p[2] << 16; /* fall through */
    case 2: h ^= (uint32_t)p[1] << 8;  /* fall through */
    case 1: h ^= p[0]; h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

/* MurmurHash64A of len bytes at key: resource, type and component ids (ct_hash64). */
static inline uint64_t ct_murmur64a(const void *key, size_t len, uint64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ull;
    const unsigned char *p = (const unsigned char *)key;
    uint64_t h = seed ^ ((uint64_t)len * m);
    while (len >= 8) {
        uint64_t k;
        memcpy(&k, p, 8);
        k *= m;
        k ^= k >> 47;
        k *= m;
        h ^= k;
        h *= m;
        p += 8;
        len -= 8;
    }
    switch (len) {
    case 7: h ^= (uint64_t)p[6] << 48; /* fall through */
    case 6: h ^= (uint64_t)p[5] << 40; /* fall through */
    case 5: h ^= (uint64_t)p[4] << 32; /* fall through */
    case 4: h ^= (uint64_t)p[3] << 24; /* fall through */
    case 3: h ^= (uint64_t)p[2] << 16; /* fall through */
    case 2: h ^= (uint64_t)p[1] << 8;  /* fall through */
    case 1: h ^= (uint64_t)p[0]; h *= m;
    }
    h ^= h >> 47;
    h *= m;
    h ^= h >> 47;
    return h;
}

/* The API id of a name: CT_LUA_API == ct_hash32("ct.lua"). */
static inline uint32_t ct_hash32(const char *name) { return ct_murmur2_32(name, strlen(name), 0); }
/* The 64-bit id of a string (resource types and names, component type names). */
static inline uint64_t ct_hash64(const char *s) { return ct_murmur64a(s, strlen(s), 0); }

#ifdef __cplusplus
}
#endif
#endif
