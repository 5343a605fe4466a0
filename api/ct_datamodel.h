/*
 * ct_datamodel.h: the tools-side data model: objects with properties, five operations with
 * inverses, undo and redo, copy and paste, change sets that merge, and levels and units as
 * documents. Kernel API "ct.datamodel" (version 1).
 *
 * WHO SERVES IT
 *   One copy of the code: the static library `cuttle_datamodel` (kernel/datamodel/, C library
 *   only, no kernel services). The kernel links it and serves this table through
 *   get_engine_api(CT_DATAMODEL_API, 1); tools (cuttle-merge, the level
 *   editor's server, tests, benches) link the same library and take the same table from
 *   `datamodel__api_v1()` (kernel/datamodel/datamodel.h, not API). A plugin never links it.
 *
 * THE MODEL (seed: "Universal Undo, Copy and Paste", "Collaboration and Merging")
 *   A document (ct_dm_doc_o) is a set of objects. Each object is named by a 128-bit GUID
 *   (ct_guid_t); the root object has GUID 0 and always exists (it cannot be destroyed). An object
 *   holds properties keyed by strings (any UTF-8 bytes but NUL, at most CT_DM_MAX_KEY bytes).
 *   A property's value is exactly one of:
 *       null        (setting null removes the property)
 *       bool, double, vector3 (3 doubles), quaternion (4 doubles: x y z w),
 *       string      (UTF-8, no NUL inside), blob (bytes),
 *       GUID        (a reference to an object),
 *       set of GUIDs (unordered, no duplicates; references too).
 *   There are no arrays: moving an item from place 5 to place 3 does not merge, adding to and
 *   removing from a set does. An ordered list is a set plus a sort-key property on each member
 *   (the level mapping below uses "@order").
 *
 *   Duck typing (seed: "Managing Decoupling part 3"): code reads any object's properties by key
 *   without knowing what the object is. `get` returns the value with its type; the typed getters
 *   (get_bool, get_double, ...) return CT_ERR_NOT_FOUND when the object or property is missing and
 *   CT_ERR_INVALID when it holds another type, and `last_error` then says which object, key, the
 *   type found and the type asked for.
 *
 * THE FIVE OPERATIONS
 *   create(guid), destroy(guid), set_property(guid, key, value), add_to_set(guid, key, item),
 *   remove_from_set(guid, key, item) are the only way a document changes. Each applied operation
 *   records its inverse on the undo stack:
 *       create            -> destroy
 *       destroy           -> create, then set_property of every property it had (so undoing a
 *                            destroy brings the object back whole)
 *       set_property      -> set_property(old value, null if it had none)
 *       add_to_set        -> remove_from_set        (nothing recorded if already a member)
 *       remove_from_set   -> add_to_set             (nothing recorded if not a member)
 *   Misuse is refused, nothing applied, last_error names the operation and the object: creating
 *   an object that exists, any operation on a missing object, add/remove on a property that holds
 *   something other than a set (a missing property becomes an empty set on add), a value of an
 *   unknown type, a NaN in a vector, a key too long or empty.
 *   Batches: apply_ops applies many operations all or nothing (the first failure rolls back the
 *   ones already applied and returns the error with the index of the failing op).
 *
 * STAMPS AND THE HYBRID LOGICAL CLOCK
 *   Every applied operation carries a stamp: a hybrid logical clock value (the upper 48 bits are
 *   wall-clock milliseconds, the lower 16 a counter, CT_DM_HLC) and an author (a string). A local
 *   operation is stamped by the document's clock: max(wall time, last stamp seen + 1), so stamps
 *   of one author strictly increase and every stamp received in a change set pushes the clock
 *   past it. Stamps order totally: by hlc, then by author (byte-wise). (hlc, author) is also the
 *   operation's id: applying an operation whose id the document has already applied does
 *   nothing, which is why applying a change set twice, or merging by appending, is always safe.
 *   Every property remembers the stamp of the operation that last set it.
 *
 * UNDO AND REDO
 *   restore_point() marks the end of one user action (call it when the tool goes idle); undo()
 *   applies inverses back to the previous restore point and moves them to the redo stack; redo()
 *   replays them. A new local operation after undo clears the redo stack. Operations applied from
 *   change sets (apply, merge) are not on the undo stack: they are someone else's work.
 *   Undo never silently clobbers someone else's change: before restoring a property it checks
 *   that the last write to it is this document's author's (the op being undone, or a later op
 *   or undo of ours). If another author has set it since (a merged or live change), the inverse
 *   is skipped and reported in ct_dm_undo_report_t (object, key, what undo wanted to restore,
 *   the value that stays and its author). Likewise an object someone else has since edited is
 *   not destroyed by undoing its create (reported), a set item someone else already removed is
 *   reported as such. Redo uses the
 *   same rule.
 *
 * INTEGRITY AND REPLACEMENT
 *   check() lists every dangling reference (a GUID or set member naming no object: the object
 *   and property holding it and the missing GUID) and every orphan (an object that no chain of
 *   references from the root reaches). replace() makes every reference to A a reference to B,
 *   for many pairs at once, as ordinary recorded operations (one undo undoes it). Chains resolve
 *   (A->B, B->C makes A's references C); a cycle (A->B, B->A, or A->A) is refused, nothing done.
 *
 * COPY AND PASTE
 *   copy() builds a new document holding the chosen objects and everything they reference
 *   (transitively, a visited set), lists the copied roots in the new root's "copied" set and
 *   returns it as clipboard text (the SJSON document form below). paste() reads such text into a
 *   temporary document, gives every object a new GUID, translates every reference inside the
 *   copied objects (references to objects outside the copy are kept as they are), adds the
 *   objects with recorded operations (undoable as one action) and returns the new GUIDs of the
 *   copied roots, in copy order. Pasting twice makes two independent copies.
 *
 * CHANGE SETS
 *   A change set (ct_dm_changeset_o) is a list of stamped operations. A document records the
 *   operations applied to it while `record` is on (local ones, undo and redo included);
 *   take_changes hands them over. Text form (SJSON, one op per line, diffable):
 *
 *       cuttle_changeset = 1
 *       ops = [
 *         { op = "create" object = "0000000000000000000000000000f341" at = "018bcfe568000001 alice" }
 *         { op = "set" object = "...f341" key = "position" value = { vec3 = [0 0 0] } at = "..." }
 *         { op = "add" object = "00000000000000000000000000000000" key = "entities"
 *           item = "...f341" at = "..." }
 *       ]
 *
 *   op is create | destroy | set | add | remove. Values in text: null, true, false, a number
 *   (written with 17 significant digits: exact), a "string", or { vec3 = [x y z] },
 *   { quat = [x y z w] }, { blob = "base64" }, { guid = "hex" }, { set = [ "hex" ... ] }.
 *   GUIDs are exactly 32 hex digits (ct_guid_parse). `at` is the stamp: the hlc as 16 hex
 *   digits, one space, the author.
 *   Binary form: the two-way stream of ct_stream.h (magic "CTCS", format version, then the ops);
 *   the reader checks every length and range and refuses a truncated or hostile blob, naming the
 *   op index and the field.
 *   apply() applies a change set all or nothing, skipping op ids already applied.
 *
 * MERGE
 *   merge() applies many change sets at once in stamp order. A conflict is two or more writes to
 *   the same property of the same object by different authors (among the change sets given, or
 *   against the document's current value from another author): the greatest stamp wins on every
 *   machine, and every losing value is kept and reported (object, key, losing value and author,
 *   winning value and author), the post's "optionally notify the user". Set operations from two
 *   sides always merge (no conflict). A create and a destroy of one object: destroy wins; a
 *   set_property on a destroyed object is a "deleted vs edited" conflict (reported, not applied).
 *
 * CHANGE LISTENERS
 *   add_listener registers a callback called after every operation applied to the document (local,
 *   undo, redo, apply/merge, paste, replace), with the op and where it came from, and the context
 *   pointer given. The level editor's server mirrors the model to browsers from it. A listener
 *   must not change the document it listens to.
 *
 * LEVELS AND UNITS AS DOCUMENTS
 *   read_level parses a `.level`/`.unit` SJSON source (ct_world.h) into a document that keeps the
 *   source text; write_level writes the document back, editing only the spans that changed: a
 *   document read and written unchanged gives the same bytes; a one-field edit changes one line;
 *   comments, order and spelling of untouched text are kept. The mapping:
 *     - the root's "entities" set holds the top-level entities; an entity's "children" set its
 *       children; each entity has "@order" (double, its position among its siblings: writing sorts
 *       by it, ties by GUID) and "@parent" (GUID, 0 for top level).
 *     - an entity's GUID is its `id = "32 hex digits"` field; an entity without one gets a GUID
 *       derived from its parent's GUID, its name and its rank among same-named siblings, so every
 *       reader of the same hand-written file agrees and merges match entities by name.
 *       write_level with assign_ids writes that GUID as the entity's `id` (a tool's first write).
 *     - every other field becomes properties with dotted keys: `name`, `components.transform.
 *       position`, `repeat.count`. Numbers are doubles, strings strings, booleans bools, an array
 *       of exactly 3 numbers a vector3, of exactly 4 numbers a quaternion, anything else (other
 *       arrays, empty objects, null) a blob holding its SJSON text verbatim.
 *     - `merge_conflicts = [ ... ]` at the top level is the record cuttle-merge leaves; the
 *       entities compiler refuses a source that has one.
 *
 * LUA
 *   Scripts and tools get the module `DataModel` (kernel/datamodel/datamodel_lua.c):
 *   DataModel.new(author) -> doc; doc:create([guid]) -> guid; doc:set(guid, key, value) with nil,
 *   booleans, numbers, strings, {x y z}, {x y z w}, {guid = g}, {set = {...}}, {blob = s};
 *   doc:get(guid, key) -> value, type name (nil when missing); doc:add/remove/destroy/keys/exists;
 *   doc:restore_point/undo/redo (undo -> applied, {skipped}); doc:check(); doc:replace(a, b);
 *   doc:copy({guids}) -> text; doc:paste(text) -> {guids}; doc:record(on); doc:take_changes() ->
 *   change-set text; doc:apply(text) -> applied, {conflicts}; DataModel.read_level(text, name);
 *   doc:write_level(assign_ids). GUIDs are 32-hex-digit strings; DataModel.ROOT is the root's.
 *   Misuse raises with the message last_error gives.
 *
 * ERRORS
 *   Functions return 0 or a negative ct_error: CT_ERR_INVALID for misuse (bad GUID, wrong type,
 *   missing object), CT_ERR_BAD_DATA for malformed text or binary (nothing applied), CT_ERR_NOMEM.
 *   last_error(doc) describes the last failure on that document ("set_property 0000...f341
 *   'position': the object does not exist"); parse errors go to the err buffer given, naming the
 *   file, line and column (text) or op index and field (binary).
 *
 * MEMORY AND THREADS
 *   Documents and change sets allocate from the C heap (they are tools-side data, used with or
 *   without a booted kernel). Returned `char *` text is freed with free_text. Pointers inside a
 *   ct_dm_value_t returned by a getter borrow the document's storage: valid until the next
 *   operation on that document. A document is not thread-safe: one thread at a time (the editor
 *   owns its documents on its server thread); different documents may be used from different
 *   threads.
 */
