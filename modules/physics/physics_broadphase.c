/* physics_broadphase.c: the spatial hash (the seed's "Finding nearby stuff").
 *
 * Grid coordinate -> hash -> the cell's items in one array. A box goes into every cell its AABB
 * touches; a pair sharing several cells is reported only from the cell holding the minimum corner
 * of their intersection, which both boxes cover, so nothing needs a "seen" set.
 *
 * The seed fills a map of linked lists one insertion at a time. Here the build is a counting sort
 * instead: count the items per bucket, turn the counts into offsets, drop every item into place.
 * That is three linear passes with no probing, and afterwards each bucket is one contiguous run,
 * so finding pairs walks memory in order instead of chasing `next` indices. Cells are not
 * stored: several may hash to one bucket, so every test also checks the cell it means. */
#include "physics_internal.h"
#include "physics_lanes.h"

#include "ct_array.h"

#include <stddef.h>
#include <string.h>

/* Boxes spanning more cells than this on an axis skip the grid (a ground plane would otherwise
 * fill thousands of cells): tested against everything when few, else in a coarse grid. */
#define BP_LARGE_CELLS 4
#define BP_MAX_BOX_ITEMS (BP_LARGE_CELLS * BP_LARGE_CELLS * BP_LARGE_CELLS)
/* More large boxes than this go into a coarse grid of their own: each grid box then looks them up
 * there instead of testing every one (a few are cheaper tested directly). */
#define BP_COARSE_MIN 64u
/* Pairs are found in jobs ("slices") of consecutive buckets: a slice ends once its buckets could
 * make BP_SLICE_ROOM pairs (about as many box tests), or after BP_SLICE_BUCKETS buckets. Cut by
 * work rather than by bucket count, a packed pile of 10,000 bodies (1,500 crowded cells) makes
 * about fifty jobs instead of one, and 100,000 sparse random boxes still make a few dozen. */
#define BP_SLICE_ROOM 8192u
#define BP_SLICE_BUCKETS 4096u
/* The build measures boxes, and places their items, in jobs of this many boxes; it copies items
 * in jobs of BP_SLICE_ITEMS. Small enough that 10,000 bodies make several jobs for two threads. */
#define BP_SLICE_BOXES 2048u
#define BP_SLICE_ITEMS 4096u
/* A visit of a grid of at most this many boxes tests each box instead of walking cells. */
#define BP_FEW_BOXES 16u
/* Cell coordinates are clamped to +-2^20 so three of them pack into 63 bits. */
#define BP_COORD_LIMIT (1 << 20)

#define BP_FIELD(name)                                                                             \
    {                                                                                              \
        offsetof(physics__broadphase, name), sizeof(*((physics__broadphase *)0)->name)             \
    }
static const physics__soa_field bp__box_fields[] = {
    BP_FIELD(lo),    BP_FIELD(hi),      BP_FIELD(moving),  BP_FIELD(large),
    BP_FIELD(cells), BP_FIELD(cell_lo), BP_FIELD(cell_hi),
};
static const physics__soa_field bp__item_fields[] = {
    BP_FIELD(item),
    BP_FIELD(item_bucket),
    BP_FIELD(item_box),
};
#define BP_NUM_BOX_FIELDS ((uint32_t)(sizeof bp__box_fields / sizeof bp__box_fields[0]))
#define BP_NUM_ITEM_FIELDS ((uint32_t)(sizeof bp__item_fields / sizeof bp__item_fields[0]))

typedef physics__cell bp__cell;

/* Clamped before truncating (NaN compares false and lands on the low end), then floored by
 * hand: truncating and correcting by one is exact in this range and much cheaper than floorf,
 * which without SSE4.1 compiles to a long sequence, and this runs six times per box per build.
 * The two halves are separate so that bp__coords can run them as two vectorised loops. */
static inline int32_t bp__truncate(float c)
{
    return (int32_t)f_min(f_max(c, (float)(1 - BP_COORD_LIMIT)), (float)(BP_COORD_LIMIT - 1));
}

#if !LANES_SSE2 /* SSE2's bp__cell_of does the three at once */
static inline int32_t bp__coord(float v, float inv_cell)
{
    const float c = v * inv_cell;
    const int32_t t = bp__truncate(c);
    return t - ((float)t > c);
}
#endif

/* bp__coord of each axis; in SSE2 the three at once, as bp__coords does them (a pair's owner
 * cell is found for every overlap the pairs' search meets, three clamps with branches each). */
static inline bp__cell bp__cell_of(physics__v3 p, float inv_cell)
{
#if LANES_SSE2
    const __m128 c = _mm_mul_ps(_mm_setr_ps(p.x, p.y, p.z, 0.0f), _mm_set1_ps(inv_cell));
    const __m128i t =
        _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(c, _mm_set1_ps((float)(1 - BP_COORD_LIMIT))),
                                    _mm_set1_ps((float)(BP_COORD_LIMIT - 1))));
    const __m128i f = _mm_add_epi32(t, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(t), c)));
    return (bp__cell){_mm_cvtsi128_si32(f), _mm_cvtsi128_si32(_mm_shuffle_epi32(f, 1)),
                      _mm_cvtsi128_si32(_mm_shuffle_epi32(f, 2))};
#else
    return (bp__cell){bp__coord(p.x, inv_cell), bp__coord(p.y, inv_cell), bp__coord(p.z, inv_cell)};
#endif
}

static inline uint64_t bp__key(int32_t x, int32_t y, int32_t z)
{
    return ((uint64_t)(uint32_t)(x + BP_COORD_LIMIT) << 42) |
           ((uint64_t)(uint32_t)(y + BP_COORD_LIMIT) << 21) |
           (uint64_t)(uint32_t)(z + BP_COORD_LIMIT);
}

/* `&` rather than `&&`: six compares and one branch, instead of six hard-to-predict branches. */
static inline bool bp__overlap(physics__v3 alo, physics__v3 ahi, physics__v3 blo, physics__v3 bhi)
{
    return (alo.x <= bhi.x) & (blo.x <= ahi.x) & (alo.y <= bhi.y) & (blo.y <= ahi.y) &
           (alo.z <= bhi.z) & (blo.z <= ahi.z);
}

