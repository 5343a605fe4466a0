/*
 * The data model's containers: one hash map (two 64-bit words -> u32, linear probing with
 * backward-shift deletion so no tombstones pile up), a string table built on it, and a bump arena.
 * Everything comes from the C heap: documents are tools-side data used with or without a kernel.
 */
#include <stdatomic.h>

#include "datamodel.h"
#include "datamodel_internal.h"

#include "ct_hash.h"

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint64_t dm__hash_bytes(const void *p, size_t n) { return ct_murmur64a(p, n, 0x5eed); }

uint32_t dm_map__get(const dm_map_t *m, uint64_t a, uint64_t b)
{
    if (!m->capacity)
        return DM_NONE;
    uint32_t mask = m->capacity - 1;
    for (uint32_t i = (uint32_t)mix(a, b) & mask;; i = (i + 1) & mask) {
        const dm_map_entry_t *e = &m->slots[i];
        if (e->value == DM_NONE)
            return DM_NONE;
        if (e->a == a && e->b == b)
            return e->value;
    }
}

static bool rehash(dm_map_t *m, uint32_t capacity)
{
    dm_map_entry_t *slots = malloc((size_t)capacity * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < capacity; i++)
        slots[i].value = DM_NONE;
    uint32_t mask = capacity - 1;
    for (uint32_t j = 0; j < m->capacity; j++) {
        dm_map_entry_t *e = &m->slots[j];
        if (e->value == DM_NONE)
            continue;
        uint32_t i = (uint32_t)mix(e->a, e->b) & mask;
        while (slots[i].value != DM_NONE)
            i = (i + 1) & mask;
        slots[i] = *e;
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    return true;
}

bool dm_map__put(dm_map_t *m, uint64_t a, uint64_t b, uint32_t value)
{
    /* At most half full: a miss (every new key) probes about 2.5 slots, not the 8.5 of 3/4. */
    if ((m->count + 1) * 2u > m->capacity && !rehash(m, m->capacity ? m->capacity * 2u : 16u))
        return false;
    uint32_t mask = m->capacity - 1;
    uint32_t i = (uint32_t)mix(a, b) & mask;
    for (;; i = (i + 1) & mask) {
        dm_map_entry_t *e = &m->slots[i];
        if (e->value == DM_NONE) {
            *e = (dm_map_entry_t){a, b, value};
            m->count++;
            return true;
        }
        if (e->a == a && e->b == b) {
            e->value = value;
            return true;
        }
    }
}

uint32_t dm_map__remove(dm_map_t *m, uint64_t a, uint64_t b)
{
    if (!m->capacity)
        return DM_NONE;
    uint32_t mask = m->capacity - 1;
    uint32_t i = (uint32_t)mix(a, b) & mask;
    for (;; i = (i + 1) & mask) {
        if (m->slots[i].value == DM_NONE)
            return DM_NONE;
        if (m->slots[i].a == a && m->slots[i].b == b)
            break;
    }
    uint32_t removed = m->slots[i].value;
    /* Backward shift: move later members of the probe run into the hole when their home slot
     * is not between the hole and them. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & mask; m->slots[j].value != DM_NONE; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)mix(m->slots[j].a, m->slots[j].b) & mask;
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].value = DM_NONE;
    m->count--;
    return removed;
}

void dm_map__free(dm_map_t *m)
{
    free(m->slots);
    *m = (dm_map_t){0};
}

uint32_t dm__hash2(uint64_t a, uint64_t b) { return (uint32_t)mix(a, b); }

/* ---- blocks kept for the next document ----
 * A tool makes and drops documents all the time (every paste reads into a temporary one, every
 * merge check builds three), and a document's arrays are big. Handed back to the C heap, those
 * pages go back to the OS, and the next document pays a page fault for every 4 kB it fills
 * again: a fifth of the cost of adding a fresh property. So big blocks a document lets go of
 * (grown past, or freed with the document) wait here for the next array that needs one. The
 * cache is small and bounded; a block is plain malloc memory, so free() on it stays right. */
#define DM_BLOCK_MIN (32u * 1024u)
#define DM_BLOCK_SLOTS 16
#define DM_BLOCK_LIMIT ((size_t)64 * 1024 * 1024)

/* Under AddressSanitizer nothing is kept: a block reused by the next document would hide a use
 * of the old one after its free. */
#if defined(__SANITIZE_ADDRESS__)
#define DM_BLOCK_KEEP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DM_BLOCK_KEEP 0
#endif
#endif
#ifndef DM_BLOCK_KEEP
#define DM_BLOCK_KEEP 1
#endif

static struct {
    atomic_flag lock;
    uint32_t count;
    size_t total;
    void *p[DM_BLOCK_SLOTS];
    size_t bytes[DM_BLOCK_SLOTS];
} block_cache = {.lock = ATOMIC_FLAG_INIT};

static void cache_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&block_cache.lock, memory_order_acquire))
        ;
}

