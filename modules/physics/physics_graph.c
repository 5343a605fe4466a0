/* physics_graph.c: the constraint graph. The step's contacts become the solver's rows: the
 * bodies in contact are gathered into compact arrays, the contacts coloured so that rows of one
 * colour share no body (or put in waves, which keeps entity-pair order, when they are few), cut
 * into blocks of PHYSICS_ROW_LANES rows and filled, then warm started (see physics__rows). */
#include "physics_internal.h"

#include <stddef.h>
#include <string.h>

/* Colours of the solver's rows (see physics__rows); a body's colours are bits of a uint64_t. */
#define SOLVER_COLORS 63u
/* Fewer rows than this are solved in entity-pair order, more in colours (see
 * physics__graph_prepare). */
#define SOLVER_COLOR_MIN_ROWS 2048u

#define GATHERED_FIELD(name)                                                                       \
    {                                                                                              \
        offsetof(physics__gathered, name), sizeof(*((physics__gathered *)0)->name)                 \
    }
static const physics__soa_field graph__fields[] = {
    GATHERED_FIELD(slot),     GATHERED_FIELD(body),     GATHERED_FIELD(colors),
    GATHERED_FIELD(velocity), GATHERED_FIELD(position),
};

void physics__graph_free(physics__scene *s)
{
    physics__soa_free(s->a, &s->gathered.buffer, graph__fields, PHYSICS_NUM_FIELDS(graph__fields),
                      s->gathered.cap);
    s->gathered.n = s->gathered.cap = 0;
}

static inline bool graph__negative_zero(physics__v3 v)
{
    return (v.x == 0.0f && signbit(v.x)) | (v.y == 0.0f && signbit(v.y)) |
           (v.z == 0.0f && signbit(v.z));
}

/* The place of body i in the compact arrays for one contact, gathering its velocity. A body with
 * no inverse mass is not moved by impulses: v - impulse * 0 is v itself, bit for bit, unless a
 * component is -0 (which can turn +0; a position likewise). Each of its contacts then gets a copy
 * of its own, so that the contacts on a ground do not wait on one another through the ground's
 * velocity (nor use up its colours); every copy goes back holding the same bits. */
static inline uint32_t graph__slot(physics__gathered *g, const physics__bodies *b, uint32_t i)
{
    const bool fixed = physics__inv_mass(b, i) == 0.0f && !graph__negative_zero(b->velocity[i]) &&
                       !graph__negative_zero(b->position[i]);
    if (fixed || g->slot[i] == UINT32_MAX) {
        g->slot[i] = fixed ? g->slot[i] : g->n;
        g->body[g->n] = i;
        g->colors[g->n] = 0;
        g->velocity[g->n] = b->velocity[i];
        return g->n++;
    }
    return g->slot[i];
}

/* Block m's rows, filled from their contacts (r->contact), with last step's impulses where the
 * warm start will apply them; an empty lane gets a row that changes nothing (every factor zero,
 * both slots the spare one past the bodies'). */
