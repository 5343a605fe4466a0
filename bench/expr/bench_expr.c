/*
 * bench_expr: the expression language's figures beside its peers, measured in one run on the
 * same seven expressions:
 *
 *   expr.eval_ns_<name>               one evaluation (inputs change every call), float
 *   expr.batch_ns_per_lane_trig       the seed's expression over 10,000 lanes (eval_batch)
 *   expr.batch_ns_per_lane_arith      a cubic polynomial over 10,000 lanes
 *   expr.jobs_ns_per_lane_trig        the seed's expression over 100,000 lanes split over the
 *                                     job pool (--jobs N threads, 2 by default)
 *   expr.compile_us                   compiling (and freeing) the seed's expression
 *
 * and the same for each peer as expr.peer.<peer>.<figure>: muparser (libmuparser-dev, double),
 * LuaJIT (a Lua function per expression; its batch is a loop over FFI float arrays), and any
 * library loaded with --peer (bench_peer.h; tinyexpr and exprtk are built that way outside the
 * tree). A peer's batch is its single evaluation in a loop, which is all it offers. The column
 * c_float is the floor of the harness: each expression hand-written in C (libm's sinf, ...) and
 * called through a function pointer the way a library is called.
 *
 * An evaluation loop writes each result into a ring of 256 and sums the ring after the clock
 * stops. Summing inside the loop would chain every call to the previous one through a float
 * spilled across the call (all vector registers are the caller's), a ~3.3 ns floor on this
 * machine under every figure, the hand-written C included: it measured the harness, not the
 * evaluation.
 *
 *   bench_expr [--peer lib.so]... [--jobs N] [--reps N]
 *
 * It prints JSON lines as it goes, then a table. It never fails on time. Single-thread figures
 * are the measuring thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the load of a shared machine
 * inflates them less than wall time would; the jobs figure is wall time (it spans threads).
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "ct_heap.h"
#include "base/jobs.h"
#include "bench.h"
#include "bench_peer.h"
#include "ct_jobs.h"
#include "expr_internal.h"

#ifdef HAVE_MUPARSER
#include <muParserDLL.h>
#endif

static const char *const var_names[BENCH_PEER_VARS] = {"t", "a", "b", "x", "y", "z"};

/* The seven expressions, in syntax every peer reads the same way (no ^, no log). */
static const struct {
    const char *name, *source;
} exprs[] = {
    {"seed", "sin(t) + 0.1 * cos(10 * t)"},
    {"poly", "((0.5 * t - 1.5) * t + 2) * t - 7"},
    {"linear", "a + b * t"},
    {"dist", "sqrt(x * x + y * y + z * z + t)"},
    {"damp", "exp(-0.5 * t) * cos(6.2831853 * t) * a"},
    {"angle", "atan2(y, x + t) * 57.29578 + abs(x - t)"},
    {"wave", "sin(x * 0.5 + t) * cos(y * 0.25 - t) * 0.5 + 0.5"},
};
#define NUM_EXPRS (sizeof exprs / sizeof exprs[0])
#define EVALS 200000
#define RING 256 /* results of the evaluation loops, summed after the clock stops */
#define LANES 10000
#define JOB_LANES 100000

static int reps = 7;

static double cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static volatile double sink;

static void sink_ring(const float *ring)
{
    double sum = 0;
    for (int i = 0; i < RING; i++)
        sum += ring[i];
    sink = sum;
}

/* ---- the table ----------------------------------------------------------------------------- */

#define MAX_COLUMNS 8
static const char *columns[MAX_COLUMNS];
static int num_columns;
/* rows: the 7 expressions, then batch trig, batch arith, compile */
static double table[NUM_EXPRS + 3][MAX_COLUMNS];

static int column(const char *name)
{
    for (int c = 0; c < num_columns; c++)
        if (!strcmp(columns[c], name))
            return c;
    columns[num_columns] = name;
    for (size_t r = 0; r < NUM_EXPRS + 3; r++)
        table[r][num_columns] = NAN;
    return num_columns++;
}

