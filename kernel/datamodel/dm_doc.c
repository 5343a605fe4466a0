/*
 * Documents: objects with properties, the five operations with their inverses, undo and redo,
 * the getters (duck typing), listeners and recording.
 *
 * Storage is data-oriented: objects and properties live in two arrays, found through two hash
 * maps (guid -> object, (object, key id) -> property); an object's properties are chained through
 * `next` in first-set order. Keys and authors are interned once. Destroyed objects and removed
 * properties stay as tombstones with their stamps: that is what lets a late edit be recognised as
 * "deleted vs edited" and an old write lose to a newer removal, on every machine alike.
 */
#include "datamodel_internal.h"

#include <math.h>
#include <time.h>

static const char *const type_names[] = {"null",   "bool", "double", "vector3", "quaternion",
                                         "string", "blob", "guid",   "set"};

const char *dm__type_name(uint32_t type)
{
    return type <= CT_DM_SET ? type_names[type] : "unknown";
}

void dm__error(ct_dm_doc_o *doc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(doc->error, sizeof doc->error, fmt, ap);
    va_end(ap);
}

void dm__format_guid(ct_guid_t g, char out[33]) { ct_guid_format(g, out); }

/* ---- clock, stamps, GUIDs ---- */

static uint64_t real_clock(void *user_data)
{
    (void)user_data;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

dm_stamp_t dm__local_stamp(ct_dm_doc_o *doc)
{
    /* The wall clock is read every 16th stamp: a batch of edits inside one millisecond counts up
     * from the last reading either way (max(wall, last + 1)), and the clock was 8% of a set. */
    if ((doc->stamps_made++ & 15u) == 0)
        doc->wall = CT_DM_HLC(doc->clock(doc->clock_user_data), 0);
    uint64_t now = doc->wall;
    doc->hlc = now > doc->hlc ? now : doc->hlc + 1;
    if (!doc->local_first)
        doc->local_first = doc->hlc;
    doc->local_last = doc->hlc;
    return (dm_stamp_t){doc->hlc, doc->me};
}

int dm__stamp_cmp(const ct_dm_doc_o *doc, dm_stamp_t x, dm_stamp_t y)
{
    if (x.hlc != y.hlc)
        return x.hlc < y.hlc ? -1 : 1;
    if (x.author == y.author)
        return 0;
    int c = strcmp(doc->authors.strs[x.author], doc->authors.strs[y.author]);
    return c < 0 ? -1 : c > 0;
}

static uint64_t xorshift(uint64_t s[2])
{
    uint64_t a = s[0], b = s[1];
    s[0] = b;
    a ^= a << 23;
    s[1] = a ^ b ^ (a >> 17) ^ (b >> 26);
    return s[1] + b;
}

ct_guid_t dm__random_guid(ct_dm_doc_o *doc)
{
    ct_guid_t g;
    do {
        g.hi = xorshift(doc->rng);
        g.lo = xorshift(doc->rng);
    } while (ct_guid_is_root(g) || dm__find_obj(doc, g) != DM_NONE);
    return g;
}

uint32_t dm__author(ct_dm_doc_o *doc, const char *name)
{
    return dm_strings__intern(&doc->authors, name, strlen(name));
}

/* ---- values ---- */

static void set_free(dm_set_t *s)
{
    if (!s)
        return;
    free(s->items);
    dm_map__free(&s->index);
    free(s);
}

static void value_free(dm_value_t *v)
{
    if (v->type == CT_DM_STRING)
        free(v->as.s);
    else if (v->type == CT_DM_BLOB)
        free(v->as.blob);
    else if (v->type == CT_DM_SET)
        set_free(v->as.set);
    v->type = CT_DM_NULL;
    v->size = 0;
}

ct_dm_value_t dm__view(const dm_value_t *v)
{
    ct_dm_value_t out = {.type = v->type, .size = v->size};
    switch (v->type) {
    case CT_DM_STRING: out.as.s = v->as.s; break;
    case CT_DM_BLOB: out.as.blob = v->as.blob; break;
    case CT_DM_SET:
        out.as.set = v->as.set->items;
        out.size = v->as.set->count;
        break;
    default: memcpy(&out.as, &v->as, sizeof v->as.v); break;
    }
    return out;
}

static uint32_t set_find(const dm_set_t *s, ct_guid_t item)
{
    if (s->index.capacity)
        return dm_map__get(&s->index, item.hi, item.lo);
    for (uint32_t i = 0; i < s->count; i++) {
        if (ct_guid_eq(s->items[i], item))
            return i;
    }
    return DM_NONE;
}

static bool set_add(dm_set_t *s, ct_guid_t item)
{
    if (!dm__grow((void **)&s->items, &s->capacity, s->count + 1, sizeof *s->items))
        return false;
    if (s->count + 1 > DM_SET_LINEAR) {
        if (!s->index.capacity) {
            for (uint32_t i = 0; i < s->count; i++) {
                if (!dm_map__put(&s->index, s->items[i].hi, s->items[i].lo, i)) {
                    dm_map__free(&s->index);
                    return false;
                }
            }
        }
        if (!dm_map__put(&s->index, item.hi, item.lo, s->count))
            return false;
    }
    s->items[s->count++] = item;
    return true;
}

/* Keeps the order of the other members (sets read back in insertion order). */
static void set_remove_at(dm_set_t *s, uint32_t at)
{
    if (s->index.capacity) {
        dm_map__remove(&s->index, s->items[at].hi, s->items[at].lo);
        for (uint32_t i = at + 1; i < s->count; i++)
            dm_map__put(&s->index, s->items[i].hi, s->items[i].lo, i - 1);
    }
    memmove(s->items + at, s->items + at + 1, (size_t)(s->count - at - 1) * sizeof *s->items);
    s->count--;
}

/* Copies a public value into storage the document owns. */
static bool value_store(dm_value_t *out, const ct_dm_value_t *v)
{
    /* The common scalar cases straight into *out: a value built in a local and copied whole
     * stalls on reading back the parts just written. */
    if (v->type == CT_DM_DOUBLE) {
        out->type = CT_DM_DOUBLE;
        out->size = 0;
        out->as.d = v->as.d;
        return true;
    }
    if (v->type == CT_DM_VEC3 || v->type == CT_DM_QUAT) {
        out->type = v->type;
        out->size = 0;
        memcpy(out->as.v, v->as.v, sizeof out->as.v);
        return true;
    }
    dm_value_t s = {.type = v->type, .size = v->size};
    switch (v->type) {
    case CT_DM_NULL: s.size = 0; break;
    case CT_DM_BOOL:
        s.as.b = v->as.b;
        s.size = 0;
        break;
    case CT_DM_DOUBLE:
        s.as.d = v->as.d;
        s.size = 0;
        break;
    case CT_DM_VEC3:
    case CT_DM_QUAT:
        memcpy(s.as.v, v->as.v, sizeof s.as.v);
        s.size = 0;
        break;
    case CT_DM_GUID:
        s.as.guid = v->as.guid;
        s.size = 0;
        break;
    case CT_DM_STRING:
        if (!(s.as.s = malloc((size_t)v->size + 1)))
            return false;
        memcpy(s.as.s, v->as.s, v->size);
        s.as.s[v->size] = '\0';
        break;
    case CT_DM_BLOB:
        if (!(s.as.blob = malloc(v->size ? v->size : 1)))
            return false;
        if (v->size)
            memcpy(s.as.blob, v->as.blob, v->size);
        break;
    case CT_DM_SET:
        if (!(s.as.set = calloc(1, sizeof *s.as.set)))
            return false;
        s.size = 0;
        for (uint32_t i = 0; i < v->size; i++) {
            if (set_find(s.as.set, v->as.set[i]) == DM_NONE && !set_add(s.as.set, v->as.set[i])) {
                set_free(s.as.set);
                return false;
            }
        }
        break;
    default: return false;
    }
    *out = s;
    return true;
}

bool dm__value_valid(ct_dm_doc_o *doc, const ct_dm_value_t *v, const char *op, ct_guid_t g,
                     const char *key)
{
    const char *why = NULL;
    int n = v->type == CT_DM_VEC3 ? 3 : v->type == CT_DM_QUAT ? 4 : v->type == CT_DM_DOUBLE;
    const double *d = v->type == CT_DM_DOUBLE ? &v->as.d : v->as.v;
    for (int i = 0; i < n; i++) {
        if (isnan(d[i]))
            why = "holds NaN";
    }
    if (v->type > CT_DM_SET)
        why = "is not one of the model's types";
    else if (v->type == CT_DM_STRING && (!v->as.s || memchr(v->as.s, 0, v->size)))
        why = "must be `size` bytes without NUL";
    else if ((v->type == CT_DM_BLOB || v->type == CT_DM_SET) && v->size && !v->as.blob)
        why = "has a size but no data";
    if (!why)
        return true;
    char gs[33];
    dm__format_guid(g, gs);
    dm__error(doc, "%s %s '%s': the %s value (type %u) %s", op, gs, key ? key : "",
              dm__type_name(v->type), v->type, why);
    return false;
}

bool dm__values_equal(const ct_dm_value_t *a, const ct_dm_value_t *b)
{
    if (a->type != b->type || a->size != b->size)
        return false;
    switch (a->type) {
    case CT_DM_NULL: return true;
    case CT_DM_BOOL: return a->as.b == b->as.b;
    case CT_DM_DOUBLE: return a->as.d == b->as.d;
    case CT_DM_VEC3: return memcmp(a->as.v, b->as.v, 3 * sizeof(double)) == 0;
    case CT_DM_QUAT: return memcmp(a->as.v, b->as.v, 4 * sizeof(double)) == 0;
    case CT_DM_GUID: return ct_guid_eq(a->as.guid, b->as.guid);
    case CT_DM_STRING:
    case CT_DM_BLOB: return a->size == 0 || memcmp(a->as.blob, b->as.blob, a->size) == 0;
    case CT_DM_SET:
        /* Same members in any order. */
        for (uint32_t i = 0; i < a->size; i++) {
            uint32_t j = 0;
            while (j < b->size && !ct_guid_eq(a->as.set[i], b->as.set[j]))
                j++;
            if (j == b->size)
                return false;
        }
        return true;
    default: return false;
    }
}

/* ---- lookup ---- */

typedef struct obj_key_t {
    const ct_dm_doc_o *doc;
    ct_guid_t guid;
} obj_key_t;

static bool same_obj(const void *ctx, uint32_t i)
{
    const obj_key_t *k = ctx;
    return ct_guid_eq(k->doc->objs[i].guid, k->guid);
}

typedef struct prop_key_t {
    const ct_dm_doc_o *doc;
    uint32_t obj, key;
} prop_key_t;

static bool same_prop(const void *ctx, uint32_t p)
{
    const prop_key_t *k = ctx;
    return k->doc->props[p].obj == k->obj && k->doc->props[p].key == k->key;
}

static uint32_t obj_hash(ct_guid_t g) { return dm__hash2(g.hi, g.lo); }
static uint32_t prop_hash(uint32_t obj, uint32_t key) { return dm__hash2(obj, key); }

uint32_t dm__find_obj(const ct_dm_doc_o *doc, ct_guid_t g)
{
    /* Objects never leave their slot (destroyed ones stay as tombstones), so the last answer
     * stays right: a run of edits on one object skips the map. */
    ct_dm_doc_o *d = (ct_dm_doc_o *)(uintptr_t)doc;
    if (d->last_obj < d->num_objs && ct_guid_eq(d->objs[d->last_obj].guid, g))
        return d->last_obj;
    obj_key_t k = {doc, g};
    uint32_t i = dm_index__find(&doc->obj_index, obj_hash(g), same_obj, &k);
    if (i != DM_NONE)
        d->last_obj = i;
    return i;
}

uint32_t dm__find_prop(const ct_dm_doc_o *doc, uint32_t obj, uint32_t key)
{
    /* Properties never leave their slot either, and prop_slot is the one place that makes one
     * (and updates this): the last answer, found or not, stays right. A merge asks about a
     * property before its op makes it; the op's own lookup then costs nothing. */
    ct_dm_doc_o *d = (ct_dm_doc_o *)(uintptr_t)doc;
    uint64_t k = ((uint64_t)obj << 32) | key;
    if (d->last_prop_key == k)
        return d->last_prop;
    /* Properties are indexed on the first lookup after they were made, in one pass: a run of
     * new properties (a reader, a batch of fresh keys) costs no scattered index writes and no
     * index growth while it runs, and the pass's writes overlap in the memory system. */
    if (d->props_indexed < d->num_props && dm_index__reserve(&d->prop_index, d->num_props)) {
        for (; d->props_indexed < d->num_props; d->props_indexed++) {
            const dm_prop_t *p = &d->props[d->props_indexed];
            dm_index__add(&d->prop_index, prop_hash(p->obj, p->key), d->props_indexed);
        }
    }
    prop_key_t pk = {doc, obj, key};
    uint32_t p = dm_index__find(&doc->prop_index, prop_hash(obj, key), same_prop, &pk);
    /* Out of memory for the index: the properties it lacks are searched one by one. */
    for (uint32_t q = d->props_indexed; p == DM_NONE && q < d->num_props; q++)
        if (d->props[q].obj == obj && d->props[q].key == key)
            p = q;
    d->last_prop_key = k;
    d->last_prop = p;
    return p;
}

static uint32_t alive_obj(const ct_dm_doc_o *doc, ct_guid_t g)
{
    uint32_t i = dm__find_obj(doc, g);
    return i != DM_NONE && doc->objs[i].alive ? i : DM_NONE;
}

/* ---- inverse records ---- */

bool dm__log_reserve_slow(dm_log_t *log, uint32_t n)
{
    return dm__grow((void **)&log->recs, &log->capacity, log->count + n, sizeof *log->recs) &&
           dm__grow((void **)&log->values, &log->cap_values, log->num_values + n,
                    sizeof *log->values);
}

/* Takes the last record off the log into *r; its value (if any) is the caller's now. (Filled in
 * place, field by field: a whole-struct copy after filling stalls on the packed stamp's store.) */
static void pop_rec(dm_log_t *log, dm_rec_t *r)
{
    const dm_rec_head_t *h = &log->recs[--log->count];
    r->kind = h->kind;
    r->mark = h->mark;
    r->at = h->at;
    r->old = h->old;
    if (h->has_value)
        r->value = log->values[--log->num_values];
    else
        r->value = (dm_value_t){0};
}

void dm__log_clear(dm_log_t *log, uint32_t from)
{
    while (log->count > from) {
        dm_rec_t r;
        pop_rec(log, &r);
        value_free(&r.value);
    }
}

/* Records an inverse in doc->log, which owns `value` from here on (freed when there is no log).
 * The room was reserved (reserve_recs) before the op changed anything. */
static void push_rec(ct_dm_doc_o *doc, uint8_t kind, uint32_t at, dm_stamp_t old, dm_value_t value)
{
    dm_log_t *log = doc->log;
    if (!log || !dm__log_reserve(log, 1)) {
        value_free(&value);
        return;
    }
    bool has_value = value.type != CT_DM_NULL;
    dm_rec_head_t *r = &log->recs[log->count++];
    *r = (dm_rec_head_t){.kind = kind, .has_value = has_value, .at = at, .old = old};
    if (has_value)
        log->values[log->num_values++] = value;
    if (!doc->action_open && log == &doc->undo) {
        r->mark = true;
        doc->action_open = true;
    }
}

static dm_value_t item_value(ct_guid_t item)
{
    return (dm_value_t){.type = CT_DM_GUID, .as.guid = item};
}

static const dm_value_t no_value = {0};

/* Records need their memory before the op changes anything, so ops reserve first: an op that
 * cannot record its inverse fails whole. */
static bool reserve_recs(ct_dm_doc_o *doc, uint32_t n)
{
    return !doc->log || dm__log_reserve(doc->log, n);
}

/* ---- the operations ---- */

static int op_create(ct_dm_doc_o *doc, ct_guid_t g, dm_stamp_t stamp, bool remote)
{
    char gs[33];
    uint32_t i = dm__find_obj(doc, g);
    if (i != DM_NONE && doc->objs[i].alive) {
        if (remote)
            return 1;
        dm__format_guid(g, gs);
        dm__error(doc, "create %s: the object exists already", gs);
        return CT_ERR_INVALID;
    }
    if (i != DM_NONE && remote && dm__stamp_cmp(doc, doc->objs[i].stamp, stamp) > 0)
        return 1; /* destroyed by a later op: the destroy wins */
    if (!reserve_recs(doc, 1))
        goto nomem;
    if (i == DM_NONE) {
        if (!dm__grow((void **)&doc->objs, &doc->cap_objs, doc->num_objs + 1, sizeof *doc->objs))
            goto nomem;
        if (!dm_index__add(&doc->obj_index, obj_hash(g), doc->num_objs))
            goto nomem;
        i = doc->num_objs++;
        doc->objs[i] = (dm_obj_t){.guid = g, .first_prop = DM_NONE, .last_prop = DM_NONE};
    }
    dm_stamp_t old = doc->objs[i].stamp;
    doc->objs[i].alive = true;
    doc->objs[i].stamp = stamp;
    push_rec(doc, CT_DM_OP_DESTROY, i, old, no_value);
    return 0;
nomem:
    dm__error(doc, "create: out of memory");
    return CT_ERR_NOMEM;
}

static int op_destroy(ct_dm_doc_o *doc, ct_guid_t g, dm_stamp_t stamp, bool remote)
{
    char gs[33];
    uint32_t i = alive_obj(doc, g);
    if (i == DM_NONE || ct_guid_is_root(g)) {
        if (remote && i == DM_NONE)
            return 1;
        dm__format_guid(g, gs);
        dm__error(doc, "destroy %s: %s", gs,
                  ct_guid_is_root(g) ? "the root cannot be destroyed"
                                     : "the object does not exist");
        return CT_ERR_INVALID;
    }
    uint32_t n = 1;
    for (uint32_t p = doc->objs[i].first_prop; p != DM_NONE; p = doc->props[p].next)
        n += doc->props[p].value.type != CT_DM_NULL;
    if (!reserve_recs(doc, n)) {
        dm__error(doc, "destroy: out of memory");
        return CT_ERR_NOMEM;
    }
    /* The properties go first (their inverses restore them after the create's inverse has
     * brought the object back: the undo stack runs backwards). */
    for (uint32_t p = doc->objs[i].first_prop; p != DM_NONE; p = doc->props[p].next) {
        dm_prop_t *prop = &doc->props[p];
        if (prop->value.type == CT_DM_NULL)
            continue;
        push_rec(doc, CT_DM_OP_SET, p, prop->stamp, prop->value);
        prop->value = (dm_value_t){0};
        prop->stamp = stamp;
    }
    dm_stamp_t old = doc->objs[i].stamp;
    doc->objs[i].alive = false;
    doc->objs[i].stamp = stamp;
    push_rec(doc, CT_DM_OP_CREATE, i, old, no_value);
    return 0;
}

/* Finds or makes the property; DM_NONE when out of memory. `new_key`: the key was interned just
 * now, so no object has it and there is nothing to look for. Not inlined: with two callers GCC
 * inlined it into op_set, and a fresh set_property cost 94 ns instead of 81 (measured). */
static __attribute__((noinline)) uint32_t prop_slot(ct_dm_doc_o *doc, uint32_t obj, uint32_t key,
                                                    bool new_key)
{
    uint32_t p = new_key ? DM_NONE : dm__find_prop(doc, obj, key);
    if (p != DM_NONE)
        return p;
    if (!dm__grow((void **)&doc->props, &doc->cap_props, doc->num_props + 1, sizeof *doc->props))
        return DM_NONE;
    p = doc->num_props++;
    doc->props[p] = (dm_prop_t){.obj = obj, .key = key, .next = DM_NONE};
    /* Just looked up (and missed), with the index caught up: its slot is in cache now, so it is
     * indexed at once (a merge's new properties); otherwise on the next lookup (dm__find_prop). */
    if (!new_key && doc->props_indexed == p && dm_index__reserve(&doc->prop_index, p + 1)) {
        dm_index__add(&doc->prop_index, prop_hash(obj, key), p);
        doc->props_indexed++;
    }
    doc->last_prop_key = ((uint64_t)obj << 32) | key;
    doc->last_prop = p;
    dm_obj_t *o = &doc->objs[obj];
    if (o->last_prop == DM_NONE)
        o->first_prop = p;
    else
        doc->props[o->last_prop].next = p;
    o->last_prop = p;
    return p;
}

/* The key's length, or 0 (with last_error set) when it is empty or too long. */
static size_t key_valid(ct_dm_doc_o *doc, const char *op, ct_guid_t g, const char *key)
{
    char gs[33];
    /* Keys are a few bytes: a loop that stops past the longest allowed beats a strlen call. */
    size_t n = 0;
    if (key)
        while (n <= CT_DM_MAX_KEY && key[n])
            n++;
    if (n == 0 || n > CT_DM_MAX_KEY) {
        dm__format_guid(g, gs);
        dm__error(doc, "%s %s: a key must be 1..%u bytes", op, gs, CT_DM_MAX_KEY);
        return 0;
    }
    return n;
}

/* The object of an op on properties: alive. `remote` ops on a destroyed object answer 2 (the
 * "deleted vs edited" case the caller reports). */
static int target(ct_dm_doc_o *doc, const char *op, ct_guid_t g, const char *key, bool remote,
                  uint32_t *obj)
{
    char gs[33];
    uint32_t i = dm__find_obj(doc, g);
    if (i != DM_NONE && !doc->objs[i].alive && remote)
        return 2;
    if (i == DM_NONE || !doc->objs[i].alive) {
        dm__format_guid(g, gs);
        dm__error(doc, "%s %s '%s': the object does not exist", op, gs, key ? key : "");
        return CT_ERR_INVALID;
    }
    *obj = i;
    return 0;
}

static int op_set(ct_dm_doc_o *doc, ct_guid_t g, const char *key, const ct_dm_value_t *value,
                  dm_stamp_t stamp, bool remote)
{
    static const ct_dm_value_t null_value = {0};
    if (!value)
        value = &null_value;
    size_t key_len = key_valid(doc, "set_property", g, key);
    if (!key_len)
        return CT_ERR_INVALID;
    uint32_t obj;
    int r = target(doc, "set_property", g, key, remote, &obj);
    if (r)
        return r;
    if (!dm__value_valid(doc, value, "set_property", g, key))
        return CT_ERR_INVALID;
    uint32_t known = doc->keys.count;
    uint32_t k = dm_strings__intern(&doc->keys, key, key_len);
    if (k == DM_NONE || !reserve_recs(doc, 1))
        goto nomem;
    uint32_t p = prop_slot(doc, obj, k, doc->keys.count != known);
    if (p == DM_NONE)
        goto nomem;
    dm_prop_t *prop = &doc->props[p];
    if (remote && prop->stamp.hlc && dm__stamp_cmp(doc, stamp, prop->stamp) < 0)
        return 1;
    bool owns =
        value->type == CT_DM_STRING || value->type == CT_DM_BLOB || value->type == CT_DM_SET;
    if (!owns) {
        /* Storing a plain value cannot fail: the old one goes to the record, the new one in. */
        push_rec(doc, CT_DM_OP_SET, p, prop->stamp, prop->value);
        value_store(&prop->value, value);
        prop->stamp = stamp;
        return 0;
    }
    dm_value_t stored;
    if (!value_store(&stored, value))
        goto nomem;
    push_rec(doc, CT_DM_OP_SET, p, prop->stamp, prop->value);
    prop->value = stored;
    prop->stamp = stamp;
    return 0;
nomem:
    dm__error(doc, "set_property '%s': out of memory", key);
    return CT_ERR_NOMEM;
}

bool dm__reserve(ct_dm_doc_o *doc, uint32_t objects, uint32_t props)
{
    uint64_t no = (uint64_t)doc->num_objs + objects, np = (uint64_t)doc->num_props + props;
    if (no > UINT32_MAX / 4 || np > UINT32_MAX / 4)
        return false;
    /* Not the property index: a reader's properties are indexed at the first lookup, at once. */
    return dm__grow((void **)&doc->objs, &doc->cap_objs, (uint32_t)no, sizeof *doc->objs) &&
           dm__grow((void **)&doc->props, &doc->cap_props, (uint32_t)np, sizeof *doc->props) &&
           dm_index__reserve(&doc->obj_index, (uint32_t)no);
}

uint32_t dm__create_new(ct_dm_doc_o *doc, ct_guid_t g, dm_stamp_t stamp, bool *exists)
{
    *exists = false;
    if (!dm__grow((void **)&doc->objs, &doc->cap_objs, doc->num_objs + 1, sizeof *doc->objs) ||
        !dm_index__reserve(&doc->obj_index, doc->obj_index.count + 1)) {
        dm__error(doc, "create: out of memory");
        return DM_NONE;
    }
    obj_key_t k = {doc, g};
    if (dm_index__find_or_add(&doc->obj_index, obj_hash(g), same_obj, &k, doc->num_objs) !=
        DM_NONE) {
        *exists = true;
        return DM_NONE;
    }
    uint32_t i = doc->num_objs++;
    doc->objs[i] = (dm_obj_t){
        .guid = g, .first_prop = DM_NONE, .last_prop = DM_NONE, .stamp = stamp, .alive = true};
    return i;
}

uint32_t dm__set_fresh(ct_dm_doc_o *doc, uint32_t obj, uint32_t key, const ct_dm_value_t *value,
                       dm_stamp_t stamp)
{
    dm_value_t stored;
    uint32_t p = DM_NONE;
    if (value_store(&stored, value) && (p = prop_slot(doc, obj, key, true)) == DM_NONE)
        value_free(&stored);
    if (p == DM_NONE) {
        dm__error(doc, "set_property '%s': out of memory", doc->keys.strs[key]);
        return DM_NONE;
    }
    doc->props[p].value = stored;
    doc->props[p].stamp = stamp;
    return p;
}

bool dm__set_append(ct_dm_doc_o *doc, uint32_t p, ct_guid_t item)
{
    if (set_add(doc->props[p].value.as.set, item))
        return true;
    dm__error(doc, "add_to_set '%s': out of memory", doc->keys.strs[doc->props[p].key]);
    return false;
}

int dm__set_new(ct_dm_doc_o *doc, uint32_t obj, uint32_t key, bool new_key,
                const ct_dm_value_t *value, dm_stamp_t stamp)
{
    for (uint32_t p = new_key ? DM_NONE : doc->objs[obj].first_prop; p != DM_NONE;
         p = doc->props[p].next) {
        if (doc->props[p].key == key) {
            char gs[33];
            dm__format_guid(doc->objs[obj].guid, gs);
            dm__error(doc, "set_property %s '%s': the object has it already", gs,
                      doc->keys.strs[key]);
            return CT_ERR_CONFLICT;
        }
    }
    return dm__set_fresh(doc, obj, key, value, stamp) == DM_NONE ? CT_ERR_NOMEM : 0;
}

/* The set property of an add/remove: *p DM_NONE when the property is missing or removed. */
static int set_target(ct_dm_doc_o *doc, const char *op, ct_guid_t g, const char *key, bool remote,
                      uint32_t *obj, uint32_t *p)
{
    size_t key_len = key_valid(doc, op, g, key);
    if (!key_len)
        return CT_ERR_INVALID;
    int r = target(doc, op, g, key, remote, obj);
    if (r)
        return r;
    uint32_t k = dm_strings__find(&doc->keys, key, key_len);
    *p = k == DM_NONE ? DM_NONE : dm__find_prop(doc, *obj, k);
    if (*p != DM_NONE && doc->props[*p].value.type == CT_DM_NULL)
        *p = DM_NONE;
    if (*p != DM_NONE && doc->props[*p].value.type != CT_DM_SET) {
        char gs[33];
        dm__format_guid(g, gs);
        dm__error(doc, "%s %s '%s': the property holds a %s, not a set", op, gs, key,
                  dm__type_name(doc->props[*p].value.type));
        return CT_ERR_INVALID;
    }
    return 0;
}

static int op_add(ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_guid_t item, dm_stamp_t stamp,
                  bool remote)
{
    uint32_t obj, p;
    int r = set_target(doc, "add_to_set", g, key, remote, &obj, &p);
    if (r)
        return r;
    if (p == DM_NONE) {
        /* A missing property becomes an empty set: an op of its own on the undo stack. */
        ct_dm_value_t empty = {.type = CT_DM_SET};
        if ((r = op_set(doc, g, key, &empty, stamp, remote)) != 0)
            return r; /* 1: a newer removal of the whole property wins */
        p = dm__find_prop(doc, obj, dm_strings__find(&doc->keys, key, strlen(key)));
    }
    dm_set_t *s = doc->props[p].value.as.set;
    if (set_find(s, item) != DM_NONE)
        return 0;
    if (!reserve_recs(doc, 1) || !set_add(s, item)) {
        dm__error(doc, "add_to_set '%s': out of memory", key);
        return CT_ERR_NOMEM;
    }
    push_rec(doc, CT_DM_OP_REMOVE, p, doc->props[p].stamp, item_value(item));
    return 0;
}

static int op_remove(ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_guid_t item,
                     dm_stamp_t stamp, bool remote)
{
    (void)stamp; /* set members carry no stamps: set operations from two sides always merge */
    uint32_t obj, p;
    int r = set_target(doc, "remove_from_set", g, key, remote, &obj, &p);
    if (r)
        return r;
    uint32_t at = p == DM_NONE ? DM_NONE : set_find(doc->props[p].value.as.set, item);
    if (at == DM_NONE)
        return 0;
    if (!reserve_recs(doc, 1)) {
        dm__error(doc, "remove_from_set '%s': out of memory", key);
        return CT_ERR_NOMEM;
    }
    set_remove_at(doc->props[p].value.as.set, at);
    push_rec(doc, CT_DM_OP_ADD, p, doc->props[p].stamp, item_value(item));
    return 0;
}

/* ---- dispatch, listeners, recording ---- */

static void record_op(ct_dm_doc_o *doc, const ct_dm_op_t *op)
{
    if (!doc->outgoing && !(doc->outgoing = calloc(1, sizeof *doc->outgoing)))
        return;
    ct_dm_changeset_o *cs = doc->outgoing;
    if (!dm__grow((void **)&cs->ops, &cs->capacity, cs->count + 1, sizeof *cs->ops))
        return;
    ct_dm_op_t copy = *op;
    copy.key = op->key ? dm_arena__strdup(&cs->arena, op->key) : NULL;
    copy.stamp.author = dm_arena__strdup(&cs->arena, op->stamp.author);
    if ((op->key && !copy.key) || !copy.stamp.author ||
        !dm_arena__copy_value(&cs->arena, &copy.value))
        return;
    cs->ops[cs->count++] = copy;
}

void dm__notify(ct_dm_doc_o *doc, const ct_dm_op_t *op, ct_dm_source source)
{
    for (uint32_t i = 0; i < doc->num_listeners; i++)
        doc->listeners[i].f(doc->listeners[i].user_data, doc, op, source);
}

/* An applied op, told to the listeners and (a local one) to the recording. */
static void dm__announce(ct_dm_doc_o *doc, const ct_dm_op_t *op, dm_stamp_t stamp,
                         ct_dm_source source)
{
    bool remote = source == CT_DM_FROM_REMOTE;
    ct_dm_op_t seen = *op;
    seen.stamp = (ct_dm_stamp_t){stamp.hlc, doc->authors.strs[stamp.author]};
    if (seen.kind == CT_DM_OP_SET && !op->key)
        seen.value = (ct_dm_value_t){0};
    if (doc->recording && !remote)
        record_op(doc, &seen);
    dm__notify(doc, &seen, source);
}

int dm__apply(ct_dm_doc_o *doc, const ct_dm_op_t *op, dm_stamp_t stamp, ct_dm_source source)
{
    bool remote = source == CT_DM_FROM_REMOTE;
    int r;
    switch (op->kind) {
    case CT_DM_OP_CREATE: r = op_create(doc, op->object, stamp, remote); break;
    case CT_DM_OP_DESTROY: r = op_destroy(doc, op->object, stamp, remote); break;
    case CT_DM_OP_SET: r = op_set(doc, op->object, op->key, &op->value, stamp, remote); break;
    case CT_DM_OP_ADD: r = op_add(doc, op->object, op->key, op->item, stamp, remote); break;
    case CT_DM_OP_REMOVE: r = op_remove(doc, op->object, op->key, op->item, stamp, remote); break;
    default:
        dm__error(doc, "operation kind %u is not one of the five", op->kind);
        return CT_ERR_INVALID;
    }
    if (r != 0)
        return r;
    if (doc->num_listeners || (doc->recording && !remote))
        dm__announce(doc, op, stamp, source);
    return 0;
}

/* A local op: stamped now, its inverse on the undo stack, the redo stack forgotten. */
static int local(ct_dm_doc_o *doc, const ct_dm_op_t *op)
{
    doc->log = &doc->undo;
    int r = dm__apply(doc, op, dm__local_stamp(doc), CT_DM_FROM_LOCAL);
    if (r == 0 && doc->redo.count)
        dm__log_clear(&doc->redo, 0);
    return r;
}

int dm_doc__create(ct_dm_doc_o *doc, ct_guid_t object)
{
    return local(doc, &(ct_dm_op_t){.kind = CT_DM_OP_CREATE, .object = object});
}

static int doc_destroy_op(ct_dm_doc_o *doc, ct_guid_t object)
{
    return local(doc, &(ct_dm_op_t){.kind = CT_DM_OP_DESTROY, .object = object});
}

static int doc_set(ct_dm_doc_o *doc, ct_guid_t object, const char *key, const ct_dm_value_t *value)
{
    if (!doc->num_listeners && !doc->recording) {
        /* Nobody to tell: straight to the operation, no op record built and copied. */
        doc->log = &doc->undo;
        int r = op_set(doc, object, key, value, dm__local_stamp(doc), false);
        if (r == 0 && doc->redo.count)
            dm__log_clear(&doc->redo, 0);
        return r;
    }
    ct_dm_op_t op = {.kind = CT_DM_OP_SET, .object = object, .key = key};
    if (value)
        op.value = *value;
    return local(doc, &op);
}

static int doc_add(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t item)
{
    return local(doc,
                 &(ct_dm_op_t){.kind = CT_DM_OP_ADD, .object = object, .key = key, .item = item});
}

static int doc_remove(ct_dm_doc_o *doc, ct_guid_t object, const char *key, ct_guid_t item)
{
    return local(
        doc, &(ct_dm_op_t){.kind = CT_DM_OP_REMOVE, .object = object, .key = key, .item = item});
}

/* ---- rollback: undo inverses exactly, old stamps restored, nothing recorded ---- */

void dm__rollback(ct_dm_doc_o *doc, dm_log_t *log, uint32_t from)
{
    while (log->count > from) {
        dm_rec_t rec, *r = &rec;
        pop_rec(log, r);
        switch (r->kind) {
        case CT_DM_OP_CREATE:
        case CT_DM_OP_DESTROY:
            doc->objs[r->at].alive = r->kind == CT_DM_OP_CREATE;
            doc->objs[r->at].stamp = r->old;
            break;
        case CT_DM_OP_SET: {
            dm_prop_t *prop = &doc->props[r->at];
            value_free(&prop->value);
            prop->value = r->value;
            prop->stamp = r->old;
            r->value = (dm_value_t){0};
            break;
        }
        case CT_DM_OP_ADD:
        case CT_DM_OP_REMOVE: {
            dm_prop_t *prop = &doc->props[r->at];
            if (prop->value.type != CT_DM_SET)
                break;
            dm_set_t *s = prop->value.as.set;
            uint32_t at = set_find(s, r->value.as.guid);
            if (r->kind == CT_DM_OP_ADD && at == DM_NONE)
                set_add(s, r->value.as.guid);
            else if (r->kind == CT_DM_OP_REMOVE && at != DM_NONE)
                set_remove_at(s, at);
            break;
        }
        }
        value_free(&r->value);
    }
}

/* ---- undo and redo ---- */

static void restore_point(ct_dm_doc_o *doc) { doc->action_open = false; }

static bool rec_on_prop(const dm_rec_t *r)
{
    return r->kind != CT_DM_OP_CREATE && r->kind != CT_DM_OP_DESTROY;
}

/* The object a record is about. */
static uint32_t rec_obj(const ct_dm_doc_o *doc, const dm_rec_t *r)
{
    return rec_on_prop(r) ? doc->props[r->at].obj : r->at;
}

static void add_skip(ct_dm_doc_o *doc, const dm_rec_t *r, const char *why)
{
    if (!dm__grow((void **)&doc->skips, &doc->cap_skips, doc->num_skips + 1, sizeof *doc->skips))
        return;
    ct_dm_skip_t *s = &doc->skips[doc->num_skips++];
    memset(s, 0, sizeof *s);
    s->kind = r->kind;
    s->object = doc->objs[rec_obj(doc, r)].guid;
    s->item = r->kind == CT_DM_OP_ADD || r->kind == CT_DM_OP_REMOVE ? r->value.as.guid
                                                                    : (ct_guid_t){0, 0};
    s->why = why;
    if (rec_on_prop(r))
        s->key = doc->keys.strs[doc->props[r->at].key];
    if (r->kind == CT_DM_OP_SET) {
        const dm_prop_t *prop = &doc->props[r->at];
        s->wanted = dm__view(&r->value);
        dm_arena__copy_value(&doc->report_arena, &s->wanted);
        s->current = dm__view(&prop->value);
        dm_arena__copy_value(&doc->report_arena, &s->current);
        s->current_stamp = (ct_dm_stamp_t){prop->stamp.hlc, doc->authors.strs[prop->stamp.author]};
    }
}

/* Whether an inverse may run: the data still carries what this document's op left there. */
static const char *blocked(ct_dm_doc_o *doc, const dm_rec_t *r)
{
    const dm_obj_t *o = &doc->objs[rec_obj(doc, r)];
    switch (r->kind) {
    case CT_DM_OP_SET: {
        if (!o->alive)
            return "the object has been destroyed since";
        /* Ours still when this document's author made the last write (the op itself, or a
         * later op or undo of ours, which the stack order has dealt with already). */
        dm_stamp_t now = doc->props[r->at].stamp;
        return now.author == doc->me ? NULL : "someone else has set the property since";
    }
    case CT_DM_OP_DESTROY: {
        if (!o->alive)
            return "the object has been destroyed since";
        for (uint32_t p = o->first_prop; p != DM_NONE; p = doc->props[p].next) {
            if (doc->props[p].value.type != CT_DM_NULL && doc->props[p].stamp.author != doc->me)
                return "someone else has edited the object since";
        }
        return NULL;
    }
    case CT_DM_OP_CREATE:
        if (o->alive)
            return "the object exists again";
        return NULL;
    case CT_DM_OP_REMOVE:
    case CT_DM_OP_ADD: {
        if (!o->alive)
            return "the object has been destroyed since";
        const dm_prop_t *prop = &doc->props[r->at];
        bool member = prop->value.type == CT_DM_SET &&
                      set_find(prop->value.as.set, r->value.as.guid) != DM_NONE;
        if (r->kind == CT_DM_OP_REMOVE && !member)
            return "someone else has removed the item since";
        if (r->kind == CT_DM_OP_ADD && member)
            return "someone else has added the item since";
        return NULL;
    }
    }
    return "unknown record";
}

/* An undone or redone SET, straight on its property: the record's value moves in, the
 * property's moves into the opposite record. No key hashing, no copy, no allocation. */
static bool replay_set(ct_dm_doc_o *doc, dm_rec_t *r, ct_dm_source source)
{
    if (!reserve_recs(doc, 1))
        return false;
    dm_stamp_t stamp = dm__local_stamp(doc);
    dm_prop_t *prop = &doc->props[r->at];
    push_rec(doc, CT_DM_OP_SET, r->at, prop->stamp, prop->value);
    prop->value = r->value;
    prop->stamp = stamp;
    r->value = (dm_value_t){0};
    if (doc->num_listeners || doc->recording) {
        ct_dm_op_t op = {.kind = CT_DM_OP_SET,
                         .object = doc->objs[prop->obj].guid,
                         .key = doc->keys.strs[prop->key],
                         .value = dm__view(&prop->value)};
        dm__announce(doc, &op, stamp, source);
    }
    return true;
}

static int replay(ct_dm_doc_o *doc, dm_log_t *from, dm_log_t *to, ct_dm_source source,
                  ct_dm_undo_report_t *report)
{
    if (report)
        *report = (ct_dm_undo_report_t){0};
    doc->num_skips = 0;
    dm_arena__free(&doc->report_arena);
    if (from->count == 0)
        return CT_ERR_NOT_FOUND;
    doc->action_open = false;
    doc->log = to;
    uint32_t first_to = to->count, applied = 0;
    while (from->count) {
        dm_rec_t r;
        pop_rec(from, &r);
        const char *why = blocked(doc, &r);
        if (why) {
            add_skip(doc, &r, why);
        } else if (r.kind == CT_DM_OP_SET) {
            if (replay_set(doc, &r, source))
                applied++;
            else
                add_skip(doc, &r, "the inverse could not be applied (out of memory)");
        } else {
            uint32_t o = rec_obj(doc, &r);
            ct_dm_op_t op = {.kind = r.kind, .object = doc->objs[o].guid, .item = r.value.as.guid};
            if (rec_on_prop(&r))
                op.key = doc->keys.strs[doc->props[r.at].key];
            if (r.kind == CT_DM_OP_SET)
                op.value = dm__view(&r.value);
            if (dm__apply(doc, &op, dm__local_stamp(doc), source) == 0)
                applied++;
            else
                add_skip(doc, &r, "the inverse could not be applied (out of memory)");
        }
        value_free(&r.value);
        if (r.mark)
            break;
    }
    if (to->count > first_to)
        to->recs[first_to].mark = true;
    /* The next local op begins a new action, not the tail of the replayed one. */
    doc->action_open = false;
    doc->log = NULL;
    if (report)
        *report = (ct_dm_undo_report_t){applied, doc->num_skips, doc->skips};
    return 0;
}

static int undo(ct_dm_doc_o *doc, ct_dm_undo_report_t *report)
{
    return replay(doc, &doc->undo, &doc->redo, CT_DM_FROM_UNDO, report);
}

static int redo(ct_dm_doc_o *doc, ct_dm_undo_report_t *report)
{
    return replay(doc, &doc->redo, &doc->undo, CT_DM_FROM_REDO, report);
}

static bool can_undo(const ct_dm_doc_o *doc) { return doc->undo.count > 0; }
static bool can_redo(const ct_dm_doc_o *doc) { return doc->redo.count > 0; }

static void clear_history(ct_dm_doc_o *doc)
{
    dm__log_clear(&doc->undo, 0);
    dm__log_clear(&doc->redo, 0);
    doc->action_open = false;
}

/* ---- batches ---- */

int dm_doc__apply_ops(ct_dm_doc_o *doc, const ct_dm_op_t *ops, uint32_t n, uint32_t *failed_index)
{
    /* Local ops go to the undo stack, remote ones to the transaction log; either way a failure
     * rolls back exactly what this batch did. */
    uint32_t undo_from = doc->undo.count, txn_from = doc->txn.count;
    bool was_open = doc->action_open;
    for (uint32_t i = 0; i < n; i++) {
        int r;
        if (ops[i].stamp.hlc == 0) {
            doc->log = &doc->undo;
            r = dm__apply(doc, &ops[i], dm__local_stamp(doc), CT_DM_FROM_LOCAL);
        } else {
            uint32_t author = dm__author(doc, ops[i].stamp.author ? ops[i].stamp.author : "");
            if (author == DM_NONE) {
                r = CT_ERR_NOMEM;
            } else if (dm__seen_has(doc, author, ops[i].stamp.hlc)) {
                r = 0; /* applied before: nothing to do */
            } else {
                doc->log = &doc->txn;
                if (ops[i].stamp.hlc > doc->hlc)
                    doc->hlc = ops[i].stamp.hlc;
                r = dm__apply(doc, &ops[i], (dm_stamp_t){ops[i].stamp.hlc, author},
                              CT_DM_FROM_REMOTE);
                /* 1: superseded by a newer write; 2: an edit of a destroyed object (the destroy
                 * wins). Neither is an error; merge() is the call that reports them. */
                if (r > 0)
                    r = 0;
            }
        }
        if (r < 0) {
            if (failed_index)
                *failed_index = i;
            dm__rollback(doc, &doc->txn, txn_from);
            dm__rollback(doc, &doc->undo, undo_from);
            doc->action_open = was_open;
            doc->log = NULL;
            return r;
        }
    }
    dm__log_clear(&doc->txn, txn_from);
    if (doc->undo.count > undo_from && doc->redo.count)
        dm__log_clear(&doc->redo, 0);
    doc->log = NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t author = ops[i].stamp.hlc
                              ? dm__author(doc, ops[i].stamp.author ? ops[i].stamp.author : "")
                              : DM_NONE;
        if (author != DM_NONE)
            dm__seen_add(doc, author, ops[i].stamp.hlc);
    }
    return 0;
}

