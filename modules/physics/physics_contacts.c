/* physics_contacts.c: which pairs become contacts, and what a contact remembers.
 *
 * The step's candidate pairs come from the two grids (the moving one's own pairs, then each
 * moving box against the fixed grid); they are sorted by entity pair, shape-tested on any
 * threads (physics_narrowphase.c), and the kept ones become contacts, matched against last
 * step's cache for their warm start and bounce. At the end of the step the cache is rewritten and
 * the collision and contact-ended events written (step 5 of physics_step.c). */
#include "physics_hull.h"

#include <stddef.h>
#include <string.h>

/* Below this closing speed (m/s) contacts do not bounce: resting bodies would never settle. */
#define SOLVER_BOUNCE_SPEED 1.0f
/* Shapes this close (m) at the end of a step touch: collision events, and bounces, need it. */
#define SOLVER_TOUCH 0.002f

#define CONTACT_FIELD(name)                                                                        \
    {                                                                                              \
        offsetof(physics__contacts, name), sizeof(*((physics__contacts *)0)->name)                 \
    }
static const physics__soa_field contacts__fields[] = {
    CONTACT_FIELD(key),      CONTACT_FIELD(a),        CONTACT_FIELD(b),      CONTACT_FIELD(normal),
    CONTACT_FIELD(point),    CONTACT_FIELD(sep_base), CONTACT_FIELD(target), CONTACT_FIELD(speed),
    CONTACT_FIELD(approach), CONTACT_FIELD(cached),   CONTACT_FIELD(slot_a), CONTACT_FIELD(slot_b),
    CONTACT_FIELD(row),
};
#define NARROW_FIELD(name)                                                                         \
    {                                                                                              \
        offsetof(physics__narrow, name), sizeof(*((physics__narrow *)0)->name)                     \
    }
static const physics__soa_field contacts__narrow_fields[] = {
    NARROW_FIELD(normal),
    NARROW_FIELD(point),
    NARROW_FIELD(sep),
    NARROW_FIELD(flags),
};

void physics__contacts_free(physics__scene *s)
{
    for (uint32_t t = 0; t < s->cap_merge_events; t++)
        physics__events_free(&s->merge_events[t]);
    if (s->merge_events)
        ct_free(s->a, s->merge_events, (size_t)s->cap_merge_events * sizeof *s->merge_events);
    if (s->merge)
        ct_free(s->a, s->merge, (size_t)s->cap_merge * sizeof *s->merge);
    s->merge_events = NULL;
    s->merge = NULL;
    s->cap_merge_events = s->cap_merge = 0;
    if (s->sort_count)
        ct_free(s->a, s->sort_count, (size_t)s->cap_sort_count * sizeof *s->sort_count);
    s->sort_count = NULL;
    s->cap_sort_count = 0;
    physics__stages_free(&s->sort_stages, s->a);
    physics__soa_free(s->a, &s->narrow.buffer, contacts__narrow_fields,
                      PHYSICS_NUM_FIELDS(contacts__narrow_fields), s->narrow.cap);
    if (s->narrow.kept)
        ct_free(s->a, s->narrow.kept, (size_t)s->narrow.cap_kept * sizeof *s->narrow.kept);
    s->narrow.kept = NULL;
    s->narrow.cap = s->narrow.cap_kept = 0;
    physics__soa_free(s->a, &s->contacts.buffer, contacts__fields,
                      PHYSICS_NUM_FIELDS(contacts__fields), s->contacts.cap);
    s->contacts.n = s->contacts.cap = 0;
}

/* The pairs of a step are sorted by key (entity pair) in slices of SORT_SLICE on any
 * threads: each slice makes its own pairs' keys, then an LSD radix sort, a digit of up to
 * SORT_WIDE_BITS bits a pass, counts each slice's digits and moves each slice's pairs, the slices'
 * places being set in between by digit, then slice: a stable sort, the same bits as one walk.
 * Only the bits in which some keys differ get a pass, each digit starting at the lowest such bit
 * not yet sorted and ending at the highest within SORT_WIDE_BITS of it: entity ids are small,
 * so a world of fewer than 2,048 bodies sorts in two passes, one per id (a byte a pass made four,
 * whose moves were most of the sort: bench convex_vs_mesh, 1,764 bodies). Of more than
 * SORT_WIDE_SLICES slices, a byte a pass: the places (one item) walk every slice's digits, and
 * the counts take memory per slice (192,000 pairs of 3,000 bodies in one spot: 1.5 MB of counts
 * at 11 bits, 0.2 MB at 8). Far cheaper than
 * qsort's callback per comparison on ten thousand pairs. The passes are stages of one parallel
 * section (physics_stages.c): three stages a pass, the pool's threads met at the end of each. */
