/*
 * cuttle-merge: a git merge driver for levels, units and change-set files, three-way by object
 * and property (api/ct_datamodel.h does the work; this is the command line around it).
 *
 *   cuttle-merge [--policy newest|ours|theirs] BASE OURS THEIRS [PATH]    (git: %O %A %B %P)
 *   cuttle-merge --check BASE OURS THEIRS [PATH]                          (CI: is it clean?)
 *
 * Levels and units: the three files are read as documents; the changes from BASE to THEIRS are
 * applied to OURS unless OURS changed the same thing. Edits to different entities, or to
 * different properties of one entity, merge; entities added on both sides both stay; set members
 * (children) merge. Entities added on both sides without `id` under one name get one derived id
 * on both sides (parent, name, rank): the same entity added twice (every field equal) stays once,
 * as git keeps one copy of a change both sides made; otherwise both stay, and theirs's gets an id
 * of its own (derived from the shared one, so every machine picks the same). Order: when theirs
 * moved entities among their siblings and ours did not, the result has theirs's order (ours's
 * otherwise); adding or removing an entity is not a move. A conflict is the same property given different values on both sides, or an
 * entity deleted on one side and edited on the other. Without --policy, OURS's value stays, a
 * `merge_conflicts = [ ... ]` record naming file, entity (name and id), property and both values
 * is added (the entities compiler refuses the file until someone removes it), and the exit code
 * is 1, as git expects of a merge with conflicts. --policy resolves every conflict (newest: the
 * side whose commit is newer, by committer time; ours; theirs), lists what it chose, and
 * exits 0. The result is written over OURS with only the lines that changed touched.
 *
 * Change sets (*.changes): the union of both sides' ops (ids dedupe), OURS's order first; the
 * hybrid logical clock decides every conflict the same way on every machine, so this is always
 * clean; losing values are listed.
 *
 * Exit codes: 0 clean, 1 conflicts (or --check found some), 2 usage or unreadable input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "datamodel.h"

static const ct_datamodel_api_v1 *dm;

static const char usage[] =
    "usage: cuttle-merge [--policy newest|ours|theirs] BASE OURS THEIRS [PATH]\n"
    "       cuttle-merge --check BASE OURS THEIRS [PATH]\n"
    "Three-way merge of Cuttle levels (.level), units (.unit) and change sets (.changes) by\n"
    "object and property. As a git merge driver: cuttle-merge %O %A %B %P (see README).\n"
    "Writes the result over OURS; exits 0 when clean, 1 on conflicts (a `merge_conflicts`\n"
    "record the compiler refuses), 2 on bad usage or input. --check writes nothing.\n";

enum { POLICY_NONE, POLICY_OURS, POLICY_THEIRS, POLICY_NEWEST };

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *g = realloc(buf, cap *= 2);
            if (!g) {
                free(buf);
                buf = NULL;
            }
            buf = g;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static bool write_whole(const char *path, const char *text, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.cuttle-merge.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The value as a level source spells it, for messages and the conflict record. */
static void spell(char *out, size_t size, const ct_dm_value_t *v)
{
    switch (v->type) {
    case CT_DM_NULL: snprintf(out, size, "(none)"); break;
    case CT_DM_BOOL: snprintf(out, size, "%s", v->as.b ? "true" : "false"); break;
    case CT_DM_DOUBLE: snprintf(out, size, "%.17g", v->as.d); break;
    case CT_DM_VEC3:
        snprintf(out, size, "[%.17g %.17g %.17g]", v->as.v[0], v->as.v[1], v->as.v[2]);
        break;
    case CT_DM_QUAT:
        snprintf(out, size, "[%.17g %.17g %.17g %.17g]", v->as.v[0], v->as.v[1], v->as.v[2],
                 v->as.v[3]);
        break;
    case CT_DM_STRING: snprintf(out, size, "\"%s\"", v->as.s); break;
    case CT_DM_BLOB: snprintf(out, size, "%.*s", (int)v->size, (const char *)v->as.blob); break;
    default: snprintf(out, size, "(a %s)", dm->type_name(v->type)); break;
    }
    /* Shortest exact numbers read better: trim %.17g's noise where %g reads back the same. */
    if (v->type == CT_DM_DOUBLE) {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(out, size, "%.*g", prec, v->as.d);
            if (strtod(out, NULL) == v->as.d)
                break;
        }
    }
}