/* ---- reading ---- */

static bool exists(const ct_dm_doc_o *doc, ct_guid_t g) { return alive_obj(doc, g) != DM_NONE; }

static uint32_t num_objects(const ct_dm_doc_o *doc)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < doc->num_objs; i++)
        n += doc->objs[i].alive;
    return n;
}

static uint32_t objects(const ct_dm_doc_o *doc, ct_guid_t *out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < doc->num_objs; i++) {
        if (!doc->objs[i].alive)
            continue;
        if (n < max)
            out[n] = doc->objs[i].guid;
        n++;
    }
    return n;
}

static uint32_t keys(const ct_dm_doc_o *doc, ct_guid_t g, const char **out, uint32_t max)
{
    uint32_t i = alive_obj(doc, g), n = 0;
    if (i == DM_NONE)
        return 0;
    for (uint32_t p = doc->objs[i].first_prop; p != DM_NONE; p = doc->props[p].next) {
        if (doc->props[p].value.type == CT_DM_NULL)
            continue;
        if (n < max)
            out[n] = doc->keys.strs[doc->props[p].key];
        n++;
    }
    return n;
}

static const dm_prop_t *lookup(ct_dm_doc_o *doc, ct_guid_t g, const char *key)
{
    char gs[33];
    uint32_t i = alive_obj(doc, g);
    uint32_t k = i == DM_NONE || !key ? DM_NONE : dm_strings__find(&doc->keys, key, strlen(key));
    uint32_t p = k == DM_NONE ? DM_NONE : dm__find_prop(doc, i, k);
    if (p == DM_NONE || doc->props[p].value.type == CT_DM_NULL) {
        dm__format_guid(g, gs);
        dm__error(doc, "get %s '%s': %s", gs, key ? key : "",
                  i == DM_NONE ? "the object does not exist" : "no such property");
        return NULL;
    }
    return &doc->props[p];
}