#define SORT_WIDE_BITS 11u
#define SORT_WIDE_SLICES 32u
/* Pairs a slice: coarser than the contacts' (SOLVER_SLICE_PAIRS), as each pass's places are one
 * item that walks every slice's digits. */
#define SORT_SLICE 1024u
/* Per slice in s->sort_count, contacts__sort_stride words: the digit counts (of the widest digit
 * a sort of that many slices takes), the slice's kept pairs, its first key and what its keys
 * differ in from that one (two words each). */
static inline uint32_t contacts__sort_bits(uint32_t slices)
{
    return slices <= SORT_WIDE_SLICES ? SORT_WIDE_BITS : 8u;
}
static inline uint32_t contacts__sort_stride(uint32_t slices)
{
    return (1u << contacts__sort_bits(slices)) + 5u;
}

typedef struct contacts__sort_job {
    physics__scene *s;
    const physics__keyed_pair *from;
    physics__keyed_pair *to;
    uint32_t n, shift;
    uint32_t digits; /* this pass's: 1 << its width */
    uint32_t stride; /* contacts__sort_stride */
} contacts__sort_job;

static inline uint32_t contacts__slice_end(uint32_t slice, uint32_t n)
{
    return (slice + 1) * SORT_SLICE < n ? (slice + 1) * SORT_SLICE : n;
}

/* The keyed pairs of slices [begin, end) of s->pairs, each slice's kept ones from its own first
 * place on: pairs whose layers and masks do not meet, or of two bodies that never move, are left
 * out; the lower entity id comes first. */
static void contacts__key_range(void *user, uint32_t begin, uint32_t end)
{
    const contacts__sort_job *job = user;
    physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    for (uint32_t slice = begin; slice < end; slice++) {
        uint32_t *info = s->sort_count + (size_t)(slice + 1u) * job->stride - 5u;
        physics__keyed_pair *out = s->order + (size_t)slice * SORT_SLICE;
        uint32_t m = 0;
        uint64_t first = 0, differ = 0;
        for (uint32_t k = slice * SORT_SLICE; k < contacts__slice_end(slice, job->n); k++) {
            uint32_t i = s->pairs[k].a, j = s->pairs[k].b;
            if ((b->inv_mass[i] == 0.0f && b->inv_mass[j] == 0.0f) ||
                !(b->layer[i] & b->mask[j]) || !(b->layer[j] & b->mask[i]))
                continue;
            if (b->entity[i].id > b->entity[j].id) {
                const uint32_t t = i;
                i = j;
                j = t;
            }
            const uint64_t key = (uint64_t)b->entity[i].id << 32 | b->entity[j].id;
            first = m ? first : key;
            differ |= key ^ first;
            out[m++] = (physics__keyed_pair){key, i, j};
        }
        info[0] = m;
        info[1] = (uint32_t)first;
        info[2] = (uint32_t)(first >> 32);
        info[3] = (uint32_t)differ;
        info[4] = (uint32_t)(differ >> 32);
    }
}

/* One pass's digit counts of slices [begin, end). */
static void contacts__count_range(void *user, uint32_t begin, uint32_t end)
{
    const contacts__sort_job *job = user;
    for (uint32_t slice = begin; slice < end; slice++) {
        uint32_t *count = job->s->sort_count + (size_t)slice * job->stride;
        const uint32_t mask = job->digits - 1u;
        memset(count, 0, job->digits * sizeof *count);
        for (uint32_t k = slice * SORT_SLICE; k < contacts__slice_end(slice, job->n); k++)
            count[(job->from[k].key >> job->shift) & mask]++;
    }
}

/* One pass's moves of slices [begin, end), each digit's from the slice's place for it on. */
static void contacts__move_range(void *user, uint32_t begin, uint32_t end)
{
    const contacts__sort_job *job = user;
    for (uint32_t slice = begin; slice < end; slice++) {
        uint32_t *place = job->s->sort_count + (size_t)slice * job->stride;
        const uint32_t mask = job->digits - 1u;
        for (uint32_t k = slice * SORT_SLICE; k < contacts__slice_end(slice, job->n); k++)
            job->to[place[(job->from[k].key >> job->shift) & mask]++] = job->from[k];
    }
}

/* One pass's places: each slice's digit counts become where its pairs of each digit go, by digit
 * then slice (one item: a running sum). */