/* A dense grid numbers the cells of its bounds one by one. A hashed one uses Fibonacci
 * hashing: the multiply mixes every coordinate bit into the top bits, which pick the bucket.
 * Cheaper than a full finaliser, and neighbouring cells land far apart. Either way c must lie
 * within the grid's cell bounds (a hashed grid would not mind, but nothing is outside). */
static inline uint32_t bp__hashed(bp__cell c, uint32_t shift)
{
    return (uint32_t)((bp__key(c.x, c.y, c.z) * 0x9e3779b97f4a7c15ull) >> shift);
}

static inline uint32_t bp__bucket(const physics__broadphase *bp, bp__cell c)
{
    if (bp->dense)
        return ((uint32_t)(c.x - bp->cells_lo.x) * bp->dim_y + (uint32_t)(c.y - bp->cells_lo.y)) *
                   bp->dim_z +
               (uint32_t)(c.z - bp->cells_lo.z);
    return bp__hashed(c, bp->bucket_shift);
}

static inline bool bp__in_grid(const physics__broadphase *bp, bp__cell c)
{
    return c.x >= bp->cells_lo.x && c.x <= bp->cells_hi.x && c.y >= bp->cells_lo.y &&
           c.y <= bp->cells_hi.y && c.z >= bp->cells_lo.z && c.z <= bp->cells_hi.z;
}

static inline bp__cell bp__cell_min(bp__cell a, bp__cell b)
{
    return (bp__cell){a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}

static inline bp__cell bp__cell_max(bp__cell a, bp__cell b)
{
    return (bp__cell){a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}

static inline bool bp__same_cell(bp__cell a, bp__cell b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* The cell where the pair (or box and query) [alo..] x [blo..] is reported: the one holding the
 * minimum corner of their intersection. */
static inline bp__cell bp__owner(const physics__broadphase *bp, physics__v3 alo, physics__v3 blo)
{
    return bp__cell_of(v3_max(alo, blo), bp->inv_cell);
}

/* bp__coord of every bound, over plain arrays that do not alias. Four at a time in SSE2 (what
 * -O3 made of the loops below; at -O2, which does not vectorise them, they cost more than the rest
 * of the build): maxps and minps are f_max and f_min, NaN included, truncating is exact in the
 * clamped range and the compare's all-ones lane is the -1. The plain loops take the rest. Two
 * loops, because GCC (without -fno-trapping-math) leaves one loop holding both the clamp and the
 * floor's compare scalar. */
static void bp__coords(const float *restrict lo, const float *restrict hi, uint32_t n,
                       float inv_cell, int32_t *restrict cell_lo, int32_t *restrict cell_hi)
{
    uint32_t k = 0;
#if LANES_SSE2
    const __m128 inv = _mm_set1_ps(inv_cell), least = _mm_set1_ps((float)(1 - BP_COORD_LIMIT)),
                 most = _mm_set1_ps((float)(BP_COORD_LIMIT - 1));
    for (; k + 4 <= n; k += 4) {
        const __m128 l = _mm_mul_ps(_mm_loadu_ps(lo + k), inv),
                     h = _mm_mul_ps(_mm_loadu_ps(hi + k), inv);
        const __m128i tl = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(l, least), most)),
                      th = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(h, least), most));
        _mm_storeu_si128((__m128i *)(void *)(cell_lo + k),
                         _mm_add_epi32(tl, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(tl), l))));
        _mm_storeu_si128((__m128i *)(void *)(cell_hi + k),
                         _mm_add_epi32(th, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(th), h))));
    }
#endif
    for (uint32_t j = k; j < n; j++) {
        cell_lo[j] = bp__truncate(lo[j] * inv_cell);
        cell_hi[j] = bp__truncate(hi[j] * inv_cell);
    }
    for (uint32_t j = k; j < n; j++) {
        cell_lo[j] -= (float)cell_lo[j] > lo[j] * inv_cell;
        cell_hi[j] -= (float)cell_hi[j] > hi[j] * inv_cell;
    }
}

int physics__broadphase_resize(physics__broadphase *bp, uint32_t n)
{
    if (n > bp->cap) {
        const uint32_t cap = ct_array_capacity(bp->cap, n, 64);
        if (!cap || physics__soa_grow(bp->a, bp, &bp->buffer, bp__box_fields, BP_NUM_BOX_FIELDS, 0,
                                      bp->cap, cap))
            return CT_ERR_NOMEM;
        bp->cap = cap;
    }
    bp->n = n;
    return 0;
}

static uint32_t bp__slice_end(uint32_t s, uint32_t size, uint32_t n)
{
    return (uint64_t)(s + 1) * size < n ? (s + 1) * size : n;
}

/* A build job: the sizes and centre bounds of slices [begin, end) of boxes. */
static void bp__measure_range(void *user, uint32_t begin, uint32_t end)
{
    physics__broadphase *bp = user;
    for (uint32_t s = begin; s < end; s++) {
        physics__bp_part *part = &bp->part[s];
        double sum = 0.0;
        physics__v3 clo = v3(INFINITY, INFINITY, INFINITY),
                    chi = v3(-INFINITY, -INFINITY, -INFINITY);
        for (uint32_t i = s * BP_SLICE_BOXES; i < bp__slice_end(s, BP_SLICE_BOXES, bp->n); i++) {
            const physics__v3 d = v3_sub(bp->hi[i], bp->lo[i]);
            const physics__v3 c = v3_scale(v3_add(bp->lo[i], bp->hi[i]), 0.5f);
            sum += f_max(d.x, f_max(d.y, d.z));
            clo = v3_min(clo, c);
            chi = v3_max(chi, c);
        }
        part->size_sum = sum;
        part->center_lo = clo;
        part->center_hi = chi;
    }
}

