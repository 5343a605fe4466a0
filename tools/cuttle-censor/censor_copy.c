/*
 * The copy of history. Commits are walked parents first from the target; each commit's tree is
 * rebuilt bottom-up with every blob put through the filters, and written to DEST with the
 * original author, committer, dates, encoding and message (plus a [clonedfrom:<sha>] marker).
 *
 * Why it is fast: blobs, trees and commits are each mapped once. A tree that did not change
 * between two commits has one id, so it is rebuilt once in the whole history, and a file's
 * content is filtered once however many revisions hold it.
 *
 * Why it is all or nothing: every object goes to an in-memory object database layered over
 * DEST's. Only when the whole walk, every filter and the leak check have passed are the new
 * objects written to DEST as one pack, then the branch, tags and map file updated.
 */
#include "censor_internal.h"

#include "ct_array.h"
#include "ct_heap.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2/sys/mempack.h>

typedef struct copy_t {
    const censor_options_t *o;
    censor_stats_t *stats;
    git_repository *src, *dst;
    git_odb *src_odb, *dst_odb;
    git_odb_backend *mempack;
    censor_maps_t maps;
    git_oid cutoff_new;     /* what the cutoff commit became (when maps.has_cutoff) */
    const git_oid *current; /* the commit being copied, for messages */
    git_oid *written;       /* every object this run wrote (into the in-memory database) */
    uint32_t num_written, capacity_written; /* a pack counts its objects in 32 bits */
    char *err;
    size_t err_size;
} copy_t;

static bool fail_git(copy_t *c, const char *what)
{
    const git_error *e = git_error_last();
    snprintf(c->err, c->err_size, "%s: %s", what,
             e && e->message ? e->message : "unknown libgit2 error");
    return false;
}

/* Writes an object into the in-memory database and remembers it for the pack. */
static int write_object(copy_t *c, git_oid *out, const void *data, size_t size, git_object_t type)
{
    if (!ct_array_reserve_of(ct_heap_allocator(), &c->written, &c->capacity_written,
                             c->num_written + 1, 4096)) {
        git_error_set_oom();
        return -1;
    }
    int r = git_odb_write(out, c->dst_odb, data, size, type);
    if (r == 0)
        c->written[c->num_written++] = *out;
    return r;
}

static const char *short_id(const git_oid *id, char buf[GIT_OID_HEXSZ + 1])
{
    return git_oid_tostr(buf, GIT_OID_HEXSZ + 1, id);
}

static bool check_leak(copy_t *c, const void *data, size_t size, const char *what)
{
    const char *word = censor_leak(c->o, data, size);
    if (!word)
        return true;
    char id[GIT_OID_HEXSZ + 1];
    snprintf(c->err, c->err_size,
             "leak check: %s of commit %s still contains '%s'; nothing was published", what,
             c->current ? short_id(c->current, id) : "?", word);
    return false;
}

/* ---- Blobs and trees. ----------------------------------------------------------------------- */

static bool copy_blob(copy_t *c, const git_oid *id, const char *path, git_oid *out)
{
    bool c_like = censor_is_c_like(path);
    git_oid key;
    censor_blob_key(&key, id, c_like);
    const git_oid *known = censor_map_get(&c->maps.blobs, &key);
    if (known) {
        *out = *known;
        c->stats->blobs_cached++;
        return true;
    }
    git_odb_object *obj;
    if (git_odb_read(&obj, c->src_odb, id))
        return fail_git(c, path);
    char *filtered = NULL, reason[1024];
    size_t size = 0;
    bool ok = censor_filter_run(c->o, c_like, git_odb_object_data(obj), git_odb_object_size(obj),
                                &filtered, &size, reason, sizeof reason);
    git_odb_object_free(obj);
    char commit[GIT_OID_HEXSZ + 1];
    if (!ok) {
        snprintf(c->err, c->err_size, "%s (commit %s): %s; nothing was published", path,
                 short_id(c->current, commit), reason);
        return false;
    }
    if (reason[0] && !c->o->quiet)
        fprintf(stderr, "cuttle-censor: warning: %s (commit %s): %s\n", path,
                short_id(c->current, commit), reason);
    char what[4200];
    snprintf(what, sizeof what, "file %s", path);
    ok = check_leak(c, filtered, size, what);
    if (ok && write_object(c, out, filtered, size, GIT_OBJECT_BLOB))
        ok = fail_git(c, path);
    free(filtered);
    c->stats->blobs_filtered++;
    return ok && censor_map_put(&c->maps.blobs, &key, out);
}

