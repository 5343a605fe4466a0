/*
 * The manager of one world: structure-of-arrays in one allocation, an entity -> instance paged
 * index (ct_entity_pages_t; it replaced a hash whose clustered probe runs made removal walk
 * dozens of slots), parent/child/sibling links as instance indices, and the world-matrix walk.
 */
#include "ct_array.h"
#include "transforms_internal.h"

#include <string.h>

/* ---- storage ------------------------------------------------------------------------------- */

void transforms__manager_init(transforms__manager_t *m, ct_allocator_t *a, ct_world_o *world)
{
    memset(m, 0, sizeof *m);
    m->a = a;
    m->world = world;
    m->n = 1; /* the nil slot, materialised on the first allocation */
}

void transforms__manager_free(transforms__manager_t *m)
{
    if (m->buffer)
        ct_free(m->a, m->buffer, m->bytes);
    ct_entity_pages_free(&m->index, m->a);
    m->buffer = NULL;
    m->capacity = 0;
    m->n = 1;
}

/* The entry of e's index in the entity -> instance index (NULL: none yet); see ct_entity.h. */
static inline uint32_t *entry_of(const transforms__manager_t *m, ct_entity_t e)
{
    return ct_entity_pages_entry(&m->index, e);
}

uint32_t transforms__find(const transforms__manager_t *m, uint32_t e)
{
    const uint32_t *entry = e ? entry_of(m, (ct_entity_t){e}) : NULL;
    return entry && *entry && m->entity[*entry].id == e ? *entry : 0;
}

/* Bytes of the block for `cap` slots (a power of two): the per-instance arrays. */
static size_t layout_bytes(uint32_t cap)
{
    return (size_t)cap *
           (2 * sizeof(ct_transform_matrix_t) + sizeof(ct_transform_pose_t) + sizeof(ct_entity_t) +
            4 * sizeof(uint32_t) + sizeof(uint16_t) + sizeof(uint8_t));
}

/* Points the arrays into `buffer` for `cap` slots, largest alignment first so every array stays
 * aligned. */
static void layout_point(transforms__manager_t *m, void *buffer, uint32_t cap)
{
    char *p = buffer;
    m->world_m = (ct_transform_matrix_t *)p;
    p += cap * sizeof(ct_transform_matrix_t);
    m->local_m = (ct_transform_matrix_t *)p;
    p += cap * sizeof(ct_transform_matrix_t);
    m->pose = (ct_transform_pose_t *)p;
    p += cap * sizeof(ct_transform_pose_t);
    m->entity = (ct_entity_t *)p;
    p += cap * sizeof(ct_entity_t);
    m->parent = (uint32_t *)p;
    p += cap * sizeof(uint32_t);
    m->first_child = (uint32_t *)p;
    p += cap * sizeof(uint32_t);
    m->next_sibling = (uint32_t *)p;
    p += cap * sizeof(uint32_t);
    m->prev_sibling = (uint32_t *)p;
    p += cap * sizeof(uint32_t);
    m->generation = (uint16_t *)p;
    p += cap * sizeof(uint16_t);
    m->mark = (uint8_t *)p;
}

static void move_array(void *to, const void *from, size_t bytes)
{
    if (to != from)
        memmove(to, from, bytes);
}

/*
 * Makes room for `extra` more instances. The block grows by realloc: a large block is remapped
 * rather than copied, so pages already touched stay mapped and only the used part of each array
 * is moved to its new offset. Offsets only grow, so moving the arrays from the last to the first
 * never overwrites one not yet moved. First touches of fresh pages are what growth costs (a page
 * fault is several microseconds on a virtual machine), hence no memset of unused slots.
 */