#ifndef CT_DATAMODEL_H
#define CT_DATAMODEL_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_DATAMODEL_API 0x5d2cf21du /* "ct.datamodel" */

/* Longest property key in bytes (without the NUL). */
#define CT_DM_MAX_KEY 255u

/* A 128-bit GUID. {0, 0} is the root object. Text form: 32 lowercase hex digits, hi first. */
typedef struct ct_guid_t {
    uint64_t hi, lo; /* the high and the low 64 bits */
} ct_guid_t;

/* Whether two GUIDs are the same; whether g is the root's ({0, 0}). */
static inline bool ct_guid_eq(ct_guid_t a, ct_guid_t b) { return a.hi == b.hi && a.lo == b.lo; }
static inline bool ct_guid_is_root(ct_guid_t g) { return g.hi == 0 && g.lo == 0; }

/* Writes the 32 hex digits and a NUL into out[33]. */
static inline void ct_guid_format(ct_guid_t g, char out[33])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[i] = digits[(g.hi >> (60 - 4 * i)) & 15u];
        out[16 + i] = digits[(g.lo >> (60 - 4 * i)) & 15u];
    }
    out[32] = '\0';
}

/* Parses exactly 32 hex digits (either case; nothing before or after within len). Returns false
 * (and leaves *out alone) for anything else: a GUID that is not 128 bits of hex is refused. */