static void graph__fill_block(const physics__scene *s, uint32_t m)
{
    const physics__bodies *b = &s->bodies;
    const physics__contacts *c = &s->contacts;
    physics__row_block *rb = &s->rows.block[m];
    memset(rb, 0, sizeof *rb);
    for (uint32_t l = 0; l < PHYSICS_ROW_LANES; l++) {
        const uint32_t k = s->rows.contact[m * PHYSICS_ROW_LANES + l];
        if (k == UINT32_MAX) {
            rb->slot_a[l] = rb->slot_b[l] = s->gathered.n;
            continue;
        }
        const uint32_t i = c->a[k], j = c->b[k];
        const physics__v3 n = c->normal[k];
        rb->slot_a[l] = c->slot_a[k];
        rb->slot_b[l] = c->slot_b[k];
        /* Either axis works for the tangent seed as long as it is not parallel to n. */
        const physics__v3 seed = fabsf(n.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
        const physics__v3 t1 = v3_cross(n, seed);
        const physics__v3 t1n = v3_scale(t1, 1.0f / v3_len(t1));
        const physics__v3 t2 = v3_cross(n, t1n);
        for (int d = 0; d < 3; d++) {
            rb->normal[d][l] = v3_get(n, d);
            rb->t1[d][l] = v3_get(t1n, d);
            rb->t2[d][l] = v3_get(t2, d);
        }
        rb->inv_mass_a[l] = physics__inv_mass(b, i);
        rb->inv_mass_b[l] = physics__inv_mass(b, j);
        rb->mass_n[l] = 1.0f / (rb->inv_mass_a[l] + rb->inv_mass_b[l]);
        rb->target[l] = c->target[k];
        rb->friction[l] = sqrtf(b->friction[i] * b->friction[j]);
        rb->sep_base[l] = c->sep_base[k];
        const physics__cached *old = c->cached[k] != UINT32_MAX ? &s->cache[c->cached[k]] : NULL;
        if (old && c->target[k] <= 0.0f) {
            rb->jn[l] = old->jn;
            rb->jt1[l] = old->jt1;
            rb->jt2[l] = old->jt2;
        }
    }
}

/* A job of physics__graph_prepare: the row blocks of slices [begin, end) of SOLVER_SLICE_BLOCKS. */
#define SOLVER_SLICE_BLOCKS (SOLVER_SLICE_PAIRS / PHYSICS_ROW_LANES)
static void graph__fill_rows(void *user, uint32_t begin, uint32_t end)
{
    const physics__scene *s = user;
    const uint32_t last = end * SOLVER_SLICE_BLOCKS < s->rows.num_blocks ? end * SOLVER_SLICE_BLOCKS
                                                                         : s->rows.num_blocks;
    for (uint32_t m = begin * SOLVER_SLICE_BLOCKS; m < last; m++)
        graph__fill_block(s, m);
}

/* The first block at or after b with a lane free: open[b] is b itself while b has one, else a
 * block further on (the links are halved as they are walked). */
static uint32_t graph__open_block(uint32_t *open, uint32_t b)
{
    while (open[b] != b) {
        open[b] = open[open[b]];
        b = open[b];
    }
    return b;
}

/* Puts the rows, in colour order at the start of r->scratch, into blocks (see physics__rows):
 * c->row gets each contact's row, r->contact the contact of each row. */
static int graph__cut_blocks(physics__scene *s)
{
    const physics__contacts *c = &s->contacts;
    physics__rows *r = &s->rows;
    physics__gathered *g = &s->gathered;
    const uint32_t *sequence = r->scratch;
    uint32_t *open = r->scratch + c->n, *taken = open + c->n + 1;
    /* g->colors now says after which block a slot is free: the last one using it, plus one. */
    if (g->n)
        memset(g->colors, 0, (size_t)g->n * sizeof *g->colors);
    /* Every block before `first` is full: the walk starts there when the slots are free earlier,
     * as they mostly are for the rows of a new colour. */
    uint32_t blocks = 0, first = 0;
    open[0] = taken[0] = 0;
    for (uint32_t q = 0; q < c->n; q++) {
        const uint32_t k = sequence[q], sa = c->slot_a[k], sb = c->slot_b[k];
        const uint32_t after =
            (uint32_t)(g->colors[sa] > g->colors[sb] ? g->colors[sa] : g->colors[sb]);
        const uint32_t m = graph__open_block(open, after > first ? after : first);
        if (m == blocks) { /* a new block, and an empty one after it */
            blocks++;
            open[blocks] = blocks;
            taken[blocks] = 0;
        }
        c->row[k] = m * PHYSICS_ROW_LANES + taken[m];
        if (++taken[m] == PHYSICS_ROW_LANES) {
            open[m] = m + 1;
            if (m == first)
                first = graph__open_block(open, m + 1);
        }
        g->colors[sa] = g->colors[sb] = m + 1;
    }
    const uint32_t rows = blocks * PHYSICS_ROW_LANES;
    if (physics__reserve(s->a, (void **)&r->block, &r->cap_blocks, blocks, sizeof *r->block) ||
        physics__reserve(s->a, (void **)&r->contact, &r->cap_contact, rows, sizeof *r->contact))
        return CT_ERR_NOMEM;
    r->num_blocks = blocks;
    if (rows)
        memset(r->contact, 0xff, (size_t)rows * sizeof *r->contact);
    for (uint32_t k = 0; k < c->n; k++)
        r->contact[c->row[k]] = k;
    return 0;
}

/* Gathers the velocities of the bodies in contact, sorts the contacts into colours (see
 * physics__rows), cuts them into blocks and fills the rows, warm started with the impulses a
 * contact had in the previous step. Everything here walks the contacts in entity-pair order, the
 * warm start too. */
int physics__graph_prepare(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    physics__contacts *c = &s->contacts;
    physics__rows *r = &s->rows;
    physics__gathered *g = &s->gathered;
    if (physics__reserve(s->a, (void **)&r->scratch, &r->cap_scratch, 3 * c->n + 2,
                         sizeof *r->scratch) ||
        physics__reserve_soa(s->a, g, &g->buffer, graph__fields, PHYSICS_NUM_FIELDS(graph__fields),
                             &g->cap, b->n + 2 * c->n + 1))
        return CT_ERR_NOMEM;
    g->n = 0;
    if (b->n)
        memset(g->slot, 0xff, (size_t)b->n * sizeof *g->slot);
    /* Greedy colouring: each contact takes the lowest colour neither of its slots has yet; one
     * that finds none joins the overflow, the last colour, whose rows the blocks then take one by
     * one where they share a body. Fewer than SOLVER_COLOR_MIN_ROWS contacts are solved in
     * entity-pair order itself, which converges in fewer passes on stacks (ids usually go up a
     * stack): "colours" are then waves, each contact one after the latest of its slots
     * (g->colors holding that number), which keeps that order. Either way the choice depends on
     * the contacts only, never on the threads. Colours keep the rows of a bigger scene apart by
     * body, the order that converged best on the pyramids. */
    const bool waves = c->n < SOLVER_COLOR_MIN_ROWS;
    uint32_t colors = 0;
    r->num_colors = 0;
    for (uint32_t k = 0; k < c->n; k++) {
        const uint32_t sa = c->slot_a[k] = graph__slot(g, b, c->a[k]);
        const uint32_t sb = c->slot_b[k] = graph__slot(g, b, c->b[k]);
        uint32_t color;
        if (waves) {
            color = (uint32_t)(g->colors[sa] > g->colors[sb] ? g->colors[sa] : g->colors[sb]);
            g->colors[sa] = g->colors[sb] = color + 1;
        } else {
            const uint64_t taken = g->colors[sa] | g->colors[sb];
            color = ~taken ? (uint32_t)__builtin_ctzll(~taken) : SOLVER_COLORS;
            if (color < SOLVER_COLORS) {
                g->colors[sa] |= 1ull << color;
                g->colors[sb] |= 1ull << color;
            }
        }
        c->row[k] = color + 1;
        colors = color + 1 > colors ? color + 1 : colors;
    }
    /* The spare slot of empty lanes: still, and nothing moves it. */
    g->velocity[g->n] = v3(0, 0, 0);
    /* A counting sort by colour, stable: rows of one colour keep entity-pair order. */
    uint32_t *start = r->scratch + c->n;
    if (colors)
        memset(start, 0, (size_t)colors * sizeof *start);
    for (uint32_t k = 0; k < c->n; k++)
        start[c->row[k] - 1]++;
    for (uint32_t w = 0, sum = 0; w < colors; w++) {
        const uint32_t count = start[w];
        start[w] = sum;
        sum += count;
    }
    r->num_colors = colors;
    for (uint32_t k = 0; k < c->n; k++)
        r->scratch[start[c->row[k] - 1]++] = k;
    if (graph__cut_blocks(s))
        return CT_ERR_NOMEM;
    physics__pool_run(s->pool, (r->num_blocks + SOLVER_SLICE_BLOCKS - 1) / SOLVER_SLICE_BLOCKS,
                      graph__fill_rows, s);
    /* The warm start, in entity-pair order. A bounce starts from nothing: last step's push would
     * only damp it. */
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->cached[k] == UINT32_MAX || c->target[k] > 0.0f)
            continue;
        const physics__row_block *rb = &r->block[c->row[k] / PHYSICS_ROW_LANES];
        const uint32_t l = c->row[k] % PHYSICS_ROW_LANES;
        const physics__v3 n = v3(rb->normal[0][l], rb->normal[1][l], rb->normal[2][l]);
        const physics__v3 t1 = v3(rb->t1[0][l], rb->t1[1][l], rb->t1[2][l]);
        const physics__v3 t2 = v3(rb->t2[0][l], rb->t2[1][l], rb->t2[2][l]);
        const physics__v3 impulse = v3_add(
            v3_scale(n, rb->jn[l]), v3_add(v3_scale(t1, rb->jt1[l]), v3_scale(t2, rb->jt2[l])));
        physics__v3 *va = &g->velocity[c->slot_a[k]], *vb = &g->velocity[c->slot_b[k]];
        *va = v3_sub(*va, v3_scale(impulse, rb->inv_mass_a[l]));
        *vb = v3_add(*vb, v3_scale(impulse, rb->inv_mass_b[l]));
    }
    return 0;
}
