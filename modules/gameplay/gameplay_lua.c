/*
 * gameplay_lua.c: the Clock and Timer modules for scripts (api/ct_gameplay.h). Timers are Lua
 * closures, so they live on the Lua side (the prelude below) and survive a reload of the module
 * with the Lua state; C calls Timer._run with the game time once per frame.
 */
#include "gameplay_internal.h"

#include <math.h>
#include <string.h>

#define L_API (gameplay__m.lua)

static int l_dt(lua_State *L)
{
    L_API->push_number(L, gameplay__clock_api_v1.dt());
    return 1;
}
static int l_time(lua_State *L)
{
    L_API->push_number(L, gameplay__clock_api_v1.time());
    return 1;
}
static int l_real_dt(lua_State *L)
{
    L_API->push_number(L, gameplay__clock_api_v1.real_dt());
    return 1;
}
static int l_frame(lua_State *L)
{
    L_API->push_number(L, (double)gameplay__clock_api_v1.frame());
    return 1;
}
static int l_pause(lua_State *L)
{
    (void)L;
    gameplay__clock_api_v1.set_paused(1);
    return 0;
}
static int l_resume(lua_State *L)
{
    (void)L;
    gameplay__clock_api_v1.set_paused(0);
    return 0;
}
static int l_paused(lua_State *L)
{
    L_API->push_boolean(L, gameplay__clock_api_v1.paused() != 0);
    return 1;
}
static int l_scale(lua_State *L)
{
    L_API->push_number(L, gameplay__clock_api_v1.scale());
    return 1;
}

static int l_set_scale(lua_State *L)
{
    const double s = L_API->check_number(L, 1);
    if (!(s >= 0.0 && s <= 100.0))
        return L_API->error(L, "Clock.set_scale: a scale is 0..100, not %g", s);
    gameplay__clock_api_v1.set_scale(s);
    return 0;
}

static int l_report(lua_State *L)
{
    GAMEPLAY_LOG(CT_LOG_ERROR, "timer %.0f: %s", L_API->to_number(L, 1),
                 L_API->to_string(L, 2, NULL));
    return 0;
}

void gameplay__register_lua(void)
{
    static const ct_lua_reg_t clock[] = {
        {"dt", l_dt},         {"time", l_time},   {"real_dt", l_real_dt},
        {"frame", l_frame},   {"pause", l_pause}, {"resume", l_resume},
        {"paused", l_paused}, {"scale", l_scale}, {"set_scale", l_set_scale},
    };
    static const ct_lua_reg_t timer[] = {{"_report", l_report}};
    L_API->register_module("Clock", clock, sizeof clock / sizeof clock[0]);
    L_API->register_module("Timer", timer, sizeof timer / sizeof timer[0]);
}

static const char prelude[] =
    "local Timer, now, report = Timer, Clock.time, Timer._report\n"
    "local traceback = debug and debug.traceback or tostring\n"
    "local pending, serial, count = {}, 0, 0\n"
    "local MAX_RUNS = 64\n"
    "local function add(what, seconds, fn, period, ...)\n"
    "  if type(seconds) ~= 'number' or seconds ~= seconds or seconds == math.huge or seconds < 0\n"
    "     or (period and seconds <= 0) then\n"
    "    error('Timer.' .. what .. ': seconds must be finite and ' .. (period and '> 0' or '>= 0') "
    ".. ', not '\n"
    "          .. tostring(seconds), 3)\n"
    "  end\n"
    "  if type(fn) ~= 'function' then error('Timer.' .. what .. ': argument 2 is a function', 3) "
    "end\n"
    "  serial, count = serial + 1, count + 1\n"
    "  pending[serial] = {due = now() + seconds, period = period and seconds, fn = fn, n = "
    "select('#', ...), ...}\n"
    "  return serial\n"
    "end\n"
    "function Timer.after(seconds, fn, ...) return add('after', seconds, fn, false, ...) end\n"
    "function Timer.every(seconds, fn, ...) return add('every', seconds, fn, true, ...) end\n"
    "function Timer.cancel(id)\n"
    "  if pending[id] then pending[id], count = nil, count - 1 return true end\n"
    "  return false\n"
    "end\n"
    "function Timer.pending() return count end\n"
    "function Timer._run(t)\n"
    "  if count == 0 then return end\n"
    "  local due = {}\n"
    "  for id, tm in pairs(pending) do if tm.due <= t then due[#due + 1] = id end end\n"
    "  if #due == 0 then return end\n"
    "  table.sort(due, function(a, b)\n"
    "    local x, y = pending[a].due, pending[b].due\n"
    "    if x ~= y then return x < y end\n"
    "    return a < b\n"
    "  end)\n"
    "  for _, id in ipairs(due) do\n"
    "    local tm, runs = pending[id], 0\n"
    "    while tm and pending[id] == tm and tm.due <= t and runs < MAX_RUNS do\n"
    "      runs = runs + 1\n"
    "      if tm.period then tm.due = tm.due + tm.period else pending[id], count = nil, count - 1 "
    "end\n"
    "      local ok, err = xpcall(tm.fn, traceback, unpack(tm, 1, tm.n))\n"
    "      if not ok then report(id, err) end\n"
    "    end\n"
    "    if tm and tm.period and pending[id] == tm and tm.due <= t then tm.due = t + tm.period "
    "end\n"
    "  end\n"
    "end\n";

int gameplay__lua_init(void) { return L_API->run_string(prelude, "=gameplay_timers"); }

void gameplay__run_timers(void)
{
    lua_State *L = L_API->main_state();
    const int top = L_API->get_top(L);
    if (L_API->get_field(L, CT_LUA_GLOBALS, "Timer") == CT_LUA_TABLE &&
        L_API->get_field(L, -1, "_run") == CT_LUA_FUNCTION) {
        L_API->push_number(L, gameplay__clock_api_v1.time());
        L_API->pcall(L, 1, 0);
    }
    L_API->set_top(L, top);
}
