/*
 * The kernel's figures: booting with several plugins, the cost of a get_engine_api lookup, and a
 * Lua call into a plugin's function (through the kernel's slot trampoline) against a plain
 * lua_CFunction registered directly. The Lua figures are taken twice: as the engine runs (the
 * script watchdog on, its checks in every compiled trace: kernel/lua/lua_watchdog.c) and with the
 * watchdog off (script timeout 0, names ending in _unwatched), to show what it costs.
 */
#include <lauxlib.h>
#include <lua.h>

#include "../common/bench.h"
#include "ct_hash.h"
#include "kernel.h"
#include "lua/lua_env.h"
#include "plugins/registry.h"

#define NUM_PLUGINS 6

static kernel_desc_t desc;

static void boot(void)
{
    if (kernel__boot(&desc)) {
        fprintf(stderr, "bench_kernel: boot failed\n");
        exit(1);
    }
}

static double time_boot_ms(void)
{
    double samples[15];
    for (int i = 0; i < 15; i++) {
        double t0 = bench_now_ns();
        boot();
        samples[i] = (bench_now_ns() - t0) / 1e6;
        kernel__shutdown();
    }
    return bench_median(samples, 15);
}

/* ns per call of get_engine_api for (api, version). */
static double time_lookup_ns(uint32_t api, uint32_t version)
{
    const int n = 2000000;
    double samples[5];
    volatile uintptr_t sink = 0;
    for (int s = 0; s < 5; s++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < n; i++)
            sink += (uintptr_t)registry__get_engine_api(api, version);
        samples[s] = (bench_now_ns() - t0) / n;
    }
    (void)sink;
    return bench_median(samples, 5);
}

static int l_raw_add(lua_State *L)
{
    lua_pushnumber(L, lua_tonumber(L, 1) + lua_tonumber(L, 2));
    return 1;
}

/* ns per iteration of `code`, a chunk that runs n iterations and sets bench_seconds. */
static double time_lua_ns(const char *code, int n)
{
    double samples[5];
    lua_State *L = lua_env__state();
    for (int s = 0; s < 5; s++) {
        lua_env__run_string(code, "=bench");
        lua_getglobal(L, "bench_seconds");
        samples[s] = lua_tonumber(L, -1) * 1e9 / n;
        lua_pop(L, 1);
    }
    return bench_median(samples, 5);
}

/* ns per Lua call of fn(i, 1) in a loop of n iterations, run by the Lua state itself. */
static double time_lua_calls_ns(const char *fn)
{
    const int n = 5000000;
    char code[256];
    snprintf(code, sizeof code,
             "local f, s = %s, 0 local t = os.clock() for i = 1, %d do s = f(i, 1) end "
             "bench_seconds = os.clock() - t",
             fn, n);
    return time_lua_ns(code, n);
}

/* ns per iteration of a compiled Lua loop over several source lines with an inlined call: where
 * the watchdog's per-line checks in traces show most. */
static double time_lua_loop_ns(void)
{
    const int n = 20000000;
    char code[512];
    snprintf(code, sizeof code,
             "local function add(a, b)\n"
             "  return a + b\n"
             "end\n"
             "local x, t = 0, os.clock()\n"
             "for i = 1, %d do\n"
             "  x = add(x, i)\n"
             "  x = bit.band(x, 0xffff)\n"
             "end\n"
             "bench_seconds, bench_sink = os.clock() - t, x\n",
             n);
    return time_lua_ns(code, n);
}

/* ns per call from the engine into a Lua function (the protected call, the watchdog's entry). */
static double time_engine_to_lua_ns(void)
{
    const int n = 1000000;
    lua_env__run_string("function bench_empty() end", "=bench");
    double samples[5];
    for (int s = 0; s < 5; s++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < n; i++)
            lua_env__call_global("bench_empty", 0);
        samples[s] = (bench_now_ns() - t0) / n;
    }
    return bench_median(samples, 5);
}

/* The Lua figures on a booted kernel; `suffix` ends the names ("" or "_unwatched"). */
static void report_lua(const char *suffix, double script_timeout)
{
    char name[96];
    desc.script_timeout = script_timeout;
    boot();
    lua_env__add_raw_function("Raw", "add", l_raw_add);
    /* The same plain function behind a slot: what the trampoline costs, apart from the plugin's
     * calls through the ct.lua table. */
    lua_env__add_function("RawSlot", "add", l_raw_add);
    double plugin_ns = time_lua_calls_ns("Bench.add");
    double raw_ns = time_lua_calls_ns("Raw.add");
    double slot_ns = time_lua_calls_ns("RawSlot.add");
    snprintf(name, sizeof name, "kernel.lua_plugin_call%s_ns", suffix);
    bench_report(strdup(name), plugin_ns, "ns", "Lua -> plugin C function (slot)");
    snprintf(name, sizeof name, "kernel.lua_raw_call%s_ns", suffix);
    bench_report(strdup(name), raw_ns, "ns", "Lua -> plain lua_CFunction");
    snprintf(name, sizeof name, "kernel.lua_slot_raw_call%s_ns", suffix);
    bench_report(strdup(name), slot_ns, "ns", "Lua -> the plain lua_CFunction behind a slot");
    if (!suffix[0])
        bench_report("kernel.lua_plugin_vs_raw_ratio", plugin_ns / raw_ns, "x",
                     "plugin call cost / plain call cost");
    snprintf(name, sizeof name, "kernel.lua_loop%s_ns", suffix);
    bench_report(strdup(name), time_lua_loop_ns(), "ns",
                 "one iteration of a compiled 3-line Lua loop with an inlined call");
    snprintf(name, sizeof name, "kernel.engine_to_lua_call%s_ns", suffix);
    bench_report(strdup(name), time_engine_to_lua_ns(), "ns",
                 "engine -> empty Lua function (call_global)");
    kernel__shutdown();
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    static char paths[NUM_PLUGINS][512];
    for (int i = 0; i < NUM_PLUGINS; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/bench_plugin_%d.so", BENCH_PLUGIN_DIR, i);
        desc.plugin_paths[desc.num_plugin_paths++] = paths[i];
    }
    desc.strict = true;

    bench_report("kernel.boot_6_plugins", time_boot_ms(), "ms",
                 "boot services + load/resolve/init 6 chained plugins");

    boot();
    bench_report("kernel.get_engine_api_kernel_ns", time_lookup_ns(CT_LUA_API, 1), "ns",
                 "get_engine_api for a kernel API");
    bench_report("kernel.get_engine_api_plugin_ns", time_lookup_ns(ct_hash32("bench.p5"), 1), "ns",
                 "get_engine_api for an API a plugin provides");
    kernel__shutdown();
    report_lua("", 0);            /* the default */
    report_lua("_unwatched", -1); /* off */
    bench_print_table();
    return 0;
}
