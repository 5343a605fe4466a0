/* The islands core (modules/gameplay/gameplay_islands.c), kernel-free: islands from events,
 * shared entities kept out of the union, largest first, refusals, and the same fields and the
 * same effects, in the same order, whether events run serially, as islands on one thread, or as
 * islands on four threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ct_heap.h"
#include "ct_physics.h"
#include "gameplay_islands.h"

/* ---- an allocator and a parallel_for for the core ------------------------------------------ */

typedef struct pool_t {
    ct_range_f fn;
    void *user_data;
    uint32_t count;
    atomic_uint next;
} pool_t;

static void *worker(void *arg)
{
    pool_t *p = arg;
    for (uint32_t i; (i = atomic_fetch_add(&p->next, 1)) < p->count;)
        p->fn(p->user_data, i, i + 1);
    return NULL;
}

/* Four threads take items in order, as ct.jobs' workers do. */
static void four_threads(void *jobs, uint32_t count, ct_range_f fn, void *user_data)
{
    (void)jobs;
    pool_t p = {fn, user_data, count, 0};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, &p);
    worker(&p);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
}

/* ---- a small game: pickups, hits and chains --------------------------------------------------- */

typedef struct game_t {
    islands__t sys;
    uint32_t pickup, hit, chain, bad, score, spawn;
    uint32_t health, gold, touched;
    double log[4096][3]; /* effects as applied: type, target, value */
    uint32_t logged;
} game_t;

static void on_pickup(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    game_t *g = ud;
    /* entities: the player (shared) and a gem. */
    const double gold = islands__get(ctx, e->entities[1], g->gold);
    islands__set(ctx, e->entities[1], g->gold, 0);
    islands__set(ctx, e->entities[1], g->touched,
                 islands__get(ctx, e->entities[1], g->touched) + 1);
    const double args[1] = {gold + islands__get(ctx, e->entities[0], g->health) * 0.001};
    islands__emit(ctx, g->score, e->entities[0], args, 1);
}

static void on_hit(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    game_t *g = ud;
    /* entities: a projectile and its target; the target loses what the projectile carries. */
    const double h = islands__get(ctx, e->entities[1], g->health) -
                     e->args[0] * (1 + islands__get(ctx, e->entities[0], g->touched));
    islands__set(ctx, e->entities[1], g->health, h);
    islands__set(ctx, e->entities[0], g->touched,
                 islands__get(ctx, e->entities[0], g->touched) + 1);
    if (h <= 0) {
        const double at[2] = {e->args[1], e->args[2]};
        islands__emit(ctx, g->spawn, e->entities[1], at, 2);
    }
}

static void on_chain(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    game_t *g = ud;
    /* Passes half of each entity's health to the next: order within an island matters. */
    for (uint32_t i = 0; i + 1 < e->num_entities; i++) {
        const double a = islands__get(ctx, e->entities[i], g->health),
                     b = islands__get(ctx, e->entities[i + 1], g->health);
        islands__set(ctx, e->entities[i], g->health, a * 0.5);
        islands__set(ctx, e->entities[i + 1], g->health, b + a * 0.5 + e->args[0]);
    }
}

static void on_bad(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    game_t *g = ud;
    islands__set(ctx, (ct_entity_t){e->entities[0].id + 1}, g->health, 1); /* not named: refused */
    islands__get(ctx, (ct_entity_t){e->entities[0].id + 1}, g->health);    /* refused */
    islands__set(ctx, (ct_entity_t){1}, g->health, 1); /* the shared player: refused */
    const double one[1] = {1};
    for (int i = 0; i < 9; i++) /* the ninth is refused */
        islands__emit(ctx, g->score, e->entities[0], one, 1);
}

static void log_effect(game_t *g, double type, ct_entity_t target, double value)
{
    if (g->logged < 4096) {
        g->log[g->logged][0] = type, g->log[g->logged][1] = target.id, g->log[g->logged][2] = value;
        g->logged++;
    }
}