static int get(ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_dm_value_t *out)
{
    const dm_prop_t *p = lookup(doc, g, key);
    if (!p)
        return CT_ERR_NOT_FOUND;
    *out = dm__view(&p->value);
    return 0;
}

static int get_stamp(ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_dm_stamp_t *out)
{
    const dm_prop_t *p = lookup(doc, g, key);
    if (!p)
        return CT_ERR_NOT_FOUND;
    *out = (ct_dm_stamp_t){p->stamp.hlc, doc->authors.strs[p->stamp.author]};
    return 0;
}

static int typed(ct_dm_doc_o *doc, ct_guid_t g, const char *key, uint32_t type, ct_dm_value_t *out)
{
    int r = get(doc, g, key, out);
    if (r == 0 && out->type != type) {
        char gs[33];
        dm__format_guid(g, gs);
        dm__error(doc, "get %s '%s': the property holds a %s, not a %s", gs, key,
                  dm__type_name(out->type), dm__type_name(type));
        return CT_ERR_INVALID;
    }
    return r;
}

static int get_bool(ct_dm_doc_o *doc, ct_guid_t g, const char *key, bool *out)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_BOOL, &v);
    if (r == 0)
        *out = v.as.b;
    return r;
}

static int get_double(ct_dm_doc_o *doc, ct_guid_t g, const char *key, double *out)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_DOUBLE, &v);
    if (r == 0)
        *out = v.as.d;
    return r;
}