static void contacts__places_range(void *user, uint32_t begin, uint32_t end)
{
    (void)begin;
    (void)end;
    const contacts__sort_job *job = user;
    const uint32_t used = (job->n + SORT_SLICE - 1) / SORT_SLICE;
    for (uint32_t d = 0, sum = 0; d < job->digits; d++)
        for (uint32_t slice = 0; slice < used; slice++) {
            uint32_t *c = &job->s->sort_count[(size_t)slice * job->stride + d];
            const uint32_t count = *c;
            *c = sum;
            sum += count;
        }
}

/* The step's pairs (s->pairs) keyed and sorted into *sorted (s->order or the space after it), and
 * how many were kept. */
static int contacts__sort_pairs(physics__scene *s, uint32_t num_pairs, uint32_t *kept,
                                physics__keyed_pair **sorted)
{
    const uint32_t slices = (num_pairs + SORT_SLICE - 1) / SORT_SLICE;
    const uint32_t stride = contacts__sort_stride(slices), most = contacts__sort_bits(slices);
    contacts__sort_job job = {s, NULL, NULL, num_pairs, 0, 0, stride};
    /* A stage, as the passes' counts and moves are: the threads take the slices from the two ends,
     * so each counts the first pass's digits of about the pairs it keyed (a pool's shared cursor
     * dealt the slices to the two cores in turn). */
    physics__stages_add(&s->sort_stages, s->a, contacts__key_range, (void *)&job, sizeof job,
                        slices, 1);
    if (physics__stages_run(&s->sort_stages, s->a, s->pool, s->pool_timed))
        return CT_ERR_NOMEM;
    /* The slices' kept pairs joined (each is already in place up to the first one short). */
    uint32_t n = 0;
    uint64_t first = 0, differ = 0;
    for (uint32_t slice = 0; slice < slices; slice++) {
        const uint32_t *info = s->sort_count + (size_t)(slice + 1u) * stride - 5u;
        if (!info[0])
            continue;
        const uint64_t f = (uint64_t)info[2] << 32 | info[1];
        first = n ? first : f;
        differ |= ((uint64_t)info[4] << 32 | info[3]) | (f ^ first);
        if (n != slice * SORT_SLICE)
            memmove(s->order + n, s->order + (size_t)slice * SORT_SLICE,
                    (size_t)info[0] * sizeof *s->order);
        n += info[0];
    }
    *kept = n;
    physics__keyed_pair *p = s->order, *tmp = s->order + num_pairs;
    const uint32_t used = (n + SORT_SLICE - 1) / SORT_SLICE;
    job.n = n;
    for (uint32_t shift = 0, width; shift < 64 && n && differ >> shift; shift += width) {
        if (!((differ >> shift) & 1u)) {
            width = (uint32_t)__builtin_ctzll(differ >> shift);
            continue;
        }
        const uint64_t bits = (differ >> shift) & (((uint64_t)1 << most) - 1u);
        width = 64u - (uint32_t)__builtin_clzll(bits);
        job.from = p;
        job.to = tmp;
        job.shift = shift;
        job.digits = 1u << width;
        physics__stages *st = &s->sort_stages;
        physics__stages_add(st, s->a, contacts__count_range, (void *)&job, sizeof job, used, 1);
        physics__stages_add(st, s->a, contacts__places_range, (void *)&job, sizeof job, 1, 0);
        physics__stages_add(st, s->a, contacts__move_range, (void *)&job, sizeof job, used, 1);
        physics__keyed_pair *t = p;
        p = tmp;
        tmp = t;
    }
    *sorted = p;
    return physics__stages_run(&s->sort_stages, s->a, s->pool, s->pool_timed);
}

/* Asks for body i's island to wake at the end of the step (all islands once the list is full). */
void physics__contacts_want_awake(physics__scene *s, uint32_t i)
{
    if (s->num_wake < s->cap_islands)
        s->islands[s->num_wake++] = s->bodies.island[i];
    else
        s->num_wake = UINT32_MAX;
}

/* Moving boxes ask the fixed grid in jobs of SOLVER_SLICE_BOXES; each job has room for
 * SOLVER_FIXED_ROOM pairs a box (a box on a floor by a wall has two). */
#define SOLVER_FIXED_ROOM 4u

typedef struct contacts__fixed_out {
    const physics__scene *s;
    physics__pair *out;
    uint32_t n, room;
    uint32_t i; /* the moving body asking */
} contacts__fixed_out;

/* A fixed body the moving body o->i overlaps: a pair, unless a kinematic body meets a static
 * one. Non-zero when out of room. */
static int contacts__fixed_found(void *user, uint32_t box)
{
    contacts__fixed_out *o = user;
    const physics__bodies *b = &o->s->bodies;
    const uint32_t j = o->s->fixed_body[box];
    if (b->kind[o->i] != CT_BODY_DYNAMIC && !b->asleep[j])
        return 0;
    if (o->n == o->room)
        return 1;
    o->out[o->n++] = (physics__pair){o->i, j};
    return 0;
}

