/*
 * bench_peer.h: how bench_expr measures another expression library in the same run without the
 * repository holding its code. A peer is a shared library built outside the tree (for example
 * tinyexpr or exprtk from their public sources under /tmp/peers) that exports
 *
 *     int bench_peers(const bench_peer_t **peers);   // returns how many, fills *peers
 *
 * and bench_expr loads it with `--peer path.so` (repeatable). muparser (Debian's
 * libmuparser-dev) and LuaJIT are measured by bench_expr itself.
 */
#ifndef BENCH_PEER_H
#define BENCH_PEER_H

#define BENCH_PEER_VARS 6 /* t a b x y z, in that order */

typedef struct bench_peer_t {
    const char *name; /* "exprtk", "tinyexpr", ... */
    int float_bits;   /* 32 or 64: the type of vars and of what eval returns */
    /* Compiles `source` over the variables `names` bound to `vars` (BENCH_PEER_VARS floats or
     * doubles, as float_bits says, which the bench changes between evaluations). NULL on
     * failure. */
    void *(*compile)(const char *source, const char *const *names, void *vars);
    /* Evaluates with the variables' current values. */
    double (*eval)(void *compiled);
    void (*destroy)(void *compiled);
} bench_peer_t;

typedef int (*bench_peers_f)(const bench_peer_t **peers);

#endif
