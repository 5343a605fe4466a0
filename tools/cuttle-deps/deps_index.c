/*
 * Loading the reference index: the project's files, the compiled types, the reference files
 * cuttle-compile wrote, project.sjson's roots and the Lua scripts' literals (see deps.h).
 *
 * Reference files are parsed in place: their text stays in memory and the strings of a
 * reference point into it, so a project of 100,000 sources costs one read per file and no copy.
 * With two threads the files are read in two halves at once (reading is the slow part; parsing
 * and linking stay on the calling thread, in file order, so the result does not depend on
 * timing).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ct_array.h"
#include "ct_hash.h"
#include "ct_heap.h"
#include "data/sjson.h"
#include "deps.h"

#define MAX_DEPTH 64
#define PATH_SIZE 4096
#define ARENA_BLOCK (1u << 20)

/* snprintf that says whether it fit (and keeps -Wformat-truncation quiet about paths). */
__attribute__((format(printf, 3, 4))) static bool pathf(char *out, size_t size, const char *fmt,
                                                        ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < size;
}

struct deps_arena_block_t {
    deps_arena_block_t *next;
    size_t used, size;
    char bytes[];
};

/* A block of memory the index keeps until it is freed (file texts, interned strings). */
static void *arena_take(deps_index_t *ix, size_t size)
{
    deps_arena_block_t *b = ix->arena;
    if (!b || b->size - b->used < size) {
        size_t want = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;
        deps_arena_block_t *fresh = malloc(sizeof *fresh + want);
        if (!fresh)
            return NULL;
        fresh->used = 0;
        fresh->size = want;
        if (b && size > ARENA_BLOCK / 4) { /* a big one goes behind, keeping the current block */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            ix->arena = fresh;
        }
        b = fresh;
    }
    void *p = b->bytes + b->used;
    b->used += size;
    return p;
}