static bool excluded(const copy_t *c, const char *path)
{
    for (int i = 0; i < c->o->num_excludes; i++) {
        if (fnmatch(c->o->excludes[i], path, 0) == 0)
            return true;
    }
    return false;
}

/* A tree's result depends on its path only through the exclude patterns. */
static void tree_key(const copy_t *c, git_oid *key, const git_oid *tree, const char *path)
{
    *key = *tree;
    if (c->o->num_excludes == 0)
        return;
    git_oid salt;
    git_odb_hash(&salt, path, strlen(path), GIT_OBJECT_BLOB);
    for (int i = 0; i < GIT_OID_RAWSZ; i++)
        key->id[i] ^= salt.id[i];
}

typedef struct raw_t {
    char *data;
    size_t size, capacity;
} raw_t;

static bool raw_put(raw_t *r, const void *bytes, size_t n)
{
    if (r->size + n > r->capacity) {
        size_t capacity = r->capacity ? r->capacity * 2 : 4096;
        while (capacity < r->size + n)
            capacity *= 2;
        char *grown = realloc(r->data, capacity);
        if (!grown)
            return false;
        r->data = grown, r->capacity = capacity;
    }
    memcpy(r->data + r->size, bytes, n);
    r->size += n;
    return true;
}

static bool copy_tree(copy_t *c, const git_oid *id, const char *path, git_oid *out, int depth);

/* Maps one entry of a tree; *keep is false for an excluded path. */
static bool copy_entry(copy_t *c, const git_tree_entry *e, const char *path, git_oid *out,
                       int depth)
{
    git_filemode_t mode = git_tree_entry_filemode(e);
    if (mode == GIT_FILEMODE_TREE)
        return copy_tree(c, git_tree_entry_id(e), path, out, depth + 1);
    if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)
        return copy_blob(c, git_tree_entry_id(e), path, out);
    *out = *git_tree_entry_id(e); /* a submodule commit, or a link whose target is copied as is */
    if (mode != GIT_FILEMODE_LINK)
        return true;
    git_odb_object *obj;
    if (git_odb_read(&obj, c->src_odb, out))
        return fail_git(c, path);
    bool ok = check_leak(c, git_odb_object_data(obj), git_odb_object_size(obj), path) &&
              (write_object(c, out, git_odb_object_data(obj), git_odb_object_size(obj),
                            GIT_OBJECT_BLOB) == 0 ||
               fail_git(c, path));
    git_odb_object_free(obj);
    return ok;
}

/* Rebuilds the tree as raw bytes (entries keep their order and raw modes; the filters change
 * contents, never names) and writes it to DEST. */
static bool copy_tree(copy_t *c, const git_oid *id, const char *path, git_oid *out, int depth)
{
    git_oid key;
    tree_key(c, &key, id, path);
    const git_oid *known = censor_map_get(&c->maps.trees, &key);
    if (known) {
        *out = *known;
        return true;
    }
    if (depth > 512) {
        snprintf(c->err, c->err_size, "%s: trees nested deeper than 512", path);
        return false;
    }
    git_tree *tree;
    if (git_tree_lookup(&tree, c->src, id))
        return fail_git(c, path[0] ? path : "the root tree");
    raw_t raw = {0};
    bool ok = true;
    size_t count = git_tree_entrycount(tree);
    for (size_t i = 0; ok && i < count; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(tree, i);
        const char *name = git_tree_entry_name(e);
        char *child = malloc(strlen(path) + strlen(name) + 2);
        if (!child) {
            ok = false;
            break;
        }
        sprintf(child, "%s%s%s", path, path[0] ? "/" : "", name);
        git_oid mapped;
        if (!excluded(c, child)) {
            ok =
                check_leak(c, name, strlen(name), child) && copy_entry(c, e, child, &mapped, depth);
            char mode[16];
            int n = snprintf(mode, sizeof mode, "%o ", (unsigned)git_tree_entry_filemode_raw(e));
            ok = ok && raw_put(&raw, mode, (size_t)n) && raw_put(&raw, name, strlen(name) + 1) &&
                 raw_put(&raw, mapped.id, GIT_OID_RAWSZ);
        }
        free(child);
    }
    git_tree_free(tree);
    if (ok && write_object(c, out, raw.data ? raw.data : "", raw.size, GIT_OBJECT_TREE))
        ok = fail_git(c, path);
    free(raw.data);
    if (!ok && !c->err[0])
        snprintf(c->err, c->err_size, "%s: out of memory", path);
    c->stats->trees += ok;
    return ok && censor_map_put(&c->maps.trees, &key, out);
}