typedef struct conflict_t {
    ct_guid_t object;
    const char *key; /* NULL: deleted on one side, edited on the other */
    ct_dm_value_t ours, theirs;
    bool ours_deleted; /* which side deleted (key NULL) */
    bool take_theirs;
} conflict_t;

static bool is_order_key(const char *key) { return key && strcmp(key, "@order") == 0; }

/* Theirs's entity `from` is written as `to` (added on both sides with one derived id). */
typedef struct rename_t {
    ct_guid_t from, to;
} rename_t;

typedef struct merge_t {
    const char *path;
    int policy;
    bool theirs_newer;
    ct_dm_doc_o *base, *ours, *theirs;
    ct_dm_changeset_o *d_ours, *d_theirs;
    conflict_t *conflicts;
    uint32_t num_conflicts;
    rename_t *renames;
    uint32_t num_renames;
    ct_guid_t *twins; /* added on both sides, every field equal: theirs's ops on them are dropped */
    uint32_t num_twins;
    void **owned; /* translated set values */
    uint32_t num_owned;
} merge_t;

static ct_guid_t renamed(const merge_t *m, ct_guid_t g)
{
    for (uint32_t i = 0; i < m->num_renames; i++)
        if (ct_guid_eq(m->renames[i].from, g))
            return m->renames[i].to;
    return g;
}

static bool is_twin(const merge_t *m, ct_guid_t g)
{
    for (uint32_t i = 0; i < m->num_twins; i++)
        if (ct_guid_eq(m->twins[i], g))
            return true;
    return false;
}

/* Whether ours's value a equals theirs's value b, theirs's GUIDs read through the renames. */
static bool same_value(const merge_t *m, const ct_dm_value_t *a, const ct_dm_value_t *b)
{
    if (a->type != b->type || a->size != b->size)
        return false;
    switch (a->type) {
    case CT_DM_NULL: return true;
    case CT_DM_BOOL: return a->as.b == b->as.b;
    case CT_DM_DOUBLE: return a->as.d == b->as.d;
    case CT_DM_VEC3: return memcmp(a->as.v, b->as.v, 3 * sizeof(double)) == 0;
    case CT_DM_QUAT: return memcmp(a->as.v, b->as.v, 4 * sizeof(double)) == 0;
    case CT_DM_STRING:
    case CT_DM_BLOB: return a->size == 0 || memcmp(a->as.blob, b->as.blob, a->size) == 0;
    case CT_DM_GUID: return ct_guid_eq(a->as.guid, renamed(m, b->as.guid));
    case CT_DM_SET:
        for (uint32_t i = 0; i < b->size; i++) {
            ct_guid_t g = renamed(m, b->as.set[i]);
            uint32_t j = 0;
            while (j < a->size && !ct_guid_eq(a->as.set[j], g))
                j++;
            if (j == a->size)
                return false;
        }
        return true;
    default: return false;
    }
}

/* Whether entity g is the same in ours and theirs: the same fields with equal values (its place,
 * @order, aside: other additions shift it). */
static bool same_entity(const merge_t *m, ct_guid_t g)
{
    const char *ka[256], *kb[256];
    uint32_t na = dm->keys(m->ours, g, ka, 256), nb = dm->keys(m->theirs, g, kb, 256);
    if (na != nb || na > 256)
        return false;
    for (uint32_t i = 0; i < nb; i++) {
        ct_dm_value_t a, b;
        if (is_order_key(kb[i]))
            continue;
        if (dm->get(m->theirs, g, kb[i], &b) != 0 || dm->get(m->ours, g, kb[i], &a) != 0 ||
            !same_value(m, &a, &b))
            return false;
    }
    return true;
}

/* An id for theirs's copy of g that no side uses, derived from g alone. */
static ct_guid_t fresh_id(const merge_t *m, ct_guid_t g)
{
    for (uint64_t seed = 0x7e1125;; seed++) {
        ct_guid_t t = {ct_murmur64a(&g, sizeof g, seed),
                       ct_murmur64a(&g, sizeof g, seed ^ 0x9e3779b97f4a7c15ull)};
        if (!ct_guid_is_root(t) && !dm->exists(m->base, t) && !dm->exists(m->ours, t) &&
            !dm->exists(m->theirs, t) && ct_guid_eq(renamed(m, t), t))
            return t;
    }
}