/* A build job for slices [begin, end) of boxes: their cells, which of them go in the grid, how
 * many items they make, and the grid's bounds. The arrays and bounds are read into locals first:
 * the byte stores to `cells` may alias anything, and the compiler reloaded every field of bp and
 * every running bound from memory for each box. */
static void bp__classify_range(void *user, uint32_t begin, uint32_t end)
{
    physics__broadphase *bp = user;
    const physics__v3 *restrict lo = bp->lo, *restrict hi = bp->hi;
    bp__cell *restrict cell_lo = bp->cell_lo, *restrict cell_hi = bp->cell_hi;
    uint8_t *restrict cells = bp->cells;
    uint32_t *restrict large = bp->large;
    const uint32_t n = bp->n;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t first = s * BP_SLICE_BOXES, last = bp__slice_end(s, BP_SLICE_BOXES, n);
        bp__coords(&lo[first].x, &hi[first].x, 3 * (last - first), bp->inv_cell,
                   &cell_lo[first].x, &cell_hi[first].x);
        uint32_t items = 0, num_large = 0;
        float glx = INFINITY, gly = INFINITY, glz = INFINITY;
        float ghx = -INFINITY, ghy = -INFINITY, ghz = -INFINITY;
        int32_t clx = INT32_MAX, cly = INT32_MAX, clz = INT32_MAX;
        int32_t chx = INT32_MIN, chy = INT32_MIN, chz = INT32_MIN;
        for (uint32_t i = first; i < last; i++) {
            const bp__cell l = cell_lo[i], h = cell_hi[i];
            const int32_t sx = h.x - l.x + 1, sy = h.y - l.y + 1, sz = h.z - l.z + 1;
            if (sx > BP_LARGE_CELLS || sy > BP_LARGE_CELLS || sz > BP_LARGE_CELLS) {
                cells[i] = 0;
                large[first + num_large++] = i;
                continue;
            }
            const uint32_t c = (uint32_t)(sx * sy * sz);
            cells[i] = (uint8_t)c;
            items += c;
            /* (v3_min and v3_max, one axis at a time) */
            glx = f_min(glx, lo[i].x), gly = f_min(gly, lo[i].y), glz = f_min(glz, lo[i].z);
            ghx = f_max(ghx, hi[i].x), ghy = f_max(ghy, hi[i].y), ghz = f_max(ghz, hi[i].z);
            clx = l.x < clx ? l.x : clx, cly = l.y < cly ? l.y : cly, clz = l.z < clz ? l.z : clz;
            chx = h.x > chx ? h.x : chx, chy = h.y > chy ? h.y : chy, chz = h.z > chz ? h.z : chz;
        }
        bp->part[s] = (physics__bp_part){.grid_lo = v3(glx, gly, glz),
                                         .grid_hi = v3(ghx, ghy, ghz),
                                         .cells_lo = {clx, cly, clz},
                                         .cells_hi = {chx, chy, chz},
                                         .items = items,
                                         .num_large = num_large};
    }
}

/* With this many box slices at most, on a pool, each slice counts its items per bucket in its own
 * array and places them itself: the serial pass between reads every slice's counts, so with more
 * slices (large scenes, where the sort is a small part of the build) the counting and placing stay
 * serial, one group of all the slices. */
#define BP_SORT_GROUPS 4u

typedef struct bp__sort_job {
    physics__broadphase *bp;
    uint32_t groups, parts; /* groups == parts (a slice each), or one */
} bp__sort_job;

/* The first box slice of group g. */
static inline uint32_t bp__group_part(const bp__sort_job *job, uint32_t g)
{
    return job->groups == job->parts ? g : (g ? job->parts : 0);
}

/* The bucket of every item of boxes [first, last), from item `item` on, in box order; counted in
 * count unless it is NULL. `dense` is a constant at each call (one loop per kind of grid): a dense
 * grid's bucket steps by a constant from cell to cell, so the loop adds instead of multiplying.
 * What it reads is in locals: the stores to item_bucket and count may alias bp's fields. */
static inline void bp__bucket_boxes(const physics__broadphase *bp, uint32_t first, uint32_t last,
                                    uint32_t item, uint32_t *restrict count, bool dense)
{
    uint32_t *restrict item_bucket = bp->item_bucket;
    const bp__cell *restrict cell_lo = bp->cell_lo, *restrict cell_hi = bp->cell_hi;
    const uint8_t *restrict cells = bp->cells;
    const uint32_t dim_y = bp->dim_y, dim_z = bp->dim_z, shift = bp->bucket_shift;
    for (uint32_t i = first; i < last; i++) {
        const bp__cell l = cell_lo[i], h = cell_hi[i];
        /* (dense: from the last cell of a z run to the first of the next, and of an x layer) */
        const uint32_t span_z = (uint32_t)(h.z - l.z + 1), span_y = (uint32_t)(h.y - l.y + 1);
        const uint32_t next_row = dim_z - span_z, next_layer = (dim_y - span_y) * dim_z;
        uint32_t k = dense ? bp__bucket(bp, l) : 0;
        /* One loop over the box's cells, stepping z, then y, then x without branches: three
         * nested loops would mispredict each of their exits, their trip counts varying from
         * box to box. */
        int32_t x = l.x, y = l.y, z = l.z;
        for (uint32_t c = cells[i]; c > 0; c--) {
            if (!dense)
                k = bp__hashed((bp__cell){x, y, z}, shift);
            item_bucket[item++] = k;
            if (count)
                count[k]++;
            const bool next_y = z == h.z;
            z = next_y ? l.z : z + 1;
            y += next_y;
            const bool next_x = y > h.y;
            y = next_x ? l.y : y;
            x += next_x;
            if (dense)
                k += 1u + (next_y ? next_row : 0u) + (next_x ? next_layer : 0u);
        }
    }
}

/* A build job: the bucket of every item of slices [begin, end) of boxes, from the slice's first
 * item on, in box order; counted per bucket when each slice is a group of its own. */