static int get_vec3(ct_dm_doc_o *doc, ct_guid_t g, const char *key, double out[3])
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_VEC3, &v);
    if (r == 0)
        memcpy(out, v.as.v, 3 * sizeof(double));
    return r;
}

static int get_quat(ct_dm_doc_o *doc, ct_guid_t g, const char *key, double out[4])
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_QUAT, &v);
    if (r == 0)
        memcpy(out, v.as.v, 4 * sizeof(double));
    return r;
}

static int get_string(ct_dm_doc_o *doc, ct_guid_t g, const char *key, const char **out)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_STRING, &v);
    if (r == 0)
        *out = v.as.s;
    return r;
}

static int get_blob(ct_dm_doc_o *doc, ct_guid_t g, const char *key, const void **out,
                    uint32_t *size)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_BLOB, &v);
    if (r == 0) {
        *out = v.as.blob;
        *size = v.size;
    }
    return r;
}

static int get_guid(ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_guid_t *out)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_GUID, &v);
    if (r == 0)
        *out = v.as.guid;
    return r;
}

static int get_set(ct_dm_doc_o *doc, ct_guid_t g, const char *key, const ct_guid_t **items,
                   uint32_t *count)
{
    ct_dm_value_t v;
    int r = typed(doc, g, key, CT_DM_SET, &v);
    if (r == 0) {
        *items = v.as.set;
        *count = v.size;
    }
    return r;
}

