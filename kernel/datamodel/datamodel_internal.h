/*
 * The data model's private structures, shared by its files:
 *   dm_map.c        open-addressing hash maps (128-bit key -> u32)
 *   dm_doc.c        documents, the five operations, inverses, undo/redo, getters, listeners
 *   dm_integrity.c  dangling references, orphans, object replacement
 *   dm_changeset.c  change sets: building, text and binary forms, apply, merge, diff
 *   dm_sjson.c      the lossless SJSON reader (spans kept) every text form parses with
 *   dm_copy.c       copy and paste
 *   dm_level.c      levels and units as documents, minimal-diff writes
 *   datamodel.c     the API table
 */
#ifndef CT_DATAMODEL_INTERNAL_H
#define CT_DATAMODEL_INTERNAL_H

#include "data/text.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_datamodel.h"

/* ---- maps: linear probing, backward-shift deletion, power-of-two capacity ---- */
typedef struct dm_map_entry_t {
    uint64_t a, b;
    uint32_t value; /* UINT32_MAX marks an empty slot */
} dm_map_entry_t;

typedef struct dm_map_t {
    dm_map_entry_t *slots;
    uint32_t capacity; /* 0 or a power of two */
    uint32_t count;
} dm_map_t;

#define DM_NONE UINT32_MAX

uint32_t dm_map__get(const dm_map_t *m, uint64_t a, uint64_t b);
/* Inserts or overwrites; false when out of memory. */
bool dm_map__put(dm_map_t *m, uint64_t a, uint64_t b, uint32_t value);
/* Returns the removed value or DM_NONE. */
uint32_t dm_map__remove(dm_map_t *m, uint64_t a, uint64_t b);
void dm_map__free(dm_map_t *m);
uint64_t dm__hash_bytes(const void *p, size_t n);

/* ---- values as the document owns them ---- */
typedef struct dm_set_t {
    ct_guid_t *items;
    uint32_t count, capacity;
    dm_map_t index; /* item -> position, built once the set grows past DM_SET_LINEAR */
} dm_set_t;

#define DM_SET_LINEAR 16u

/* A value whose string/blob/set storage the holder owns (one heap block, or the set). */
typedef struct dm_value_t {
    uint32_t type;
    uint32_t size;
    union {
        bool b;
        double d;
        double v[4];
        char *s;
        void *blob;
        ct_guid_t guid;
        dm_set_t *set;
    } as;
} dm_value_t;

/* Packed: twelve bytes, not sixteen, in every property and inverse record (a fifth of both). */
typedef struct __attribute__((packed)) dm_stamp_t {
    uint64_t hlc;
    uint32_t author; /* index into the document's authors */
} dm_stamp_t;

typedef struct dm_prop_t {
    uint32_t obj, key;
    uint32_t next; /* the object's properties in first-set order */
    dm_stamp_t stamp;
    dm_value_t value; /* CT_DM_NULL: a removed property kept as a tombstone for merges */
} dm_prop_t;

typedef struct dm_obj_t {
    ct_guid_t guid;
    uint32_t first_prop, last_prop;
    dm_stamp_t stamp; /* of the create or destroy that made it what it is */
    bool alive;       /* false: destroyed, kept so late edits are known as "deleted vs edited" */
} dm_obj_t;

/* One inverse, as undo/redo and rollback handle it. Objects and properties never leave their
 * slots, so a record names its target by index: an undo finds it without a hash. (An undo may run
 * while this document's author made the target's last write: that stamp's author is all it
 * checks, so the stamp the forward op left is not kept.) */
typedef struct dm_rec_t {
    uint8_t kind;
    bool mark;   /* the first inverse of a user action (a restore point begins here) */
    uint32_t at; /* CREATE/DESTROY: the object's index; SET/ADD/REMOVE: the property's */
    dm_stamp_t old;
    dm_value_t value; /* SET: the value to restore (owned); ADD/REMOVE: the item, a GUID */
} dm_rec_t;

/* A record as a log stores it: 20 bytes. Its value, when it has one (not CT_DM_NULL), is the next
 * of the log's values, pushed and popped with it: a SET that made a property (most of them in a
 * merge or a fresh edit) costs 20 bytes, not 64. */
typedef struct dm_rec_head_t {
    uint8_t kind;
    bool mark;
    bool has_value;
    uint32_t at;
    dm_stamp_t old;
} dm_rec_head_t;

typedef struct dm_log_t {
    dm_rec_head_t *recs;
    uint32_t count, capacity;
    dm_value_t *values;
    uint32_t num_values, cap_values;
} dm_log_t;