static void bp__bucket_range(void *user, uint32_t begin, uint32_t end)
{
    const bp__sort_job *job = user;
    const physics__broadphase *bp = job->bp;
    const bool counts = job->groups == job->parts;
    for (uint32_t s = begin; s < end; s++) {
        uint32_t *count = counts ? bp->group_start + (size_t)s * bp->num_buckets : NULL;
        if (counts)
            memset(count, 0, (size_t)bp->num_buckets * sizeof *count);
        const uint32_t first = s * BP_SLICE_BOXES, last = bp__slice_end(s, BP_SLICE_BOXES, bp->n);
        if (bp->dense)
            bp__bucket_boxes(bp, first, last, bp->part[s].items, count, true);
        else
            bp__bucket_boxes(bp, first, last, bp->part[s].items, count, false);
    }
}

/* A build job for groups [begin, end): each item's box into its bucket's place, from where the
 * group's items of that bucket begin (its counts turned into places), in box order. (Locals: the
 * stores may alias bp's fields.) */
static void bp__place_range(void *user, uint32_t begin, uint32_t end)
{
    const bp__sort_job *job = user;
    const physics__broadphase *bp = job->bp;
    const uint32_t *restrict item_bucket = bp->item_bucket;
    const uint8_t *restrict cells = bp->cells;
    uint32_t *restrict item_box = bp->item_box;
    const uint32_t n = bp->n;
    for (uint32_t g = begin; g < end; g++) {
        uint32_t *restrict place = bp->group_start + (size_t)g * bp->num_buckets;
        for (uint32_t s = bp__group_part(job, g); s < bp__group_part(job, g + 1); s++) {
            uint32_t item = bp->part[s].items;
            const uint32_t last = bp__slice_end(s, BP_SLICE_BOXES, n);
            for (uint32_t i = s * BP_SLICE_BOXES; i < last; i++)
                for (uint32_t c = cells[i]; c > 0; c--)
                    item_box[place[item_bucket[item++]]++] = i;
        }
    }
}

/* A build job: the bounds of slices [begin, end) of items, in order (independent loads,
 * sequential stores). */
static void bp__copy_range(void *user, uint32_t begin, uint32_t end)
{
    physics__broadphase *bp = user;
    for (uint32_t s = begin; s < end; s++)
        for (uint32_t p = s * BP_SLICE_ITEMS; p < bp__slice_end(s, BP_SLICE_ITEMS, bp->num_items);
             p++) {
            const uint32_t i = bp->item_box[p];
            bp->item[p] = (physics__bp_item){bp->lo[i], bp->hi[i], i, bp->moving[i]};
        }
}

/* Puts many large boxes into the coarse grid (see BP_COARSE_MIN). */
static int bp__build_coarse(physics__broadphase *bp)
{
    bp->coarse_used = bp->level == 0 && bp->num_large > BP_COARSE_MIN;
    if (!bp->coarse_used)
        return 0;
    if (!bp->coarse) {
        bp->coarse = ct_alloc(bp->a, sizeof *bp->coarse);
        if (!bp->coarse)
            return CT_ERR_NOMEM;
        *bp->coarse = (physics__broadphase){.a = bp->a, .level = 1};
    }
    physics__broadphase *c = bp->coarse;
    c->pool = bp->pool;
    c->max_pairs = bp->max_pairs;
    if (physics__broadphase_resize(c, bp->num_large))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < bp->num_large; k++) {
        const uint32_t i = bp->large[k];
        c->lo[k] = bp->lo[i];
        c->hi[k] = bp->hi[i];
        c->moving[k] = bp->moving[i];
    }
    return physics__broadphase_build(c, 0.0f);
}

