/* Tracked allocators. Every block carries a header in front of it that links it into its
 * allocator's list of live blocks and remembers its size and call site, so an allocator can count
 * what it holds and, when destroyed, name the places that leaked. The debug modes of the seed post
 * "Extreme Bug Hunting" sit on top of that header: fill patterns for new and freed memory, and
 * guard bytes on both sides of the caller's bytes that are verified on free and realloc.
 *
 * Layout of one block, from the pointer the backing allocator returned:
 *
 *     [block_t: links, owner, site, size, magic, front guard][caller's bytes][back guard]
 *
 * The back guard exists only in blocks made while canary mode was on (the magic says which), so
 * blocks survive a change of mode between memory__init calls. */
#include "ct_heap.h"
#include "base/memory.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "base/log.h"
#include "plugins/registry.h"

#define MEMORY_NAME_SIZE 64
#define MEMORY_GUARD_SIZE 16
#define MEMORY_REPORT_SITES 8

#define FILL_NEW 0xCD
#define FILL_FREED 0xDD
#define GUARD_BYTE 0xFD

/* The magic tells a live block from anything else and records whether it has a back guard. */
enum {
    MAGIC_PLAIN = 0x6b6c4243u,
    MAGIC_GUARDED = 0x6b6c4247u,
    MAGIC_FREED = 0x6b6c4246u,
};

typedef struct block_t {
    struct block_t *prev, *next;
    struct ct_allocator_o *owner;
    const char *file;
    size_t size;
    uint32_t line;
    uint32_t magic;
    /* Last, so a write just before the caller's bytes hits it rather than the header. Filled and
     * checked only in guarded blocks; padding otherwise. */
    uint8_t front_guard[MEMORY_GUARD_SIZE];
} block_t;

_Static_assert(sizeof(block_t) % _Alignof(max_align_t) == 0,
               "the header must keep the caller's bytes maximally aligned");

struct ct_allocator_o {
    ct_allocator_t iface; /* what callers hold; iface.inst points back here */
    /* Where raw memory comes from: malloc for the root and its descendants, or an allocator the
     * caller made (a parent we do not track, such as a test's failing allocator). */
    ct_allocator_t *backing;
    struct ct_allocator_o *parent, *first_child, *next_sibling;
    uv_mutex_t lock; /* guards the block list, the stats and the child list */
    block_t live;    /* sentinel of the circular list of live blocks */
    ct_allocator_stats_t stats;
    char name[MEMORY_NAME_SIZE];
};

static struct {
    struct ct_allocator_o root;
    bool ready;
    uint32_t modes;
    atomic_uint_fast64_t corruptions;
    atomic_uint_fast64_t leaks_reported; /* by every teardown since init */
    /* memory__fail_nth: allocations counted while armed, and the one to refuse (0: unarmed). */
    atomic_uint_fast64_t allocations;
    atomic_uint_fast64_t fail_at; /* 0: none */
} g_mem;

static void *tracked_realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                             const char *file, uint32_t line);

static struct ct_allocator_o *tracked(const ct_allocator_t *a)
{
    return a && a->realloc == tracked_realloc ? (struct ct_allocator_o *)a->inst : NULL;
}

/* The call site a block remembers, fit to print: a plugin's __FILE__ strings go away when its
 * library is unloaded, and leaks are reported after that. */
static const char *site_file(const block_t *b)
{
    Dl_info info;
    return dladdr(b->file, &info) ? b->file : "(code since unloaded)";
}

static uint8_t *user_bytes(block_t *b) { return (uint8_t *)(b + 1); }
static block_t *block_of(void *ptr) { return (block_t *)ptr - 1; }
static bool guarded(const block_t *b) { return b->magic == MAGIC_GUARDED; }

static size_t raw_size(size_t size, bool with_guard)
{
    return sizeof(block_t) + size + (with_guard ? MEMORY_GUARD_SIZE : 0);
}

static bool guard_intact(const uint8_t *guard)
{
    for (int i = 0; i < MEMORY_GUARD_SIZE; i++)
        if (guard[i] != GUARD_BYTE)
            return false;
    return true;
}