static void apply_score(void *ud, ct_entity_t target, const double *args, uint32_t n)
{
    game_t *g = ud;
    (void)n;
    log_effect(g, 1, target, args[0]);
}

static void apply_spawn(void *ud, ct_entity_t target, const double *args, uint32_t n)
{
    game_t *g = ud;
    (void)n;
    log_effect(g, 2, target, args[0] * 1000 + args[1]);
}

static game_t *new_game(void)
{
    game_t *g = calloc(1, sizeof *g);
    islands__init(&g->sys, ct_heap_allocator());
    g->pickup = islands__handler_id(&g->sys, "pickup", on_pickup, g);
    g->hit = islands__handler_id(&g->sys, "hit", on_hit, g);
    g->chain = islands__handler_id(&g->sys, "chain", on_chain, g);
    g->bad = islands__handler_id(&g->sys, "bad", on_bad, g);
    g->score = islands__effect_id(&g->sys, "score", apply_score, g);
    g->spawn = islands__effect_id(&g->sys, "spawn", apply_spawn, g);
    g->health = islands__field_id(&g->sys, "health");
    g->gold = islands__field_id(&g->sys, "gold");
    g->touched = islands__field_id(&g->sys, "touched");
    return g;
}

static void free_game(game_t *g)
{
    islands__free(&g->sys);
    free(g);
}

static void post(game_t *g, uint32_t type, uint32_t n, const uint32_t *ids, double a0, double a1,
                 double a2)
{
    ct_island_event_t e = {.type = type, .num_entities = n, .args = {a0, a1, a2, 0}};
    for (uint32_t i = 0; i < n; i++)
        e.entities[i].id = ids[i];
    char err[160];
    assert_int_equal(islands__post(&g->sys, &e, err, sizeof err), 0);
}

/* Entity 1 is the player; 2..: gems, targets, projectiles. Deterministic pseudo-random frames. */
static void play(game_t *g, uint32_t mode, islands__parallel_f parallel, uint32_t frames)
{
    assert_int_equal(islands__set_shared(&g->sys, (ct_entity_t){1}, true), 0);
    islands__set_value(&g->sys, (ct_entity_t){1}, g->health, 100);
    for (uint32_t id = 2; id < 3000; id++) {
        islands__set_value(&g->sys, (ct_entity_t){id}, g->health, 10 + id % 7);
        islands__set_value(&g->sys, (ct_entity_t){id}, g->gold, id % 5);
    }
    uint64_t rng = 99;
    for (uint32_t f = 0; f < frames; f++) {
        for (uint32_t k = 0; k < 400; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            const uint32_t a = 2 + (uint32_t)(rng % 2998), b = 2 + (uint32_t)((rng >> 20) % 2998),
                           c = 2 + (uint32_t)((rng >> 40) % 2998);
            const uint32_t pick = (uint32_t)(rng >> 60) % 4;
            if (pick == 0) {
                post(g, g->pickup, 2, (uint32_t[]){1, a}, 0, 0, 0);
            } else if (pick == 1 || pick == 3) {
                post(g, g->hit, 2, (uint32_t[]){a, b}, 1 + k % 3, a, b);
            } else if (a != b && b != c && a != c) {
                post(g, g->chain, 3, (uint32_t[]){a, b, c}, 0.25, 0, 0);
            }
        }
        ct_island_stats_t st;
        assert_int_equal(islands__run(&g->sys, mode, parallel, NULL, 4, &st), 0);
        assert_int_equal(st.refused, 0);
    }
}