static bool set_contains(const ct_dm_doc_o *doc, ct_guid_t g, const char *key, ct_guid_t item)
{
    uint32_t i = alive_obj(doc, g);
    uint32_t k = i == DM_NONE || !key ? DM_NONE : dm_strings__find(&doc->keys, key, strlen(key));
    uint32_t p = k == DM_NONE ? DM_NONE : dm__find_prop(doc, i, k);
    return p != DM_NONE && doc->props[p].value.type == CT_DM_SET &&
           set_find(doc->props[p].value.as.set, item) != DM_NONE;
}

/* ---- lifetime ---- */

static uint64_t seed_from_os(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&s, sizeof s, 1, f) != 1)
            s = 0;
        fclose(f);
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return s ^ ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&s;
}

ct_dm_doc_o *dm__create_doc(const ct_dm_doc_desc_t *desc)
{
    ct_dm_doc_desc_t d = desc ? *desc : (ct_dm_doc_desc_t){0};
    ct_dm_doc_o *doc = calloc(1, sizeof *doc);
    if (!doc)
        return NULL;
    doc->clock = d.clock ? d.clock : real_clock;
    doc->last_prop = DM_NONE;
    doc->clock_user_data = d.clock_user_data;
    uint64_t seed = d.guid_seed ? d.guid_seed : seed_from_os();
    doc->rng[0] = seed ^ 0x9e3779b97f4a7c15ull;
    doc->rng[1] = (seed * 0xbf58476d1ce4e5b9ull) | 1u;
    doc->me = dm__author(doc, d.author && d.author[0] ? d.author : "anonymous");
    if (doc->me == DM_NONE ||
        dm__grow((void **)&doc->objs, &doc->cap_objs, 64, sizeof *doc->objs) == false ||
        !dm_index__add(&doc->obj_index, obj_hash((ct_guid_t){0, 0}), 0)) {
        dm__destroy_doc(doc);
        return NULL;
    }
    doc->objs[0] = (dm_obj_t){.first_prop = DM_NONE, .last_prop = DM_NONE, .alive = true};
    doc->num_objs = 1;
    return doc;
}