static inline bool ct_guid_parse(const char *text, size_t len, ct_guid_t *out)
{
    if (!text || len != 32)
        return false;
    uint64_t w[2] = {0, 0};
    for (size_t i = 0; i < 32; i++) {
        char c = text[i];
        uint64_t d = c >= '0' && c <= '9'   ? (uint64_t)(c - '0')
                     : c >= 'a' && c <= 'f' ? (uint64_t)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (uint64_t)(c - 'A' + 10)
                                            : 16u;
        if (d == 16u)
            return false;
        w[i / 16] = (w[i / 16] << 4) | d;
    }
    out->hi = w[0];
    out->lo = w[1];
    return true;
}

/* The value types, exactly the seed's. The numbers are part of the binary formats: frozen. */
typedef enum ct_dm_type {
    CT_DM_NULL = 0,
    CT_DM_BOOL = 1,
    CT_DM_DOUBLE = 2,
    CT_DM_VEC3 = 3,
    CT_DM_QUAT = 4,
    CT_DM_STRING = 5,
    CT_DM_BLOB = 6,
    CT_DM_GUID = 7,
    CT_DM_SET = 8,
} ct_dm_type;

/*
 * A value. `size` is the byte count of a string (without its NUL) or blob, the member count of a
 * set, 0 otherwise. A string given to the model must have no NUL in its first `size` bytes; one
 * read back is NUL-terminated. Set members given to the model may be in any order (duplicates are
 * dropped); read back they are in the order they were added.
 */