/* Room for n more records (and their values) in the log; false when out of memory. Inline: a log
 * nearly always has room, and then this is two compares, no call. */
bool dm__log_reserve_slow(dm_log_t *log, uint32_t n);
static inline bool dm__log_reserve(dm_log_t *log, uint32_t n)
{
    return (log->count + n <= log->capacity && log->num_values + n <= log->cap_values) ||
           dm__log_reserve_slow(log, n);
}

typedef struct dm_listener_t {
    ct_dm_listener_f f;
    void *user_data;
    uint32_t id;
} dm_listener_t;

/* ---- indexes: the document's own lookups (guid -> object, (object, key) -> property,
 * string -> id). A slot is eight bytes, a 32-bit hash and the index of the thing it finds; the
 * thing itself (in the array the caller owns) is what a lookup compares against. Half the size
 * of a map slot and no key copies, so a 10,000-key table stays in cache, and a grow re-homes
 * slots from their stored hashes without touching the things. Linear probing, at most 3/4
 * full, no removal (nothing a document indexes ever leaves its array). ---- */
typedef struct dm_slot_t {
    uint32_t hash, value; /* value DM_NONE: empty */
} dm_slot_t;

typedef struct dm_index_t {
    dm_slot_t *slots;
    uint32_t capacity; /* 0 or a power of two */
    uint32_t count;
    /* Where the slots came from (datamodel__set_index_allocator when the table was first made):
     * NULL is the C heap, with big blocks kept for the next table. */
    ct_allocator_t *alloc;
} dm_index_t;

/* Finds the value whose slot holds `hash` and for which eq(ctx, value) holds; DM_NONE if none.
 * Inline with a constant `eq`, the comparison inlines too. */
static inline uint32_t dm_index__find(const dm_index_t *m, uint32_t hash,
                                      bool (*eq)(const void *ctx, uint32_t value), const void *ctx)
{
    if (!m->capacity)
        return DM_NONE;
    uint32_t mask = m->capacity - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        dm_slot_t s = m->slots[i];
        if (s.value == DM_NONE)
            return DM_NONE;
        if (s.hash == hash && eq(ctx, s.value))
            return s.value;
    }
}

/* dm_index__find, and when nothing is found, `value` added with `hash` in the empty slot the
 * search ended at (one probe for both). The caller made room (dm_index__reserve) for one more. */
static inline uint32_t dm_index__find_or_add(dm_index_t *m, uint32_t hash,
                                             bool (*eq)(const void *ctx, uint32_t value),
                                             const void *ctx, uint32_t value)
{
    uint32_t mask = m->capacity - 1, i = hash & mask;
    for (; m->slots[i].value != DM_NONE; i = (i + 1) & mask) {
        if (m->slots[i].hash == hash && eq(ctx, m->slots[i].value))
            return m->slots[i].value;
    }
    m->slots[i] = (dm_slot_t){hash, value};
    m->count++;
    return DM_NONE;
}

/* Adds a value the caller knows is absent; false when out of memory (nothing changed). */
bool dm_index__add(dm_index_t *m, uint32_t hash, uint32_t value);
/* Room for n values in all, so adding them re-homes nothing; false when out of memory. */
bool dm_index__reserve(dm_index_t *m, uint32_t n);
void dm_index__free(dm_index_t *m);
/* A 32-bit hash of two words, every bit mixed (slots are homed by its low bits). */
uint32_t dm__hash2(uint64_t a, uint64_t b);

/* A bump arena of heap chunks (change sets and reports own their strings and values here). */
typedef struct dm_arena_t {
    struct dm_chunk_t *chunks;
} dm_arena_t;

void *dm_arena__alloc(dm_arena_t *a, size_t size);
char *dm_arena__strdup(dm_arena_t *a, const char *s);
/* Copies the value's storage into the arena; false when out of memory. */
bool dm_arena__copy_value(dm_arena_t *a, ct_dm_value_t *v);
void dm_arena__free(dm_arena_t *a);

/* A string table: interned NUL-terminated strings with ids. The bytes live in an arena (one
 * allocation per 60 kB, not one per string) so pointers handed out stay valid for the table's
 * life. */
typedef struct dm_strings_t {
    char **strs;
    uint32_t *lens;
    uint32_t count, capacity;
    uint32_t last;    /* the last id found or made: runs of ops on one key skip the hash */
    dm_index_t index; /* string hash -> id */
    dm_arena_t bytes;
} dm_strings_t;