static void link_block(struct ct_allocator_o *o, block_t *b)
{
    b->prev = &o->live;
    b->next = o->live.next;
    o->live.next->prev = b;
    o->live.next = b;
}

static void unlink_block(block_t *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
}

static void count_growth(struct ct_allocator_o *o, size_t old_size, size_t new_size)
{
    o->stats.live_bytes = o->stats.live_bytes - old_size + new_size;
    if (o->stats.live_bytes > o->stats.peak_bytes)
        o->stats.peak_bytes = o->stats.live_bytes;
}

static void *allocate(struct ct_allocator_o *o, size_t size, const char *file, uint32_t line)
{
    bool with_guard = g_mem.modes & MEMORY_DEBUG_CANARY;
    if (size > SIZE_MAX - raw_size(0, true))
        return NULL;
    block_t *b = o->backing->realloc(o->backing, NULL, 0, raw_size(size, with_guard), file, line);
    if (!b)
        return NULL;
    b->owner = o;
    b->file = file;
    b->line = line;
    b->size = size;
    b->magic = with_guard ? MAGIC_GUARDED : MAGIC_PLAIN;
    if (with_guard) {
        memset(b->front_guard, GUARD_BYTE, MEMORY_GUARD_SIZE);
        memset(user_bytes(b) + size, GUARD_BYTE, MEMORY_GUARD_SIZE);
    }
    if (g_mem.modes & MEMORY_DEBUG_FILL)
        memset(user_bytes(b), FILL_NEW, size);

    uv_mutex_lock(&o->lock);
    link_block(o, b);
    o->stats.live_blocks++;
    o->stats.total_allocations++;
    count_growth(o, 0, size);
    uv_mutex_unlock(&o->lock);
    return user_bytes(b);
}

static void release(struct ct_allocator_o *o, block_t *b, const char *file, uint32_t line)
{
    uv_mutex_lock(&o->lock);
    unlink_block(b);
    o->stats.live_blocks--;
    o->stats.live_bytes -= b->size;
    uv_mutex_unlock(&o->lock);

    size_t total = raw_size(b->size, guarded(b));
    if (g_mem.modes & MEMORY_DEBUG_FILL)
        memset(user_bytes(b), FILL_FREED, b->size);
    /* Left behind so a second free of the same pointer is recognised while the memory is still
     * mapped (it is not a guarantee: the backing allocator may reuse the bytes). */
    b->magic = MAGIC_FREED;
    o->backing->realloc(o->backing, b, total, 0, file, line);
}

/* Verifies a block handed back to `o` by free or realloc. A bad block is reported, counted and
 * left alone: freeing memory whose bookkeeping is broken would spread the damage. */
static bool block_valid(struct ct_allocator_o *o, block_t *b, size_t old_size, const char *verb,
                        const char *file, uint32_t line)
{
    if (b->magic != MAGIC_PLAIN && b->magic != MAGIC_GUARDED) {
        atomic_fetch_add(&g_mem.corruptions, 1);
        log__error("memory: allocator '%s': %s at %s:%u of %p, which is not a live block (freed "
                   "twice, never allocated, or the bytes just before it were overwritten)",
                   o->name, verb, file, line, (void *)user_bytes(b));
        return false;
    }
    const char *problem = NULL;
    char mismatch[64];
    bool check = g_mem.modes & MEMORY_DEBUG_CANARY;
    if (b->owner != o) {
        /* The owner's name is not printed: that allocator may already be destroyed. */
        problem = "it belongs to another allocator";
    } else if (guarded(b) && !guard_intact(b->front_guard)) {
        problem = "the guard before it was overwritten (buffer underflow)";
    } else if (guarded(b) && !guard_intact(user_bytes(b) + b->size)) {
        problem = "the guard after it was overwritten (buffer overflow)";
    } else if (check && old_size != b->size) {
        snprintf(mismatch, sizeof mismatch, "the caller says its size is %zu", old_size);
        problem = mismatch;
    }
    if (!problem)
        return true;
    atomic_fetch_add(&g_mem.corruptions, 1);
    log__error("memory: allocator '%s': %s at %s:%u of the %zu-byte block allocated at %s:%u: %s",
               o->name, verb, file, line, b->size, site_file(b), b->line, problem);
    return false;
}