/* contacts__fixed_found for the moving box k of the grid. */
static int contacts__fixed_found_each(void *user, uint32_t k, uint32_t box)
{
    contacts__fixed_out *o = user;
    o->i = o->s->grid_body[k];
    return contacts__fixed_found(o, box);
}

/* A job of physics__scene_candidates: the pairs of slices [begin, end) of moving boxes with the
 * fixed grid, each slice into its room; its count is UINT32_MAX when the room was too small. */
static void contacts__fixed_range(void *user, uint32_t begin, uint32_t end)
{
    physics__scene *s = user;
    const physics__broadphase *bp = &s->bp;
    /* (The contacts' own boxes, not the ones widened for the sweeps.) */
    const physics__v3 *lo = s->ccd.shared ? s->ccd.share_lo : bp->lo,
                      *hi = s->ccd.shared ? s->ccd.share_hi : bp->hi;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_BOXES;
        const uint32_t last =
            first + SOLVER_SLICE_BOXES < bp->n ? first + SOLVER_SLICE_BOXES : bp->n;
        contacts__fixed_out o = {s, s->fixed_pairs + (size_t)first * SOLVER_FIXED_ROOM, 0,
                                 (last - first) * SOLVER_FIXED_ROOM, 0};
        if (physics__broadphase_visit_each(&s->fixed, lo, hi, first, last,
                                           contacts__fixed_found_each, &o))
            o.n = UINT32_MAX;
        s->fixed_count[slice] = o.n;
    }
}

/* The step's candidate pairs as body indices (step 2's first half): the moving grid's own, then
 * every moving box against the fixed grid. At most max_pairs, or SOLVER_PAIRS_PER_BODY per body
 * up to SOLVER_MAX_PAIR_LIMIT; the report says when the limit cut some off. */