static void report(const char *peer, const char *figure, size_t row, double value, const char *unit)
{
    char name[128];
    if (peer)
        snprintf(name, sizeof name, "expr.peer.%s.%s", peer, figure);
    else
        snprintf(name, sizeof name, "expr.%s", figure);
    printf("{\"name\": \"%s\", \"value\": %.4g, \"unit\": \"%s\"}\n", name, value, unit);
    fflush(stdout);
    table[row][column(peer ? peer : "cuttle")] = value;
}

/* ---- ours ---------------------------------------------------------------------------------- */

static ct_expr_program_o *compile_ours(const char *source)
{
    ct_expr_error_t err;
    ct_expr_program_o *p = expr__compile(source,
                                         &(ct_expr_desc_t){.inputs = var_names,
                                                           .num_inputs = BENCH_PEER_VARS,
                                                           .allocator = ct_heap_allocator()},
                                         NULL, NULL, &err);
    if (!p) {
        fprintf(stderr, "bench_expr: %s: %s\n", source, err.text);
        exit(1);
    }
    return p;
}

static void bench_ours(const ct_jobs_api_v1 *jobs)
{
    double samples[64];
    for (size_t e = 0; e < NUM_EXPRS; e++) {
        ct_expr_program_o *p = compile_ours(exprs[e].source);
        float in[BENCH_PEER_VARS] = {0, 1.5f, 0.25f, 0.3f, 0.7f, 1.1f}, ring[RING];
        for (int r = 0; r < reps; r++) {
            const double t0 = cpu_now_ns();
            for (int i = 0; i < EVALS; i++) {
                in[0] = (float)i * 1e-4f;
                expr__eval(p, in, &ring[i % RING]);
            }
            samples[r] = (cpu_now_ns() - t0) / EVALS;
            sink_ring(ring);
        }
        char figure[64];
        snprintf(figure, sizeof figure, "eval_ns_%s", exprs[e].name);
        report(NULL, figure, e, bench_median(samples, reps), "ns");
        expr__destroy(p);
    }
    /* Batches. */
    static float lanes[BENCH_PEER_VARS][JOB_LANES], out[JOB_LANES];
    for (int i = 0; i < JOB_LANES; i++) {
        lanes[0][i] = (float)i * 1e-3f;
        for (int v = 1; v < BENCH_PEER_VARS; v++)
            lanes[v][i] = 0.5f + (float)v * 0.1f;
    }
    const float *in[BENCH_PEER_VARS];
    for (int v = 0; v < BENCH_PEER_VARS; v++)
        in[v] = lanes[v];
    float *outs[1] = {out};
    static const struct {
        size_t expr;
        const char *figure;
    } batches[] = {{0, "batch_ns_per_lane_trig"}, {1, "batch_ns_per_lane_arith"}};
    for (size_t b = 0; b < 2; b++) {
        ct_expr_program_o *p = compile_ours(exprs[batches[b].expr].source);
        expr__eval_batch(p, in, outs, LANES); /* warm */
        for (int r = 0; r < reps; r++) {
            const double t0 = cpu_now_ns();
            for (int k = 0; k < 20; k++)
                expr__eval_batch(p, in, outs, LANES);
            samples[r] = (cpu_now_ns() - t0) / (20.0 * LANES);
        }
        report(NULL, batches[b].figure, NUM_EXPRS + b, bench_median(samples, reps), "ns");
        if (b == 0) {
            for (int r = 0; r < reps; r++) {
                const double t0 = bench_now_ns();
                for (int k = 0; k < 5; k++)
                    expr__eval_jobs(p, in, outs, JOB_LANES, jobs);
                samples[r] = (bench_now_ns() - t0) / (5.0 * JOB_LANES);
            }
            const double jobs_ns = bench_median(samples, reps);
            printf("{\"name\": \"expr.jobs_ns_per_lane_trig\", \"value\": %.4g, \"unit\": \"ns\", "
                   "\"threads\": %u}\n",
                   jobs_ns, jobs->thread_count());
        }
        expr__destroy(p);
    }
    /* Compile. */
    for (int r = 0; r < reps; r++) {
        const double t0 = cpu_now_ns();
        for (int k = 0; k < 2000; k++)
            expr__destroy(compile_ours(exprs[0].source));
        samples[r] = (cpu_now_ns() - t0) / 2000.0 / 1000.0;
    }
    report(NULL, "compile_us", NUM_EXPRS + 2, bench_median(samples, reps), "us");
}

