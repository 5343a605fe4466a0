/*
 * ct_networking.so in a booted kernel with entities and transforms, hosting a session through
 * its Lua API on 127.0.0.1, joined by a client made from the networking core in this test: an
 * entity replicates out and follows its transform, the client's object becomes an entity here,
 * RPC calls reach the Lua handler with checked values and within the per-frame budget, a call
 * that breaks its schema disconnects the client, a hot reload keeps the session running, and bad
 * Lua arguments raise clear errors. The component's entity -> object index: a stale handle whose
 * index was reused finds nothing, and a batch of deaths removes exactly those objects. Object ->
 * entity: a replica is made once per object, and a new session never aliases an old one's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_network.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "net_test_support.h"
#include "plugins/loader.h"
#include "test_kernel.h"

#include <time.h>

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_transform_api_v2 *tf;
static const ct_network_api_v1 *net;
static const ct_lua_api_v1 *lua;
static ct_world_o *world;

/* The client: the core on its own socket. */
static test_alloc_t alloc;
static net_session_t client;
static net_udp_t *client_udp;
static uint32_t client_left;
static char client_reason[160];

static void on_left(void *user, uint8_t id, const char *reason)
{
    (void)user, (void)id;
    client_left++;
    snprintf(client_reason, sizeof client_reason, "%s", reason);
}

/* Evaluates a Lua expression quietly (LUA_GLOBALSINDEX is -10002 in Lua 5.1 and LuaJIT). */
static bool lua_true(const char *expr)
{
    char code[512];
    snprintf(code, sizeof code, "test_ok = (%s) and true or false", expr);
    if (lua->run_string(code, "=test"))
        return false;
    lua_State *L = lua->main_state();
    lua->get_field(L, -10002, "test_ok");
    const bool ok = lua->to_boolean(L, -1);
    lua->set_top(L, -2);
    return ok;
}

/* One engine frame and one client round; a little sleep lets datagrams cross. */
static void frame(void)
{
    kernel__frame(1.0 / 60);
    net_udp_poll(client_udp, 4096);
    net_session_tick(&client, net_udp_now());
    nanosleep(&(struct timespec){0, 300000}, NULL);
}

static bool frames_until(bool (*done)(void), uint32_t max)
{
    for (uint32_t i = 0; i < max; i++) {
        frame();
        if (done())
            return true;
    }
    return false;
}

static bool client_joined(void) { return client.joined; }

static uint32_t host_object;
static bool client_has_object(void)
{
    for (uint32_t i = 0; i < client.max_objects; i++)
        if (client.objects[i].live && client.objects[i].owner == 1) {
            host_object = client.objects[i].id;
            return true;
        }
    return false;
}

static bool client_sees_health(void)
{
    const net_object_t *o = net_object_find(&client, host_object);
    return o && o->fields[NET_SCRIPT_FIELD0] == 42.0f;
}

static bool client_sees_moved(void)
{
    const net_object_t *o = net_object_find(&client, host_object);
    return o && o->fields[0] == 5.0f && o->fields[1] == 6.0f;
}

static bool client_sees_moved_again(void)
{
    const net_object_t *o = net_object_find(&client, host_object);
    return o && o->fields[0] == -1.0f && o->fields[2] == -3.0f;
}

static bool host_has_replica(void) { return net->stats().objects == 2 && tf->count(world) == 2; }
static bool hits_three(void) { return lua_true("hits == 3"); }
static bool client_gone(void) { return client_left > 0; }

/* The client (the core on its own socket) joins the engine's session as peer 2. */
static void client_join(void)
{
    test_alloc_init(&alloc);
    client_left = 0;
    uint16_t port = 0;
    const net_addr_t any = net_addr_loopback4(0);
    assert_int_equal(net_udp_open(&client_udp, &alloc.base, &any, NULL, &port), 0);
    const net_session_desc_t d = {
        .node = {.a = &alloc.base, .max_peers = 4, .send = net_udp_send, .send_user = client_udp},
        .max_objects = 64,
        .ev = {.left = on_left}};
    assert_int_equal(net_session_init(&client, &d), 0);
    net_udp_set_node(client_udp, &client.node);
    const net_addr_t host = net_addr_loopback4(net->port());
    assert_int_equal(net_session_join(&client, &host, net_udp_now()), 0);
    assert_true(frames_until(client_joined, 3000));
    assert_int_equal(client.my_id, 2);
}