/* ---- Commits. ------------------------------------------------------------------------------- */

/* Appends the marker to a message, keeping the message's own bytes. */
static bool put_message(copy_t *c, raw_t *raw, const char *message, const git_oid *from)
{
    char id[GIT_OID_HEXSZ + 1], marker[64];
    size_t n = strlen(message);
    snprintf(marker, sizeof marker, "%s[clonedfrom:%s]\n",
             n == 0                   ? ""
             : message[n - 1] == '\n' ? "\n"
                                      : "\n\n",
             short_id(from, id));
    return check_leak(c, message, n, "the message") && raw_put(raw, message, n) &&
           raw_put(raw, marker, strlen(marker));
}

/* Keeps the header lines that describe people and text (author, committer, encoding), drops
 * tree and parents (replaced) and signatures (they sign the uncensored commit). */
static bool put_header(raw_t *raw, const char *header)
{
    bool ok = true;
    for (const char *line = header; ok && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        if (!strncmp(line, "author ", 7) || !strncmp(line, "committer ", 10) ||
            !strncmp(line, "encoding ", 9))
            ok = raw_put(raw, line, n) && (end || raw_put(raw, "\n", 1));
        line += n;
    }
    return ok;
}

static bool copy_commit(copy_t *c, git_commit *commit)
{
    const git_oid *id = git_commit_id(commit);
    c->current = id;
    git_oid tree;
    if (!copy_tree(c, git_commit_tree_id(commit), "", &tree, 0))
        return false;
    char hex[GIT_OID_HEXSZ + 1];
    raw_t raw = {0};
    char line[128];
    snprintf(line, sizeof line, "tree %s\n", short_id(&tree, hex));
    bool ok = raw_put(&raw, line, strlen(line));
    bool is_cutoff = c->maps.has_cutoff && git_oid_equal(id, &c->maps.cutoff);
    git_oid parents[64];
    unsigned num_parents = 0, count = is_cutoff ? 0 : git_commit_parentcount(commit);
    for (unsigned i = 0; ok && i < count; i++) {
        const git_oid *mapped = censor_map_get(&c->maps.commits, git_commit_parent_id(commit, i));
        /* A parent walked past is before the cutoff: the child hangs from the cutoff instead. */
        const git_oid *parent = mapped ? mapped : c->maps.has_cutoff ? &c->cutoff_new : NULL;
        if (!parent) {
            snprintf(c->err, c->err_size, "commit %s: parent %d was not copied", short_id(id, hex),
                     i);
            ok = false;
            break;
        }
        bool seen = false;
        for (unsigned j = 0; j < num_parents; j++)
            seen |= git_oid_equal(&parents[j], parent);
        if (!seen && num_parents < 64)
            parents[num_parents++] = *parent;
    }
    for (unsigned i = 0; ok && i < num_parents; i++) {
        snprintf(line, sizeof line, "parent %s\n", short_id(&parents[i], hex));
        ok = raw_put(&raw, line, strlen(line));
    }
    ok = ok && put_header(&raw, git_commit_raw_header(commit)) && raw_put(&raw, "\n", 1) &&
         put_message(c, &raw, git_commit_message_raw(commit), id);
    git_oid out;
    if (ok && write_object(c, &out, raw.data, raw.size, GIT_OBJECT_COMMIT))
        ok = fail_git(c, "writing a commit");
    free(raw.data);
    if (!ok && !c->err[0])
        snprintf(c->err, c->err_size, "commit %s: out of memory", short_id(id, hex));
    if (ok && is_cutoff)
        c->cutoff_new = out;
    c->stats->commits += ok;
    return ok && censor_map_put(&c->maps.commits, id, &out);
}