static void same_results_serial_one_thread_and_four_threads(void **state)
{
    (void)state;
    game_t *g[3] = {new_game(), new_game(), new_game()};
    play(g[0], CT_ISLANDS_SERIAL, NULL, 12);
    play(g[1], CT_ISLANDS_ONE_THREAD, NULL, 12);
    play(g[2], CT_ISLANDS_PARALLEL, four_threads, 12);
    assert_true(g[0]->logged > 100);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(g[k]->logged, g[0]->logged);
        assert_memory_equal(g[k]->log, g[0]->log, g[0]->logged * sizeof g[0]->log[0]);
        assert_int_equal(g[k]->sys.num_rows, g[0]->sys.num_rows);
        assert_memory_equal(g[k]->sys.row_value, g[0]->sys.row_value,
                            (size_t)g[0]->sys.num_rows * CT_ISLAND_MAX_FIELDS * sizeof(double));
    }
    /* And the values are what a plain loop gives: spot-check that the run changed things. */
    assert_true(islands__value(&g[0]->sys, (ct_entity_t){1}, g[0]->health) == 100);
    for (int k = 0; k < 3; k++)
        free_game(g[k]);
}

static void islands_from_events(void **state)
{
    (void)state;
    game_t *g = new_game();
    /* 2-3-4 chained, 5-6, 7 alone; 8 and 9 touch only the shared player. */
    islands__set_shared(&g->sys, (ct_entity_t){1}, true);
    post(g, g->hit, 2, (uint32_t[]){5, 6}, 0, 0, 0);      /* event 0 */
    post(g, g->hit, 2, (uint32_t[]){2, 3}, 0, 0, 0);      /* event 1 */
    post(g, g->pickup, 2, (uint32_t[]){1, 7}, 0, 0, 0);   /* event 2 */
    post(g, g->hit, 2, (uint32_t[]){4, 3}, 0, 0, 0);      /* event 3 */
    post(g, g->pickup, 2, (uint32_t[]){1, 1}, 0, 0, 0);   /* event 4: shared only */
    post(g, g->chain, 3, (uint32_t[]){2, 4, 3}, 0, 0, 0); /* event 5 */
    ct_island_stats_t st;
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st), 0);
    assert_int_equal(st.events, 6);
    assert_int_equal(st.islands, 4); /* {2,3,4}: 3 events; {5,6}; {7}; the shared-only event */
    assert_int_equal(st.largest, 3);
    assert_int_equal(st.shared_only, 1);
    /* Largest first, then by first event: {2,3,4} (first event 1), {5,6} (0), {7} (2), shared (4). */
    const uint32_t order[4] = {1, 0, 2, 4};
    for (int i = 0; i < 4; i++)
        assert_int_equal((uint32_t)g->sys.island_order[i], order[i]);
    /* Without the player shared, every pickup joins through it: one island of all pickups. */
    islands__set_shared(&g->sys, (ct_entity_t){1}, false);
    for (uint32_t id = 10; id < 110; id++)
        post(g, g->pickup, 2, (uint32_t[]){1, id}, 0, 0, 0);
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st), 0);
    assert_int_equal(st.islands, 1);
    islands__set_shared(&g->sys, (ct_entity_t){1}, true);
    for (uint32_t id = 10; id < 110; id++)
        post(g, g->pickup, 2, (uint32_t[]){1, id}, 0, 0, 0);
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st), 0);
    assert_int_equal(st.islands, 100);
    assert_int_equal(st.effects, 100);
    free_game(g);
}