/* ---- a peer through bench_peer_t ------------------------------------------------------------ */

static void bench_peer(const bench_peer_t *peer)
{
    char label[64];
    snprintf(label, sizeof label, "%s_%s", peer->name, peer->float_bits == 32 ? "float" : "double");
    char *name = strdup(label);
    double dv[BENCH_PEER_VARS] = {0, 1.5, 0.25, 0.3, 0.7, 1.1};
    float fv[BENCH_PEER_VARS] = {0, 1.5f, 0.25f, 0.3f, 0.7f, 1.1f};
    void *vars = peer->float_bits == 32 ? (void *)fv : (void *)dv;
    double samples[64];
    for (size_t e = 0; e < NUM_EXPRS; e++) {
        void *h = peer->compile(exprs[e].source, var_names, vars);
        if (!h) {
            fprintf(stderr, "bench_expr: %s cannot compile %s\n", name, exprs[e].source);
            continue;
        }
        float ring[RING];
        for (int r = 0; r < reps; r++) {
            const double t0 = cpu_now_ns();
            for (int i = 0; i < EVALS; i++) {
                if (peer->float_bits == 32)
                    fv[0] = (float)i * 1e-4f;
                else
                    dv[0] = (double)i * 1e-4;
                ring[i % RING] = (float)peer->eval(h);
            }
            samples[r] = (cpu_now_ns() - t0) / EVALS;
            sink_ring(ring);
        }
        char figure[64];
        snprintf(figure, sizeof figure, "eval_ns_%s", exprs[e].name);
        report(name, figure, e, bench_median(samples, reps), "ns");
        /* Its batch: the scalar call over the lanes, reading and writing arrays. */
        if (e <= 1) {
            static double din[LANES], dout[LANES];
            static float fin[LANES], fout[LANES];
            for (int i = 0; i < LANES; i++)
                din[i] = fin[i] = (float)i * 1e-3f;
            for (int r = 0; r < reps; r++) {
                const double t0 = cpu_now_ns();
                for (int k = 0; k < 5; k++)
                    for (int i = 0; i < LANES; i++) {
                        if (peer->float_bits == 32) {
                            fv[0] = fin[i];
                            fout[i] = (float)peer->eval(h);
                        } else {
                            dv[0] = din[i];
                            dout[i] = peer->eval(h);
                        }
                    }
                samples[r] = (cpu_now_ns() - t0) / (5.0 * LANES);
            }
            sink = dout[7] + fout[7];
            report(name, e == 0 ? "batch_ns_per_lane_trig" : "batch_ns_per_lane_arith",
                   NUM_EXPRS + e, bench_median(samples, reps), "ns");
        }
        peer->destroy(h);
    }
    for (int r = 0; r < reps; r++) {
        const double t0 = cpu_now_ns();
        for (int k = 0; k < 500; k++) {
            void *h = peer->compile(exprs[0].source, var_names, vars);
            if (h)
                peer->destroy(h);
        }
        samples[r] = (cpu_now_ns() - t0) / 500.0 / 1000.0;
    }
    report(name, "compile_us", NUM_EXPRS + 2, bench_median(samples, reps), "us");
}

/* ---- the harness's floor: the expressions in C ----------------------------------------------- */