int physics__broadphase_build(physics__broadphase *bp, float cell)
{
    bp->builds++;
    const uint32_t num_parts = (bp->n + BP_SLICE_BOXES - 1) / BP_SLICE_BOXES;
    if (physics__reserve_keep(bp->a, (void **)&bp->part, &bp->cap_parts, num_parts,
                              sizeof *bp->part))
        return CT_ERR_NOMEM;
    if (!(cell > 0.0f)) {
        physics__pool_run(bp->pool, num_parts, bp__measure_range, bp);
        double sum = 0.0;
        physics__v3 clo = v3(INFINITY, INFINITY, INFINITY),
                    chi = v3(-INFINITY, -INFINITY, -INFINITY);
        for (uint32_t s = 0; s < num_parts; s++) {
            sum += bp->part[s].size_sum;
            clo = v3_min(clo, bp->part[s].center_lo);
            chi = v3_max(chi, bp->part[s].center_hi);
        }
        /* Twice the mean size: a typical box then touches 1 to 2 cells per axis (about 3.4 in
         * all) while a cell of a packed pile holds only a handful of boxes. Sparse scenes do
         * better with cells nearer the spacing between boxes (fewer items, still few boxes per
         * cell), up to four times the mean size. Measured on random scenes and on piles: 1x
         * makes 2.5 times the items; 4x in a pile makes the per-cell pair tests dominate. */
        const float mean = bp->n ? (float)(sum / bp->n) : 1.0f;
        const physics__v3 span = v3_sub(chi, clo);
        const float spacing = bp->n ? cbrtf(span.x * span.y * span.z / (float)bp->n) : 0.0f;
        cell = f_min(f_max(1.2f * spacing, 2.0f * mean), 4.0f * mean);
        if (!(cell > 1e-3f))
            cell = 1e-3f;
    }
    bp->cell = cell;
    bp->inv_cell = 1.0f / cell;

    /* Which boxes go in the grid, how many items they make, and the grid's bounds: the items
     * are then allocated once and the buckets sized before they are filled. The slices' large
     * boxes join up in order, and each slice's item count becomes its first item. */
    physics__pool_run(bp->pool, num_parts, bp__classify_range, bp);
    uint64_t items = 0;
    bp->num_large = 0;
    physics__v3 grid_lo = v3(INFINITY, INFINITY, INFINITY);
    physics__v3 grid_hi = v3(-INFINITY, -INFINITY, -INFINITY);
    bp__cell cells_lo = {INT32_MAX, INT32_MAX, INT32_MAX},
             cells_hi = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (uint32_t s = 0; s < num_parts; s++) {
        physics__bp_part *part = &bp->part[s];
        memmove(bp->large + bp->num_large, bp->large + s * BP_SLICE_BOXES,
                (size_t)part->num_large * sizeof *bp->large);
        bp->num_large += part->num_large;
        const uint32_t count = part->items;
        part->items = (uint32_t)items;
        items += count;
        grid_lo = v3_min(grid_lo, part->grid_lo);
        grid_hi = v3_max(grid_hi, part->grid_hi);
        cells_lo = bp__cell_min(cells_lo, part->cells_lo);
        cells_hi = bp__cell_max(cells_hi, part->cells_hi);
    }
    if (items >= UINT32_MAX / 2)
        return CT_ERR_FULL;
    if (items > bp->cap_items) {
        const uint32_t cap = ct_array_capacity(bp->cap_items, items, 256);
        if (!cap || physics__soa_grow(bp->a, bp, &bp->item_buffer, bp__item_fields,
                                      BP_NUM_ITEM_FIELDS, 0, bp->cap_items, cap))
            return CT_ERR_NOMEM;
        bp->cap_items = cap;
    }

    /* When the grid's bounds hold no more cells than two per box, every cell gets a bucket of
     * its own: no two cells share one, so a packed pile never tests the boxes of two crowded
     * cells against each other, and a compact scene walks fewer buckets than hashing would give
     * it (100,000 random boxes: 64,000 cells instead of 262,144 buckets). Sparse scenes hash
     * their cells into about two buckets per box. */
    if (!items)
        cells_lo = cells_hi = (bp__cell){0, 0, 0};
    bp->cells_lo = cells_lo;
    bp->cells_hi = cells_hi;
    bp->dim_y = (uint32_t)(cells_hi.y - cells_lo.y + 1);
    bp->dim_z = (uint32_t)(cells_hi.z - cells_lo.z + 1);
    const uint64_t cells_in_bounds =
        (uint64_t)(cells_hi.x - cells_lo.x + 1) * bp->dim_y * bp->dim_z;
    bp->dense = cells_in_bounds <= 2 * (uint64_t)bp->n;
    uint32_t buckets = 16, shift = 60;
    while (buckets < 2 * bp->n)
        buckets *= 2, shift--;
    if (bp->dense)
        buckets = (uint32_t)cells_in_bounds;
    if (buckets + 1 > bp->cap_buckets) {
        uint32_t *fresh = ct_alloc(bp->a, ((size_t)buckets + 1) * sizeof *fresh);
        if (!fresh)
            return CT_ERR_NOMEM;
        if (bp->bucket_start)
            ct_free(bp->a, bp->bucket_start, (size_t)bp->cap_buckets * sizeof *fresh);
        bp->bucket_start = fresh;
        bp->cap_buckets = buckets + 1;
    }
    bp->num_buckets = buckets;
    bp->bucket_shift = shift;
    uint32_t *start = bp->bucket_start;
    /* A group of box slices per slice on a pool, when they are few; else one (serial). */
    bp__sort_job sort = {bp,
                         bp->pool.parallel_for && num_parts > 1 && num_parts <= BP_SORT_GROUPS
                             ? num_parts
                             : 1u,
                         num_parts};
    if (physics__reserve(bp->a, (void **)&bp->group_start, &bp->cap_group_start,
                         sort.groups * buckets, sizeof *bp->group_start))
        return CT_ERR_NOMEM;

    /* Each item's bucket in box order, counted per bucket by each group. */
    physics__pool_run(bp->pool, num_parts, bp__bucket_range, &sort);
    if (sort.groups != sort.parts) {
        uint32_t *count = bp->group_start;
        memset(count, 0, (size_t)buckets * sizeof *count);
        for (uint32_t p = 0; p < items; p++)
            count[bp->item_bucket[p]]++;
    }
    bp->num_items = (uint32_t)items;
    bp->grid_lo = grid_lo;
    bp->grid_hi = grid_hi;
    /* The counts become places: start[k] the beginning of bucket k, and each group's count of
     * bucket k where its items of bucket k begin, after the earlier groups' (boxes ascend within
     * a bucket). Only indices move here: scattering whole items would touch a random cache line
     * of a much larger array each. On the way, each slice of buckets gets room for every pair its
     * buckets could make, so that its job can write them without growing anything. That room
     * stays within a small factor of the pairs: a cell is at least twice the mean box, so boxes
     * sharing one mostly overlap. */
    uint32_t end = 0, num_slices = 0, first = 0;
    uint64_t room = 0, first_room = 0;
    for (uint32_t k = 0; k < buckets; k++) {
        if (k == 0 || room - first_room >= BP_SLICE_ROOM || k - first >= BP_SLICE_BUCKETS) {
            if (physics__reserve_keep(bp->a, (void **)&bp->slice, &bp->cap_slices, num_slices + 2,
                                      sizeof *bp->slice))
                return CT_ERR_NOMEM;
            first = k;
            first_room = room;
            bp->slice[num_slices++] = (physics__bp_slice){.room = (uint32_t)room, .first = k};
        }
        start[k] = end;
        for (uint32_t g = 0; g < sort.groups; g++) {
            uint32_t *count = &bp->group_start[(size_t)g * buckets + k];
            const uint32_t n = *count;
            *count = end;
            end += n;
        }
        const uint64_t c = end - start[k];
        room += c * (c - (c > 0)) / 2;
        room = room < UINT32_MAX / 2 ? room : UINT32_MAX / 2; /* more than max_pairs in any case */
    }
    start[buckets] = end;
    if (room >= UINT32_MAX / 2 && !bp->max_pairs)
        return CT_ERR_FULL;
    bp->num_slices = num_slices;
    bp->slice[num_slices] = (physics__bp_slice){.room = (uint32_t)room, .first = buckets};
    physics__pool_run(bp->pool, sort.groups, bp__place_range, &sort);
    physics__pool_run(bp->pool, (bp->num_items + BP_SLICE_ITEMS - 1) / BP_SLICE_ITEMS,
                      bp__copy_range, bp);
    return bp__build_coarse(bp);
}