/* Fill mode moves every resized block, so the old copy is painted as freed and a stale pointer
 * into it reads garbage instead of plausible data. Otherwise the backing allocator resizes in
 * place when it can. */
static void *resize(struct ct_allocator_o *o, block_t *b, size_t new_size, const char *file,
                    uint32_t line)
{
    if (g_mem.modes & MEMORY_DEBUG_FILL) {
        void *moved = allocate(o, new_size, file, line);
        if (!moved)
            return NULL;
        memcpy(moved, user_bytes(b), b->size < new_size ? b->size : new_size);
        release(o, b, file, line);
        return moved;
    }
    bool with_guard = guarded(b);
    if (new_size > SIZE_MAX - raw_size(0, true))
        return NULL;
    size_t old_size = b->size;
    uv_mutex_lock(&o->lock);
    unlink_block(b);
    block_t *nb = o->backing->realloc(o->backing, b, raw_size(old_size, with_guard),
                                      raw_size(new_size, with_guard), file, line);
    if (!nb) {
        link_block(o, b); /* the old block is untouched and still the caller's */
        uv_mutex_unlock(&o->lock);
        return NULL;
    }
    nb->size = new_size;
    nb->file = file;
    nb->line = line;
    link_block(o, nb);
    count_growth(o, old_size, new_size);
    uv_mutex_unlock(&o->lock);
    if (with_guard)
        memset(user_bytes(nb) + new_size, GUARD_BYTE, MEMORY_GUARD_SIZE);
    return user_bytes(nb);
}

/* While memory__fail_nth is armed, counts an allocation (a new block or a growth) and says
 * whether it is the one to refuse; unarmed, one relaxed load. */
static bool refuse_for_test(void)
{
    if (atomic_load_explicit(&g_mem.fail_at, memory_order_relaxed) == 0)
        return false;
    uint_fast64_t at = atomic_fetch_add(&g_mem.allocations, 1) + 1;
    return atomic_compare_exchange_strong(&g_mem.fail_at, &at, 0);
}

uint64_t memory__fail_nth(uint64_t n)
{
    const uint64_t counted = atomic_exchange(&g_mem.allocations, 0);
    atomic_store(&g_mem.fail_at, n);
    return counted;
}

static void *tracked_realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                             const char *file, uint32_t line)
{
    struct ct_allocator_o *o = (struct ct_allocator_o *)a->inst;
    if (new_size > old_size && refuse_for_test())
        return NULL;
    if (!ptr)
        return new_size ? allocate(o, new_size, file, line) : NULL;
    block_t *b = block_of(ptr);
    if (!block_valid(o, b, old_size, new_size ? "realloc" : "free", file, line))
        return NULL;
    if (new_size == 0) {
        release(o, b, file, line);
        return NULL;
    }
    return resize(o, b, new_size, file, line);
}

int memory__parse_debug_modes(const char *text, char *err, size_t err_size)
{
    static const struct {
        const char *name;
        uint32_t bits;
    } names[] = {
        {"fill", MEMORY_DEBUG_FILL},
        {"canary", MEMORY_DEBUG_CANARY},
        {"all", MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY},
        {"none", 0},
    };
    uint32_t modes = 0;
    const char *p = text ? text : "";
    while (*p) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] &&
               !(strlen(names[i].name) == len && strncmp(names[i].name, p, len) == 0))
            i++;
        if (i == sizeof names / sizeof names[0]) {
            if (err && err_size)
                snprintf(err, err_size,
                         "memory debug mode '%.*s' is not one of fill, canary, all, none", (int)len,
                         p);
            return -1;
        }
        modes |= names[i].bits;
        p += len;
        if (*p == ',')
            p++;
    }
    return (int)modes;
}

static int setup(struct ct_allocator_o *o, ct_allocator_t *backing, const char *name)
{
    memset(o, 0, sizeof *o);
    if (uv_mutex_init(&o->lock) != 0)
        return CT_ERR_INIT_FAILED;
    o->iface.inst = o;
    o->iface.realloc = tracked_realloc;
    o->backing = backing;
    o->live.prev = o->live.next = &o->live;
    snprintf(o->name, sizeof o->name, "%s", name && *name ? name : "unnamed");
    return CT_ERR_OK;
}