typedef union ct_dm_payload_t {
    bool b;      /* boolean */
    double d;    /* number */
    double v[4]; /* vector3: v[0..2]; quaternion: x y z w */
    const char *s;
    const void *blob;
    ct_guid_t guid;
    const ct_guid_t *set;
} ct_dm_payload_t;

/* A typed value: what `as` holds is said by `type` (see ct_dm_payload_t for `size`). */
typedef struct ct_dm_value_t {
    uint32_t type; /* ct_dm_type */
    uint32_t size;
    ct_dm_payload_t as;
} ct_dm_value_t;

/* The five operations. The numbers are part of the binary formats: frozen. */
typedef enum ct_dm_op_kind {
    CT_DM_OP_CREATE = 1,
    CT_DM_OP_DESTROY = 2,
    CT_DM_OP_SET = 3,
    CT_DM_OP_ADD = 4,
    CT_DM_OP_REMOVE = 5,
} ct_dm_op_kind;

/* A hybrid logical clock value: (wall milliseconds << 16) | counter. */
#define CT_DM_HLC(ms, counter) (((uint64_t)(ms) << 16) | ((uint64_t)(counter)&0xffffu))

/* Who did an operation and when. An op's id. `author` is a NUL-terminated string. */
typedef struct ct_dm_stamp_t {
    uint64_t hlc; /* when: a hybrid logical clock value (CT_DM_HLC) */
    const char *author;
} ct_dm_stamp_t;

/*
 * One operation. `key` and `value` are used by SET (value NULL-type removes), `key` and `item` by
 * ADD and REMOVE. A stamp with hlc 0 given to apply_ops means "stamp it now" (a local op).
 * Ops handed out (listeners, change sets) borrow their strings from their owner.
 */
typedef struct ct_dm_op_t {
    uint32_t kind; /* ct_dm_op_kind */
    uint32_t reserved;
    ct_guid_t object;
    const char *key;
    ct_dm_value_t value;
    ct_guid_t item;
    ct_dm_stamp_t stamp;
} ct_dm_op_t;

/* A document: objects with properties, its undo history and its recorded changes (opaque). */
typedef struct ct_dm_doc_o ct_dm_doc_o;
typedef struct ct_dm_changeset_o ct_dm_changeset_o;

/* Returns milliseconds of wall time. */
typedef uint64_t (*ct_dm_clock_f)(void *user_data);

/* Creation parameters; zero means default. */
typedef struct ct_dm_doc_desc_t {
    /* The author stamped on local ops (copied). Default "anonymous". */
    const char *author;
    /* The wall clock for stamps. Default: the real time (CLOCK_REALTIME). Tests fix it. */
    ct_dm_clock_f clock;
    void *clock_user_data;
    /* Seed of the GUID generator (new_guid, paste). 0: seeded from the OS's random source. */
    uint64_t guid_seed;
} ct_dm_doc_desc_t;