static inline int bp__add_pair(physics__broadphase *bp, uint32_t a, uint32_t b)
{
    if (bp->num_pairs == bp->cap_pairs &&
        physics__reserve_keep(bp->a, (void **)&bp->pairs, &bp->cap_pairs, bp->num_pairs + 1,
                              sizeof *bp->pairs))
        return CT_ERR_NOMEM;
    bp->pairs[bp->num_pairs++] = a < b ? (physics__pair){a, b} : (physics__pair){b, a};
    return 0;
}

/* An item's bounds as lanes: lo's three and hi's x, then hi's three and the box number (the
 * fourth lanes are never looked at). */
typedef struct bp__lanes {
#if LANES_SSE2
    __m128 lo, hi;
#else
    physics__v3 lo, hi;
#endif
} bp__lanes;

static inline bp__lanes bp__lanes_of(const physics__bp_item *it)
{
#if LANES_SSE2
    return (bp__lanes){_mm_loadu_ps(&it->lo.x), _mm_loadu_ps(&it->hi.x)};
#else
    return (bp__lanes){it->lo, it->hi};
#endif
}

/* bp__overlap of two items: in SSE2 the six compares as two of three lanes each (the same
 * compares, so the same answer, NaN included), which the pairs' search makes for every two items
 * of a bucket. */
static inline bool bp__lanes_meet(bp__lanes a, bp__lanes b)
{
#if LANES_SSE2
    return (_mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(a.lo, b.hi), _mm_cmple_ps(b.lo, a.hi))) & 7) ==
           7;
#else
    return bp__overlap(a.lo, a.hi, b.lo, b.hi);
#endif
}

/* The pairs of buckets [k0, k1) into out, which has room for all of them; returns how many.
 * `dense` is a constant at each call, so the compiler makes one loop per kind of grid: a dense
 * grid has one cell per bucket and so no box twice in one, which spares a load and a compare per
 * test. (Always inlined: at -O2, GCC made one copy of it that tested `dense` per pair.) */
static inline __attribute__((always_inline)) uint32_t
bp__bucket_pairs(const physics__broadphase *bp, uint32_t k0, uint32_t k1, physics__pair *out,
                 uint32_t limit, bool dense)
{
    const physics__bp_item *item = bp->item;
    uint32_t n = 0;
    for (uint32_t k = k0; k < k1 && n < limit; k++) {
        const uint32_t begin = bp->bucket_start[k], end = bp->bucket_start[k + 1];
        for (uint32_t p = begin; p + 1 < end; p++) {
            /* A box covering two cells of one bucket sits there twice, side by side (the run is
             * ascending): only its first copy counts, in both loops. */
            const physics__bp_item a = item[p];
            if (!dense && p > begin && item[p - 1].box == a.box)
                continue;
            const bp__lanes al = bp__lanes_of(&item[p]);
            for (uint32_t q = p + 1; q < end && n < limit; q++) {
                const physics__bp_item *b = &item[q];
                if ((!dense && b->box == item[q - 1].box) || !(a.moving | b->moving))
                    continue;
                if (!bp__lanes_meet(al, bp__lanes_of(b)) ||
                    bp__bucket(bp, bp__owner(bp, a.lo, b->lo)) != k)
                    continue;
                /* Items are in box order within a bucket, so a.box < b->box. */
                out[n++] = (physics__pair){a.box, b->box};
            }
        }
    }
    return n;
}

/* A job of physics__broadphase_pairs: slices [begin, end), each into its own room. */
static void bp__pairs_range(void *user, uint32_t begin, uint32_t end)
{
    physics__broadphase *bp = user;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t k0 = bp->slice[s].first, k1 = bp->slice[s + 1].first;
        /* No pairs array while no room was asked for: NULL + 0 is undefined, so no sum then. */
        physics__pair *out = bp->pairs ? bp->pairs + bp->slice[s].room : NULL;
        bp->slice[s].count = bp->dense ? bp__bucket_pairs(bp, k0, k1, out, UINT32_MAX, true)
                                       : bp__bucket_pairs(bp, k0, k1, out, UINT32_MAX, false);
    }
}

/* The pairs of the large boxes: among themselves from the coarse grid's own pairs, and with
 * every box of the grid by a lookup in the coarse grid. */
static int bp__coarse_pairs(physics__broadphase *bp)
{
    physics__broadphase *c = bp->coarse;
    if (physics__broadphase_pairs(c))
        return CT_ERR_NOMEM;
    bp->dropped |= c->dropped;
    for (uint32_t k = 0; k < c->num_pairs && !bp->dropped; k++) {
        if (bp->max_pairs && bp->num_pairs >= bp->max_pairs) {
            bp->dropped = 1;
            break;
        }
        if (bp__add_pair(bp, bp->large[c->pairs[k].a], bp->large[c->pairs[k].b]))
            return CT_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < bp->n && !bp->dropped; i++) {
        if (!bp->cells[i])
            continue;
        if (physics__broadphase_overlap(c, bp->lo[i], bp->hi[i]))
            return CT_ERR_NOMEM;
        for (uint32_t f = 0; f < c->num_found; f++) {
            const uint32_t l = bp->large[c->found[f]];
            if (!(bp->moving[i] | bp->moving[l]))
                continue;
            if (bp->max_pairs && bp->num_pairs >= bp->max_pairs) {
                bp->dropped = 1;
                break;
            }
            if (bp__add_pair(bp, i, l))
                return CT_ERR_NOMEM;
        }
    }
    return 0;
}

/* Each slice's pairs move down to follow the previous slice's: the order is the buckets'
 * whatever ran where. (With no room at all `pairs` may not exist yet.) */
static void bp__join_slices(physics__broadphase *bp)
{
    for (uint32_t s = 0; s < bp->num_slices; s++) {
        if (bp->slice[s].count)
            memmove(bp->pairs + bp->num_pairs, bp->pairs + bp->slice[s].room,
                    (size_t)bp->slice[s].count * sizeof *bp->pairs);
        bp->num_pairs += bp->slice[s].count;
    }
}