int memory__init(uint32_t modes)
{
    if (g_mem.ready) {
        log__error("memory: memory__init called twice without memory__shutdown");
        return CT_ERR_INVALID;
    }
    int err = setup(&g_mem.root, ct_heap_allocator(), "kernel");
    if (err)
        return err;
    g_mem.modes = modes;
    atomic_store(&g_mem.corruptions, 0);
    atomic_store(&g_mem.leaks_reported, 0);
    g_mem.ready = true;
    return CT_ERR_OK;
}

ct_allocator_t *memory__root(void) { return g_mem.ready ? &g_mem.root.iface : NULL; }

ct_allocator_t *memory__create(ct_allocator_t *parent, const char *name)
{
    if (!parent)
        parent = memory__root();
    if (!parent) {
        log__error("memory: cannot create allocator '%s' before memory__init",
                   name ? name : "unnamed");
        return NULL;
    }
    struct ct_allocator_o *p = tracked(parent);
    ct_allocator_t *backing = p ? p->backing : parent;
    struct ct_allocator_o *o = backing->realloc(backing, NULL, 0, sizeof *o, __FILE__, __LINE__);
    if (!o)
        return NULL;
    if (setup(o, backing, name) != CT_ERR_OK) {
        backing->realloc(backing, o, sizeof *o, 0, __FILE__, __LINE__);
        return NULL;
    }
    if (p) {
        uv_mutex_lock(&p->lock);
        o->parent = p;
        o->next_sibling = p->first_child;
        p->first_child = o;
        uv_mutex_unlock(&p->lock);
    }
    return &o->iface;
}

/* Checks one live block of `o` (lock held): its header and, in a guarded block, both guards.
 * A damaged block is reported and counted; it is left as it is. */
static bool verify_block(struct ct_allocator_o *o, block_t *b)
{
    const char *problem = NULL;
    if (b->magic != MAGIC_PLAIN && b->magic != MAGIC_GUARDED)
        problem = "its header was overwritten";
    else if (guarded(b) && !guard_intact(b->front_guard))
        problem = "the guard before it was overwritten (buffer underflow)";
    else if (guarded(b) && !guard_intact(user_bytes(b) + b->size))
        problem = "the guard after it was overwritten (buffer overflow)";
    if (!problem)
        return true;
    atomic_fetch_add(&g_mem.corruptions, 1);
    if (b->magic == MAGIC_PLAIN || b->magic == MAGIC_GUARDED)
        log__error("memory: allocator '%s': the live %zu-byte block allocated at %s:%u: %s "
                   "(found by verification)",
                   o->name, b->size, site_file(b), b->line, problem);
    else
        log__error("memory: allocator '%s': a live block at %p: %s (found by verification)",
                   o->name, (void *)user_bytes(b), problem);
    return false;
}

/* Verifies every live block of `o` and of its children. The walk trusts no link it has not
 * checked: it is bounded by the block count and stops at a block that is not `o`'s. */
static uint64_t verify_tree(struct ct_allocator_o *o)
{
    uint64_t damaged = 0;
    uv_mutex_lock(&o->lock);
    uint64_t left = o->stats.live_blocks;
    for (block_t *b = o->live.next; b != &o->live && left > 0; b = b->next, left--) {
        bool header_ok = b->magic == MAGIC_PLAIN || b->magic == MAGIC_GUARDED;
        damaged += !verify_block(o, b);
        if (!header_ok || b->owner != o)
            break; /* its links cannot be trusted either */
    }
    /* Parent before child, the order every other path takes the locks in. */
    for (struct ct_allocator_o *c = o->first_child; c; c = c->next_sibling)
        damaged += verify_tree(c);
    uv_mutex_unlock(&o->lock);
    return damaged;
}

uint64_t memory__verify(const ct_allocator_t *a)
{
    if (!g_mem.ready)
        return 0;
    struct ct_allocator_o *o = a ? tracked(a) : &g_mem.root;
    return o ? verify_tree(o) : 0;
}