int physics__scene_candidates(physics__scene *s, float dt)
{
    const physics__bodies *b = &s->bodies;
    physics__broadphase *bp = &s->bp, *fx = &s->fixed;
    const uint64_t per_body = (uint64_t)SOLVER_PAIRS_PER_BODY * b->n;
    uint32_t limit = per_body < s->pair_ceiling ? (uint32_t)per_body : s->pair_ceiling;
    limit = s->max_pairs > limit ? s->max_pairs : limit;
    limit = limit < s->pair_ceiling ? limit : s->pair_ceiling;
    bp->max_pairs = limit;
    /* The moving boxes widened by the sweeps' paths when the last step's sweeps listed their
     * pairs (physics_ccd.c finds them among these then, not in a grid of its own); the pairs of
     * the contacts' own boxes are then taken from among the grid's, which makes the same pairs.
     * When the wider boxes make more pairs than the limit, the grid is made again without them
     * (the limit is on the contacts' pairs). */
    const bool share = s->ccd.share;
    s->ccd.share = share && !s->ccd.off && !s->ccd.no_share;
    if (physics__scene_fill_fixed(s) ||
        physics__scene_fill(s, bp, &s->grid_body, &s->cap_grid_body, false, dt) ||
        physics__broadphase_pairs(bp))
        return CT_ERR_NOMEM;
    if (s->ccd.shared && bp->dropped) {
        s->ccd.share = false;
        if (physics__scene_fill(s, bp, &s->grid_body, &s->cap_grid_body, false, dt) ||
            physics__broadphase_pairs(bp))
            return CT_ERR_NOMEM;
    }
    s->ccd.share = share;
    if (physics__reserve(s->a, (void **)&s->pairs, &s->cap_pairs, bp->num_pairs + bp->n,
                         sizeof *s->pairs))
        return CT_ERR_NOMEM;
    s->bp_stale = false;
    uint32_t n = 0;
    if (s->ccd.shared) {
        const physics__v3 *lo = s->ccd.share_lo, *hi = s->ccd.share_hi;
        for (uint32_t k = 0; k < bp->num_pairs; k++) {
            const uint32_t x = bp->pairs[k].a, y = bp->pairs[k].b;
            if ((lo[x].x <= hi[y].x) & (lo[y].x <= hi[x].x) & (lo[x].y <= hi[y].y) &
                (lo[y].y <= hi[x].y) & (lo[x].z <= hi[y].z) & (lo[y].z <= hi[x].z))
                s->pairs[n++] = (physics__pair){s->grid_body[x], s->grid_body[y]};
        }
    } else {
        for (uint32_t k = 0; k < bp->num_pairs; k++)
            s->pairs[n++] =
                (physics__pair){s->grid_body[bp->pairs[k].a], s->grid_body[bp->pairs[k].b]};
    }
    /* The fixed grid is asked on any threads, a slice of moving boxes at a time, each into its
     * own room; the slices join in order. A slice that ran out of room asks again here. */
    bool cut = bp->dropped;
    const uint32_t slices = (bp->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES;
    if (!fx->n || cut) {
        s->num_pairs = n;
        s->report.pair_limit = cut ? limit : 0;
        return 0;
    }
    if (physics__reserve(s->a, (void **)&s->fixed_pairs, &s->cap_fixed_pairs,
                         bp->n * SOLVER_FIXED_ROOM, sizeof *s->fixed_pairs) ||
        physics__reserve(s->a, (void **)&s->fixed_count, &s->cap_fixed_count, slices,
                         sizeof *s->fixed_count))
        return CT_ERR_NOMEM;
    physics__pool_run(s->pool, slices, contacts__fixed_range, s);
    for (uint32_t slice = 0; slice < slices && !cut; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_BOXES;
        const uint32_t last =
            first + SOLVER_SLICE_BOXES < bp->n ? first + SOLVER_SLICE_BOXES : bp->n;
        contacts__fixed_out o = {s, s->fixed_pairs + (size_t)first * SOLVER_FIXED_ROOM, 0,
                                 s->fixed_count[slice], 0};
        if (o.room == UINT32_MAX) {
            /* Out of room: this slice's pairs one box at a time, straight into s->pairs. */
            for (uint32_t k = first; k < last && !cut; k++) {
                if (physics__broadphase_overlap(fx, s->ccd.shared ? s->ccd.share_lo[k] : bp->lo[k],
                                                s->ccd.shared ? s->ccd.share_hi[k] : bp->hi[k]))
                    return CT_ERR_NOMEM;
                o.room = fx->num_found;
                if (physics__reserve_keep(s->a, (void **)&s->pairs, &s->cap_pairs, n + o.room,
                                          sizeof *s->pairs))
                    return CT_ERR_NOMEM;
                o.out = s->pairs + n;
                o.n = 0;
                o.i = s->grid_body[k];
                for (uint32_t f = 0; f < fx->num_found; f++)
                    contacts__fixed_found(&o, fx->found[f]);
                cut = n + o.n > limit;
                n = cut ? limit : n + o.n;
            }
            continue;
        }
        if (physics__reserve_keep(s->a, (void **)&s->pairs, &s->cap_pairs, n + o.room,
                                  sizeof *s->pairs))
            return CT_ERR_NOMEM;
        cut = n + o.room > limit;
        const uint32_t take = cut ? limit - n : o.room;
        memcpy(s->pairs + n, o.out, (size_t)take * sizeof *s->pairs);
        n += take;
    }
    s->num_pairs = n;
    s->report.pair_limit = cut ? limit : 0;
    return 0;
}

/* The contacts of slices [begin, end) of sorted pairs, each slice from its first contact on. */
static void contacts__contact_range(void *user, uint32_t begin, uint32_t end)
{
    const physics__narrow_job *job = user;
    const physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    const physics__narrow *nw = &s->narrow;
    const physics__contacts *c = &s->contacts;
    const float dt = job->dt;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last =
            first + SOLVER_SLICE_PAIRS < job->count ? first + SOLVER_SLICE_PAIRS : job->count;
        uint32_t n = nw->kept[slice];
        /* The pairs and the cache are both sorted by key: one merge walk from the slice's first. */
        uint32_t at = 0, hi = s->num_cache;
        while (at < hi) {
            const uint32_t mid = at + (hi - at) / 2;
            if (s->cache[mid].key < job->order[first].key)
                at = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t k = first; k < last; k++) {
            if (!(nw->flags[k] & NARROW_KEEP))
                continue;
            const uint32_t i = job->order[k].a, j = job->order[k].b;
            const physics__v3 normal = nw->normal[k];
            const float sep = nw->sep[k];
            const physics__v3 rel = v3_sub(b->velocity[j], b->velocity[i]);
            const float vn = v3_dot(rel, normal);
            c->a[n] = i;
            c->b[n] = j;
            c->key[n] = job->order[k].key;
            c->normal[n] = normal;
            c->point[n] = nw->point[k];
            c->sep_base[n] = sep - v3_dot(normal, v3_sub(b->position[j], b->position[i]));
            while (at < s->num_cache && s->cache[at].key < job->order[k].key)
                at++;
            const physics__cached *old =
                at < s->num_cache && s->cache[at].key == job->order[k].key ? &s->cache[at] : NULL;
            c->cached[n] = old ? at : UINT32_MAX;
            /* Restitution only where the shapes touch: a contact still apart stops the bodies at
             * the surface (speculatively) and remembers how fast they came; they bounce at the
             * next step, from the surface, with that speed. */
            const float e = f_max(b->restitution[i], b->restitution[j]);
            float target = sep > 0.0f ? -sep / dt : 0.0f;
            c->approach[n] = 0.0f;
            if (sep > SOLVER_TOUCH) {
                if (sep + vn * dt < 0.0f)
                    c->approach[n] = -vn;
            } else if (vn <= 0.0f) {
                const float speed = f_max(-vn, old ? old->approach : 0.0f);
                if (e > 0.0f && speed > SOLVER_BOUNCE_SPEED)
                    target = e * speed;
            }
            c->target[n] = target;
            c->speed[n] = f_max(-vn, old ? old->approach : 0.0f);
            n++;
        }
    }
}