static void refusals(void **state)
{
    (void)state;
    game_t *g = new_game();
    islands__set_shared(&g->sys, (ct_entity_t){1}, true);
    post(g, g->bad, 1, (uint32_t[]){20}, 0, 0, 0);
    ct_island_stats_t st;
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_PARALLEL, four_threads, NULL, 4, &st), 0);
    assert_int_equal(st.refused,
                     4); /* a write and a read of 21, a write to the player, a ninth effect */
    assert_int_equal(st.effects, 8);
    assert_non_null(strstr(g->sys.note, "event 0 ('bad')"));
    assert_true(islands__value(&g->sys, (ct_entity_t){21}, g->health) == 0);
    /* Bad posts. */
    char err[160];
    ct_island_event_t e = {.type = 99, .num_entities = 1, .entities = {{2}}};
    assert_int_equal(islands__post(&g->sys, &e, err, sizeof err), CT_ERR_INVALID);
    e.type = g->hit, e.num_entities = 0;
    assert_int_equal(islands__post(&g->sys, &e, err, sizeof err), CT_ERR_INVALID);
    e.num_entities = 5;
    assert_int_equal(islands__post(&g->sys, &e, err, sizeof err), CT_ERR_INVALID);
    assert_int_equal(islands__handler_id(&g->sys, "Bad Name", on_bad, g), 0);
    assert_int_equal(islands__handler_id(&g->sys, "hit", on_hit, g),
                     g->hit); /* same name, same id */
    /* An entity of a reused index (another generation) starts with cleared fields. */
    islands__set_value(&g->sys, (ct_entity_t){30}, g->health, 5);
    assert_true(islands__value(&g->sys, (ct_entity_t){30}, g->health) == 5);
    const ct_entity_t newer = {30u | (1u << CT_ENTITY_INDEX_BITS)};
    assert_true(islands__value(&g->sys, newer, g->health) == 0);
    islands__set_value(&g->sys, newer, g->gold, 1);
    assert_true(islands__value(&g->sys, (ct_entity_t){30}, g->health) == 0);
    free_game(g);
}

/* ---- physics contacts as events ------------------------------------------------------------ */

typedef struct stream_t {
    uint8_t bytes[1024];
    uint32_t size;
} stream_t;

static void put(stream_t *s, uint32_t type, const void *event, uint32_t size)
{
    const ct_physics_event_header_t h = {type, size};
    memcpy(s->bytes + s->size, &h, sizeof h);
    memcpy(s->bytes + s->size + sizeof h, event, size);
    s->size += (uint32_t)sizeof h + ((size + 3u) & ~3u);
}

static void collision(stream_t *s, uint32_t a, uint32_t b, float speed)
{
    const ct_physics_collision_event_t ev = {.a = a, .b = b, .impulse = 2 * speed, .speed = speed};
    put(s, CT_PHYSICS_EVENT_COLLISION, &ev, sizeof ev);
}

static uint32_t dead_id; /* the one entity alive_but() refuses */
static bool alive_but(ct_entity_t e) { return e.id != dead_id; }

/* What touched what, as the handlers saw it: (a, b, speed) per event, in handling order. */
static uint32_t touches[16][3], num_touches, partings[16][2], num_partings;

static void on_touch(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    (void)ud, (void)ctx;
    touches[num_touches][0] = e->entities[0].id;
    touches[num_touches][1] = e->num_entities > 1 ? e->entities[1].id : 0;
    touches[num_touches++][2] =
        (uint32_t)(e->args[0] * 10 + e->args[1]); /* speed 1.5, impulse 3: 18 */
}

static void on_part(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    (void)ud, (void)ctx;
    partings[num_partings][0] = e->entities[0].id;
    partings[num_partings++][1] = e->num_entities > 1 ? e->entities[1].id : 0;
}

/* Contacts join the bodies touching into one island (the seed: an event's entities are one
 * island): two stacks of crates on a shared floor are two islands; the same stream again (no new
 * step) posts nothing; dead entities are left out; ended contacts go to their own handler. */