static void cache_unlock(void)
{
    atomic_flag_clear_explicit(&block_cache.lock, memory_order_release);
}

void *dm__block_take(size_t min, size_t max, size_t *got)
{
    if (min < DM_BLOCK_MIN || !block_cache.count)
        return NULL;
    void *p = NULL;
    cache_lock();
    uint32_t best = DM_BLOCK_SLOTS;
    for (uint32_t i = 0; i < block_cache.count; i++)
        if (block_cache.bytes[i] >= min && block_cache.bytes[i] <= max &&
            (best == DM_BLOCK_SLOTS || block_cache.bytes[i] < block_cache.bytes[best]))
            best = i;
    if (best != DM_BLOCK_SLOTS) {
        p = block_cache.p[best];
        if (got)
            *got = block_cache.bytes[best];
        block_cache.total -= block_cache.bytes[best];
        uint32_t last = --block_cache.count;
        block_cache.p[best] = block_cache.p[last];
        block_cache.bytes[best] = block_cache.bytes[last];
    }
    cache_unlock();
    return p;
}

void dm__block_give(void *p, size_t bytes)
{
    if (!p)
        return;
    if (!DM_BLOCK_KEEP || bytes < DM_BLOCK_MIN || bytes > DM_BLOCK_LIMIT / 4) {
        free(p);
        return;
    }
    void *evicted = NULL;
    cache_lock();
    /* Full: the smallest block leaves if this one is bigger (big ones save the most faults). */
    uint32_t small = 0;
    for (uint32_t i = 1; i < block_cache.count; i++)
        if (block_cache.bytes[i] < block_cache.bytes[small])
            small = i;
    while (block_cache.count &&
           (block_cache.count == DM_BLOCK_SLOTS || block_cache.total + bytes > DM_BLOCK_LIMIT) &&
           block_cache.bytes[small] < bytes && !evicted) {
        evicted = block_cache.p[small];
        block_cache.total -= block_cache.bytes[small];
        uint32_t last = --block_cache.count;
        block_cache.p[small] = block_cache.p[last];
        block_cache.bytes[small] = block_cache.bytes[last];
    }
    if (block_cache.count < DM_BLOCK_SLOTS && block_cache.total + bytes <= DM_BLOCK_LIMIT) {
        block_cache.p[block_cache.count] = p;
        block_cache.bytes[block_cache.count++] = bytes;
        block_cache.total += bytes;
        p = NULL;
    }
    cache_unlock();
    free(evicted);
    free(p);
}

/* Whether n values overfill an index of this capacity: past 3/4. A slot is 8 bytes, so a probe
 * run of 3/4 load (8.5 slots for a miss) stays in a cache line or two, and the table is a third
 * the size a 1/2 bound would make it: fewer growths, and fewer misses into it. */
static bool index_full(uint32_t n, uint32_t capacity)
{
    return (uint64_t)n * 4u > (uint64_t)capacity * 3u;
}

/* The allocator new index tables take their slots from (NULL: the C heap). */
static ct_allocator_t *index_allocator;

void datamodel__set_index_allocator(ct_allocator_t *a) { index_allocator = a; }

static void index_release(dm_index_t *m)
{
    size_t bytes = (size_t)m->capacity * sizeof *m->slots;
    if (m->alloc && m->slots)
        ct_free(m->alloc, m->slots, bytes);
    else
        dm__block_give(m->slots, bytes);
}