typedef float (*c_expr_f)(const float *v); /* v: t a b x y z */
static float c_seed(const float *v) { return sinf(v[0]) + 0.1f * cosf(10 * v[0]); }
static float c_poly(const float *v) { return ((0.5f * v[0] - 1.5f) * v[0] + 2) * v[0] - 7; }
static float c_linear(const float *v) { return v[1] + v[2] * v[0]; }
static float c_dist(const float *v)
{
    return sqrtf(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[0]);
}
static float c_damp(const float *v) { return expf(-0.5f * v[0]) * cosf(6.2831853f * v[0]) * v[1]; }
static float c_angle(const float *v)
{
    return atan2f(v[4], v[3] + v[0]) * 57.29578f + fabsf(v[3] - v[0]);
}
static float c_wave(const float *v)
{
    return sinf(v[3] * 0.5f + v[0]) * cosf(v[4] * 0.25f - v[0]) * 0.5f + 0.5f;
}
static const c_expr_f c_exprs[] = {c_seed, c_poly, c_linear, c_dist, c_damp, c_angle, c_wave};

typedef struct c_compiled_t {
    c_expr_f f;
    const float *vars;
} c_compiled_t;

static void *c_compile(const char *source, const char *const *names, void *vars)
{
    (void)names;
    for (size_t e = 0; e < NUM_EXPRS; e++)
        if (!strcmp(source, exprs[e].source)) {
            c_compiled_t *c = malloc(sizeof *c);
            *c = (c_compiled_t){c_exprs[e], vars};
            return c;
        }
    return NULL;
}
static double c_eval(void *c) { return ((c_compiled_t *)c)->f(((c_compiled_t *)c)->vars); }
static const bench_peer_t c_peer = {"c", 32, c_compile, c_eval, free};

#ifdef HAVE_MUPARSER
/* muparser through its C API. Its parse is lazy (the first evaluation), so compile evaluates once. */
static void *mu_compile(const char *source, const char *const *names, void *vars)
{
    muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
    for (int v = 0; v < BENCH_PEER_VARS; v++)
        mupDefineVar(h, names[v], (double *)vars + v);
    mupSetExpr(h, source);
    mupEval(h);
    if (mupError(h)) {
        fprintf(stderr, "muparser: %s\n", mupGetErrorMsg(h));
        mupRelease(h);
        return NULL;
    }
    return h;
}
static double mu_eval(void *h) { return mupEval(h); }
static void mu_destroy(void *h) { mupRelease(h); }
static const bench_peer_t muparser_peer = {"muparser", 64, mu_compile, mu_eval, mu_destroy};
#endif

/* ---- LuaJIT -------------------------------------------------------------------------------- */

static int l_now_ns(lua_State *L)
{
    lua_pushnumber(L, cpu_now_ns());
    return 1;
}

/* Each expression becomes a Lua function of (t, a, b, x, y, z) with math's functions as upvalues;
 * the eval loop calls it with a changing t, the batch loop maps FFI float arrays. */
static const char *const lua_bench =
    "local ffi = require('ffi')\n"
    "local function make(src)\n"
    "  return assert(loadstring('local sin, cos, exp, sqrt, abs, atan2 = math.sin, math.cos, '\n"
    "    .. 'math.exp, math.sqrt, math.abs, math.atan2 return function(t, a, b, x, y, z) return '\n"
    "    .. src .. ' end'))()\n"
    "end\n"
    "local function median(s) table.sort(s) return s[math.ceil(#s / 2)] end\n"
    "function bench_eval(src, n, reps)\n"
    "  local f, s = make(src), {}\n"
    "  for r = 1, reps do\n"
    "    local t0, sum = now_ns(), 0\n"
    "    for i = 0, n - 1 do sum = sum + f(i * 1e-4, 1.5, 0.25, 0.3, 0.7, 1.1) end\n"
    "    s[r] = (now_ns() - t0) / n; sink = sum\n"
    "  end\n"
    "  return median(s)\n"
    "end\n"
    "function bench_batch(src, lanes, reps)\n"
    "  local f, s = make(src), {}\n"
    "  local t, out = ffi.new('float[?]', lanes), ffi.new('float[?]', lanes)\n"
    "  for i = 0, lanes - 1 do t[i] = i * 1e-3 end\n"
    "  for r = 1, reps do\n"
    "    local t0 = now_ns()\n"
    "    for k = 1, 5 do for i = 0, lanes - 1 do out[i] = f(t[i], 1.5, 0.25, 0.3, 0.7, 1.1) end "
    "end\n"
    "    s[r] = (now_ns() - t0) / (5 * lanes)\n"
    "  end\n"
    "  return median(s)\n"
    "end\n"
    "function bench_compile(src, n, reps)\n"
    "  local s = {}\n"
    "  for r = 1, reps do\n"
    "    local t0 = now_ns()\n"
    "    for i = 1, n do make(src) end\n"
    "    s[r] = (now_ns() - t0) / n / 1000\n"
    "  end\n"
    "  return median(s)\n"
    "end\n";