/* Entities both sides added with one id (derived from one name): twins when equal, else theirs's
 * renamed. In theirs's creation order, so a parent is decided before its children (whose @parent
 * then names the renamed parent, which makes them differ too). */
static bool find_twins(merge_t *m)
{
    uint32_t n = dm->changeset_count(m->d_theirs);
    for (uint32_t i = 0; i < n; i++) {
        const ct_dm_op_t *op = dm->changeset_op(m->d_theirs, i);
        if (op->kind != CT_DM_OP_CREATE || dm->exists(m->base, op->object) ||
            !dm->exists(m->ours, op->object))
            continue;
        if (same_entity(m, op->object)) {
            ct_guid_t *t = realloc(m->twins, (m->num_twins + 1) * sizeof *t);
            if (!t)
                return false;
            m->twins = t;
            m->twins[m->num_twins++] = op->object;
        } else {
            rename_t *r = realloc(m->renames, (m->num_renames + 1) * sizeof *r);
            if (!r)
                return false;
            m->renames = r;
            m->renames[m->num_renames] = (rename_t){op->object, fresh_id(m, op->object)};
            m->num_renames++;
        }
    }
    /* A twin whose children were renamed after it was judged (their sets differ now), or whose
     * parent was, is no twin: renamed too, until nothing changes. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < m->num_twins; i++) {
            if (same_entity(m, m->twins[i]))
                continue;
            rename_t *r = realloc(m->renames, (m->num_renames + 1) * sizeof *r);
            if (!r)
                return false;
            m->renames = r;
            m->renames[m->num_renames] = (rename_t){m->twins[i], fresh_id(m, m->twins[i])};
            m->num_renames++;
            m->twins[i--] = m->twins[--m->num_twins];
            changed = true;
        }
    }
    return true;
}

/* Theirs's op with its GUIDs read through the renames (a set value copied; merge_t owns it). */
static bool translate(merge_t *m, ct_dm_op_t *op)
{
    if (!m->num_renames)
        return true;
    op->object = renamed(m, op->object);
    op->item = renamed(m, op->item);
    if (op->kind == CT_DM_OP_SET && op->value.type == CT_DM_GUID)
        op->value.as.guid = renamed(m, op->value.as.guid);
    if (op->kind == CT_DM_OP_SET && op->value.type == CT_DM_SET && op->value.size) {
        ct_guid_t *items = malloc(op->value.size * sizeof *items);
        void **owned = realloc(m->owned, (m->num_owned + 1) * sizeof *owned);
        if (owned)
            m->owned = owned;
        if (!items || !owned) {
            free(items);
            return false;
        }
        for (uint32_t i = 0; i < op->value.size; i++)
            items[i] = renamed(m, op->value.as.set[i]);
        op->value.as.set = items;
        m->owned[m->num_owned++] = items;
    }
    return true;
}

static const char *entity_name(merge_t *m, ct_guid_t g)
{
    const char *name;
    if (dm->get_string(m->ours, g, "name", &name) == 0 ||
        dm->get_string(m->theirs, g, "name", &name) == 0 ||
        dm->get_string(m->base, g, "name", &name) == 0)
        return name;
    return "(unnamed)";
}

/* What ours did to object g: 0 nothing, 1 edited, 2 destroyed. */
static int ours_did(merge_t *m, ct_guid_t g)
{
    int did = 0;
    for (uint32_t i = 0; i < dm->changeset_count(m->d_ours); i++) {
        const ct_dm_op_t *op = dm->changeset_op(m->d_ours, i);
        if (!ct_guid_eq(op->object, g) || is_order_key(op->key))
            continue;
        if (op->kind == CT_DM_OP_DESTROY)
            return 2;
        did = 1;
    }
    return did;
}

static const ct_dm_op_t *ours_set(merge_t *m, ct_guid_t g, const char *key)
{
    for (uint32_t i = 0; i < dm->changeset_count(m->d_ours); i++) {
        const ct_dm_op_t *op = dm->changeset_op(m->d_ours, i);
        if (op->kind == CT_DM_OP_SET && ct_guid_eq(op->object, g) && strcmp(op->key, key) == 0)
            return op;
    }
    return NULL;
}

static conflict_t *find_conflict(merge_t *m, ct_guid_t g, bool whole)
{
    for (uint32_t i = 0; i < m->num_conflicts; i++)
        if (ct_guid_eq(m->conflicts[i].object, g) && (m->conflicts[i].key == NULL) == whole)
            return &m->conflicts[i];
    return NULL;
}

static bool decide(merge_t *m)
{
    return m->policy == POLICY_THEIRS || (m->policy == POLICY_NEWEST && m->theirs_newer);
}

static conflict_t *add_conflict(merge_t *m, conflict_t c)
{
    conflict_t *grown = realloc(m->conflicts, (m->num_conflicts + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    m->conflicts = grown;
    c.take_theirs = decide(m);
    m->conflicts[m->num_conflicts] = c;
    return &m->conflicts[m->num_conflicts++];
}

/* Sorts theirs's ops into applied ones and conflicts. */
static ct_dm_op_t *plan(merge_t *m, uint32_t *num)
{
    uint32_t n = dm->changeset_count(m->d_theirs), k = 0;
    ct_dm_op_t *ops = calloc(n ? n : 1, sizeof *ops);
    if (!ops)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const ct_dm_op_t *given = dm->changeset_op(m->d_theirs, i);
        if (is_twin(m, given->object) || (given->kind == CT_DM_OP_ADD && is_twin(m, given->item)))
            continue; /* ours made the same addition */
        ct_dm_op_t copy = *given;
        if (!translate(m, &copy)) {
            free(ops);
            return NULL;
        }
        const ct_dm_op_t *op = &copy;
        /* An existing entity's place among its siblings is an @order that shifts whenever an
         * entity is added or removed before it: merge_order decides order, not these ops. */
        if (op->kind == CT_DM_OP_SET && is_order_key(op->key) && dm->exists(m->base, op->object))
            continue;
        ct_guid_t whole =
            op->kind == CT_DM_OP_REMOVE || op->kind == CT_DM_OP_ADD ? op->item : op->object;
        int did = ours_did(m, op->object);
        if (op->kind == CT_DM_OP_DESTROY ||
            (op->kind == CT_DM_OP_REMOVE && !dm->exists(m->theirs, op->item))) {
            /* Theirs deleted an entity: a conflict if ours edited it. */
            if (ours_did(m, whole) == 1) {
                if (!find_conflict(m, whole, true))
                    add_conflict(m, (conflict_t){.object = whole, .ours_deleted = false});
                if (!find_conflict(m, whole, true)->take_theirs)
                    continue;
            }
            ops[k++] = *op;
            continue;
        }
        if (did == 2) {
            /* Theirs edited what ours deleted. */
            if (!find_conflict(m, op->object, true))
                add_conflict(m, (conflict_t){.object = op->object, .ours_deleted = true});
            continue; /* resurrected whole below when theirs wins */
        }
        if (op->kind == CT_DM_OP_SET && !is_order_key(op->key)) {
            const ct_dm_op_t *mine = ours_set(m, op->object, op->key);
            if (mine) {
                ct_dm_value_t a = mine->value, b = op->value;
                bool same = a.type == b.type && a.size == b.size &&
                            (a.type == CT_DM_STRING || a.type == CT_DM_BLOB
                                 ? memcmp(a.as.blob, b.as.blob, a.size) == 0
                                 : memcmp(&a.as, &b.as, sizeof a.as) == 0 || a.type == CT_DM_NULL);
                if (same)
                    continue;
                conflict_t *c = add_conflict(
                    m, (conflict_t){.object = op->object, .key = op->key, .ours = a, .theirs = b});
                if (!c || !c->take_theirs)
                    continue;
            }
        }
        ops[k++] = *op;
    }
    *num = k;
    return ops;
}

/* Theirs wins a deleted-by-ours conflict: the entity comes back as theirs has it. */
static int resurrect(merge_t *m, ct_guid_t g)
{
    if (dm->create(m->ours, g) != 0)
        return -1;
    const char *keys[256];
    uint32_t n = dm->keys(m->theirs, g, keys, 256);
    for (uint32_t i = 0; i < n && i < 256; i++) {
        ct_dm_value_t v;
        if (dm->get(m->theirs, g, keys[i], &v) == 0 &&
            dm->set_property(m->ours, g, keys[i], &v) != 0)
            return -1;
    }
    ct_guid_t parent = {0, 0};
    dm->get_guid(m->theirs, g, "@parent", &parent);
    return dm->add_to_set(m->ours, parent, ct_guid_is_root(parent) ? "entities" : "children", g);
}

static void report(merge_t *m, FILE *to, bool resolved)
{
    for (uint32_t i = 0; i < m->num_conflicts; i++) {
        conflict_t *c = &m->conflicts[i];
        char id[33], a[256], b[256];
        ct_guid_format(c->object, id);
        const char *chose = c->take_theirs ? "theirs" : "ours";
        if (c->key) {
            spell(a, sizeof a, &c->ours);
            spell(b, sizeof b, &c->theirs);
            fprintf(to,
                    "cuttle-merge: %s: %s entity '%s' (id %s) property '%s': ours %s, theirs %s; "
                    "%s %s\n",
                    m->path, resolved ? "resolved" : "conflict", entity_name(m, c->object), id,
                    c->key, a, b, resolved ? "chose" : "kept", chose);
        } else {
            fprintf(to, "cuttle-merge: %s: %s entity '%s' (id %s): %s; %s %s\n", m->path,
                    resolved ? "resolved" : "conflict", entity_name(m, c->object), id,
                    c->ours_deleted ? "deleted by ours, edited by theirs"
                                    : "edited by ours, deleted by theirs",
                    resolved ? "chose" : "kept", chose);
        }
    }
}

/* The record the compiler refuses: one line per conflict. */
static char *conflict_record(merge_t *m)
{
    size_t cap = 256 + (size_t)m->num_conflicts * 1024, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    n += (size_t)snprintf(out + n, cap - n, "[\n");
    for (uint32_t i = 0; i < m->num_conflicts; i++) {
        conflict_t *c = &m->conflicts[i];
        char id[33], a[256] = "", b[256] = "";
        ct_guid_format(c->object, id);
        if (c->key) {
            spell(a, sizeof a, &c->ours);
            spell(b, sizeof b, &c->theirs);
            /* Strings are spelled quoted already; other values are SJSON as they are. */
            n += (size_t)snprintf(out + n, cap - n,
                                  "  { file = \"%s\" entity = \"%s\" id = \"%s\" property = \"%s\" "
                                  "ours = %s theirs = %s kept = \"ours\" }\n",
                                  m->path, entity_name(m, c->object), id, c->key,
                                  c->ours.type == CT_DM_NULL ? "null" : a,
                                  c->theirs.type == CT_DM_NULL ? "null" : b);
        } else {
            n += (size_t)snprintf(out + n, cap - n,
                                  "  { file = \"%s\" entity = \"%s\" id = \"%s\" conflict = \"%s\" "
                                  "kept = \"ours\" }\n",
                                  m->path, entity_name(m, c->object), id,
                                  c->ours_deleted ? "deleted by ours, edited by theirs"
                                                  : "edited by ours, deleted by theirs");
        }
    }
    snprintf(out + n, cap - n, "]");
    return out;
}

/* Whether the side merged in was committed after ours (HEAD); ours on a tie or when git cannot
 * say. Git names the other side's commit to a merge driver only in the environment
 * (GITHEAD_<sha>=<branch>, set for conflict labels); MERGE_HEAD does not exist yet. */
extern char **environ;

static long long commit_time(const char *rev)
{
    char cmd[200];
    long long t = 0;
    snprintf(cmd, sizeof cmd, "git log -1 --format=%%ct %.64s -- 2>/dev/null", rev);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    if (fscanf(p, "%lld", &t) != 1)
        t = 0;
    pclose(p);
    return t;
}

static bool theirs_is_newer(void)
{
    char head[64] = "";
    FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
    if (p) {
        if (!fgets(head, sizeof head, p))
            head[0] = 0;
        pclose(p);
    }
    head[strcspn(head, "\n")] = 0;
    long long ours = commit_time("HEAD"), theirs = 0;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "GITHEAD_", 8) != 0)
            continue;
        char sha[65];
        size_t n = strcspn(*e + 8, "=");
        if (n == 0 || n >= sizeof sha || strspn(*e + 8, "0123456789abcdef") != n)
            continue;
        memcpy(sha, *e + 8, n);
        sha[n] = 0;
        if (strcmp(sha, head) != 0)
            theirs = commit_time(sha);
    }
    return ours > 0 && theirs > ours;
}

