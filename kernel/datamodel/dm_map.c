/*
 * The data model's containers: one hash map (two 64-bit words -> u32, linear probing with
 * backward-shift deletion so no tombstones pile up), a string table built on it, and a bump arena.
 * Everything comes from the C heap: documents are tools-side data used with or without a kernel.
 */
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

static bool index_grow(dm_index_t *m, uint32_t capacity)
{
    dm_slot_t *slots = malloc((size_t)capacity * sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < capacity; i++)
        slots[i].value = DM_NONE;
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
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    return true;
}

bool dm_index__add(dm_index_t *m, uint32_t hash, uint32_t value)
{
    if ((m->count + 1) * 2u > m->capacity) {
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
    while (n * 2u > cap) {
        if (cap > UINT32_MAX / 2u)
            return false;
        cap *= 2u;
    }
    return cap == m->capacity || index_grow(m, cap);
}

void dm_index__free(dm_index_t *m)
{
    free(m->slots);
    *m = (dm_index_t){0};
}

/* ---- string tables ---- */

typedef struct string_key_t {
    const dm_strings_t *t;
    const char *s;
    size_t len;
} string_key_t;

static bool same_string(const void *ctx, uint32_t id)
{
    const string_key_t *k = ctx;
    return k->t->lens[id] == k->len && memcmp(k->t->strs[id], k->s, k->len) == 0;
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
    uint32_t id = find_hashed(t, s, len, h);
    if (id != DM_NONE)
        return t->last = id;
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
    if (!copy || !dm_index__add(&t->index, h, t->count))
        return DM_NONE; /* an arena allocation is not given back: the arena frees it */
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->strs[t->count] = copy;
    t->lens[t->count] = (uint32_t)len;
    return t->last = t->count++;
}

void dm_strings__free(dm_strings_t *t)
{
    free(t->strs);
    free(t->lens);
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
        free(c);
    }
    a->chunks = NULL;
}

bool dm__grow(void **p, uint32_t *capacity, uint32_t needed, size_t elem)
{
    if (needed <= *capacity)
        return true;
    uint32_t cap = *capacity ? *capacity : 8u;
    while (cap < needed) {
        if (cap > UINT32_MAX / 2u)
            return false;
        cap *= 2u;
    }
    void *grown = realloc(*p, (size_t)cap * elem);
    if (!grown)
        return false;
    *p = grown;
    *capacity = cap;
    return true;
}