/* Logs what `o` still holds: the totals, then the first few call sites. */
static uint64_t report_leaks(struct ct_allocator_o *o)
{
    uv_mutex_lock(&o->lock);
    uint64_t blocks = o->stats.live_blocks;
    if (blocks) {
        log__error("memory: allocator '%s' leaked %llu blocks (%llu bytes)", o->name,
                   (unsigned long long)blocks, (unsigned long long)o->stats.live_bytes);
        int shown = 0;
        for (block_t *b = o->live.next; b != &o->live && shown < MEMORY_REPORT_SITES;
             b = b->next, shown++)
            log__error("memory:   %zu bytes allocated at %s:%u", b->size, site_file(b), b->line);
        if (blocks > MEMORY_REPORT_SITES)
            log__error("memory:   ... and %llu more",
                       (unsigned long long)(blocks - MEMORY_REPORT_SITES));
    }
    uv_mutex_unlock(&o->lock);
    return blocks;
}

static void unlink_child(struct ct_allocator_o *p, struct ct_allocator_o *o)
{
    uv_mutex_lock(&p->lock);
    struct ct_allocator_o **at = &p->first_child;
    while (*at != o)
        at = &(*at)->next_sibling;
    *at = o->next_sibling;
    uv_mutex_unlock(&p->lock);
}

/* Tears down `o` and any children still alive under it, reporting each. Leaked blocks are not
 * freed: they may still be in use, and freeing them would turn a leak into a crash. */
static uint64_t destroy_tree(struct ct_allocator_o *o)
{
    uint64_t leaked = 0;
    for (;;) {
        uv_mutex_lock(&o->lock);
        struct ct_allocator_o *child = o->first_child;
        uv_mutex_unlock(&o->lock);
        if (!child)
            break;
        log__error("memory: allocator '%s' was not destroyed before its parent '%s'", child->name,
                   o->name);
        leaked += destroy_tree(child);
    }
    uint64_t own = report_leaks(o);
    atomic_fetch_add(&g_mem.leaks_reported, own);
    leaked += own;
    if (o->parent)
        unlink_child(o->parent, o);
    uv_mutex_destroy(&o->lock);
    if (o != &g_mem.root)
        o->backing->realloc(o->backing, o, sizeof *o, 0, __FILE__, __LINE__);
    return leaked;
}

uint64_t memory__destroy(ct_allocator_t *a)
{
    if (!a)
        return 0;
    struct ct_allocator_o *o = tracked(a);
    if (!o || o == &g_mem.root) {
        log__error("memory: memory__destroy given %s; only allocators from memory__create can "
                   "be destroyed",
                   o ? "the root allocator" : "an allocator it did not create");
        return 0;
    }
    return destroy_tree(o);
}

uint64_t memory__shutdown(void)
{
    if (!g_mem.ready)
        return 0;
    /* Blocks never freed are never checked on free: every live block is checked here. */
    verify_tree(&g_mem.root);
    uint64_t leaked = destroy_tree(&g_mem.root);
    g_mem.ready = false;
    return leaked;
}

ct_allocator_stats_t memory__stats(const ct_allocator_t *a)
{
    ct_allocator_stats_t stats = {0};
    struct ct_allocator_o *o = tracked(a);
    if (o) {
        uv_mutex_lock(&o->lock);
        stats = o->stats;
        uv_mutex_unlock(&o->lock);
    }
    return stats;
}

uint64_t memory__corruption_count(void) { return atomic_load(&g_mem.corruptions); }

uint64_t memory__leaks_reported(void) { return atomic_load(&g_mem.leaks_reported); }

static const ct_memory_api_v1 memory_api_v1 = {
    .plugin_allocator = registry__plugin_allocator,
    .create_child = memory__create,
    .destroy_child = memory__destroy,
    .stats = memory__stats,
};

static const ct_memory_api_v2 memory_api_v2 = {
    .plugin_allocator = registry__plugin_allocator,
    .create_child = memory__create,
    .destroy_child = memory__destroy,
    .stats = memory__stats,
    .verify = memory__verify,
};

const ct_memory_api_v1 *memory__api_v1(void) { return &memory_api_v1; }

const ct_memory_api_v2 *memory__api_v2(void) { return &memory_api_v2; }