static void client_close(void)
{
    net_session_free(&client);
    net_udp_close(client_udp);
    assert_int_equal(alloc.live_bytes, 0);
}

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("networking", "ct_networking")};
    const kernel_desc_t desc = test_kernel_desc(paths, 3);
    const test_world_t *t = test_world_boot(&desc, "net");
    entity = t->entity, worlds = t->worlds, lua = t->lua, world = t->world;
    tf = test_kernel_api(CT_TRANSFORM_API, 2);
    net = test_kernel_api(CT_NETWORK_API, 1);
    assert_non_null(tf);
    assert_non_null(net);
    assert_null(test_kernel_api(CT_NETWORK_API, 2));
    return 0;
}

static void host_and_client(void **state)
{
    (void)state;
    /* The host, through Lua. */
    assert_int_equal(
        lua->run_string(
            "function start_host(w)\n"
            "  Network.declare_fields{ 'health' }\n"
            "  Network.rpc('hit', 'number string:8', function(from, damage, who)\n"
            "    hits = (hits or 0) + 1; last_from = from; last_damage = damage; last_who = who\n"
            "  end)\n"
            "  port = Network.start{ port = 0, host = true, world = w }\n"
            "end",
            "=test"),
        0);
    test_lua_call("start_host", world, NULL, 0);
    assert_true(net->port() != 0);
    assert_int_equal(net->peer_id(), 1);
    assert_int_equal(net->start(&(ct_network_desc_t){.host = true}), CT_ERR_CONFLICT);

    const ct_entity_t e = entity->create();
    const ct_transform_pose_t pose = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_true(tf->create(world, e, &pose).i != 0);
    assert_int_equal(net->replicate(world, e), 0);
    assert_int_equal(net->owner(world, e), 1);

    /* The client joins from its own port. */
    client_join();

    /* Out: the entity's transform is the object's state, and so are declared script fields. */
    assert_true(frames_until(client_has_object, 3000));
    assert_true(net_object_find(&client, host_object)->fields[2] == 3.0f);
    assert_int_equal(
        lua->run_string("function set_health(w, e) Network.set_field(w, e, 'health', 42)\n"
                        "  assert(Network.field(w, e, 'health') == 42)\n"
                        "  assert(not pcall(Network.set_field, w, e, 'helth', 1))\n"
                        "  assert(not pcall(Network.set_field, w, e, 'health', 0/0))\n"
                        "  assert(Network.owner(w, e) == 1)\n"
                        "end",
                        "=test"),
        0);
    test_lua_call("set_health", world, &e, 1);
    assert_true(frames_until(client_sees_health, 3000));
    const ct_transform_pose_t moved = {{5, 6, 7}, {0, 0, 0, 1}, {1, 1, 1}};
    tf->set_local(world, tf->lookup(world, e), &moved);
    assert_true(frames_until(client_sees_moved, 3000));

    /* In: the client's object becomes an entity with a transform here. */
    assert_true(net_object_spawn(&client, (const float[NET_FIELDS]){9, 8, 7, 0, 0, 0, 1}, 0xffff) !=
                0);
    assert_true(frames_until(host_has_replica, 3000));

    /* RPC: checked values reach the handler, at most 32 per peer per frame. */
    net_rpc_registry_t rpc = {0};
    const char *why;
    const net_rpc_schema_t *hit = net_rpc_declare(&rpc, "hit", "number string:8", &why);
    uint8_t msg[64];
    for (int k = 0; k < 3; k++) {
        net_writer_t w = net_writer(msg, sizeof msg);
        const net_rpc_value_t args[2] = {
            {.type = NET_RPC_NUMBER, .number = 5 + k},
            {.type = NET_RPC_STRING, .string = (const uint8_t *)"head", .len = 4}};
        assert_true(net_rpc_encode(hit, args, 2, &w, &why));
        assert_int_equal(net_session_send(&client, 1, msg, w.n, true), 0);
    }
    assert_true(frames_until(hits_three, 3000));
    assert_true(lua_true("last_from == 2 and last_damage == 7 and last_who == 'head'"));

    /* A hot reload keeps the session: the socket, the connection, the objects, the handlers. */
    const uint16_t port_before = net->port();
    assert_int_equal(loader__reload("ct.networking"), 0);
    assert_int_equal(net->port(), port_before);
    assert_int_equal(net->stats().objects, 2);
    assert_int_equal(net->owner(world, e), 1); /* the entity index came across */
    const ct_transform_pose_t again = {{-1, -2, -3}, {0, 0, 0, 1}, {1, 1, 1}};
    tf->set_local(world, tf->lookup(world, e), &again);
    assert_true(frames_until(client_sees_moved_again, 3000));
    for (int k = 0; k < 100; k++) {
        net_writer_t w = net_writer(msg, sizeof msg);
        const net_rpc_value_t args[2] = {
            {.type = NET_RPC_NUMBER, .number = 1},
            {.type = NET_RPC_STRING, .string = (const uint8_t *)"x", .len = 1}};
        net_rpc_encode(hit, args, 2, &w, &why);
        net_session_send(&client, 1, msg, w.n, true);
    }
    for (int i = 0; i < 3000 && !lua_true("hits > 3"); i++)
        frame();
    assert_true(lua_true("hits == 3 + 32"));
    for (int i = 0; i < 3000 && !lua_true("hits == 103"); i++)
        frame();
    assert_true(lua_true("hits == 103"));

    /* A call that breaks the schema (a string past its 8 bytes) disconnects the caller. */
    net_writer_t w = net_writer(msg, sizeof msg);
    net_put_u8(&w, NET_RPC);
    net_put_u32(&w, hit->hash);
    net_put_u8(&w, 2);
    net_put_f64(&w, 1);
    net_put_varint(&w, 9);
    net_put_bytes(&w, "123456789", 9);
    assert_int_equal(net_session_send(&client, 1, msg, w.n, true), 0);
    assert_true(frames_until(client_gone, 3000));
    assert_true(lua_true("hits == 103"));
    assert_int_equal(net->stats().breaches, 1);
    assert_int_equal(net->stats().peers, 0);

    client_close();
    net->stop();
    assert_int_equal(net->port(), 0);
}