void dm__destroy_doc(ct_dm_doc_o *doc)
{
    if (!doc)
        return;
    dm__log_clear(&doc->undo, 0);
    dm__log_clear(&doc->redo, 0);
    dm__log_clear(&doc->txn, 0);
    dm_log_t *logs[3] = {&doc->undo, &doc->redo, &doc->txn};
    for (int i = 0; i < 3; i++) {
        dm__block_give(logs[i]->recs, (size_t)logs[i]->capacity * sizeof *logs[i]->recs);
        dm__block_give(logs[i]->values, (size_t)logs[i]->cap_values * sizeof *logs[i]->values);
    }
    for (uint32_t p = 0; p < doc->num_props; p++)
        value_free(&doc->props[p].value);
    dm__block_give(doc->props, (size_t)doc->cap_props * sizeof *doc->props);
    dm__block_give(doc->objs, (size_t)doc->cap_objs * sizeof *doc->objs);
    free(doc->free_objs);
    dm_index__free(&doc->obj_index);
    dm_index__free(&doc->prop_index);
    for (uint32_t i = 0; i < doc->num_seen; i++)
        free(doc->seen[i].hlc);
    free(doc->seen);
    dm_strings__free(&doc->keys);
    dm_strings__free(&doc->authors);
    if (doc->outgoing) {
        free(doc->outgoing->ops);
        dm_arena__free(&doc->outgoing->arena);
        free(doc->outgoing);
    }
    free(doc->listeners);
    free(doc->skips);
    free(doc->issues);
    free(doc->conflicts);
    dm_arena__free(&doc->report_arena);
    dm_level__free(doc->level);
    free(doc);
}