static double lua_figure(lua_State *L, const char *fn, const char *src, int n)
{
    lua_getglobal(L, fn);
    lua_pushstring(L, src);
    lua_pushinteger(L, n);
    lua_pushinteger(L, reps);
    if (lua_pcall(L, 3, 1, 0)) {
        fprintf(stderr, "bench_expr: LuaJIT: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static void bench_luajit(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_register(L, "now_ns", l_now_ns);
    if (luaL_dostring(L, lua_bench)) {
        fprintf(stderr, "bench_expr: LuaJIT: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    for (size_t e = 0; e < NUM_EXPRS; e++) {
        char figure[64];
        snprintf(figure, sizeof figure, "eval_ns_%s", exprs[e].name);
        report("luajit", figure, e, lua_figure(L, "bench_eval", exprs[e].source, EVALS), "ns");
    }
    report("luajit", "batch_ns_per_lane_trig", NUM_EXPRS,
           lua_figure(L, "bench_batch", exprs[0].source, LANES), "ns");
    report("luajit", "batch_ns_per_lane_arith", NUM_EXPRS + 1,
           lua_figure(L, "bench_batch", exprs[1].source, LANES), "ns");
    report("luajit", "compile_us", NUM_EXPRS + 2,
           lua_figure(L, "bench_compile", exprs[0].source, 500), "us");
    lua_close(L);
}

int main(int argc, char **argv)
{
    uint32_t threads = 2;
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--jobs"))
            threads = (uint32_t)atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]) > 0 && atoi(argv[i + 1]) <= 64 ? atoi(argv[i + 1]) : reps;
    }
    if (jobs__init(threads)) {
        fprintf(stderr, "bench_expr: no job pool\n");
        return 1;
    }
    printf("# expr lanes: %s; %u job threads; the machine may be shared, so figures are noisy\n",
           expr__lanes_name(), jobs__api_v1()->thread_count());
    bench_ours(jobs__api_v1());
    bench_peer(&c_peer);
#ifdef HAVE_MUPARSER
    bench_peer(&muparser_peer);
#endif
    bench_luajit();
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--peer"))
            continue;
        void *lib = dlopen(argv[i + 1], RTLD_NOW | RTLD_LOCAL);
        bench_peers_f get = lib ? (bench_peers_f)dlsym(lib, "bench_peers") : NULL;
        if (!get) {
            fprintf(stderr, "bench_expr: %s: %s\n", argv[i + 1], dlerror());
            continue;
        }
        const bench_peer_t *peers;
        const int n = get(&peers);
        for (int k = 0; k < n; k++)
            bench_peer(&peers[k]);
    }
    jobs__shutdown();
    /* The table: one column per implementation. */
    printf("\n%-28s", "figure");
    for (int c = 0; c < num_columns; c++)
        printf(" %15s", columns[c]);
    printf("\n");
    for (size_t r = 0; r < NUM_EXPRS + 3; r++) {
        char label[64];
        if (r < NUM_EXPRS)
            snprintf(label, sizeof label, "eval_ns_%s", exprs[r].name);
        else
            snprintf(label, sizeof label, "%s",
                     r == NUM_EXPRS       ? "batch_ns_per_lane_trig"
                     : r == NUM_EXPRS + 1 ? "batch_ns_per_lane_arith"
                                          : "compile_us");
        printf("%-28s", label);
        for (int c = 0; c < num_columns; c++)
            printf(" %15.3g", table[r][c]);
        printf("\n");
    }
    return 0;
}