/* ---- order ---- */

static bool same_sequence(const ct_guid_t *a, const ct_guid_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!ct_guid_eq(a[i], b[i]))
            return false;
    return true;
}

/* One sibling list (parent's `key` set): the entities it has on all three sides, ranked on each.
 * When theirs's sequence of them differs from base's and ours's does not, they take ours's
 * @order values (so ours's own additions keep their places between them) in theirs's sequence. */
static int merge_list(merge_t *m, ct_guid_t parent, const char *key)
{
    const ct_guid_t *items;
    uint32_t n;
    if (dm->get_set(m->base, parent, key, &items, &n) != 0 || n < 2)
        return 0;
    /* Each side's sequence, ranked the way the writer ranks a list; ours's @order values beside. */
    ct_guid_t *r = malloc(3 * (size_t)n * sizeof *r);
    double *ours_order = malloc((size_t)n * sizeof *ours_order);
    if (!r || !ours_order) {
        free(r);
        free(ours_order);
        return -1;
    }
    ct_guid_t *rb = r, *ro = r + n, *rt = r + 2 * n;
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (dm->set_contains(m->ours, parent, key, items[i]) &&
            dm->set_contains(m->theirs, parent, key, items[i]))
            rb[c++] = items[i];
    }
    memcpy(ro, rb, c * sizeof *r);
    memcpy(rt, rb, c * sizeof *r);
    int rc = datamodel__sort_entities(m->base, rb, NULL, c) &&
                     datamodel__sort_entities(m->ours, ro, ours_order, c) &&
                     datamodel__sort_entities(m->theirs, rt, NULL, c)
                 ? 0
                 : -1;
    if (rc == 0 && !same_sequence(rt, rb, c)) {
        if (same_sequence(ro, rb, c)) {
            for (uint32_t i = 0; i < c && rc == 0; i++) {
                ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = ours_order[i]};
                rc = dm->set_property(m->ours, rt[i], "@order", &v);
            }
        } else if (!same_sequence(rt, ro, c)) {
            char id[33];
            ct_guid_format(parent, id);
            printf("cuttle-merge: %s: both sides moved the entities of %s %s; kept ours's order\n",
                   m->path, ct_guid_is_root(parent) ? "the level's" : "the children of",
                   ct_guid_is_root(parent) ? "list" : id);
        }
    }
    free(r);
    free(ours_order);
    return rc;
}