static const char *last_error(const ct_dm_doc_o *doc) { return doc->error; }

static ct_guid_t new_guid(ct_dm_doc_o *doc) { return dm__random_guid(doc); }

static uint32_t add_listener(ct_dm_doc_o *doc, ct_dm_listener_f f, void *user_data)
{
    if (!f || !dm__grow((void **)&doc->listeners, &doc->cap_listeners, doc->num_listeners + 1,
                        sizeof *doc->listeners))
        return 0;
    uint32_t id = ++doc->next_listener_id;
    doc->listeners[doc->num_listeners++] = (dm_listener_t){f, user_data, id};
    return id;
}

static void remove_listener(ct_dm_doc_o *doc, uint32_t id)
{
    for (uint32_t i = 0; i < doc->num_listeners; i++) {
        if (doc->listeners[i].id == id) {
            memmove(doc->listeners + i, doc->listeners + i + 1,
                    (doc->num_listeners - i - 1) * sizeof *doc->listeners);
            doc->num_listeners--;
            return;
        }
    }
}

static void record(ct_dm_doc_o *doc, bool on) { doc->recording = on; }

static ct_dm_changeset_o *take_changes(ct_dm_doc_o *doc)
{
    ct_dm_changeset_o *cs = doc->outgoing ? doc->outgoing : calloc(1, sizeof *cs);
    doc->outgoing = NULL;
    return cs;
}