/* Whether m pairs may make more than SOLVER_MAX_CHILD_TESTS shape tests: a pair of bodies of no
 * compound makes one. Asked so that a world without compounds does not walk its pairs while the
 * pool's other threads wait (large_pyramid: 12,000 pairs, two loads of bodies all over each). */
static bool contacts__may_cut(const physics__bodies *b, uint32_t m)
{
    if (m > SOLVER_MAX_CHILD_TESTS)
        return true;
    for (uint32_t i = 0; i < b->n; i++)
        if (b->compound[i])
            return true;
    return false;
}

/* Finds the contacts of this step's pairs (step 2 of physics_step.c). */
int physics__contacts_order(physics__scene *s, const physics__keyed_pair **order, uint32_t *count)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t num_pairs = s->num_pairs;
    const uint32_t slices = (num_pairs + SORT_SLICE - 1) / SORT_SLICE;
    if (physics__reserve(s->a, (void **)&s->order, &s->cap_order, 2 * num_pairs,
                         sizeof *s->order) ||
        physics__reserve(s->a, (void **)&s->sort_count, &s->cap_sort_count,
                         slices * contacts__sort_stride(slices), sizeof *s->sort_count))
        return CT_ERR_NOMEM;
    uint32_t m = 0;
    /* (The arrays may not exist yet when there are no pairs.) */
    physics__keyed_pair *sorted = NULL;
    if (num_pairs && contacts__sort_pairs(s, num_pairs, &m, &sorted))
        return CT_ERR_NOMEM;
    if (sorted)
        physics__joints_filter_pairs(s, sorted, &m);
    s->report.child_limit = 0;
    uint64_t tests = 0;
    const bool may_cut = contacts__may_cut(b, m);
    for (uint32_t k = 0; may_cut && k < m; k++) {
        const physics__compound *ci = b->compound[sorted[k].a], *cj = b->compound[sorted[k].b];
        tests += (uint64_t)(ci ? ci->count : 1u) * (cj ? cj->count : 1u);
        if (tests > SOLVER_MAX_CHILD_TESTS) {
            s->report.child_limit = SOLVER_MAX_CHILD_TESTS;
            s->report.child_cut[0] = b->entity[sorted[k].a].id;
            s->report.child_cut[1] = b->entity[sorted[k].b].id;
            m = k;
            break;
        }
    }
    *order = m ? sorted : NULL;
    *count = m;
    return 0;
}

int physics__contacts_reserve(physics__scene *s, uint32_t n)
{
    physics__contacts *c = &s->contacts;
    return physics__reserve_soa(s->a, c, &c->buffer, contacts__fields,
                                PHYSICS_NUM_FIELDS(contacts__fields), &c->cap, n);
}

int physics__contacts_collide(physics__scene *s, float dt, bool *hit)
{
    const physics__bodies *b = &s->bodies;
    physics__contacts *c = &s->contacts;
    physics__narrow *nw = &s->narrow;
    if (physics__scene_candidates(s, dt))
        return CT_ERR_NOMEM;
    const uint32_t num_pairs = s->num_pairs;
    const uint32_t slices = physics__pair_slices(num_pairs);
    const physics__keyed_pair *order;
    uint32_t m;
    /* The pairs in entity-pair order first, so the contacts come out sorted. */
    if (physics__contacts_reserve(s, num_pairs) ||
        physics__reserve_soa(s->a, nw, &nw->buffer, contacts__narrow_fields,
                             PHYSICS_NUM_FIELDS(contacts__narrow_fields), &nw->cap, num_pairs) ||
        physics__reserve(s->a, (void **)&nw->kept, &nw->cap_kept, slices, sizeof *nw->kept) ||
        physics__contacts_order(s, &order, &m))
        return CT_ERR_NOMEM;
    /* The shape tests on any threads; then, in order, the islands to wake and where each slice's
     * contacts begin; then the contacts, on any threads. */
    physics__narrow_job job = {s, order, m, dt};
    const uint32_t used = physics__pair_slices(m);
    physics__pool_run(s->pool, used, physics__narrow_range, &job);
    if (hit) {
        *hit = false;
        for (uint32_t k = 0; k < m; k++)
            if (nw->flags[k] & NARROW_HIT) {
                physics__contacts_want_awake(s, b->asleep[order[k].a] ? order[k].a : order[k].b);
                *hit = true;
            }
        if (*hit)
            return 0;
    }
    for (uint32_t k = 0; k < m; k++)
        if (nw->flags[k] & NARROW_WAKE)
            physics__contacts_want_awake(s, b->asleep[order[k].a] ? order[k].a : order[k].b);
    uint32_t n = 0;
    for (uint32_t slice = 0; slice < used; slice++) {
        const uint32_t kept = nw->kept[slice];
        nw->kept[slice] = n;
        n += kept;
    }
    physics__pool_run(s->pool, used, contacts__contact_range, &job);
    c->n = n;
    return 0;
}