static int merge_order(merge_t *m)
{
    if (merge_list(m, (ct_guid_t){0, 0}, "entities") != 0)
        return -1;
    uint32_t n = dm->objects(m->base, NULL, 0);
    ct_guid_t *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return -1;
    n = dm->objects(m->base, all, n);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        if (dm->exists(m->ours, all[i]) && dm->exists(m->theirs, all[i]))
            rc = merge_list(m, all[i], "children");
    free(all);
    return rc;
}

static ct_dm_doc_o *read_side(const char *file, const char *label, char **text)
{
    size_t len;
    *text = slurp(file, &len);
    if (!*text) {
        fprintf(stderr, "cuttle-merge: cannot read %s (%s)\n", file, label);
        return NULL;
    }
    char err[512];
    ct_dm_doc_o *d =
        dm->read_level(*text, len, file, &(ct_dm_doc_desc_t){.author = label}, err, sizeof err);
    if (!d)
        fprintf(stderr, "cuttle-merge: %s (%s): %s\n", file, label, err);
    return d;
}

static int merge_level(const char *base, const char *ours, const char *theirs, const char *path,
                       int policy, bool check)
{
    merge_t m = {.path = path, .policy = policy};
    char *texts[3] = {NULL, NULL, NULL};
    int rc = 2;
    m.base = read_side(base, "base", &texts[0]);
    m.ours = m.base ? read_side(ours, "ours", &texts[1]) : NULL;
    m.theirs = m.ours ? read_side(theirs, "theirs", &texts[2]) : NULL;
    if (!m.theirs)
        goto out;
    if (policy == POLICY_NEWEST)
        m.theirs_newer = theirs_is_newer();
    m.d_ours = dm->diff(m.base, m.ours, (ct_dm_stamp_t){1, "ours"});
    m.d_theirs = dm->diff(m.base, m.theirs, (ct_dm_stamp_t){1, "theirs"});
    uint32_t n = 0;
    ct_dm_op_t *ops = m.d_ours && m.d_theirs && find_twins(&m) ? plan(&m, &n) : NULL;
    if (!ops) {
        fprintf(stderr, "cuttle-merge: %s: out of memory\n", path);
        goto out;
    }
    if (check) {
        report(&m, stdout, false);
        printf("cuttle-merge: %s: %s (%u change%s from theirs, %u conflict%s)\n", path,
               m.num_conflicts ? "conflicts" : "clean", n, n == 1 ? "" : "s", m.num_conflicts,
               m.num_conflicts == 1 ? "" : "s");
        rc = m.num_conflicts ? 1 : 0;
        free(ops);
        goto out;
    }
    uint32_t failed = 0;
    if (dm->apply_ops(m.ours, ops, n, &failed) != 0) {
        fprintf(stderr, "cuttle-merge: %s: theirs's change %u does not apply: %s\n", path, failed,
                dm->last_error(m.ours));
        free(ops);
        goto out;
    }
    free(ops);
    for (uint32_t i = 0; i < m.num_conflicts; i++)
        if (m.conflicts[i].key == NULL && m.conflicts[i].ours_deleted &&
            m.conflicts[i].take_theirs && resurrect(&m, m.conflicts[i].object) != 0) {
            fprintf(stderr, "cuttle-merge: %s: %s\n", path, dm->last_error(m.ours));
            goto out;
        }
    if (merge_order(&m) != 0) {
        fprintf(stderr, "cuttle-merge: %s: cannot merge the entities' order: %s\n", path,
                dm->last_error(m.ours));
        goto out;
    }
    bool unresolved = m.num_conflicts && policy == POLICY_NONE;
    if (unresolved) {
        char *record = conflict_record(&m);
        ct_dm_value_t v = {
            .type = CT_DM_BLOB, .size = record ? (uint32_t)strlen(record) : 0, .as.blob = record};
        int r = record ? dm->set_property(m.ours, (ct_guid_t){0, 0}, "merge_conflicts", &v) : -1;
        free(record);
        if (r) {
            fprintf(stderr, "cuttle-merge: %s: cannot record the conflicts\n", path);
            goto out;
        }
    }
    size_t len;
    char *out = dm->write_level(m.ours, NULL, &len);
    if (!out || !write_whole(ours, out, len)) {
        fprintf(stderr, "cuttle-merge: %s: cannot write the result to %s\n", path, ours);
        dm->free_text(out);
        goto out;
    }
    dm->free_text(out);
    report(&m, unresolved ? stderr : stdout, !unresolved);
    rc = unresolved ? 1 : 0;
out:
    dm->destroy_changeset(m.d_ours);
    dm->destroy_changeset(m.d_theirs);
    dm->destroy_doc(m.base);
    dm->destroy_doc(m.ours);
    dm->destroy_doc(m.theirs);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    free(m.conflicts);
    free(m.renames);
    free(m.twins);
    for (uint32_t i = 0; i < m.num_owned; i++)
        free(m.owned[i]);
    free(m.owned);
    return rc;
}