/* The table's document part; datamodel.c adds the other files' entries. */
void dm_doc__fill(ct_datamodel_api_v1 *api)
{
    api->create_doc = dm__create_doc;
    api->destroy_doc = dm__destroy_doc;
    api->last_error = last_error;
    api->new_guid = new_guid;
    api->create = dm_doc__create;
    api->destroy = doc_destroy_op;
    api->set_property = doc_set;
    api->add_to_set = doc_add;
    api->remove_from_set = doc_remove;
    api->apply_ops = dm_doc__apply_ops;
    api->exists = exists;
    api->num_objects = num_objects;
    api->objects = objects;
    api->keys = keys;
    api->get = get;
    api->get_stamp = get_stamp;
    api->get_bool = get_bool;
    api->get_double = get_double;
    api->get_vec3 = get_vec3;
    api->get_quat = get_quat;
    api->get_string = get_string;
    api->get_blob = get_blob;
    api->get_guid = get_guid;
    api->get_set = get_set;
    api->set_contains = set_contains;
    api->type_name = dm__type_name;
    api->restore_point = restore_point;
    api->undo = undo;
    api->redo = redo;
    api->can_undo = can_undo;
    api->can_redo = can_redo;
    api->clear_history = clear_history;
    api->add_listener = add_listener;
    api->remove_listener = remove_listener;
    api->record = record;
    api->take_changes = take_changes;
}
