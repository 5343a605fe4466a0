/*
 * Seed search for perfect murmur hashing. Each try hashes every key, sorts the hashes and looks
 * for equal neighbours. This runs at tool time (resource compilation), never in a frame, so it
 * uses malloc rather than a kernel allocator.
 */
#include "perfect_hash.h"

#include "ct_hash.h"

#include <stdlib.h>
#include <string.h>

/* Each entry is (hash << 32 | key index): sorting brings equal hashes together and the index
 * still says which keys they came from. */
static void radix_sort(uint64_t *v, uint64_t *tmp, uint32_t n)
{
    /* Only the hash half decides the order, so four 8-bit passes over bits 32..63 suffice. The
     * passes ping-pong between the buffers; an even count leaves the result back in v. */
    for (uint32_t shift = 32; shift < 64; shift += 8) {
        uint32_t counts[256] = {0};
        for (uint32_t i = 0; i < n; i++)
            counts[(v[i] >> shift) & 0xff]++;
        uint32_t sum = 0;
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t c = counts[b];
            counts[b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[counts[(v[i] >> shift) & 0xff]++] = v[i];
        uint64_t *swap = v;
        v = tmp;
        tmp = swap;
    }
}

/* 0 when all hashes are distinct, 1 on a collision between different keys, CT_ERR_INVALID when
 * the colliding keys are the same string. */
static int find_collision(const char *const *keys, const uint64_t *sorted, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        if ((sorted[i] >> 32) != (sorted[i - 1] >> 32))
            continue;
        uint32_t a = (uint32_t)sorted[i], b = (uint32_t)sorted[i - 1];
        return strcmp(keys[a], keys[b]) == 0 ? CT_ERR_INVALID : 1;
    }
    return 0;
}

int perfect_hash__find_seed(const char *const *keys, uint32_t n, uint32_t first_seed,
                            uint32_t max_tries, uint32_t *seed_out)
{
    size_t *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
    uint64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    uint64_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    int result = CT_ERR_NOT_FOUND;
    if (!lens || !v || !tmp) {
        result = CT_ERR_NOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        lens[i] = strlen(keys[i]);
    for (uint32_t t = 0; t < max_tries; t++) {
        uint32_t seed = first_seed + t;
        for (uint32_t i = 0; i < n; i++)
            v[i] = (uint64_t)ct_murmur2_32(keys[i], lens[i], seed) << 32 | i;
        radix_sort(v, tmp, n);
        int c = find_collision(keys, v, n);
        if (c == 0) {
            *seed_out = seed;
            result = 0;
            break;
        }
        if (c < 0) {
            result = c;
            break;
        }
    }
done:
    free(lens);
    free(v);
    free(tmp);
    return result;
}