const char *deps_index_intern(deps_index_t *ix, const char *s, size_t len)
{
    char *copy = arena_take(ix, len + 1);
    if (copy) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

static uint64_t key_hash(const char *type, const char *name)
{
    return ct_hash64(name) ^ (ct_hash64(type) * 0x9e3779b97f4a7c15ull);
}

uint32_t deps_index_find(const deps_index_t *ix, const char *type, const char *name)
{
    if (!ix->num_slots)
        return DEPS_NONE;
    const uint32_t mask = ix->num_slots - 1;
    for (uint32_t i = (uint32_t)key_hash(type, name) & mask;; i = (i + 1) & mask) {
        const uint32_t n = ix->slots[i];
        if (n == DEPS_NONE)
            return DEPS_NONE;
        if (strcmp(ix->nodes[n].name, name) == 0 && strcmp(ix->nodes[n].type, type) == 0)
            return n;
    }
}

static bool build_map(deps_index_t *ix)
{
    uint32_t n = 64;
    while (n < ix->num_nodes * 2u)
        n *= 2;
    ix->slots = malloc(n * sizeof *ix->slots);
    if (!ix->slots)
        return false;
    memset(ix->slots, 0xff, n * sizeof *ix->slots);
    ix->num_slots = n;
    for (uint32_t k = 0; k < ix->num_nodes; k++) {
        uint32_t i = (uint32_t)key_hash(ix->nodes[k].type, ix->nodes[k].name) & (n - 1);
        while (ix->slots[i] != DEPS_NONE)
            i = (i + 1) & (n - 1);
        ix->slots[i] = k;
    }
    return true;
}

static bool is_type(const deps_index_t *ix, const char *ext)
{
    uint32_t lo = 0, hi = ix->num_types;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        int c = strcmp(ix->types[mid], ext);
        if (!c)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The compiled types: the folders under compiled/ but references/. */
static int read_types(deps_index_t *ix, char *err, size_t err_size)
{
    char dir[PATH_SIZE];
    pathf(dir, sizeof dir, "%s/compiled", ix->project);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_size, "%s: %s; run cuttle-compile first", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    uint32_t capacity = 0;
    ct_allocator_t *heap = ct_heap_allocator();
    while ((e = readdir(d))) {
        char full[PATH_SIZE];
        struct stat st;
        if (e->d_name[0] == '.' || strcmp(e->d_name, "references") == 0 ||
            !pathf(full, sizeof full, "%s/%s", dir, e->d_name) || stat(full, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        if (!ct_array_reserve_of(heap, &ix->types, &capacity, ix->num_types + 1, 16))
            break;
        ix->types[ix->num_types++] = (char *)deps_index_intern(ix, e->d_name, strlen(e->d_name));
    }
    closedir(d);
    qsort(ix->types, ix->num_types, sizeof *ix->types, compare_strings);
    return 0;
}

/* Files this tool leaves while it works (deps_rename.c) are not part of the project. */
static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

static bool own_file(const char *name)
{
    return ends_with(name, ".cuttle-deps-new") || ends_with(name, ".cuttle-deps-old");
}

typedef struct walk_t {
    deps_index_t *ix;
    int64_t *mtimes; /* per node, nanoseconds */
    uint32_t mtimes_capacity;
    bool failed;
} walk_t;

static uint32_t add_node(walk_t *w, const char *path, int64_t mtime)
{
    deps_index_t *ix = w->ix;
    if (ix->num_nodes == ix->nodes_capacity) {
        /* Two columns of one length: one capacity, each reallocated. */
        const uint32_t capacity = ct_array_capacity(ix->nodes_capacity, ix->num_nodes + 1, 1024);
        deps_node_t *grown = capacity ? realloc(ix->nodes, capacity * sizeof *grown) : NULL;
        int64_t *times = capacity ? realloc(w->mtimes, capacity * sizeof *times) : NULL;
        if (grown)
            ix->nodes = grown;
        if (times)
            w->mtimes = times;
        if (!grown || !times) {
            w->failed = true;
            return DEPS_NONE;
        }
        ix->nodes_capacity = capacity;
    }
    const size_t len = strlen(path);
    const char *copy = deps_index_intern(ix, path, len);
    if (!copy) {
        w->failed = true;
        return DEPS_NONE;
    }
    deps_node_t node = {.path = copy, .type = DEPS_FILE, .name = copy, .first_user = DEPS_NONE};
    const char *dot = strrchr(copy, '.');
    const char *slash = strrchr(copy, '/');
    if (dot && dot != copy && (!slash || dot > slash + 1) && is_type(ix, dot + 1)) {
        node.type = dot + 1;
        node.name = deps_index_intern(ix, copy, (size_t)(dot - copy));
        node.resource = node.name != NULL;
        if (!node.name)
            node.name = copy;
    }
    w->mtimes[ix->num_nodes] = mtime;
    ix->nodes[ix->num_nodes] = node;
    return ix->num_nodes++;
}

static void walk(walk_t *w, const char *rel, int depth)
{
    char dir[PATH_SIZE];
    pathf(dir, sizeof dir, "%s%s%s", w->ix->project, rel[0] ? "/" : "", rel);
    DIR *d = depth <= MAX_DEPTH ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && !w->failed) {
        const char *name = e->d_name;
        if (name[0] == '.' || (!rel[0] && strcmp(name, "compiled") == 0) || own_file(name))
            continue;
        char child[PATH_SIZE];
        struct stat st;
        /* Relative to the open folder: the kernel does not walk the whole path again for each
         * of 100,000 files. */
        if (!pathf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", name) ||
            fstatat(dirfd(d), name, &st, 0) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(w, child, depth + 1);
        else if (S_ISREG(st.st_mode))
            add_node(w, child, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
    }
    closedir(d);
}

static bool add_ref(deps_index_t *ix, const deps_ref_t *r)
{
    if (!ct_array_reserve_of(ct_heap_allocator(), &ix->refs, &ix->refs_capacity, ix->num_refs + 1,
                             4096))
        return false;
    ix->refs[ix->num_refs++] = *r;
    return true;
}

/* ---- reference files ------------------------------------------------------------------------ */

typedef struct refs_file_t {
    uint32_t node;
    char *text; /* NUL-terminated, from the arena once read; NULL when unreadable */
    size_t len;
    int64_t mtime;
} refs_file_t;

typedef struct refs_list_t {
    refs_file_t *files;
    uint32_t count, capacity;
} refs_list_t;

static void find_refs(deps_index_t *ix, refs_list_t *list, const char *rel, int depth)
{
    char dir[PATH_SIZE];
    pathf(dir, sizeof dir, "%s/compiled/references%s%s", ix->project, rel[0] ? "/" : "", rel);
    DIR *d = depth <= MAX_DEPTH ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (name[0] == '.')
            continue;
        char child[PATH_SIZE];
        size_t n = (size_t)snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", name);
        if (n >= sizeof child)
            continue;
        bool is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
            char full[PATH_SIZE];
            struct stat st;
            is_dir = (size_t)snprintf(full, sizeof full, "%s/%s", dir, name) < sizeof full &&
                     stat(full, &st) == 0 && S_ISDIR(st.st_mode);
        }
        if (is_dir) {
            find_refs(ix, list, child, depth + 1);
            continue;
        }
        if (n <= 5 || strcmp(child + n - 5, ".refs") != 0)
            continue;
        child[n - 5] = '\0';
        /* The node of the source: its type from its extension, as the walk named it. */
        const char *dot = strrchr(child, '.');
        const char *slash = strrchr(child, '/');
        uint32_t node = DEPS_NONE;
        if (dot && (!slash || dot > slash) && is_type(ix, dot + 1)) {
            *(char *)dot = '\0';
            node = deps_index_find(ix, dot + 1, child);
            *(char *)dot = '.';
        } else {
            node = deps_index_find(ix, DEPS_FILE, child);
        }
        if (node == DEPS_NONE)
            continue; /* the source is gone: the next compile removes its references */
        if (!ct_array_reserve_of(ct_heap_allocator(), &list->files, &list->capacity,
                                 list->count + 1, 1024))
            break;
        list->files[list->count++] = (refs_file_t){.node = node};
    }
    closedir(d);
}

/* Reads one reference file into memory of its own (malloc: threads may not share the arena). */
static void read_refs_file(const char *project, refs_file_t *f, const char *node_path)
{
    char path[PATH_SIZE];
    f->text = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/compiled/references/%s.refs", project, node_path) >=
        sizeof path)
        return;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 28)) {
        char *text = malloc((size_t)st.st_size + 1);
        ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
        if (got == st.st_size) {
            text[got] = '\0';
            f->text = text;
            f->len = (size_t)got;
            f->mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        } else {
            free(text);
        }
    }
    close(fd);
}

