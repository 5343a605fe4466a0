/* physics_broadphase.c: the spatial hash (the seed's "Finding nearby stuff").
 *
 * Grid coordinate -> hash map -> linked list in one array. A box goes into every cell its AABB
 * touches; a pair sharing several cells is reported only from the cell holding the minimum corner
 * of their intersection, which both boxes cover, so nothing needs a "seen" set. */
#include "physics_internal.h"

#include <stddef.h>

/* Boxes spanning more cells than this on an axis skip the grid (a ground plane would otherwise
 * fill thousands of cells); they are few and tested against everything. */
#define BP_LARGE_CELLS 4
/* Cell coordinates are clamped to +-2^20 so three of them pack into 63 bits. */
#define BP_COORD_LIMIT (1 << 20)

#define BP_FIELD(name) {offsetof(physics__broadphase, name), sizeof(*((physics__broadphase *)0)->name)}
static const physics__soa_field bp__box_fields[] = {
    BP_FIELD(lo), BP_FIELD(hi), BP_FIELD(moving), BP_FIELD(large), BP_FIELD(is_large),
};
static const physics__soa_field bp__item_fields[] = {BP_FIELD(item_box), BP_FIELD(item_next)};
#define BP_NUM_BOX_FIELDS ((uint32_t)(sizeof bp__box_fields / sizeof bp__box_fields[0]))

typedef struct bp__cell {
    int32_t x, y, z;
} bp__cell;

static inline int32_t bp__coord(float v, float inv_cell)
{
    const float c = floorf(v * inv_cell);
    if (!(c > -BP_COORD_LIMIT)) /* also catches NaN */
        return -BP_COORD_LIMIT;
    return c < BP_COORD_LIMIT - 1 ? (int32_t)c : BP_COORD_LIMIT - 1;
}

static inline bp__cell bp__cell_of(physics__v3 p, float inv_cell)
{
    return (bp__cell){bp__coord(p.x, inv_cell), bp__coord(p.y, inv_cell), bp__coord(p.z, inv_cell)};
}

static inline uint64_t bp__key(int32_t x, int32_t y, int32_t z)
{
    return ((uint64_t)(uint32_t)(x + BP_COORD_LIMIT) << 42) |
           ((uint64_t)(uint32_t)(y + BP_COORD_LIMIT) << 21) | (uint64_t)(uint32_t)(z + BP_COORD_LIMIT);
}

static inline bool bp__overlap(physics__v3 alo, physics__v3 ahi, physics__v3 blo, physics__v3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y &&
           alo.z <= bhi.z && blo.z <= ahi.z;
}

/* Whether `key` is the cell where the pair (or box and query) [alo..] x [blo..] is reported. */
static inline bool bp__owns(const physics__broadphase *bp, uint64_t key, physics__v3 alo,
                            physics__v3 blo)
{
    const bp__cell c = bp__cell_of(v3_max(alo, blo), bp->inv_cell);
    return bp__key(c.x, c.y, c.z) == key;
}

int physics__broadphase_resize(physics__broadphase *bp, uint32_t n)
{
    if (n > bp->cap) {
        uint32_t cap = bp->cap ? bp->cap : 64;
        while (cap < n)
            cap *= 2;
        if (physics__soa_grow(bp->a, bp, &bp->buffer, bp__box_fields, BP_NUM_BOX_FIELDS, 0,
                              bp->cap, cap))
            return CT_ERR_NOMEM;
        bp->cap = cap;
    }
    bp->n = n;
    return 0;
}

/* Grows a plain array to hold `need` elements (doubling); contents kept. */
static int bp__grow(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t fresh = *cap ? *cap : 256;
    while (fresh < need)
        fresh *= 2;
    void *p = ct_realloc(a, *array, (size_t)*cap * size, (size_t)fresh * size);
    if (!p)
        return CT_ERR_NOMEM;
    *array = p;
    *cap = fresh;
    return 0;
}