static bool index_grow(dm_index_t *m, uint32_t capacity)
{
    size_t bytes = (size_t)capacity * sizeof(dm_slot_t);
    ct_allocator_t *a = m->slots ? m->alloc : index_allocator;
    dm_slot_t *slots = NULL;
    if (a) {
        slots = ct_alloc(a, bytes);
    } else if (!(slots = dm__block_take(bytes, bytes * 2, NULL))) {
        slots = malloc(bytes);
    }
    if (!slots)
        return false;
    memset(slots, 0xff, bytes); /* every value DM_NONE, in one streaming pass */
    uint32_t mask = capacity - 1;
    for (uint32_t j = 0; j < m->capacity; j++) {
        dm_slot_t e = m->slots[j];
        if (e.value == DM_NONE)
            continue;
        uint32_t i = e.hash & mask;
        while (slots[i].value != DM_NONE)
            i = (i + 1) & mask;
        slots[i] = e;
    }
    index_release(m);
    m->slots = slots;
    m->capacity = capacity;
    m->alloc = a;
    return true;
}

bool dm_index__add(dm_index_t *m, uint32_t hash, uint32_t value)
{
    if (index_full(m->count + 1, m->capacity)) {
        if (m->capacity > UINT32_MAX / 2u || !index_grow(m, m->capacity ? m->capacity * 2u : 16u))
            return false;
    }
    uint32_t mask = m->capacity - 1, i = hash & mask;
    while (m->slots[i].value != DM_NONE)
        i = (i + 1) & mask;
    m->slots[i] = (dm_slot_t){hash, value};
    m->count++;
    return true;
}

bool dm_index__reserve(dm_index_t *m, uint32_t n)
{
    uint32_t cap = m->capacity ? m->capacity : 16u;
    while (index_full(n, cap)) {
        if (cap > UINT32_MAX / 2u)
            return false;
        cap *= 2u;
    }
    return cap == m->capacity || index_grow(m, cap);
}

void dm_index__free(dm_index_t *m)
{
    index_release(m);
    *m = (dm_index_t){0};
}

/* ---- string tables ---- */

typedef struct string_key_t {
    const dm_strings_t *t;
    const char *s;
    size_t len;
} string_key_t;