int physics__broadphase_pairs(physics__broadphase *bp)
{
    bp->num_pairs = 0;
    bp->dropped = 0;
    if (!bp->num_slices)
        return 0;
    /* Crowded cells (bodies piled into one spot) could make more pairs than the limit: then the
     * buckets are walked on this thread, in order, until the limit, and the rest is not looked
     * for, which bounds both the time and the memory of the step. */
    const uint32_t room = bp->slice[bp->num_slices].room;
    if (bp->max_pairs && room > bp->max_pairs) {
        if (physics__reserve_keep(bp->a, (void **)&bp->pairs, &bp->cap_pairs, bp->max_pairs,
                                  sizeof *bp->pairs))
            return CT_ERR_NOMEM;
        bp->num_pairs =
            bp->dense ? bp__bucket_pairs(bp, 0, bp->num_buckets, bp->pairs, bp->max_pairs, true)
                      : bp__bucket_pairs(bp, 0, bp->num_buckets, bp->pairs, bp->max_pairs, false);
        bp->dropped = bp->num_pairs == bp->max_pairs;
    } else {
        if (physics__reserve_keep(bp->a, (void **)&bp->pairs, &bp->cap_pairs, room,
                                  sizeof *bp->pairs))
            return CT_ERR_NOMEM;
        physics__pool_run(bp->pool, bp->num_slices, bp__pairs_range, bp);
        bp__join_slices(bp);
    }
    if (bp->coarse_used)
        return bp__coarse_pairs(bp);
    for (uint32_t k = 0; k < bp->num_large && !bp->dropped; k++) {
        const uint32_t a = bp->large[k];
        for (uint32_t b = 0; b < bp->n; b++) {
            if (b == a || (!bp->cells[b] && b < a) || !(bp->moving[a] | bp->moving[b]))
                continue;
            if (!bp__overlap(bp->lo[a], bp->hi[a], bp->lo[b], bp->hi[b]))
                continue;
            if (bp->max_pairs && bp->num_pairs >= bp->max_pairs) {
                bp->dropped = 1;
                break;
            }
            if (bp__add_pair(bp, a, b))
                return CT_ERR_NOMEM;
        }
    }
    return 0;
}

/* A visit of the coarse grid reports the grid's own box numbers. */
typedef struct bp__coarse_visit {
    const uint32_t *large;
    physics__found_f fn;
    void *user;
} bp__coarse_visit;

static int bp__coarse_found(void *user, uint32_t box)
{
    const bp__coarse_visit *v = user;
    return v->fn(v->user, v->large[box]);
}

int physics__broadphase_visit(const physics__broadphase *bp, physics__v3 lo, physics__v3 hi,
                              physics__found_f fn, void *user)
{
    /* A grid of a few boxes (the six walls of a room): testing each box is cheaper than finding
     * the cells (bench jolt_high_speed: 10,000 queries a step of six walls, 7% of its time). */
    if (bp->n <= BP_FEW_BOXES) {
        for (uint32_t i = 0; i < bp->n; i++)
            if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && fn(user, i))
                return CT_ERR_NOMEM;
        return 0;
    }
    /* Cells outside the grid's bounds hold nothing. */
    bp__cell l = bp__cell_of(lo, bp->inv_cell), h = bp__cell_of(hi, bp->inv_cell);
    l = bp__cell_max(l, bp->cells_lo);
    h = bp__cell_min(h, bp->cells_hi);
    const bool outside = l.x > h.x || l.y > h.y || l.z > h.z;
    /* (A grid of only large boxes, such as a ground, has no cells to visit.) */
    const uint64_t cells =
        outside || !bp->num_items
            ? 0
            : (uint64_t)(h.x - l.x + 1) * (uint64_t)(h.y - l.y + 1) * (uint64_t)(h.z - l.z + 1);
    /* A query wider than the scene: walking the boxes is cheaper than probing empty cells. */
    if (cells > bp->n) {
        for (uint32_t i = 0; i < bp->n; i++)
            if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && fn(user, i))
                return CT_ERR_NOMEM;
        return 0;
    }
    for (int32_t x = l.x; cells && x <= h.x; x++)
        for (int32_t y = l.y; y <= h.y; y++)
            for (int32_t z = l.z; z <= h.z; z++) {
                const bp__cell c = {x, y, z};
                const uint32_t k = bp__bucket(bp, c);
                const uint32_t begin = bp->bucket_start[k], end = bp->bucket_start[k + 1];
                for (uint32_t p = begin; p < end; p++) {
                    const physics__bp_item *it = &bp->item[p];
                    if (p > begin && bp->item[p - 1].box == it->box)
                        continue;
                    if (bp__overlap(lo, hi, it->lo, it->hi) &&
                        bp__same_cell(bp__owner(bp, lo, it->lo), c) && fn(user, it->box))
                        return CT_ERR_NOMEM;
                }
            }
    if (bp->coarse_used) {
        bp__coarse_visit v = {bp->large, fn, user};
        return physics__broadphase_visit(bp->coarse, lo, hi, bp__coarse_found, &v);
    }
    for (uint32_t k = 0; k < bp->num_large; k++) {
        const uint32_t i = bp->large[k];
        if (bp__overlap(lo, hi, bp->lo[i], bp->hi[i]) && fn(user, i))
            return CT_ERR_NOMEM;
    }
    return 0;
}

/* A visit of physics__broadphase_visit_each: its query k. */
typedef struct bp__each_visit {
    physics__found_each_f fn;
    void *user;
    uint32_t k;
} bp__each_visit;

static int bp__each_found(void *user, uint32_t box)
{
    const bp__each_visit *v = user;
    return v->fn(v->user, v->k, box);
}