static ct_dm_changeset_o *read_changes(const char *file, const char *label)
{
    size_t len;
    char *text = slurp(file, &len), err[512];
    if (!text) {
        fprintf(stderr, "cuttle-merge: cannot read %s (%s)\n", file, label);
        return NULL;
    }
    ct_dm_changeset_o *cs = dm->changeset_from_text(text, len, file, err, sizeof err);
    if (!cs)
        fprintf(stderr, "cuttle-merge: %s (%s): %s\n", file, label, err);
    free(text);
    return cs;
}

static bool same_id(const ct_dm_op_t *a, const ct_dm_op_t *b)
{
    return a->stamp.hlc == b->stamp.hlc && strcmp(a->stamp.author, b->stamp.author) == 0;
}

static int merge_changes(const char *base, const char *ours, const char *theirs, const char *path,
                         bool check)
{
    int rc = 2;
    ct_dm_changeset_o *b = read_changes(base, "base"), *a = b ? read_changes(ours, "ours") : NULL;
    ct_dm_changeset_o *t = a ? read_changes(theirs, "theirs") : NULL, *out = dm->create_changeset();
    if (!t || !out)
        goto done;
    /* Ours, then theirs's ops that ours lacks: appending is safe, applying is idempotent. */
    uint32_t na = dm->changeset_count(a), nt = dm->changeset_count(t), added = 0;
    for (uint32_t i = 0; i < na; i++)
        dm->changeset_append(out, dm->changeset_op(a, i));
    for (uint32_t j = 0; j < nt; j++) {
        const ct_dm_op_t *op = dm->changeset_op(t, j);
        bool have = false;
        for (uint32_t i = 0; i < na && !have; i++)
            have = same_id(dm->changeset_op(a, i), op);
        if (!have && dm->changeset_append(out, op) == 0)
            added++;
    }
    /* The losing values, as the hybrid logical clock decides them on every machine. */
    ct_dm_doc_o *doc = dm->create_doc(&(ct_dm_doc_desc_t){.author = "cuttle-merge"});
    ct_dm_merge_report_t rep = {0};
    if (doc && dm->apply(doc, out, &rep) == 0) {
        for (uint32_t i = 0; i < rep.num_conflicts; i++) {
            char id[33], w[256], l[256];
            ct_guid_format(rep.conflicts[i].object, id);
            spell(w, sizeof w, &rep.conflicts[i].winner);
            spell(l, sizeof l, &rep.conflicts[i].loser);
            printf("cuttle-merge: %s: object %s property '%s': %s (%s) wins over %s (%s)\n", path,
                   id, rep.conflicts[i].key ? rep.conflicts[i].key : "", w,
                   rep.conflicts[i].winner_stamp.author, l, rep.conflicts[i].loser_stamp.author);
        }
    }
    dm->destroy_doc(doc);
    if (check) {
        printf("cuttle-merge: %s: clean (%u op%s from theirs)\n", path, added,
               added == 1 ? "" : "s");
        rc = 0;
        goto done;
    }
    size_t len;
    char *text = dm->changeset_to_text(out, &len);
    rc = text && write_whole(ours, text, len) ? 0 : 2;
    if (rc)
        fprintf(stderr, "cuttle-merge: %s: cannot write the result to %s\n", path, ours);
    dm->free_text(text);
done:
    dm->destroy_changeset(b);
    dm->destroy_changeset(a);
    dm->destroy_changeset(t);
    dm->destroy_changeset(out);
    return rc;
}

