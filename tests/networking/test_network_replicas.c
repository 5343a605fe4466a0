/*
 * Replicas as a game script sees them (modules/networking/network_replicas.c): the engine hosts
 * through Lua; a client made from the networking core (its own socket on 127.0.0.1) creates an
 * object, moves it in steps at its tick, then destroys it. The script gets a "created" and a
 * "destroyed" event with the entity and the object, Network.replicas() lists the replica while it
 * lives, and its transform passes through positions between the steps (interpolation, delay
 * 100 ms), never backwards; with delay 0 it only ever shows the steps.
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
#include "ct_transform.h"
#include "ct_world.h"
#include "net_test_support.h"
#include "test_kernel.h"

#include <math.h>
#include <time.h>

static const ct_lua_api_v1 *lua;
static const ct_transform_api_v2 *tf;
static const ct_network_api_v1 *net;
static ct_world_o *world;
static test_alloc_t alloc;
static net_session_t client;
static net_udp_t *client_udp;

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

static double lua_number(const char *expr)
{
    char code[512];
    snprintf(code, sizeof code, "test_n = %s", expr);
    if (lua->run_string(code, "=test"))
        return NAN;
    lua_State *L = lua->main_state();
    lua->get_field(L, -10002, "test_n");
    const double v = lua->to_number(L, -1);
    lua->set_top(L, -2);
    return v;
}

static void frame(void)
{
    kernel__frame(1.0 / 60);
    net_udp_poll(client_udp, 4096);
    net_session_tick(&client, net_udp_now());
    nanosleep(&(struct timespec){0, 2000000}, NULL);
}

static bool frames_until(const char *expr, uint32_t max)
{
    for (uint32_t i = 0; i < max; i++) {
        frame();
        if (lua_true(expr))
            return true;
    }
    return false;
}

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("networking", "ct_networking")};
    const kernel_desc_t desc = test_kernel_desc(paths, 3);
    const test_world_t *t = test_world_boot(&desc, "net");
    lua = t->lua, world = t->world;
    tf = test_kernel_api(CT_TRANSFORM_API, 2);
    net = test_kernel_api(CT_NETWORK_API, 1);
    assert_non_null(net);
    return 0;
}

/* Moves the client's object along x in steps of 0.5, one per 50 ms, for `steps` steps, running
 * engine frames meanwhile; returns how many frames drew the replica between two steps, and fails
 * if it ever went backwards. */
static uint32_t move_in_steps(uint32_t object, uint32_t steps, float *x)
{
    uint32_t between = 0;
    double last = -1;
    for (uint32_t s = 0; s < steps; s++) {
        *x += 0.5f;
        const float fields[NET_FIELDS] = {*x, 0, 0, 0, 0, 0, 1};
        assert_int_equal(net_object_set(&client, object, 0x7, fields), 0);
        const uint64_t until = net_udp_now() + 50000;
        while (net_udp_now() < until) {
            frame();
            const double rx = lua_number("select(1, Transform.local_position(W, replica))");
            assert_false(rx < last - 1e-6);
            last = rx;
            const double steps_of = rx / 0.5;
            between += fabs(steps_of - floor(steps_of + 0.5)) > 1e-3;
        }
    }
    return between;
}

static void replicas_for_scripts(void **state)
{
    (void)state;
    lua_State *L = lua->main_state();
    lua->push_light_userdata(L, world);
    lua->set_field(L, -10002, "W");
    assert_int_equal(
        lua->run_string("Network.start{ port = 0, host = true, world = W }\n"
                        "events = {}\n"
                        "function collect() for _, e in ipairs(Network.replica_events()) do "
                        "events[#events + 1] = e end end",
                        "=test"),
        0);
    test_alloc_init(&alloc);
    uint16_t port = 0;
    const net_addr_t any = net_addr_loopback4(0);
    assert_int_equal(net_udp_open(&client_udp, &alloc.base, &any, NULL, &port), 0);
    const net_session_desc_t d = {
        .node = {.a = &alloc.base, .max_peers = 4, .send = net_udp_send, .send_user = client_udp},
        .max_objects = 64,
        .tick_hz = 20};
    assert_int_equal(net_session_init(&client, &d), 0);
    net_udp_set_node(client_udp, &client.node);
    const net_addr_t host = net_addr_loopback4(net->port());
    assert_int_equal(net_session_join(&client, &host, net_udp_now()), 0);
    for (int i = 0; i < 3000 && !client.joined; i++)
        frame();
    assert_true(client.joined);

    float x = 0;
    const uint32_t object =
        net_object_spawn(&client, (const float[NET_FIELDS]){0, 0, 0, 0, 0, 0, 1}, 0xffff);
    assert_true(object != 0);
    assert_true(frames_until("(collect() or true) and #events == 1", 3000));
    char check[256];
    snprintf(check, sizeof check,
             "events[1].type == 'created' and events[1].object == %u and events[1].owner == 2",
             object);
    assert_true(lua_true(check));
    assert_true(
        lua_true("#Network.replicas() == 1 and Network.replicas()[1].entity == events[1].entity"));
    assert_true(lua_true("Network.replicas()[1].owner == 2"));
    assert_int_equal(lua->run_string("replica = events[1].entity", "=test"), 0);

    /* Interpolated: frames between the steps show positions between them. */
    const uint32_t smooth = move_in_steps(object, 20, &x);
    assert_true(smooth > 0);
    /* Delay 0: only the steps. */
    assert_int_equal(lua->run_string("Network.set_interpolation{ delay_ms = 0 }", "=test"), 0);
    assert_int_equal(move_in_steps(object, 10, &x), 0);
    assert_false(lua_true("pcall(Network.set_interpolation, { delay_ms = -1 })"));
    assert_int_equal(lua->run_string("Network.set_interpolation{ delay_ms = 100 }", "=test"), 0);
    /* It settles on the newest state once no more updates come. */
    snprintf(check, sizeof check, "select(1, Transform.local_position(W, replica)) == %g",
             (double)x);
    assert_true(frames_until(check, 3000));

    /* Destroyed: the event names it, and the list is empty. */
    assert_int_equal(net_object_destroy(&client, object), 0);
    assert_true(frames_until("(collect() or true) and #events == 2", 3000));
    assert_true(lua_true("events[2].type == 'destroyed' and events[2].entity == replica"));
    assert_true(lua_true("#Network.replicas() == 0 and not Entity.alive(replica)"));

    net_session_free(&client);
    net_udp_close(client_udp);
    assert_int_equal(alloc.live_bytes, 0);
    net->stop();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replicas_for_scripts),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