int physics__broadphase_build(physics__broadphase *bp, float cell)
{
    if (!(cell > 0.0f)) {
        double sum = 0.0;
        for (uint32_t i = 0; i < bp->n; i++) {
            const physics__v3 s = v3_sub(bp->hi[i], bp->lo[i]);
            sum += fmaxf(s.x, fmaxf(s.y, s.z));
        }
        /* Twice the mean size: a typical box then touches 1 to 2 cells per axis (about 3.4 in
         * all) while a cell holds only a handful of boxes. Measured on random scenes: 1x makes
         * 2.5 times the items, 4x makes the per-cell pair tests dominate. */
        cell = bp->n ? 2.0f * (float)(sum / bp->n) : 1.0f;
        if (!(cell > 1e-3f))
            cell = 1e-3f;
    }
    bp->cell = cell;
    bp->inv_cell = 1.0f / cell;

    /* Count the items first so the arrays grow once, not per insertion. */
    uint64_t items = 0;
    bp->num_large = 0;
    for (uint32_t i = 0; i < bp->n; i++) {
        const bp__cell l = bp__cell_of(bp->lo[i], bp->inv_cell);
        const bp__cell h = bp__cell_of(bp->hi[i], bp->inv_cell);
        const int32_t sx = h.x - l.x + 1, sy = h.y - l.y + 1, sz = h.z - l.z + 1;
        bp->is_large[i] = sx > BP_LARGE_CELLS || sy > BP_LARGE_CELLS || sz > BP_LARGE_CELLS;
        if (bp->is_large[i])
            bp->large[bp->num_large++] = i;
        else
            items += (uint64_t)(sx * sy * sz);
    }
    if (items >= UINT32_MAX / 2)
        return CT_ERR_FULL;
    if (items > bp->cap_items) {
        uint32_t cap = bp->cap_items ? bp->cap_items : 256;
        while (cap < items)
            cap *= 2;
        if (physics__soa_grow(bp->a, bp, &bp->item_buffer, bp__item_fields, 2, 0,
                              bp->cap_items, cap))
            return CT_ERR_NOMEM;
        bp->cap_items = cap;
    }
    /* Size the map for the distinct cells, which are usually far fewer than the items: start
     * from one per four boxes and grow while inserting. A small map is cheaper to clear and to walk. */
    physics__map_clear(&bp->cells);
    if (physics__map_reserve(&bp->cells, bp->n / 4 < items ? bp->n / 4 : (uint32_t)items))
        return CT_ERR_NOMEM;

    uint32_t item = 0;
    bp->grid_lo = v3(INFINITY, INFINITY, INFINITY);
    bp->grid_hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < bp->n; i++) {
        if (bp->is_large[i])
            continue;
        bp->grid_lo = v3_min(bp->grid_lo, bp->lo[i]);
        bp->grid_hi = v3_max(bp->grid_hi, bp->hi[i]);
        const bp__cell l = bp__cell_of(bp->lo[i], bp->inv_cell);
        const bp__cell h = bp__cell_of(bp->hi[i], bp->inv_cell);
        for (int32_t x = l.x; x <= h.x; x++)
            for (int32_t y = l.y; y <= h.y; y++)
                for (int32_t z = l.z; z <= h.z; z++) {
                    if (physics__map_reserve(&bp->cells, bp->cells.count + 1))
                        return CT_ERR_NOMEM;
                    uint32_t *head = physics__map_upsert(&bp->cells, bp__key(x, y, z), UINT32_MAX);
                    bp->item_box[item] = i;
                    bp->item_next[item] = *head;
                    *head = item++;
                }
    }
    bp->num_items = item;
    return 0;
}

static inline int bp__add_pair(physics__broadphase *bp, uint32_t a, uint32_t b)
{
    if (bp->num_pairs == bp->cap_pairs &&
        bp__grow(bp->a, (void **)&bp->pairs, &bp->cap_pairs, bp->num_pairs + 1, sizeof *bp->pairs))
        return CT_ERR_NOMEM;
    bp->pairs[bp->num_pairs++] = a < b ? (physics__pair){a, b} : (physics__pair){b, a};
    return 0;
}

int physics__broadphase_pairs(physics__broadphase *bp)
{
    bp->num_pairs = 0;
    /* Walk occupied cells in slot order: one pass over the map, no lookups. */
    for (uint32_t s = 0; s < bp->cells.cap; s++) {
        const uint64_t key = bp->cells.slots[s].key;
        if (key == PHYSICS_MAP_EMPTY)
            continue;
        for (uint32_t p = bp->cells.slots[s].value; p != UINT32_MAX; p = bp->item_next[p]) {
            const uint32_t a = bp->item_box[p];
            const physics__v3 alo = bp->lo[a], ahi = bp->hi[a];
            for (uint32_t q = bp->item_next[p]; q != UINT32_MAX; q = bp->item_next[q]) {
                const uint32_t b = bp->item_box[q];
                if (!(bp->moving[a] | bp->moving[b]))
                    continue;
                if (!bp__overlap(alo, ahi, bp->lo[b], bp->hi[b]) ||
                    !bp__owns(bp, key, alo, bp->lo[b]))
                    continue;
                if (bp__add_pair(bp, a, b))
                    return CT_ERR_NOMEM;
            }
        }
    }
    for (uint32_t k = 0; k < bp->num_large; k++) {
        const uint32_t a = bp->large[k];
        for (uint32_t b = 0; b < bp->n; b++) {
            if (b == a || (bp->is_large[b] && b < a) || !(bp->moving[a] | bp->moving[b]))
                continue;
            if (bp__overlap(bp->lo[a], bp->hi[a], bp->lo[b], bp->hi[b]) && bp__add_pair(bp, a, b))
                return CT_ERR_NOMEM;
        }
    }
    return 0;
}

static inline int bp__add_found(physics__broadphase *bp, uint32_t box)
{
    if (bp->num_found == bp->cap_found &&
        bp__grow(bp->a, (void **)&bp->found, &bp->cap_found, bp->num_found + 1, sizeof *bp->found))
        return CT_ERR_NOMEM;
    bp->found[bp->num_found++] = box;
    return 0;
}