int main(int argc, char **argv)
{
    dm = datamodel__api_v1();
    int policy = POLICY_NONE;
    bool check = false;
    const char *files[4] = {NULL, NULL, NULL, NULL};
    int num_files = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--check")) {
            check = true;
        } else if (!strcmp(argv[i], "--policy") && i + 1 < argc) {
            const char *p = argv[++i];
            policy = !strcmp(p, "ours")     ? POLICY_OURS
                     : !strcmp(p, "theirs") ? POLICY_THEIRS
                     : !strcmp(p, "newest") ? POLICY_NEWEST
                                            : -1;
            if (policy < 0) {
                fprintf(stderr,
                        "cuttle-merge: --policy must be newest, ours or theirs, not '%s'\n%s", p,
                        usage);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuttle-merge: unknown option %s\n%s", argv[i], usage);
            return 2;
        } else if (num_files < 4) {
            files[num_files++] = argv[i];
        } else {
            fprintf(stderr, "cuttle-merge: too many files\n%s", usage);
            return 2;
        }
    }
    if (num_files < 3) {
        fputs(usage, stderr);
        return 2;
    }
    const char *path = files[3] ? files[3] : files[1];
    if (ends_with(path, ".level") || ends_with(path, ".unit"))
        return merge_level(files[0], files[1], files[2], path, policy, check);
    if (ends_with(path, ".changes"))
        return merge_changes(files[0], files[1], files[2], path, check);
    fprintf(stderr, "cuttle-merge: %s: not a level, unit or change-set (.changes) file\n", path);
    return 2;
}