typedef struct reader_t {
    const deps_index_t *ix;
    refs_list_t *list;
    uint32_t begin, end;
} reader_t;

static void *read_range(void *arg)
{
    reader_t *r = arg;
    for (uint32_t i = r->begin; i < r->end; i++)
        read_refs_file(r->ix->project, &r->list->files[i],
                       r->ix->nodes[r->list->files[i].node].path);
    return NULL;
}

static uint32_t parse_uint(const char *s)
{
    unsigned long v = strtoul(s, NULL, 10);
    return v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* Splits the text's lines into references from `node`, in place. A line that does not have
 * six fields is skipped (the file is a cache; the next compile writes it again). */
static bool parse_refs(deps_index_t *ix, uint32_t node, char *text)
{
    char *line = text;
    while (*line) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *field[6];
        int n = 0;
        for (char *p = line; n < 6;) {
            field[n++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (n == 6) {
            deps_ref_t r = {.from = node,
                            .to = DEPS_NONE,
                            .next_user = DEPS_NONE,
                            .type = field[0],
                            .name = field[1],
                            .field = field[2],
                            .line = parse_uint(field[3]),
                            .column = parse_uint(field[4]),
                            .length = parse_uint(field[5])};
            if (!add_ref(ix, &r))
                return false;
        }
        if (!end)
            break;
        line = end + 1;
    }
    return true;
}

static int load_refs(deps_index_t *ix, walk_t *w, int threads, char *err, size_t err_size)
{
    refs_list_t list = {0};
    find_refs(ix, &list, "", 0);
    reader_t halves[2] = {{ix, &list, 0, list.count / 2}, {ix, &list, list.count / 2, list.count}};
    pthread_t helper;
    bool helped = threads > 1 && list.count > 64 &&
                  pthread_create(&helper, NULL, read_range, &halves[1]) == 0;
    if (!helped)
        halves[0].end = list.count;
    read_range(&halves[0]);
    if (helped)
        pthread_join(helper, NULL);
    int rc = 0;
    for (uint32_t i = 0; i < list.count; i++) {
        refs_file_t *f = &list.files[i];
        if (!f->text)
            continue;
        /* The index keeps the text: references point into it. */
        if (!ct_array_reserve_of(ct_heap_allocator(), &ix->texts, &ix->texts_capacity,
                                 ix->num_texts + 1, 1024)) {
            free(f->text);
            rc = -1;
            continue;
        }
        ix->texts[ix->num_texts++] = f->text;
        deps_node_t *node = &ix->nodes[f->node];
        node->first_ref = ix->num_refs;
        if (rc == 0 && !parse_refs(ix, f->node, f->text))
            rc = -1;
        node->num_refs = ix->num_refs - node->first_ref;
        if (w->mtimes[f->node] > f->mtime) {
            node->stale = true;
            ix->stale++;
        }
    }
    free(list.files);
    if (rc)
        snprintf(err, err_size, "out of memory reading the reference index");
    return rc;
}

/* ---- project.sjson and Lua ------------------------------------------------------------------ */

/* Where `s` is written as a whole string in text (a quoted string, or a bare word), searching
 * from `from`; 0 0 when nowhere. */
static void find_span(const char *text, size_t len, size_t *from, const char *s, uint32_t *line,
                      uint32_t *column)
{
    const size_t n = strlen(s);
    *line = *column = 0;
    for (size_t i = *from; n && i + n <= len; i++) {
        if (memcmp(text + i, s, n) != 0)
            continue;
        const bool left = i == 0 || text[i - 1] == '"';
        const bool right = i + n == len || text[i + n] == '"' || text[i + n] == '.';
        if (!left || !right)
            continue;
        uint32_t l = 1;
        size_t line_start = 0;
        for (size_t k = 0; k < i; k++)
            if (text[k] == '\n') {
                l++;
                line_start = k + 1;
            }
        *line = l;
        *column = (uint32_t)(i - line_start) + 1;
        *from = i + n;
        return;
    }
}

/* One root, written as a project path: "default.render_config" names the resource
 * (render_config, "default") and its span covers the name only, so a rename rewrites just that;
 * "boot.lua" names the file. */
static bool add_root(deps_index_t *ix, uint32_t node, const char *text, size_t len, size_t *from,
                     const char *field, const char *path)
{
    deps_ref_t r = {
        .from = node, .to = DEPS_NONE, .next_user = DEPS_NONE, .field = field, .type = DEPS_FILE};
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    size_t name_len = strlen(path);
    if (dot && dot != path && (!slash || dot > slash + 1) && is_type(ix, dot + 1)) {
        r.type = dot + 1;
        name_len = (size_t)(dot - path);
    }
    const bool resource = name_len != strlen(path);
    r.name = deps_index_intern(ix, path, name_len);
    if (resource)
        r.type = deps_index_intern(ix, dot + 1, strlen(dot + 1));
    if (!r.name || !r.type)
        return false;
    find_span(text, len, from, r.name, &r.line, &r.column);
    r.length = r.line ? (uint32_t)name_len : 0;
    return add_ref(ix, &r);
}

static bool read_project_roots(deps_index_t *ix)
{
    ix->project_node = deps_index_find(ix, DEPS_FILE, "project.sjson");
    if (ix->project_node == DEPS_NONE)
        return true;
    char path[PATH_SIZE], err[256];
    pathf(path, sizeof path, "%s/project.sjson", ix->project);
    size_t len = 0;
    char *text = sjson__read_file(path, &len, err, sizeof err);
    cJSON *root = text ? sjson__parse(text, len, path, err, sizeof err) : NULL;
    bool ok = true;
    deps_node_t *node = &ix->nodes[ix->project_node];
    node->first_ref = ix->num_refs;
    size_t from = 0;
    const cJSON *boot = cJSON_GetObjectItemCaseSensitive(root, "boot_script");
    if (cJSON_IsString(boot))
        ok = add_root(ix, ix->project_node, text, len, &from, "boot_script", boot->valuestring);
    const cJSON *item;
    const cJSON *roots = cJSON_GetObjectItemCaseSensitive(root, "roots");
    cJSON_ArrayForEach(item, roots) if (ok && cJSON_IsString(item)) ok =
        add_root(ix, ix->project_node, text, len, &from, "roots", item->valuestring);
    node->num_refs = ix->num_refs - node->first_ref;
    cJSON_Delete(root);
    free(text);
    return ok;
}

typedef struct lua_scan_t {
    deps_index_t *ix;
    uint32_t node;
    bool failed;
} lua_scan_t;

/* A literal that names an existing resource (of any type) or project file is a soft reference
 * to each such thing; anything else is just a string. */
static void lua_literal(void *user, const char *s, size_t n, uint32_t line, uint32_t column)
{
    lua_scan_t *scan = user;
    deps_index_t *ix = scan->ix;
    char name[256];
    if (n == 0 || n >= sizeof name || scan->failed)
        return;
    memcpy(name, s, n);
    name[n] = '\0';
    for (uint32_t t = 0; t <= ix->num_types; t++) {
        const char *type = t < ix->num_types ? ix->types[t] : DEPS_FILE;
        uint32_t to = deps_index_find(ix, type, name);
        if (to == DEPS_NONE || to == scan->node)
            continue;
        deps_ref_t r = {.from = scan->node,
                        .to = DEPS_NONE,
                        .next_user = DEPS_NONE,
                        .type = ix->nodes[to].type,
                        .name = ix->nodes[to].name,
                        .field = "lua",
                        .line = line,
                        .column = column,
                        .length = (uint32_t)n,
                        .soft = true};
        if (!add_ref(ix, &r))
            scan->failed = true;
    }
}

static bool scan_lua(deps_index_t *ix, uint32_t node)
{
    char path[PATH_SIZE], err[256];
    pathf(path, sizeof path, "%s/%s", ix->project, ix->nodes[node].path);
    size_t len = 0;
    char *text = sjson__read_file(path, &len, err, sizeof err);
    if (!text)
        return true; /* unreadable now: nothing to say about it */
    lua_scan_t scan = {ix, node, false};
    ix->nodes[node].first_ref = ix->num_refs;
    deps_lua_literals(text, len, lua_literal, &scan);
    ix->nodes[node].num_refs = ix->num_refs - ix->nodes[node].first_ref;
    free(text);
    return !scan.failed;
}

static bool is_lua(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".lua") == 0;
}

/* ---- loading -------------------------------------------------------------------------------- */

int deps_index_load(deps_index_t *ix, const char *project, int threads, char *err, size_t err_size)
{
    *ix = (deps_index_t){.project_node = DEPS_NONE};
    struct stat st;
    if ((size_t)snprintf(ix->project, sizeof ix->project, "%s", project) >= sizeof ix->project ||
        stat(project, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s: no such project folder", project);
        return -1;
    }
    if (read_types(ix, err, err_size))
        return -1;
    walk_t w = {.ix = ix};
    walk(&w, "", 0);
    int rc = w.failed || !build_map(ix) ? -1 : 0;
    if (rc)
        snprintf(err, err_size, "out of memory listing the project");
    if (!rc)
        rc = load_refs(ix, &w, threads, err, err_size);
    free(w.mtimes);
    /* Roots and scripts after the compiled references: their literals may name anything. */
    if (!rc && !read_project_roots(ix))
        rc = -1;
    for (uint32_t i = 0; !rc && i < ix->num_nodes; i++)
        if (is_lua(ix->nodes[i].path) && !scan_lua(ix, i))
            rc = -1;
    if (rc) {
        if (!err[0])
            snprintf(err, err_size, "out of memory reading the project");
        return -1;
    }
    /* Link each reference to what it names, users in the order the references were read. */
    uint32_t *last = malloc((ix->num_nodes + 1) * sizeof *last);
    if (!last) {
        snprintf(err, err_size, "out of memory linking references");
        return -1;
    }
    memset(last, 0xff, (ix->num_nodes + 1) * sizeof *last);
    for (uint32_t i = 0; i < ix->num_refs; i++) {
        deps_ref_t *r = &ix->refs[i];
        r->to = deps_index_find(ix, r->type, r->name);
        if (r->to == DEPS_NONE)
            continue;
        if (last[r->to] == DEPS_NONE)
            ix->nodes[r->to].first_user = i;
        else
            ix->refs[last[r->to]].next_user = i;
        last[r->to] = i;
    }
    free(last);
    return 0;
}

uint32_t deps_index_lookup(const deps_index_t *ix, const char *what, char *err, size_t err_size)
{
    uint32_t node = deps_index_find(ix, DEPS_FILE, what);
    const char *dot = strrchr(what, '.');
    if (node == DEPS_NONE && dot && dot != what) {
        char name[PATH_SIZE];
        pathf(name, sizeof name, "%.*s", (int)(dot - what), what);
        node = deps_index_find(ix, dot + 1, name);
    }
    if (node != DEPS_NONE)
        return node;
    uint32_t found = 0;
    for (uint32_t t = 0; t < ix->num_types; t++) {
        uint32_t n = deps_index_find(ix, ix->types[t], what);
        if (n != DEPS_NONE) {
            node = n;
            found++;
        }
    }
    if (found == 1)
        return node;
    snprintf(err, err_size,
             found ? "\"%s\" names resources of %u types: give the file "
                     "(\"%s.TYPE\")"
                   : "\"%s\" is no file or resource of the project%.0u%.0s",
             what, found, what);
    return DEPS_NONE;
}

void deps_index_free(deps_index_t *ix)
{
    for (deps_arena_block_t *b = ix->arena, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    for (uint32_t i = 0; i < ix->num_texts; i++)
        free(ix->texts[i]);
    free(ix->texts);
    free(ix->nodes);
    free(ix->refs);
    free(ix->slots);
    free(ix->types);
    *ix = (deps_index_t){.project_node = DEPS_NONE};
}