/* Whether contact k's shapes touch, and press, at the end of the step. */
static inline bool contacts__touching(const physics__scene *s, uint32_t k)
{
    const physics__contacts *c = &s->contacts;
    const physics__v3 *p = s->bodies.position;
    const float sep = c->sep_base[k] + v3_dot(c->normal[k], v3_sub(p[c->b[k]], p[c->a[k]]));
    const uint32_t q = c->row[k];
    return sep <= SOLVER_TOUCH &&
           s->rows.block[q / PHYSICS_ROW_LANES].jn[q % PHYSICS_ROW_LANES] > 0.0f;
}

static int contacts__ended(physics__events *events, uint64_t key)
{
    const ct_physics_contact_ended_event_t ev = {(uint32_t)(key >> 32), (uint32_t)key};
    return physics__events_write(events, CT_PHYSICS_EVENT_CONTACT_ENDED, &ev, sizeof ev);
}

/* Whether an old contact of two bodies that were asleep (or one static) still is one: both are
 * there and neither woke. Asked only after something woke or went. */
static bool contacts__still_asleep(const physics__scene *s, uint64_t key)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)(key >> 32)});
    const uint32_t j = physics__bodies_find(b, (ct_entity_t){(uint32_t)key});
    return i != UINT32_MAX && j != UINT32_MAX && physics__fixed(b, i) && physics__fixed(b, j);
}

int physics__merge_begin(physics__scene *s, uint32_t slices)
{
    const uint32_t had = s->cap_merge_events;
    if (physics__reserve(s->a, (void **)&s->merge, &s->cap_merge, 3 * slices, sizeof *s->merge) ||
        physics__reserve_keep(s->a, (void **)&s->merge_events, &s->cap_merge_events, slices,
                              sizeof *s->merge_events))
        return CT_ERR_NOMEM;
    for (uint32_t t = had; t < s->cap_merge_events; t++)
        s->merge_events[t] = (physics__events){.a = s->a};
    return 0;
}

uint32_t physics__merge_find(const void *entries, size_t stride, uint32_t lo, uint32_t hi,
                             uint64_t key)
{
    const uint8_t *base = entries;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        uint64_t at;
        memcpy(&at, base + (size_t)mid * stride, sizeof at);
        if (at < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t physics__merge_places(physics__scene *s, uint32_t slices)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < slices; t++) {
        const uint32_t count = s->merge[3 * t + 1];
        s->merge[3 * t + 1] = n;
        n += count;
    }
    return n;
}

int physics__merge_events(physics__scene *s, uint32_t slices)
{
    for (uint32_t t = 0; t < slices; t++) {
        const physics__events *e = &s->merge_events[t];
        if (s->merge[3 * t + 2] & PHYSICS_MERGE_NOMEM)
            return CT_ERR_NOMEM;
        for (uint32_t at = 0; at < e->size;) {
            ct_physics_event_header_t h;
            memcpy(&h, e->bytes + at, sizeof h);
            if (physics__events_write(&s->events, h.type, e->bytes + at + sizeof h, h.size))
                return CT_ERR_NOMEM;
            at += (uint32_t)sizeof h + ((h.size + 3u) & ~3u);
        }
    }
    return 0;
}

typedef struct contacts__merge_job {
    physics__scene *s;
    uint32_t slices;
    bool write; /* false: count */
} contacts__merge_job;

/* Slice t of the merge (see physics__merge_begin): counts its entries into s->merge[3t + 1], or
 * writes them from there on, with its events. */