/* Where an applied op came from, as listeners see it. */
typedef enum ct_dm_source {
    CT_DM_FROM_LOCAL = 0, /* a call of the five operations, apply_ops, replace, paste */
    CT_DM_FROM_UNDO = 1,
    CT_DM_FROM_REDO = 2,
    CT_DM_FROM_REMOTE = 3, /* apply or merge of a change set */
} ct_dm_source;

/* Told of every operation applied to a document, with where it came from (add_listener). */
typedef void (*ct_dm_listener_f)(void *user_data, ct_dm_doc_o *doc, const ct_dm_op_t *op,
                                 ct_dm_source source);

/* One inverse that undo or redo did not apply because someone else changed the data since. */
typedef struct ct_dm_skip_t {
    uint32_t kind; /* the inverse op's ct_dm_op_kind */
    ct_guid_t object;
    const char *key;             /* NULL for create/destroy */
    ct_guid_t item;              /* add/remove */
    ct_dm_value_t wanted;        /* what undo would have restored (SET) */
    ct_dm_value_t current;       /* what stays (SET) */
    ct_dm_stamp_t current_stamp; /* who set what stays */
    const char *why;             /* a sentence */
} ct_dm_skip_t;

/* What undo/redo did. The arrays are owned by the document, valid until its next operation. */
typedef struct ct_dm_undo_report_t {
    uint32_t applied;     /* inverses applied */
    uint32_t num_skipped; /* inverses not applied, each listed */
    const ct_dm_skip_t *skipped;
} ct_dm_undo_report_t;

/* Integrity findings. */
typedef enum ct_dm_issue_kind {
    CT_DM_ISSUE_DANGLING = 1, /* object.key refers to `target`, which does not exist */
    CT_DM_ISSUE_ORPHAN = 2,   /* `object` is not reachable from the root */
} ct_dm_issue_kind;

/* One integrity finding of check(). */
typedef struct ct_dm_issue_t {
    uint32_t kind; /* ct_dm_issue_kind */
    ct_guid_t object;
    const char *key; /* DANGLING only */
    ct_guid_t target;
} ct_dm_issue_t;

/* A losing value of a merge. Strings and values are owned by the document until its next
 * merge/apply/destroy. */
typedef struct ct_dm_conflict_t {
    ct_guid_t object; /* the object and the property both sides set */
    const char *key;
    ct_dm_value_t winner, loser;             /* the value kept and the value lost */
    ct_dm_stamp_t winner_stamp, loser_stamp; /* who set each, and when */
    /* Nonzero: the object was destroyed (the winner) while the loser set a property on it. */
    uint32_t deleted;
} ct_dm_conflict_t;

/* What a merge or apply did. The array is owned by the document (see ct_dm_conflict_t). */
typedef struct ct_dm_merge_report_t {
    uint32_t applied;       /* ops applied */
    uint32_t already;       /* ops skipped because their id was applied before */
    uint32_t num_conflicts; /* every losing value */
    const ct_dm_conflict_t *conflicts;
} ct_dm_merge_report_t;

/* Options of write_level. */
typedef struct ct_dm_write_desc_t {
    /* Give every entity without an `id` field one (its GUID). A tool's first write does this;
     * a plain read/write round trip does not, so an untouched file stays byte for byte. */
    uint32_t assign_ids; /* nonzero: yes */
} ct_dm_write_desc_t;