static inline __attribute__((always_inline)) bool same_string(const void *ctx, uint32_t id)
{
    const string_key_t *k = ctx;
    if (k->t->lens[id] != k->len)
        return false;
    /* Keys are short: a byte loop that stops at the first difference beats a call. */
    const char *a = k->t->strs[id], *b = k->s;
    if (k->len > 32)
        return memcmp(a, b, k->len) == 0;
    for (size_t i = 0; i < k->len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static uint32_t string_hash(const char *s, size_t len)
{
    uint64_t h = dm__hash_bytes(s, len);
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t find_hashed(const dm_strings_t *t, const char *s, size_t len, uint32_t h)
{
    string_key_t k = {t, s, len};
    return dm_index__find(&t->index, h, same_string, &k);
}

uint32_t dm_strings__find(const dm_strings_t *t, const char *s, size_t len)
{
    if (t->count && same_string(&(string_key_t){t, s, len}, t->last))
        return t->last;
    uint32_t id = find_hashed(t, s, len, string_hash(s, len));
    if (id != DM_NONE)
        ((dm_strings_t *)(uintptr_t)t)->last = id;
    return id;
}

uint32_t dm_strings__intern(dm_strings_t *t, const char *s, size_t len)
{
    if (t->count && same_string(&(string_key_t){t, s, len}, t->last))
        return t->last;
    uint32_t h = string_hash(s, len);
    /* One probe finds the string or the empty slot a new one goes into: the table's slot is
     * touched once (a cache miss per new key in a big table, not two). */
    dm_index_t *m = &t->index;
    uint32_t at = DM_NONE;
    if (m->capacity) {
        string_key_t k = {t, s, len};
        uint32_t mask = m->capacity - 1;
        for (uint32_t i = h & mask;; i = (i + 1) & mask) {
            dm_slot_t slot = m->slots[i];
            if (slot.value == DM_NONE) {
                at = i;
                break;
            }
            if (slot.hash == h && same_string(&k, slot.value))
                return t->last = slot.value;
        }
    }
    uint32_t cap = t->capacity;
    if (!dm__grow((void **)&t->strs, &t->capacity, t->count + 1, sizeof *t->strs))
        return DM_NONE;
    if (t->capacity != cap) {
        uint32_t *lens = realloc(t->lens, (size_t)t->capacity * sizeof *lens);
        if (!lens) {
            t->capacity = cap; /* strs grew; lens did not: keep them in step */
            return DM_NONE;
        }
        t->lens = lens;
    }
    char *copy = dm_arena__alloc(&t->bytes, len + 1);
    if (!copy)
        return DM_NONE;
    if (at != DM_NONE && !index_full(m->count + 1, m->capacity)) {
        m->slots[at] = (dm_slot_t){h, t->count};
        m->count++;
    } else if (!dm_index__add(m, h, t->count)) {
        return DM_NONE; /* an arena allocation is not given back: the arena frees it */
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->strs[t->count] = copy;
    t->lens[t->count] = (uint32_t)len;
    return t->last = t->count++;
}

void dm_strings__free(dm_strings_t *t)
{
    dm__block_give(t->strs, (size_t)t->capacity * sizeof *t->strs);
    dm__block_give(t->lens, (size_t)t->capacity * sizeof *t->lens);
    dm_index__free(&t->index);
    dm_arena__free(&t->bytes);
    *t = (dm_strings_t){0};
}

typedef struct dm_chunk_t {
    struct dm_chunk_t *next;
    size_t used, size;
    _Alignas(16) unsigned char bytes[];
} dm_chunk_t;

void *dm_arena__alloc(dm_arena_t *a, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    dm_chunk_t *c = a->chunks;
    if (!c || c->size - c->used < size) {
        size_t chunk = size > 60000u ? size : 60000u;
        c = chunk == 60000u ? dm__block_take(sizeof *c + chunk, sizeof *c + chunk, NULL) : NULL;
        if (!c)
            c = malloc(sizeof *c + chunk);
        if (!c)
            return NULL;
        c->used = 0;
        c->size = chunk;
        /* A big allocation gets its own chunk behind the current one, so the current one keeps
         * filling. */
        if (a->chunks && size > 60000u) {
            c->next = a->chunks->next;
            a->chunks->next = c;
        } else {
            c->next = a->chunks;
            a->chunks = c;
        }
    }
    void *p = c->bytes + c->used;
    c->used += size;
    return p;
}

char *dm_arena__strdup(dm_arena_t *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = dm_arena__alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

bool dm_arena__copy_value(dm_arena_t *a, ct_dm_value_t *v)
{
    switch (v->type) {
    case CT_DM_STRING: {
        char *p = dm_arena__alloc(a, (size_t)v->size + 1);
        if (!p)
            return false;
        memcpy(p, v->as.s, v->size);
        p[v->size] = '\0';
        v->as.s = p;
        return true;
    }
    case CT_DM_BLOB: {
        void *p = dm_arena__alloc(a, v->size ? v->size : 1);
        if (!p)
            return false;
        if (v->size)
            memcpy(p, v->as.blob, v->size);
        v->as.blob = p;
        return true;
    }
    case CT_DM_SET: {
        ct_guid_t *p = dm_arena__alloc(a, (size_t)(v->size ? v->size : 1) * sizeof *p);
        if (!p)
            return false;
        if (v->size)
            memcpy(p, v->as.set, (size_t)v->size * sizeof *p);
        v->as.set = p;
        return true;
    }
    default: return true;
    }
}

void dm_arena__free(dm_arena_t *a)
{
    for (dm_chunk_t *c = a->chunks, *next; c; c = next) {
        next = c->next;
        dm__block_give(c, sizeof *c + c->size);
    }
    a->chunks = NULL;
}

bool dm__grow_slow(void **p, uint32_t *capacity, uint32_t needed, size_t elem)
{
    if (needed <= *capacity)
        return true;
    uint32_t cap = *capacity ? *capacity : 8u;
    while (cap < needed) {
        if (cap > UINT32_MAX / 2u)
            return false;
        cap *= 2u;
    }
    size_t bytes = (size_t)cap * elem;
    /* A kept block up to 8 times the size asked for is taken whole (its memory is held either
     * way): the array it becomes grows, and copies itself, that many times less. */
    size_t got = 0;
    void *block = dm__block_take(bytes, bytes * 8, &got);
    if (block) {
        if (*capacity)
            memcpy(block, *p, (size_t)*capacity * elem);
        dm__block_give(*p, (size_t)*capacity * elem);
        size_t room = got / elem;
        *p = block;
        *capacity = room > UINT32_MAX / 2u ? cap : (uint32_t)room;
        return true;
    }
    void *grown = realloc(*p, bytes);
    if (!grown)
        return false;
    *p = grown;
    *capacity = cap;
    return true;
}