/* A unit with a network component spawns replicated when a session runs; a field in the
 * component is refused at compile time, naming it. */
static void the_component_in_resources(void **state)
{
    (void)state;
    const ct_resource_api_v1 *resource = test_kernel_api(CT_RESOURCE_API, 1);
    static const char bad[] =
        "entities = [ { components = { transform = {} network = { feilds = 1 } } } ]";
    assert_int_not_equal(resource->load_source("unit", "net/bad", bad, sizeof bad - 1), 0);
    static const char good[] =
        "entities = [ { components = { transform = { position = [1 2 3] } network = {} } } ]";
    assert_int_equal(resource->load_source("unit", "net/good", good, sizeof good - 1), 0);
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    const ct_entity_t e = worlds->spawn_unit(world, "net/good", (const float[3]){0, 0, 0}, NULL);
    assert_true(e.id != 0);
    assert_int_equal(net->owner(world, e), 1);
    assert_int_equal(net->stats().objects, 1);
    entity->destroy(e);
    assert_int_equal(net->owner(world, e), 0);
    assert_int_equal(net->stats().objects, 0);
    net->stop();
    resource->unload("unit", "net/good");
}

/* An entity made by destroying and creating entities until one gets e's index (the entity
 * manager reuses indices first in, first out); fails the test if none does. */
static ct_entity_t same_index_as(ct_entity_t e)
{
    for (uint32_t tries = 0; tries < (1u << 22); tries++) {
        const ct_entity_t n = entity->create();
        assert_true(n.id != 0);
        if (ct_entity_index(n) == ct_entity_index(e))
            return n;
        entity->destroy(n);
    }
    fail_msg("entity index %u was never reused", ct_entity_index(e));
    return (ct_entity_t){0};
}