/* Walks every ancestor of target not yet copied (and not before the cutoff), parents first. */
static bool copy_history(copy_t *c, const git_oid *target)
{
    git_revwalk *walk;
    if (git_revwalk_new(&walk, c->src))
        return fail_git(c, "walking the source");
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    bool ok = git_revwalk_push(walk, target) == 0 || fail_git(c, "walking the source");
    for (size_t i = 0; ok && i < c->maps.commits.capacity; i++) {
        if (c->maps.commits.entries[i].used)
            ok = git_revwalk_hide(walk, &c->maps.commits.entries[i].key) == 0 ||
                 fail_git(c, "walking the source");
    }
    if (ok && c->maps.has_cutoff) {
        git_commit *cut = NULL;
        ok = git_commit_lookup(&cut, c->src, &c->maps.cutoff) == 0 || fail_git(c, "the cutoff");
        for (unsigned i = 0; ok && i < git_commit_parentcount(cut); i++)
            ok = git_revwalk_hide(walk, git_commit_parent_id(cut, i)) == 0 ||
                 fail_git(c, "the cutoff");
        git_commit_free(cut);
        const git_oid *done = censor_map_get(&c->maps.commits, &c->maps.cutoff);
        if (done)
            c->cutoff_new = *done;
    }
    git_oid id;
    while (ok && git_revwalk_next(&id, walk) == 0) {
        git_commit *commit;
        ok = git_commit_lookup(&commit, c->src, &id) == 0 || fail_git(c, "reading a commit");
        if (ok) {
            ok = copy_commit(c, commit);
            git_commit_free(commit);
        }
    }
    git_revwalk_free(walk);
    return ok;
}

/* ---- Tags, refs, publishing. ---------------------------------------------------------------- */

/* A tag to create in DEST once the objects are published. */
typedef struct tag_ref_t {
    char *name;
    git_oid target;
} tag_ref_t;

typedef struct tag_copy_t {
    copy_t *c;
    tag_ref_t *refs;
    uint32_t count, capacity;
    bool ok;
} tag_copy_t;