static int reserve(transforms__manager_t *m, uint32_t extra)
{
    const uint64_t need = (uint64_t)m->n + extra;
    if (need <= m->capacity)
        return 0;
    if (need > TRANSFORMS_INDEX_MASK)
        return CT_ERR_NOMEM;
    const uint32_t cap = ct_array_capacity(0, (uint32_t)need, 64);
    const size_t bytes = layout_bytes(cap);
    void *buffer = ct_realloc(m->a, m->buffer, m->bytes, bytes);
    if (!buffer)
        return CT_ERR_NOMEM;

    transforms__manager_t old = *m;
    layout_point(&old, buffer, m->capacity);
    layout_point(m, buffer, cap);
    const uint32_t n = m->n;
    if (m->buffer) {
        move_array(m->mark, old.mark, n * sizeof *m->mark);
        /* Every slot's generation, free ones too: a handle to a freed slot must stay stale. */
        move_array(m->generation, old.generation, old.capacity * sizeof *m->generation);
        move_array(m->prev_sibling, old.prev_sibling, n * sizeof *m->prev_sibling);
        move_array(m->next_sibling, old.next_sibling, n * sizeof *m->next_sibling);
        move_array(m->first_child, old.first_child, n * sizeof *m->first_child);
        move_array(m->parent, old.parent, n * sizeof *m->parent);
        move_array(m->entity, old.entity, n * sizeof *m->entity);
        move_array(m->pose, old.pose, n * sizeof *m->pose);
        move_array(m->local_m, old.local_m, n * sizeof *m->local_m);
    } else {
        m->world_m[0] = transforms__identity_matrix;
        m->local_m[0] = transforms__identity_matrix;
        m->pose[0] = transforms__identity_pose;
        m->entity[0].id = 0;
        m->parent[0] = m->first_child[0] = m->next_sibling[0] = m->prev_sibling[0] = 0;
        m->mark[0] = 0;
    }
    for (uint32_t i = m->buffer ? old.capacity : 0; i < cap; i++)
        m->generation[i] = 1;
    m->buffer = buffer;
    m->bytes = bytes;
    m->capacity = cap;
    return 0;
}

/* ---- instances ----------------------------------------------------------------------------- */

void transforms__write_local(transforms__manager_t *m, uint32_t i, const ct_transform_pose_t *p)
{
    m->pose[i] = *p;
    transforms__matrix_from_pose(p, &m->local_m[i]);
}

int transforms__create(transforms__manager_t *m, const ct_entity_t *entities,
                       const uint32_t *entity_index, const ct_transform_pose_t *poses, uint32_t n,
                       ct_transform_t *out, uint32_t *first)
{
    /* Everything that can fail comes first, so a failure creates nothing. On the way, an
     * instance left by an older entity of the same index (its destroy was not seen) goes. */
    int err = reserve(m, n);
    m->changes++;
    for (uint32_t k = 0; !err && k < n; k++) {
        const ct_entity_t e = entities[entity_index ? entity_index[k] : k];
        if (!e.id)
            continue;
        const uint32_t *entry = ct_entity_pages_reserve(&m->index, m->a, e) ? entry_of(m, e) : NULL;
        if (!entry)
            err = CT_ERR_NOMEM;
        else if (*entry && m->entity[*entry].id != e.id)
            transforms__destroy(m, *entry);
    }
    if (err)
        return err;
    /* The arrays through restrict pointers: stores to them cannot change the manager, so the loop
     * keeps its pointers in registers instead of reloading them after every store. */
    ct_transform_matrix_t *restrict world = m->world_m, *restrict local = m->local_m;
    ct_transform_pose_t *restrict pose = m->pose;
    ct_entity_t *restrict entity = m->entity;
    uint32_t *restrict parent = m->parent, *restrict first_child = m->first_child;
    uint32_t *restrict next_sibling = m->next_sibling, *restrict prev_sibling = m->prev_sibling;
    uint8_t *restrict mark = m->mark;
    uint32_t i = m->n;
    if (first)
        *first = i;
    for (uint32_t k = 0; k < n; k++) {
        const ct_entity_t e = entities[entity_index ? entity_index[k] : k];
        uint32_t *entry = e.id ? entry_of(m, e) : NULL;
        if (!entry || *entry) {
            if (out)
                out[k].i = 0;
            continue;
        }
        entity[i] = e;
        parent[i] = first_child[i] = next_sibling[i] = prev_sibling[i] = 0;
        mark[i] = 0;
        const ct_transform_pose_t *p = poses ? &poses[k] : &transforms__identity_pose;
        pose[i] = *p;
        /* A new root's world matrix is its local one: both are stored from the same registers
         * (copying world from local after the stores would read them back and stall). */
        ct_transform_matrix_t matrix;
        transforms__matrix_from_pose(p, &matrix);
        local[i] = matrix;
        world[i] = matrix;
        *entry = i;
        if (out)
            out[k] = transforms__handle(m, i);
        i++;
    }
    m->n = i;
    return 0;
}