static ct_entity_t replicated_entity(ct_world_o *w, float x)
{
    const ct_entity_t e = entity->create();
    const ct_transform_pose_t pose = {{x, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_true(tf->create(w, e, &pose).i != 0);
    assert_int_equal(net->replicate(w, e), 0);
    return e;
}

/* A destroyed entity's handle finds nothing, even once its index belongs to a new entity, and
 * whether or not that one is replicated. */
static void a_stale_handle_finds_no_object(void **state)
{
    (void)state;
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    const ct_entity_t keep = replicated_entity(world, 1);
    const ct_entity_t old = replicated_entity(world, 2);
    assert_int_equal(net->owner(world, old), 1);
    assert_int_equal(net->stats().objects, 2);
    entity->destroy(old);
    assert_int_equal(net->stats().objects, 1);
    assert_int_equal(net->owner(world, old), 0);
    assert_int_equal(net->migrate(world, old, 2), CT_ERR_NOT_FOUND);

    const ct_entity_t reused = same_index_as(old);
    assert_int_not_equal(reused.id, old.id);
    assert_int_equal(net->owner(world, reused), 0); /* not replicated (yet) */
    assert_int_equal(net->owner(world, old), 0);
    const ct_transform_pose_t pose = {{3, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_true(tf->create(world, reused, &pose).i != 0);
    assert_int_equal(net->replicate(world, reused), 0);
    assert_int_equal(net->owner(world, reused), 1);
    assert_int_equal(net->owner(world, old), 0);                /* the entry is reused's now */
    assert_int_equal(net->replicate(world, old), CT_ERR_STALE); /* and old stays dead */
    assert_int_equal(net->stats().objects, 2);
    assert_int_equal(net->owner(world, keep), 1);

    /* The stale handle in a batch destroys nothing of reused's. */
    entity->destroy_batch(&old, 1);
    assert_int_equal(net->owner(world, reused), 1);
    assert_int_equal(net->stats().objects, 2);
    entity->destroy_batch((const ct_entity_t[]){keep, reused}, 2);
    assert_int_equal(net->stats().objects, 0);
    assert_int_equal(net->owner(world, reused), 0);
    net->stop();
}

/* 3000 replicated entities (three pages of the index), each object marked with its entity's
 * place through a script field; a shuffled batch of a third of them dies. Exactly those objects
 * go; every other entity still finds its own object (the swap-and-pop moves kept the index
 * right). Then the world is destroyed with objects in it (nothing may leak). */
#define BATCH_N 3000u
static void a_batch_of_deaths_removes_exactly_those_objects(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "net-batch"});
    assert_non_null(w);
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = w}), 0);
    static ct_entity_t e[BATCH_N], dead[BATCH_N];
    static char ids[BATCH_N * 12 + 32];
    int at = snprintf(ids, sizeof ids, "ids = {");
    for (uint32_t k = 0; k < BATCH_N; k++) {
        e[k] = replicated_entity(w, (float)k);
        at += snprintf(ids + at, sizeof ids - (size_t)at, "%u,", e[k].id);
    }
    snprintf(ids + at, sizeof ids - (size_t)at, "}");
    assert_int_equal(lua->run_string(ids, "=test"), 0);
    assert_int_equal(
        lua->run_string("function mark(w) W = w\n"
                        "  for k, e in ipairs(ids) do Network.set_field(w, e, 'health', k) end\n"
                        "end",
                        "=test"),
        0);
    test_lua_call("mark", w, NULL, 0);
    assert_int_equal(net->stats().objects, BATCH_N);

    /* Every third entity, in a shuffled order. */
    uint32_t num_dead = 0;
    for (uint32_t k = 0; k < BATCH_N; k += 3)
        dead[num_dead++] = e[k];
    uint64_t rng = 99;
    for (uint32_t i = num_dead - 1; i > 0; i--) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        const uint32_t j = (uint32_t)(rng % (i + 1));
        const ct_entity_t t = dead[i];
        dead[i] = dead[j], dead[j] = t;
    }
    entity->destroy_batch(dead, num_dead);
    assert_int_equal(num_dead, BATCH_N / 3);
    assert_int_equal(net->stats().objects, BATCH_N - num_dead);
    uint32_t wrong = 0;
    for (uint32_t k = 0; k < BATCH_N; k++)
        wrong += net->owner(w, e[k]) != (k % 3 == 0 ? 0 : 1);
    assert_int_equal(wrong, 0);
    /* Lua's k is 1-based: entity e[k - 1] died when (k - 1) % 3 == 0. */
    assert_true(lua_true("(function() for k, e in ipairs(ids) do\n"
                         "  local ok, v = pcall(Network.field, W, e, 'health')\n"
                         "  if (k - 1) % 3 == 0 then if ok then return false end\n"
                         "  elseif not ok or v ~= k then return false end\n"
                         "end return true end)()"));
    net->stop();
    worlds->destroy_world(w);
}