int physics__broadphase_overlap(physics__broadphase *bp, physics__v3 lo, physics__v3 hi)
{
    bp->num_found = 0;
    const bp__cell l = bp__cell_of(lo, bp->inv_cell), h = bp__cell_of(hi, bp->inv_cell);
    const uint64_t cells = (uint64_t)(h.x - l.x + 1) * (uint64_t)(h.y - l.y + 1) * (h.z - l.z + 1);
    /* A query wider than the scene: walking the boxes is cheaper than probing empty cells. */
    if (cells > bp->n) {
        for (uint32_t i = 0; i < bp->n; i++)
            if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && bp__add_found(bp, i))
                return CT_ERR_NOMEM;
        return 0;
    }
    for (int32_t x = l.x; x <= h.x; x++)
        for (int32_t y = l.y; y <= h.y; y++)
            for (int32_t z = l.z; z <= h.z; z++) {
                const uint64_t key = bp__key(x, y, z);
                for (uint32_t p = physics__map_get(&bp->cells, key); p != UINT32_MAX;
                     p = bp->item_next[p]) {
                    const uint32_t i = bp->item_box[p];
                    if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && bp__owns(bp, key, lo, bp->lo[i]) &&
                        bp__add_found(bp, i))
                        return CT_ERR_NOMEM;
                }
            }
    for (uint32_t k = 0; k < bp->num_large; k++) {
        const uint32_t i = bp->large[k];
        if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && bp__add_found(bp, i))
            return CT_ERR_NOMEM;
    }
    return 0;
}

/* Amanatides and Woo's grid walk: visit cells in the order the ray enters them. */
uint32_t physics__broadphase_raycast(physics__broadphase *bp, physics__v3 o, physics__v3 d,
                                     float max_t, physics__ray_hit_f hit, void *user, float *t_out)
{
    float best = nextafterf(max_t, INFINITY);
    uint32_t best_box = UINT32_MAX;
    for (uint32_t k = 0; k < bp->num_large; k++) {
        const float t = hit(user, bp->large[k], best);
        if (t < best)
            best = t, best_box = bp->large[k];
    }
    if (bp->num_items) {
        /* Clip the ray to the grid's bounds so the walk never wanders through empty space. */
        const physics__v3 glo = bp->grid_lo, ghi = bp->grid_hi;
        float t0 = 0.0f, t1 = max_t;
        for (int k = 0; k < 3; k++) {
            const float ok = v3_get(o, k), dk = v3_get(d, k);
            const float lo = v3_get(glo, k), hi = v3_get(ghi, k);
            if (dk == 0.0f) {
                if (ok < lo || ok > hi)
                    t1 = -1.0f;
                continue;
            }
            float ta = (lo - ok) / dk, tb = (hi - ok) / dk;
            if (ta > tb) {
                const float s = ta;
                ta = tb;
                tb = s;
            }
            t0 = fmaxf(t0, ta);
            t1 = fminf(t1, tb);
        }
        if (t0 <= t1) {
            const physics__v3 start = v3_add(o, v3_scale(d, t0));
            const bp__cell c0 = bp__cell_of(start, bp->inv_cell);
            int32_t c[3] = {c0.x, c0.y, c0.z}, step[3];
            float next[3], delta[3];
            for (int k = 0; k < 3; k++) {
                const float dk = v3_get(d, k), ok = v3_get(o, k);
                step[k] = dk > 0.0f ? 1 : -1;
                delta[k] = dk != 0.0f ? bp->cell / fabsf(dk) : INFINITY;
                const float edge = (float)(c[k] + (dk > 0.0f ? 1 : 0)) * bp->cell;
                next[k] = dk != 0.0f ? (edge - ok) / dk : INFINITY;
            }
            /* Ends: each turn moves one border further along the ray (by at least a cell,
             * d being normalised) until past the clip box or past the best hit. */
            for (;;) {
                const uint64_t key = bp__key(c[0], c[1], c[2]);
                for (uint32_t p = physics__map_get(&bp->cells, key); p != UINT32_MAX;
                     p = bp->item_next[p]) {
                    const float t = hit(user, bp->item_box[p], best);
                    if (t < best)
                        best = t, best_box = bp->item_box[p];
                }
                const int k = next[0] < next[1] ? (next[0] < next[2] ? 0 : 2)
                                                : (next[1] < next[2] ? 1 : 2);
                if (best <= next[k] || next[k] > t1)
                    break;
                c[k] += step[k];
                next[k] += delta[k];
            }
        }
    }
    *t_out = best;
    return best_box;
}

void physics__broadphase_free(physics__broadphase *bp)
{
    physics__soa_free(bp->a, &bp->buffer, bp__box_fields, BP_NUM_BOX_FIELDS, bp->cap);
    physics__soa_free(bp->a, &bp->item_buffer, bp__item_fields, 2, bp->cap_items);
    physics__map_free(&bp->cells);
    if (bp->pairs)
        ct_free(bp->a, bp->pairs, (size_t)bp->cap_pairs * sizeof *bp->pairs);
    if (bp->found)
        ct_free(bp->a, bp->found, (size_t)bp->cap_found * sizeof *bp->found);
    bp->pairs = NULL;
    bp->found = NULL;
    bp->n = bp->cap = bp->cap_items = bp->cap_pairs = bp->cap_found = 0;
}
