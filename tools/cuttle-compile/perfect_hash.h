/* Perfect (collision-free) 32-bit murmur hashing by seed search, after the seed post "Simple
 * perfect murmur hashing": with a good seed, 32-bit hashes alone identify a set of keys, so the
 * keys themselves need not be stored or compared at runtime. */
#ifndef CT_TOOLS_PERFECT_HASH_H
#define CT_TOOLS_PERFECT_HASH_H

#include "ct_types.h"

/* Tries seeds first_seed, first_seed + 1, ... (max_tries of them) until ct_murmur2_32 of every
 * NUL-terminated key is distinct, and writes that seed to seed_out. Up to about 65,000 keys a
 * seed is usually found within a few tries; far beyond that, collisions become near certain.
 * Returns 0, CT_ERR_NOT_FOUND when no seed in the range works, CT_ERR_INVALID when two keys are
 * equal strings (no seed can separate them), or CT_ERR_NOMEM. Tool-time code: it allocates
 * 24 bytes per key with malloc. */
int perfect_hash__find_seed(const char *const *keys, uint32_t n, uint32_t first_seed,
                            uint32_t max_tries, uint32_t *seed_out);

#endif