static uint32_t transforms_wanted;
static bool transforms_reached(void) { return tf->count(world) == transforms_wanted; }

static ct_transform_pose_t pose_of(ct_entity_t e) { return tf->local(world, tf->lookup(world, e)); }

/* A client's object makes one entity here, however often it is announced: a second CREATE of
 * it (a newer version) and the same CREATE again (stale) only move it. */
static void a_replica_is_made_once_per_object(void **state)
{
    (void)state;
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    client_join();
    const uint32_t before = tf->count(world);
    const uint32_t id =
        net_object_spawn(&client, (const float[NET_FIELDS]){9, 8, 7, 0, 0, 0, 1}, 0xffff);
    assert_true(id != 0);
    transforms_wanted = before + 1;
    assert_true(frames_until(transforms_reached, 3000));
    assert_int_equal(net->stats().objects, 1);

    uint8_t b[128];
    for (uint32_t version = 5; version <= 6; version++)
        for (int again = 0; again < 2; again++) {
            net_obj_msg_t m = {.type = NET_R_CREATE,
                               .origin = 2,
                               .owner = 2,
                               .id = id,
                               .version = version,
                               .mask = 1,
                               .fields = {(float)version}};
            net_writer_t w = net_writer(b, sizeof b);
            net_obj_msg_write(&w, &m);
            assert_int_equal(
                net_node_send(&client.node, (uint32_t)client.host_conn, b, w.n, true, 0), 0);
        }
    const uint64_t stale = net->stats().stale_ignored;
    for (int i = 0; i < 3000 && net->stats().stale_ignored < stale + 2; i++)
        frame();
    assert_int_equal(net->stats().stale_ignored, stale + 2); /* both repeats arrived, refused */
    assert_int_equal(tf->count(world), before + 1);
    assert_int_equal(net->stats().objects, 1);
    client_close();
    net->stop();
}

/* A session never aliases the objects of the one before it in the same world, though the new
 * one numbers its objects from the start again: after stop, an owned entity is no longer
 * replicated and a replica is a plain entity (it stays); a new session's object with the same
 * id as an old one (ours, or a client's) is its own entity, and destroying the old entities
 * leaves the new objects alone. */
static void a_new_session_never_aliases_the_last_ones_objects(void **state)
{
    (void)state;
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    const ct_entity_t old_owned = replicated_entity(world, 1);
    client_join();
    const uint32_t before = tf->count(world);
    const uint32_t old_id =
        net_object_spawn(&client, (const float[NET_FIELDS]){9, 8, 7, 0, 0, 0, 1}, 0xffff);
    transforms_wanted = before + 1;
    assert_true(frames_until(transforms_reached, 3000));
    client_close();
    net->stop();
    assert_int_equal(net->owner(world, old_owned), 0);
    assert_int_equal(tf->count(world), before + 1); /* the replica stays */

    /* The same ids again: the host's first object, the client's first object. */
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    const ct_entity_t new_owned = replicated_entity(world, 2);
    assert_int_equal(net->owner(world, new_owned), 1);
    assert_int_equal(net->owner(world, old_owned), 0);
    assert_int_equal(net->stats().objects, 1);
    client_join();
    const uint32_t new_id =
        net_object_spawn(&client, (const float[NET_FIELDS]){4, 5, 6, 0, 0, 0, 1}, 0xffff);
    assert_int_equal(new_id, old_id);
    transforms_wanted = before + 3; /* new_owned and the new replica */
    assert_true(frames_until(transforms_reached, 3000));
    assert_int_equal(net->stats().objects, 2);
    for (int i = 0; i < 20; i++)
        frame();
    assert_int_equal(tf->count(world), before + 3);
    assert_int_equal(pose_of(old_owned).position[0], 1.0f); /* nothing moved the old entity */

    /* The old owned entity dies: the new object with its old id stays. */
    entity->destroy(old_owned);
    assert_int_equal(net->stats().objects, 2);
    assert_int_equal(net->owner(world, new_owned), 1);
    entity->destroy(new_owned);
    assert_int_equal(net->stats().objects, 1);
    client_close();
    net->stop();
}