int physics__broadphase_visit_each(const physics__broadphase *bp, const physics__v3 *lo,
                                   const physics__v3 *hi, uint32_t first, uint32_t last,
                                   physics__found_each_f fn, void *user)
{
    if (bp->n <= BP_FEW_BOXES) {
        for (uint32_t k = first; k < last; k++)
            for (uint32_t i = 0; i < bp->n; i++)
                if (bp__overlap(lo[k], hi[k], bp->lo[i], bp->hi[i]) && fn(user, k, i))
                    return CT_ERR_NOMEM;
        return 0;
    }
    bp__each_visit v = {fn, user, 0};
    for (v.k = first; v.k < last; v.k++)
        if (physics__broadphase_visit(bp, lo[v.k], hi[v.k], bp__each_found, &v))
            return CT_ERR_NOMEM;
    return 0;
}

static int bp__add_found(void *user, uint32_t box)
{
    physics__broadphase *bp = user;
    if (bp->num_found == bp->cap_found &&
        physics__reserve_keep(bp->a, (void **)&bp->found, &bp->cap_found, bp->num_found + 1,
                              sizeof *bp->found))
        return CT_ERR_NOMEM;
    bp->found[bp->num_found++] = box;
    return 0;
}

int physics__broadphase_overlap(physics__broadphase *bp, physics__v3 lo, physics__v3 hi)
{
    bp->num_found = 0;
    return physics__broadphase_visit(bp, lo, hi, bp__add_found, bp);
}

/* A ray through the coarse grid asks the caller about the grid's own box numbers. */
typedef struct bp__coarse_ray {
    const uint32_t *large;
    physics__ray_hit_f hit;
    void *user;
} bp__coarse_ray;

static float bp__coarse_hit(void *user, uint32_t box, float best)
{
    const bp__coarse_ray *r = user;
    return r->hit(r->user, r->large[box], best);
}

/* Amanatides and Woo's grid walk: visit cells in the order the ray enters them. */
uint32_t physics__broadphase_raycast(physics__broadphase *bp, physics__v3 o, physics__v3 d,
                                     float max_t, physics__ray_hit_f hit, void *user, float *t_out)
{
    float best = nextafterf(max_t, INFINITY);
    uint32_t best_box = UINT32_MAX;
    if (bp->coarse_used) {
        bp__coarse_ray ray = {bp->large, hit, user};
        float t;
        const uint32_t k =
            physics__broadphase_raycast(bp->coarse, o, d, max_t, bp__coarse_hit, &ray, &t);
        if (k != UINT32_MAX && t < best)
            best = t, best_box = bp->large[k];
    }
    for (uint32_t k = 0; k < bp->num_large && !bp->coarse_used; k++) {
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
             * d being normalised) until past the clip box or past the best hit. The clipped
             * segment crosses at most the grid's cells per axis in all; more turns than that
             * (coordinates clamped at BP_COORD_LIMIT) end in a walk over every item instead. */
            uint64_t turns = (uint64_t)(bp->cells_hi.x - bp->cells_lo.x) +
                             (uint64_t)(bp->cells_hi.y - bp->cells_lo.y) +
                             (uint64_t)(bp->cells_hi.z - bp->cells_lo.z) + 8u;
            for (;; turns--) {
                if (!turns) {
                    for (uint32_t p = 0; p < bp->num_items; p++) {
                        const float t = hit(user, bp->item[p].box, best);
                        if (t < best)
                            best = t, best_box = bp->item[p].box;
                    }
                    break;
                }
                /* Boxes of other cells sharing the bucket are tested too: harmless, since
                 * hit() measures the true distance. The clipped ray may graze a cell just
                 * outside the grid's bounds, which holds nothing. */
                const bp__cell cell = {c[0], c[1], c[2]};
                const uint32_t bucket = bp__in_grid(bp, cell) ? bp__bucket(bp, cell) : 0;
                const uint32_t end = bp__in_grid(bp, cell) ? bp->bucket_start[bucket + 1] : 0;
                for (uint32_t p = bp->bucket_start[bucket]; p < end; p++) {
                    const float t = hit(user, bp->item[p].box, best);
                    if (t < best)
                        best = t, best_box = bp->item[p].box;
                }
                const int k =
                    next[0] < next[1] ? (next[0] < next[2] ? 0 : 2) : (next[1] < next[2] ? 1 : 2);
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
    if (bp->coarse) {
        physics__broadphase_free(bp->coarse);
        ct_free(bp->a, bp->coarse, sizeof *bp->coarse);
        bp->coarse = NULL;
    }
    bp->coarse_used = false;
    physics__soa_free(bp->a, &bp->buffer, bp__box_fields, BP_NUM_BOX_FIELDS, bp->cap);
    physics__soa_free(bp->a, &bp->item_buffer, bp__item_fields, BP_NUM_ITEM_FIELDS, bp->cap_items);
    if (bp->bucket_start)
        ct_free(bp->a, bp->bucket_start, (size_t)bp->cap_buckets * sizeof *bp->bucket_start);
    bp->bucket_start = NULL;
    if (bp->group_start)
        ct_free(bp->a, bp->group_start, (size_t)bp->cap_group_start * sizeof *bp->group_start);
    bp->group_start = NULL;
    bp->cap_group_start = 0;
    bp->num_buckets = bp->num_items = 0;
    if (bp->part)
        ct_free(bp->a, bp->part, (size_t)bp->cap_parts * sizeof *bp->part);
    if (bp->slice)
        ct_free(bp->a, bp->slice, (size_t)bp->cap_slices * sizeof *bp->slice);
    if (bp->pairs)
        ct_free(bp->a, bp->pairs, (size_t)bp->cap_pairs * sizeof *bp->pairs);
    if (bp->found)
        ct_free(bp->a, bp->found, (size_t)bp->cap_found * sizeof *bp->found);
    bp->part = NULL;
    bp->slice = NULL;
    bp->pairs = NULL;
    bp->found = NULL;
    bp->num_slices = bp->cap_slices = bp->cap_parts = 0;
    bp->n = bp->cap = bp->cap_items = bp->cap_buckets = bp->cap_pairs = bp->cap_found = 0;
}