/* Removes i from its parent's child list (links of i itself are cleared). */
static void detach(transforms__manager_t *m, uint32_t i)
{
    const uint32_t p = m->parent[i], prev = m->prev_sibling[i], next = m->next_sibling[i];
    if (prev)
        m->next_sibling[prev] = next;
    else if (p)
        m->first_child[p] = next;
    if (next)
        m->prev_sibling[next] = prev;
    m->parent[i] = m->prev_sibling[i] = m->next_sibling[i] = 0;
}

/* Local pose := world pose. The local matrix takes the world matrix bit for bit, so the world
 * matrices of the node and its subtree stay exactly what they were. */
static void make_root(transforms__manager_t *m, uint32_t i)
{
    detach(m, i);
    m->local_m[i] = m->world_m[i];
    transforms__pose_from_matrix(&m->world_m[i], &m->pose[i]);
}

/* Moves instance `from` into the unreferenced slot `to` and retargets every link to it. This is
 * the middle step of part 3's spare-slot swap; destroy needs only this step because it first
 * cuts every link to the dying slot. */
static void move(transforms__manager_t *m, uint32_t from, uint32_t to)
{
    m->world_m[to] = m->world_m[from];
    m->local_m[to] = m->local_m[from];
    m->pose[to] = m->pose[from];
    m->entity[to] = m->entity[from];
    const uint32_t p = m->parent[from], prev = m->prev_sibling[from], next = m->next_sibling[from],
                   child = m->first_child[from];
    m->parent[to] = p;
    m->prev_sibling[to] = prev;
    m->next_sibling[to] = next;
    m->first_child[to] = child;
    if (prev)
        m->next_sibling[prev] = to;
    else if (p)
        m->first_child[p] = to;
    if (next)
        m->prev_sibling[next] = to;
    for (uint32_t c = child; c; c = m->next_sibling[c])
        m->parent[c] = to;
    *entry_of(m, m->entity[to]) = to;
}

static void next_generation(transforms__manager_t *m, uint32_t i)
{
    const uint16_t g = (uint16_t)((m->generation[i] + 1u) & TRANSFORMS_GENERATION_MASK);
    m->generation[i] = g ? g : 1u;
}

/* Both slots change meaning: i now holds the moved instance, and `last` is free. */
void transforms__destroy(transforms__manager_t *m, uint32_t i)
{
    m->changes++;
    while (m->first_child[i])
        make_root(m, m->first_child[i]);
    detach(m, i);
    *entry_of(m, m->entity[i]) = 0;
    const uint32_t last = m->n - 1;
    next_generation(m, i);
    if (i != last) {
        move(m, last, i);
        next_generation(m, last);
    }
    m->n--;
}

/* ---- links and propagation ----------------------------------------------------------------- */

int transforms__link(transforms__manager_t *m, uint32_t child, uint32_t parent)
{
    m->changes++;
    for (uint32_t a = parent; a; a = m->parent[a]) {
        if (a == child)
            return CT_ERR_INVALID;
    }
    if (m->parent[child] == parent)
        return 0;
    detach(m, child);
    const uint32_t first = m->first_child[parent];
    m->parent[child] = parent;
    m->next_sibling[child] = first;
    if (first)
        m->prev_sibling[first] = child;
    m->first_child[parent] = child;
    return 0;
}

void transforms__unlink(transforms__manager_t *m, uint32_t child)
{
    m->changes++;
    if (m->parent[child])
        make_root(m, child);
}

/* Depth-first over the subtree without a stack: down through first_child, across through
 * next_sibling, and back up through parent until a node with a next sibling (or the start). The
 * nil slot's world matrix is the identity, so roots need no special case. */
void transforms__propagate(transforms__manager_t *m, uint32_t i)
{
    m->changes++; /* every pose change ends here (ct_transform_api_v4.changes) */
    ct_transform_matrix_t *world = m->world_m;
    const ct_transform_matrix_t *local = m->local_m;
    const uint32_t *parent = m->parent, *first_child = m->first_child,
                   *next_sibling = m->next_sibling;
    transforms__matrix_mul(&world[parent[i]], &local[i], &world[i]);
    uint32_t node = i;
    for (;;) {
        if (first_child[node]) {
            node = first_child[node];
        } else {
            while (node != i && !next_sibling[node])
                node = parent[node];
            if (node == i)
                return;
            node = next_sibling[node];
        }
        transforms__matrix_mul(&world[parent[node]], &local[node], &world[node]);
    }
}