/* Issue 28: calls still queued when their peer leaves go with it (they ran with a `from` that
 * had left, and the per-peer byte count wrapped below zero, cutting off the next peer with the
 * id). Budget 32 calls a frame: 100 calls and a breaking one in one burst leave calls queued. */
static void calls_of_a_peer_that_left_never_run(void **state)
{
    (void)state;
    assert_int_equal(
        lua->run_string("Network.rpc('hit', 'number string:8', function(from, damage, who)\n"
                        "  hits = (hits or 0) + 1; last_from = from\n"
                        "end)\n"
                        "hits = 0\n",
                        "=test"),
        0);
    assert_int_equal(net->start(&(ct_network_desc_t){.host = 1, .world = world}), 0);
    client_join();
    net_rpc_registry_t rpc = {0};
    const char *why;
    const net_rpc_schema_t *hit = net_rpc_declare(&rpc, "hit", "number string:8", &why);
    uint8_t msg[64];
    for (int k = 0; k < 100; k++) {
        net_writer_t w = net_writer(msg, sizeof msg);
        const net_rpc_value_t args[2] = {
            {.type = NET_RPC_NUMBER, .number = k},
            {.type = NET_RPC_STRING, .string = (const uint8_t *)"x", .len = 1}};
        assert_true(net_rpc_encode(hit, args, 2, &w, &why));
        assert_int_equal(net_session_send(&client, 1, msg, w.n, true), 0);
    }
    net_writer_t w = net_writer(msg, sizeof msg);
    net_put_u8(&w, NET_RPC);
    net_put_u32(&w, hit->hash);
    net_put_u8(&w, 7); /* the wrong count: a breach */
    assert_int_equal(net_session_send(&client, 1, msg, w.n, true), 0);
    assert_true(frames_until(client_gone, 3000));
    lua->run_string("hits_at_leave = hits", "=test");
    for (int i = 0; i < 20; i++)
        frame();
    assert_true(lua_true("hits == hits_at_leave and hits < 100"));
    assert_int_equal(net->stats().peers, 0);
    client_close();
    net->stop();
}

static void lua_misuse_is_named(void **state)
{
    (void)state;
    assert_int_equal(lua->run_string("Network.start{ prot = 1 }", "=test"), CT_ERR_LUA);
    assert_true(lua_true("not pcall(Network.start, { prot = 1 })"));
    assert_true(
        lua_true("select(2, pcall(Network.start, { prot = 1 })):find('did you mean port')"));
    assert_true(lua_true("select(2, pcall(Network.start, { join = 'nowhere' })):find('invalid')"));
    assert_true(lua_true("select(2, pcall(Network.call, 2, 'hit', 1, 'x')):find('no session')"));
    assert_true(lua_true("select(2, pcall(Network.rpc, 'bad', 'number table', function() "
                         "end)):find('wants an argument type')"));
    assert_true(lua_true(
        "select(2, pcall(Network.set_conditions, 0, { los = 1 })):find('did you mean loss')"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_and_client),
        cmocka_unit_test(the_component_in_resources),
        cmocka_unit_test(a_stale_handle_finds_no_object),
        cmocka_unit_test(a_batch_of_deaths_removes_exactly_those_objects),
        cmocka_unit_test(a_replica_is_made_once_per_object),
        cmocka_unit_test(a_new_session_never_aliases_the_last_ones_objects),
        cmocka_unit_test(calls_of_a_peer_that_left_never_run),
        cmocka_unit_test(lua_misuse_is_named),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