static void contacts__merge_slice(const contacts__merge_job *job, uint32_t t)
{
    physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    const physics__contacts *c = &s->contacts;
    const physics__rows *r = &s->rows;
    const bool write = job->write;
    const uint32_t k0 = t * SOLVER_SLICE_PAIRS;
    const uint32_t k1 = k0 + SOLVER_SLICE_PAIRS < c->n ? k0 + SOLVER_SLICE_PAIRS : c->n;
    uint32_t *m = &s->merge[3 * t];
    physics__events *events = &s->merge_events[t];
    if (!write)
        m[0] = t > 0 ? physics__merge_find(s->cache, sizeof *s->cache, 0, s->num_cache, c->key[k0])
                     : 0;
    else {
        m[2] = 0;
        events->size = 0;
    }
    physics__cached *next = s->next_cache;
    uint32_t at = m[0], n = write ? m[1] : 0;
    /* The next slice's first (its count may be running: found again here). */
    const uint32_t end =
        t + 1 < job->slices
            ? physics__merge_find(s->cache, sizeof *s->cache, at, s->num_cache, c->key[k1])
            : s->num_cache;
    for (uint32_t k = k0; k <= k1; k++) {
        /* The old contacts before this one that this step did not find. */
        for (; at < end && (k == k1 || s->cache[at].key < c->key[k]); at++) {
            const physics__cached *old = &s->cache[at];
            if (old->asleep && (!s->woke || contacts__still_asleep(s, old->key))) {
                if (write)
                    next[n] = *old;
                n++;
            } else if (write && old->touching && contacts__ended(events, old->key)) {
                m[2] = PHYSICS_MERGE_NOMEM;
                return;
            }
        }
        if (k == k1)
            break;
        if (at < end && s->cache[at].key == c->key[k])
            at++;
        if (!write) {
            n++;
            continue;
        }
        const bool was = c->cached[k] != UINT32_MAX && s->cache[c->cached[k]].touching;
        const bool is = contacts__touching(s, k);
        const uint32_t i = c->a[k], j = c->b[k], l = c->row[k] % PHYSICS_ROW_LANES;
        const physics__row_block *rb = &r->block[c->row[k] / PHYSICS_ROW_LANES];
        next[n++] = (physics__cached){c->key[k],
                                      rb->jn[l],
                                      rb->jt1[l],
                                      rb->jt2[l],
                                      c->approach[k],
                                      is,
                                      physics__fixed(b, i) && physics__fixed(b, j)};
        if (was && !is && contacts__ended(events, c->key[k])) {
            m[2] = PHYSICS_MERGE_NOMEM;
            return;
        }
        if (was || !is)
            continue;
        ct_physics_collision_event_t ev = {
            .a = b->entity[i].id, .b = b->entity[j].id, .impulse = rb->jn[l], .speed = c->speed[k]};
        v3_store(c->point[k], ev.point);
        v3_store(c->normal[k], ev.normal);
        if (physics__events_write(events, CT_PHYSICS_EVENT_COLLISION, &ev, sizeof ev)) {
            m[2] = PHYSICS_MERGE_NOMEM;
            return;
        }
    }
    if (!write)
        m[1] = n;
}

static void contacts__merge_range(void *user, uint32_t begin, uint32_t end)
{
    for (uint32_t t = begin; t < end; t++)
        contacts__merge_slice(user, t);
}

/* Remembers impulses and reports contacts that began and ended touching (step 5). The new cache
 * merges, in key order, this step's contacts with the old contacts of sleeping islands, which
 * are carried over untouched (no event: sleeping is not parting); on the pool, see
 * physics__merge_begin. */
int physics__contacts_remember(physics__scene *s)
{
    const physics__contacts *c = &s->contacts;
    const uint32_t slices = c->n ? physics__pair_slices(c->n) : 1;
    if (physics__reserve(s->a, (void **)&s->next_cache, &s->cap_next_cache, c->n + s->num_cache,
                         sizeof *s->next_cache) ||
        physics__merge_begin(s, slices))
        return CT_ERR_NOMEM;
    contacts__merge_job job = {s, slices, false};
    physics__pool_run(s->pool, slices, contacts__merge_range, &job);
    const uint32_t n = physics__merge_places(s, slices);
    job.write = true;
    physics__pool_run(s->pool, slices, contacts__merge_range, &job);
    if (physics__merge_events(s, slices))
        return CT_ERR_NOMEM;
    physics__cached *t = s->cache;
    const uint32_t cap = s->cap_cache;
    s->cache = s->next_cache;
    s->cap_cache = s->cap_next_cache;
    s->next_cache = t;
    s->cap_next_cache = cap;
    s->num_cache = n;
    s->woke = false;
    return 0;
}