/* Makes an annotated tag's copy: same name, tagger and message (plus the marker). */
static bool copy_annotated(copy_t *c, git_tag *tag, const git_oid *target, tag_ref_t *out)
{
    char hex[GIT_OID_HEXSZ + 1], line[256];
    raw_t raw = {0};
    snprintf(line, sizeof line, "object %s\ntype commit\ntag ", short_id(target, hex));
    bool ok = raw_put(&raw, line, strlen(line)) &&
              raw_put(&raw, git_tag_name(tag), strlen(git_tag_name(tag))) && raw_put(&raw, "\n", 1);
    const git_signature *who = git_tag_tagger(tag);
    if (ok && who) {
        int offset = who->when.offset, minutes = offset < 0 ? -offset : offset;
        snprintf(line, sizeof line, "> %lld %c%02d%02d\n", (long long)who->when.time,
                 offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
        ok = raw_put(&raw, "tagger ", 7) && raw_put(&raw, who->name, strlen(who->name)) &&
             raw_put(&raw, " <", 2) && raw_put(&raw, who->email, strlen(who->email)) &&
             raw_put(&raw, line, strlen(line));
    }
    ok = ok && raw_put(&raw, "\n", 1) &&
         put_message(c, &raw, git_tag_message(tag) ? git_tag_message(tag) : "", git_tag_id(tag));
    if (ok && write_object(c, &out->target, raw.data, raw.size, GIT_OBJECT_TAG))
        ok = fail_git(c, "writing a tag");
    free(raw.data);
    return ok;
}

/* Copies a source tag whose commit was copied (its ref is created after publishing); tags of
 * commits before the cutoff or not reachable from the target stay behind. */
static int copy_tag(const char *name, git_oid *oid, void *payload)
{
    tag_copy_t *t = payload;
    copy_t *c = t->c;
    git_object *obj, *peeled = NULL;
    if (git_object_lookup(&obj, c->src, oid, GIT_OBJECT_ANY))
        return 0;
    const git_oid *mapped = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0
                                ? censor_map_get(&c->maps.commits, git_object_id(peeled))
                                : NULL;
    tag_ref_t ref = {0};
    bool ok = true;
    if (mapped) {
        c->current = git_object_id(peeled);
        ref.target = *mapped;
        ok = check_leak(c, name, strlen(name), "a tag name");
        if (ok && git_object_type(obj) == GIT_OBJECT_TAG)
            ok = copy_annotated(c, (git_tag *)obj, mapped, &ref);
        ok = ok &&
             ct_array_reserve_of(ct_heap_allocator(), &t->refs, &t->capacity, t->count + 1, 64);
        if (ok && (ref.name = strdup(name)) != NULL)
            t->refs[t->count++] = ref;
        ok = ok && ref.name;
    }
    git_object_free(peeled);
    git_object_free(obj);
    t->ok = ok;
    return ok ? 0 : -1;
}

static bool create_tags(copy_t *c, tag_copy_t *t)
{
    bool ok = true;
    for (size_t i = 0; ok && i < t->count; i++) {
        git_reference *ref = NULL;
        ok = git_reference_create(&ref, c->dst, t->refs[i].name, &t->refs[i].target, 1,
                                  "cuttle-censor") == 0 ||
             fail_git(c, t->refs[i].name);
        git_reference_free(ref);
        c->stats->tags += ok;
    }
    return ok;
}

/* Writes the objects this run made to DEST as one pack: only those (git_mempack_dump would pack
 * everything each new commit reaches, the whole snapshot again, and no tags). */
static bool publish_objects(copy_t *c)
{
    if (c->num_written == 0)
        return true;
    git_packbuilder *pack = NULL;
    bool ok = git_packbuilder_new(&pack, c->dst) == 0 || fail_git(c, "packing the new objects");
    for (size_t i = 0; ok && i < c->num_written; i++)
        ok = git_packbuilder_insert(pack, &c->written[i], NULL) == 0 ||
             fail_git(c, "packing the new objects");
    ok = ok && (git_packbuilder_write(pack, NULL, 0, NULL, NULL) == 0 ||
                fail_git(c, "writing the pack into DEST"));
    git_packbuilder_free(pack);
    return ok;
}

/* The branch DEST gets: --branch, else the target's own branch name, else "main". */
static void branch_name(const copy_t *c, char *out, size_t size)
{
    const char *target = c->o->target ? c->o->target : "HEAD";
    git_reference *ref = NULL, *resolved = NULL;
    snprintf(out, size, "refs/heads/main");
    if (c->o->branch) {
        snprintf(out, size, "refs/heads/%s", c->o->branch);
    } else if (git_reference_dwim(&ref, c->src, target) == 0 &&
               git_reference_resolve(&resolved, ref) == 0 && git_reference_is_branch(resolved)) {
        snprintf(out, size, "%s", git_reference_name(resolved));
    }
    git_reference_free(resolved);
    git_reference_free(ref);
}

static bool resolve(copy_t *c, const char *spec, git_oid *out)
{
    git_object *obj, *commit;
    if (git_revparse_single(&obj, c->src, spec)) {
        snprintf(c->err, c->err_size, "%s: no such revision in %s", spec, c->o->source);
        return false;
    }
    bool ok = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) == 0;
    if (ok) {
        *out = *git_object_id(commit);
        git_object_free(commit);
    } else {
        snprintf(c->err, c->err_size, "%s: not a commit", spec);
    }
    git_object_free(obj);
    return ok;
}