uint32_t dm_strings__intern(dm_strings_t *t, const char *s, size_t len); /* DM_NONE: no memory */
uint32_t dm_strings__find(const dm_strings_t *t, const char *s, size_t len);
void dm_strings__free(dm_strings_t *t);

struct ct_dm_changeset_o {
    ct_dm_op_t *ops;
    uint32_t count, capacity;
    dm_arena_t arena;
};

typedef struct dm_level_t dm_level_t; /* dm_level.c */

/* The hlcs of one author's ops a document has applied from change sets, sorted. */
typedef struct dm_seen_t {
    uint64_t *hlc;
    uint32_t count, capacity;
} dm_seen_t;

/* Whether a remote op id was applied; records one (false: out of memory). dm_changeset.c. */
bool dm__seen_has(const ct_dm_doc_o *doc, uint32_t author, uint64_t hlc);
bool dm__seen_add(ct_dm_doc_o *doc, uint32_t author, uint64_t hlc);

struct ct_dm_doc_o {
    dm_obj_t *objs;
    uint32_t num_objs, cap_objs;
    uint32_t *free_objs;  /* (unused: destroyed objects stay as tombstones) */
    dm_index_t obj_index; /* guid -> object index */

    dm_prop_t *props;
    uint32_t num_props, cap_props;
    dm_index_t prop_index;  /* (object index, key id) -> property index */
    uint32_t props_indexed; /* props [0, props_indexed) are in prop_index (dm__find_prop) */

    dm_strings_t keys;
    dm_strings_t authors;
    uint32_t me; /* this document's author id */

    ct_dm_clock_f clock;
    void *clock_user_data;
    uint64_t hlc;  /* the greatest stamp seen or made */
    uint64_t wall; /* the last reading of the clock, as an hlc */
    uint32_t stamps_made;
    uint32_t last_obj;      /* dm__find_obj's last answer */
    uint64_t last_prop_key; /* dm__find_prop's last question and answer */
    uint32_t last_prop;
    /* The stamps this document made itself: an op of its own author in that range coming back
     * (an echo from a server) is already applied. */
    uint64_t local_first, local_last;
    uint64_t rng[2];

    dm_log_t undo, redo, txn;
    bool action_open; /* an op happened since the last restore point */
    dm_log_t *log;    /* where inverses go right now (NULL: nowhere) */

    /* Remote op ids applied, per author: sorted hlcs. An author's stamps only grow, so a new op
     * is nearly always past the end: no lookup, an append. */
    struct dm_seen_t *seen;
    uint32_t num_seen;

    bool recording;
    ct_dm_changeset_o *outgoing;

    dm_listener_t *listeners;
    uint32_t num_listeners, cap_listeners, next_listener_id;

    /* Reports (owned until the next call that makes one). */
    ct_dm_skip_t *skips;
    uint32_t num_skips, cap_skips;
    ct_dm_issue_t *issues;
    uint32_t num_issues, cap_issues;
    ct_dm_conflict_t *conflicts;
    uint32_t num_conflicts, cap_conflicts;
    dm_arena_t report_arena;

    dm_level_t *level; /* the source a level document was read from (dm_level.c) */

    char error[512];
};