static void contacts_make_islands(void **state)
{
    (void)state;
    game_t *g = new_game();
    const uint32_t touch = islands__handler_id(&g->sys, "touch", on_touch, g);
    const uint32_t part = islands__handler_id(&g->sys, "part", on_part, g);
    ct_world_o *world = (ct_world_o *)&g->sys; /* any address: the core only compares it */
    assert_int_equal(islands__join_contacts(&g->sys, world, touch, 0), 0);
    islands__set_shared(&g->sys, (ct_entity_t){1}, true); /* the floor */
    stream_t s = {0};
    collision(&s, 1, 2, 1.5f), collision(&s, 2, 3, 1.5f), collision(&s, 1, 4, 1.5f),
        collision(&s, 4, 5, 1.5f), collision(&s, 5, 6, 1.5f);
    const ct_physics_contact_ended_event_t ended = {7, 8};
    put(&s, CT_PHYSICS_EVENT_CONTACT_ENDED, &ended,
        sizeof ended);                 /* no `ended` handler: not posted */
    put(&s, 99, &ended, sizeof ended); /* a kind this code does not know */
    islands__contacts *c = &g->sys.contacts[0];
    assert_int_equal(islands__post_contacts(&g->sys, c, s.bytes, s.size, NULL), 5);
    ct_island_stats_t st;
    num_touches = 0;
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st), 0);
    assert_int_equal(st.events, 5);
    assert_int_equal(st.islands, 2); /* {2, 3} and {4, 5, 6}: the floor joins nothing */
    assert_int_equal(st.largest, 3);
    /* Largest first: the stack 4-5-6 (events 2, 3, 4), then 2-3 (events 0, 1). */
    const uint32_t seen[5][3] = {{1, 4, 18}, {4, 5, 18}, {5, 6, 18}, {1, 2, 18}, {2, 3, 18}};
    assert_int_equal(num_touches, 5);
    assert_memory_equal(touches, seen, sizeof seen);
    /* The same step again: nothing. */
    assert_int_equal(islands__post_contacts(&g->sys, c, s.bytes, s.size, NULL), 0);
    /* The floor not shared: one island. */
    islands__set_shared(&g->sys, (ct_entity_t){1}, false);
    s.size = 0;
    collision(&s, 1, 2, 1), collision(&s, 1, 4, 1), collision(&s, 5, 6, 1);
    assert_int_equal(islands__post_contacts(&g->sys, c, s.bytes, s.size, NULL), 3);
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st), 0);
    assert_int_equal(st.islands, 2); /* {1, 2, 4} and {5, 6} */
    assert_int_equal(st.largest, 2);
    /* A dead entity is left out; an event naming only dead ones is dropped; ended contacts go to
     * `part` once it is joined. */
    assert_int_equal(islands__join_contacts(&g->sys, world, touch, part), 0);
    assert_int_equal(g->sys.num_contacts, 1);
    s.size = 0;
    collision(&s, 2, 9, 1), collision(&s, 9, 0, 1);
    put(&s, CT_PHYSICS_EVENT_CONTACT_ENDED, &ended, sizeof ended);
    dead_id = 9, num_touches = 0, num_partings = 0;
    assert_int_equal(islands__post_contacts(&g->sys, c, s.bytes, s.size, alive_but), 2);
    assert_int_equal(islands__run(&g->sys, CT_ISLANDS_SERIAL, NULL, NULL, 1, &st), 0);
    assert_int_equal(num_touches, 1);
    assert_int_equal(touches[0][0], 2);
    assert_int_equal(touches[0][1], 0); /* one entity: 9 died */
    assert_int_equal(num_partings, 1);
    assert_int_equal(partings[0][0], 7);
    assert_int_equal(partings[0][1], 8);
    /* Bad joins; stopping forgets the world. */
    assert_int_equal(islands__join_contacts(&g->sys, world, 77, 0), CT_ERR_INVALID);
    for (uintptr_t w = 1; w < ISLANDS_MAX_CONTACT_WORLDS; w++)
        assert_int_equal(islands__join_contacts(&g->sys, (ct_world_o *)w, touch, 0), 0);
    assert_int_equal(islands__join_contacts(&g->sys, (ct_world_o *)(uintptr_t)99, touch, 0),
                     CT_ERR_FULL);
    assert_int_equal(islands__join_contacts(&g->sys, world, 0, 0), 0);
    assert_int_equal(g->sys.num_contacts, ISLANDS_MAX_CONTACT_WORLDS - 1);
    for (uint32_t i = 0; i < g->sys.num_contacts; i++)
        assert_ptr_not_equal(g->sys.contacts[i].world, world);
    free_game(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_results_serial_one_thread_and_four_threads),
        cmocka_unit_test(islands_from_events),
        cmocka_unit_test(refusals),
        cmocka_unit_test(contacts_make_islands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