static bool open_repositories(copy_t *c)
{
    if (git_repository_open_ext(&c->src, c->o->source, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
        snprintf(c->err, c->err_size, "%s: not a git repository", c->o->source);
        return false;
    }
    if (git_repository_open_ext(&c->dst, c->o->dest, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
        /* A new DEST is made bare; an existing folder that is not a repository is left alone. */
        DIR *d = opendir(c->o->dest);
        struct dirent *e;
        bool empty = true;
        while (d && empty && (e = readdir(d)) != NULL)
            empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        if (d)
            closedir(d);
        if (!empty) {
            snprintf(c->err, c->err_size, "%s: exists and is not a git repository", c->o->dest);
            return false;
        }
        if (git_repository_init(&c->dst, c->o->dest, 1))
            return fail_git(c, c->o->dest);
    }
    if (git_repository_odb(&c->src_odb, c->src) || git_repository_odb(&c->dst_odb, c->dst) ||
        git_mempack_new(&c->mempack) || git_odb_add_backend(c->dst_odb, c->mempack, 1000))
        return fail_git(c, "opening the object databases");
    return true;
}

static void map_path(const copy_t *c, char *out, size_t size)
{
    snprintf(out, size, "%scuttle-censor-map", git_repository_path(c->dst));
}

/* Reads the map; checks that this run's cutoff is the one DEST was made with. */
static bool load_maps(copy_t *c, char *path, size_t size)
{
    map_path(c, path, size);
    if (!censor_maps_load(&c->maps, path, c->o, c->err, c->err_size))
        return false;
    bool had = c->maps.has_cutoff, first = c->maps.commits.count == 0;
    git_oid asked;
    if (c->o->cutoff && !resolve(c, c->o->cutoff, &asked))
        return false;
    if (first) {
        c->maps.has_cutoff = c->o->cutoff != NULL;
        if (c->o->cutoff)
            c->maps.cutoff = asked;
        return true;
    }
    if (had != (c->o->cutoff != NULL) || (had && !git_oid_equal(&asked, &c->maps.cutoff))) {
        snprintf(c->err, c->err_size, "DEST was made %s; a re-run must use the same --cutoff",
                 had ? "with a cutoff" : "without a cutoff");
        return false;
    }
    return true;
}

bool censor_copy(const censor_options_t *o, censor_stats_t *stats, char *err, size_t err_size)
{
    copy_t c = {.o = o, .stats = stats, .err = err, .err_size = err_size};
    err[0] = '\0';
    char path[4096], branch[1024];
    git_oid target;
    tag_copy_t tags = {.c = &c, .ok = true};
    bool ok = open_repositories(&c) && load_maps(&c, path, sizeof path) &&
              resolve(&c, o->target ? o->target : "HEAD", &target);
    if (ok && c.maps.has_cutoff && !git_oid_equal(&target, &c.maps.cutoff) &&
        git_graph_descendant_of(c.src, &target, &c.maps.cutoff) != 1) {
        snprintf(err, err_size, "the cutoff %s is not an ancestor of the target", o->cutoff);
        ok = false;
    }
    ok = ok && copy_history(&c, &target);
    if (ok) {
        git_tag_foreach(c.src, copy_tag, &tags);
        ok = tags.ok;
    }
    /* Everything passed: publish the objects, then the branch and tags, then the map. */
    ok = ok && publish_objects(&c) && create_tags(&c, &tags);
    if (ok) {
        branch_name(&c, branch, sizeof branch);
        git_reference *ref = NULL;
        const git_oid *head = censor_map_get(&c.maps.commits, &target);
        ok = (head && git_reference_create(&ref, c.dst, branch, head, 1, "cuttle-censor") == 0) ||
             fail_git(&c, branch);
        git_reference_free(ref);
        if (ok && git_repository_head_unborn(c.dst) == 1)
            git_repository_set_head(c.dst, branch);
    }
    ok = ok && censor_maps_save(&c.maps, path, o, err, err_size);
    for (size_t i = 0; i < tags.count; i++)
        free(tags.refs[i].name);
    free(c.written);
    free(tags.refs);
    if (c.mempack)
        git_mempack_reset(c.mempack);
    censor_maps_free(&c.maps);
    git_odb_free(c.src_odb);
    git_odb_free(c.dst_odb);
    git_repository_free(c.src);
    git_repository_free(c.dst);
    return ok;
}