/* The same stackless walk as propagate, done twice: once to count, once to gather. */
static uint32_t walk_subtree(const transforms__manager_t *m, uint32_t i, ct_entity_t *out)
{
    uint32_t n = 0, node = i;
    for (;;) {
        if (out)
            out[n] = m->entity[node];
        n++;
        if (m->first_child[node]) {
            node = m->first_child[node];
            continue;
        }
        while (node != i && !m->next_sibling[node])
            node = m->parent[node];
        if (node == i)
            return n;
        node = m->next_sibling[node];
    }
}

ct_entity_t *transforms__subtree_entities(transforms__manager_t *m, uint32_t i, uint32_t *n)
{
    *n = walk_subtree(m, i, NULL);
    ct_entity_t *out = ct_alloc(m->a, (size_t)*n * sizeof *out);
    if (out)
        walk_subtree(m, i, out);
    return out;
}

/* Marks: 1 = listed, 2 = listed and already propagated. An instance propagates only when no
 * ancestor is listed (that ancestor's walk covers it), so every changed subtree is walked once
 * and parents always before children. The ancestor check stops at the first listed ancestor:
 * for whole chains that is the direct parent, which keeps the pass O(n). The caller has marked
 * every valid instance of the list. */
static void propagate_marked(transforms__manager_t *m, const ct_transform_t *instances, uint32_t n)
{
    uint8_t *mark = m->mark;
    const uint32_t *parent = m->parent;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = transforms__index(m, instances[k]);
        if (!i || mark[i] == 2)
            continue;
        uint32_t a = parent[i];
        while (a && !mark[a])
            a = parent[a];
        if (a)
            continue;
        transforms__propagate(m, i);
        mark[i] = 2;
    }
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = transforms__index(m, instances[k]);
        if (i)
            mark[i] = 0;
    }
}

void transforms__propagate_batch(transforms__manager_t *m, const ct_transform_t *instances,
                                 uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = transforms__index(m, instances[k]);
        if (i)
            m->mark[i] = 1;
    }
    propagate_marked(m, instances, n);
}

/* Writing and marking in one pass saves a walk over the list and its scattered marks. */
uint32_t transforms__set_local_batch(transforms__manager_t *m, const ct_transform_t *instances,
                                     const ct_transform_pose_t *locals, uint32_t n)
{
    uint32_t skipped = 0;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = transforms__index(m, instances[k]);
        ct_transform_pose_t pose = locals[k];
        char why[160];
        if (i && transforms__check_pose(&pose, why, sizeof why)) {
            transforms__write_local(m, i, &pose);
            m->mark[i] = 1;
        } else {
            skipped++;
        }
    }
    propagate_marked(m, instances, n);
    return skipped;
}

/* ---- world-space access -------------------------------------------------------------------- */

/* A root's world rotation is its local one, returned exactly; below a parent it is recovered from
 * the world matrix. */
void transforms__world_rotation(const transforms__manager_t *m, uint32_t i, float out[4])
{
    ct_transform_pose_t world = m->pose[i];
    if (m->parent[i])
        transforms__pose_from_matrix(&m->world_m[i], &world);
    for (int k = 0; k < 4; k++)
        out[k] = world.rotation[k];
}

bool transforms__set_world_position(transforms__manager_t *m, uint32_t i, const float position[3])
{
    ct_transform_pose_t pose = m->pose[i];
    ct_transform_matrix_t inv;
    if (!m->parent[i]) {
        /* Roots (most physics bodies) skip the inverse: world is local. */
        for (int k = 0; k < 3; k++)
            pose.position[k] = position[k];
    } else if (transforms__matrix_invert(&m->world_m[m->parent[i]], &inv)) {
        transforms__matrix_transform_point(&inv, position, pose.position);
    } else {
        return false;
    }
    transforms__write_local(m, i, &pose);
    transforms__propagate(m, i);
    return true;
}

void transforms__set_world_rotation(transforms__manager_t *m, uint32_t i, const float rotation[4])
{
    ct_transform_pose_t pose = m->pose[i];
    float parent[4];
    transforms__world_rotation(m, m->parent[i], parent);
    /* local = conjugate(parent) * world. */
    const float conj[4] = {-parent[0], -parent[1], -parent[2], parent[3]};
    transforms__quat_mul(conj, rotation, pose.rotation);
    transforms__write_local(m, i, &pose);
    transforms__propagate(m, i);
}