/* ---- dm_doc.c, used by the other files ---- */
void dm__error(ct_dm_doc_o *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint32_t dm__find_obj(const ct_dm_doc_o *doc, ct_guid_t g); /* alive or not */
uint32_t dm__find_prop(const ct_dm_doc_o *doc, uint32_t obj, uint32_t key);
dm_stamp_t dm__local_stamp(ct_dm_doc_o *doc);
/* The op applied to the document with the given stamp; inverses go to doc->log (if any). `force`
 * skips the stamp rule (rollback). Errors set last_error and return negative, nothing applied. */
int dm__apply(ct_dm_doc_o *doc, const ct_dm_op_t *op, dm_stamp_t stamp, ct_dm_source source);
/* For a reader filling objects it made itself (no undo log, no listeners): sets the interned key
 * (id `key`; `new_key`: interned just now, so no object has it) to a valid value (no NaN, strings
 * without NUL: the reader made it, so nothing is checked again) on the object at index obj, which
 * must not have it yet (CT_ERR_CONFLICT when it has: a field given twice). Found by walking the
 * object's own few properties, not by a lookup in the index. */
int dm__set_new(ct_dm_doc_o *doc, uint32_t obj, uint32_t key, bool new_key,
                const ct_dm_value_t *value, dm_stamp_t stamp);
/* For the same readers: makes object g with the stamp, unless an object g exists (alive or not:
 * *exists set, nothing made); its index, or DM_NONE when it exists or out of memory (last_error
 * set). */
uint32_t dm__create_new(ct_dm_doc_o *doc, ct_guid_t g, dm_stamp_t stamp, bool *exists);
/* dm__set_new with the key interned already (id `key`), known absent from the object, and a
 * valid value: no checks, no walk. The property's index, or DM_NONE when out of memory. */
uint32_t dm__set_fresh(ct_dm_doc_o *doc, uint32_t obj, uint32_t key, const ct_dm_value_t *value,
                       dm_stamp_t stamp);
/* Adds `item`, known absent, to the set property p; false when out of memory. */
bool dm__set_append(ct_dm_doc_o *doc, uint32_t p, ct_guid_t item);
/* Room for this many more objects and properties (their arrays, and the object index), made at once by a
 * reader that knows about how many it will make; false when out of memory. */
bool dm__reserve(ct_dm_doc_o *doc, uint32_t objects, uint32_t props);
/* The borrowed public view of a stored value. */
ct_dm_value_t dm__view(const dm_value_t *v);
void dm__format_guid(ct_guid_t g, char out[33]);
/* Rolls back (and frees) every inverse in `log` from index `from`, restoring old stamps. */
void dm__rollback(ct_dm_doc_o *doc, dm_log_t *log, uint32_t from);
void dm__log_clear(dm_log_t *log, uint32_t from);
bool dm__value_valid(ct_dm_doc_o *doc, const ct_dm_value_t *v, const char *op, ct_guid_t g,
                     const char *key);
const char *dm__type_name(uint32_t type);
void dm_doc__fill(ct_datamodel_api_v1 *api);
bool dm__values_equal(const ct_dm_value_t *a, const ct_dm_value_t *b);
uint32_t dm__author(ct_dm_doc_o *doc, const char *name); /* DM_NONE: no memory */
void dm__notify(ct_dm_doc_o *doc, const ct_dm_op_t *op, ct_dm_source source);
ct_guid_t dm__random_guid(ct_dm_doc_o *doc);
int dm__stamp_cmp(const ct_dm_doc_o *doc, dm_stamp_t x, dm_stamp_t y);
/* Grows an array to at least `needed` elements (capacity doubling); false when out of memory. */
bool dm__grow_slow(void **p, uint32_t *capacity, uint32_t needed, size_t elem);
/* Inline, so the call that finds room already (nearly every one) costs a compare. */
static inline bool dm__grow(void **p, uint32_t *capacity, uint32_t needed, size_t elem)
{
    return needed <= *capacity || dm__grow_slow(p, capacity, needed, elem);
}
/* Blocks kept across documents (dm_map.c): a kept block of min..max bytes (its size in *got, when
 * got is not NULL), or NULL; and a block let go of (kept when big and there is room, else
 * freed). Both are plain malloc memory. */
void *dm__block_take(size_t min, size_t max, size_t *got);
void dm__block_give(void *p, size_t bytes);

/* ---- the other files' entries, for the API table ---- */
int dm_doc__create(ct_dm_doc_o *doc, ct_guid_t object);
int dm_doc__apply_ops(ct_dm_doc_o *doc, const ct_dm_op_t *ops, uint32_t n, uint32_t *failed_index);

uint32_t dm_integrity__check(ct_dm_doc_o *doc, const ct_dm_issue_t **issues);
int dm_integrity__replace(ct_dm_doc_o *doc, const ct_guid_t *from, const ct_guid_t *to, uint32_t n);

void dm_level__free(dm_level_t *level);

ct_dm_doc_o *dm__create_doc(const ct_dm_doc_desc_t *desc);
void dm__destroy_doc(ct_dm_doc_o *doc);

/* ---- text output shared by change sets, the clipboard and levels ----
 * Written with the kernel's text buffer (kernel/data/text.h, compiled into this library). */
/* The shortest spelling of d that reads back exactly, whole numbers without an exponent. */
void dm__put_number(data_text_t *t, double d);
/* A value in the change-set text form (null, true, 1.5, "s", { vec3 = [...] }, ...). */
void dm__put_value(data_text_t *t, const ct_dm_value_t *v);
struct dm_sjson_t;
/* Reads a value of the text form at node n; strings and arrays go to `arena`. */
bool dm__read_value(const struct dm_sjson_t *js, uint32_t n, dm_arena_t *arena, ct_dm_value_t *out,
                    const char **why);

#endif