typedef struct ct_datamodel_api_v1 {
    /* ---- documents ---- */
    /* NULL when out of memory. The root object exists. desc may be NULL. */
    ct_dm_doc_o *(*create_doc)(const ct_dm_doc_desc_t *desc);
    /* Accepts NULL. */
    void (*destroy_doc)(ct_dm_doc_o *doc);
    /* The last failure's description on this document ("" when none). Owned by doc. */
    const char *(*last_error)(const ct_dm_doc_o *doc);
    /* A fresh random GUID (never 0) from the document's generator. */
    ct_guid_t (*new_guid)(ct_dm_doc_o *doc);

    /* ---- the five operations (local: stamped now, recorded for undo) ---- */
    int (*create)(ct_dm_doc_o *doc, ct_guid_t object);
    int (*destroy)(ct_dm_doc_o *doc, ct_guid_t object);
    /* value NULL or of type CT_DM_NULL removes the property. The value is copied. */
    int (*set_property)(ct_dm_doc_o *doc, ct_guid_t object, const char *key,
                        const ct_dm_value_t *value);
    int (*add_to_set)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t item);
    int (*remove_from_set)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t item);
    /* Many ops, all or nothing. On failure *failed_index (may be NULL) is the failing op's index,
     * the ops before it are rolled back and last_error says why. Ops with stamp.hlc == 0 are
     * local (stamped now, on the undo stack); others are remote ops under apply's rules: skipped
     * when their id was applied before, losing quietly to a newer write or to a destroy (merge
     * is the call that reports such losers), never on the undo stack. */
    int (*apply_ops)(ct_dm_doc_o *doc, const ct_dm_op_t *ops, uint32_t num_ops,
                     uint32_t *failed_index);

    /* ---- reading (duck typing) ---- */
    bool (*exists)(const ct_dm_doc_o *doc, ct_guid_t object);
    uint32_t (*num_objects)(const ct_dm_doc_o *doc); /* the root included */
    /* Copies up to max GUIDs of live objects (order of first creation, root first) into out;
     * returns the total count. */
    uint32_t (*objects)(const ct_dm_doc_o *doc, ct_guid_t *out, uint32_t max);
    /* Keys of an object in the order they were first set; returns the total count (0 when the
     * object is missing). Key strings are owned by the document for its lifetime. */
    uint32_t (*keys)(const ct_dm_doc_o *doc, ct_guid_t object, const char **out, uint32_t max);
    /* Any property. CT_ERR_NOT_FOUND when the object or property is missing. */
    int (*get)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_dm_value_t *out);
    /* The stamp of the op that last set the property (CT_ERR_NOT_FOUND when missing). */
    int (*get_stamp)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_dm_stamp_t *out);
    /* Typed getters: CT_ERR_NOT_FOUND when missing, CT_ERR_INVALID on another type (last_error
     * names object, key, the type found and the type wanted); *out untouched on failure. */
    int (*get_bool)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, bool *out);
    int (*get_double)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, double *out);
    int (*get_vec3)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, double out[3]);
    int (*get_quat)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, double out[4]);
    int (*get_string)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, const char **out);
    int (*get_blob)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, const void **out,
                    uint32_t *size);
    int (*get_guid)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t *out);
    int (*get_set)(ct_dm_doc_o *doc, ct_guid_t object, const char *key, const ct_guid_t **items,
                   uint32_t *count);
    bool (*set_contains)(const ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t item);
    /* The name of a type ("vector3"), for messages. */
    const char *(*type_name)(uint32_t type);

    /* ---- undo and redo ---- */
    /* Ends the current user action (does nothing if nothing happened since the last one). */
    void (*restore_point)(ct_dm_doc_o *doc);
    /* Undo/redo one action. Returns 0 (also when some inverses were skipped: see report) or
     * CT_ERR_NOT_FOUND when there is nothing to undo/redo. report may be NULL. */
    int (*undo)(ct_dm_doc_o *doc, ct_dm_undo_report_t *report);
    int (*redo)(ct_dm_doc_o *doc, ct_dm_undo_report_t *report);
    bool (*can_undo)(const ct_dm_doc_o *doc);
    bool (*can_redo)(const ct_dm_doc_o *doc);
    /* Forgets the undo and redo stacks (after a save, say). */
    void (*clear_history)(ct_dm_doc_o *doc);

    /* ---- integrity ---- */
    /* Lists dangling references and orphans; returns the count. The array is owned by the
     * document until its next operation. */
    uint32_t (*check)(ct_dm_doc_o *doc, const ct_dm_issue_t **issues);
    /* Every reference to from[i] becomes to[i] (chains resolve; cycles refused with
     * CT_ERR_INVALID, nothing changed). Local recorded ops: one undo reverses it. */
    int (*replace)(ct_dm_doc_o *doc, const ct_guid_t *from, const ct_guid_t *to, uint32_t n);

    /* ---- copy and paste ---- */
    /* Clipboard text of roots and everything they reference. NULL on failure (last_error).
     * Free with free_text. */
    char *(*copy)(ct_dm_doc_o *doc, const ct_guid_t *roots, uint32_t num_roots, size_t *len);
    /* Adds the objects of clipboard text under new GUIDs; the new GUIDs of the copied roots go to
     * new_roots (up to max; *num_roots gets the total). All or nothing; CT_ERR_BAD_DATA for
     * malformed text (last_error names line and column). */
    int (*paste)(ct_dm_doc_o *doc, const char *text, size_t len, ct_guid_t *new_roots, uint32_t max,
                 uint32_t *num_roots);
    void (*free_text)(char *text);

    /* ---- change sets ---- */
    /* While on, every op applied to doc is appended to its outgoing change set. */
    void (*record)(ct_dm_doc_o *doc, bool on);
    /* The ops recorded so far (the document starts a new, empty list). Caller destroys. */
    ct_dm_changeset_o *(*take_changes)(ct_dm_doc_o *doc);
    ct_dm_changeset_o *(*create_changeset)(void);
    void (*destroy_changeset)(ct_dm_changeset_o *cs); /* accepts NULL */
    /* Appends a copy of op (strings and values copied). A stamp must be given (hlc != 0). */
    int (*changeset_append)(ct_dm_changeset_o *cs, const ct_dm_op_t *op);
    uint32_t (*changeset_count)(const ct_dm_changeset_o *cs);
    /* The i-th op, borrowing the change set's storage. */
    const ct_dm_op_t *(*changeset_op)(const ct_dm_changeset_o *cs, uint32_t i);
    /* Text form (SJSON). Free with free_text. */
    char *(*changeset_to_text)(const ct_dm_changeset_o *cs, size_t *len);
    /* NULL on malformed text; err gets "file:line:col: what" or "file: op N: what". */
    ct_dm_changeset_o *(*changeset_from_text)(const char *text, size_t len, const char *filename,
                                              char *err, size_t err_size);
    /* Binary form (ct_stream.h). Free with free_text. */
    void *(*changeset_to_binary)(const ct_dm_changeset_o *cs, size_t *size);
    ct_dm_changeset_o *(*changeset_from_binary)(const void *data, size_t size, const char *filename,
                                                char *err, size_t err_size);
    /* The ops that turn document `from` into document `to` (by GUID and key), stamped with
     * `stamp` (author and hlc; the hlc counts up per op). NULL when out of memory. */
    ct_dm_changeset_o *(*diff)(ct_dm_doc_o *from, ct_dm_doc_o *to, ct_dm_stamp_t stamp);
    /* Applies a change set all or nothing; ops already applied (same id) are skipped. */
    int (*apply)(ct_dm_doc_o *doc, const ct_dm_changeset_o *cs, ct_dm_merge_report_t *report);
    /* Applies many change sets in stamp order; conflicts as described above. All or nothing. */
    int (*merge)(ct_dm_doc_o *doc, const ct_dm_changeset_o *const *sets, uint32_t num_sets,
                 ct_dm_merge_report_t *report);

    /* ---- listeners ---- */
    /* Returns an id > 0 for remove_listener, 0 when out of memory. */
    uint32_t (*add_listener)(ct_dm_doc_o *doc, ct_dm_listener_f f, void *user_data);
    void (*remove_listener)(ct_dm_doc_o *doc, uint32_t id);

    /* ---- binary documents ---- */
    /* The whole document (objects, properties, stamps) in the stream format. Free with
     * free_text. */
    void *(*doc_to_binary)(ct_dm_doc_o *doc, size_t *size);
    /* NULL on a malformed or truncated blob (err names the object index and field). */
    ct_dm_doc_o *(*doc_from_binary)(const void *data, size_t size, const ct_dm_doc_desc_t *desc,
                                    const char *filename, char *err, size_t err_size);

    /* ---- levels and units ---- */
    /* A document of a level/unit source; it keeps the text for minimal-diff writes. NULL on
     * malformed SJSON or a bad `id` (err names file, line, column). */
    ct_dm_doc_o *(*read_level)(const char *text, size_t len, const char *filename,
                               const ct_dm_doc_desc_t *desc, char *err, size_t err_size);
    /* The source text of the document (read_level's, edited where the document changed, or
     * written fresh for a document that was not read from a level). Free with free_text. */
    char *(*write_level)(ct_dm_doc_o *doc, const ct_dm_write_desc_t *desc, size_t *len);
} ct_datamodel_api_v1;

#ifdef __cplusplus
}
#endif
#endif
