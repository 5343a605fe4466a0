/*
 * Renames and moves that rewrite every reference, all or nothing, and the rename log.
 *
 * A change (mv, fix) is planned in memory first: the new text of every source that names a moved
 * file, with exactly the recorded spans replaced (nothing else in the file changes: comments,
 * spacing and order stay), and the files to move. Then, through the journal
 * <project>/.cuttle-deps-journal:
 *   1. the journal lists the change with "state prepared";
 *   2. each new text is written beside its file as <file>.cuttle-deps-new;
 *   3. the journal says "state committed" (written to a temporary file and renamed, so it is
 *      either the old or the new journal): the point of no return;
 *   4. each file is replaced (its old text kept as <file>.cuttle-deps-old, a hard link), then the
 *      files are moved;
 *   5. the journal says "state done", the old texts and the journal are removed.
 * Killed before 3, the project is as it was (rollback or resume just remove the new texts);
 * killed after 3, `resume` finishes the change and `rollback` restores every file from the old
 * texts and moves everything back; killed in 5, both only clean up. Until then every other verb
 * refuses to run, so nothing works on a half-renamed project.
 *
 * renames.log: one line per moved resource or file, "DATE TYPE OLD NEW" (DATE is the UTC day,
 * YYYY-MM-DD; TYPE "@file" for a plain file), appended by the same change. It is text in the
 * project so that it merges with the branches that need it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ct_array.h"
#include "ct_file.h"
#include "ct_heap.h"
#include "deps.h"
#include "resources/resources_internal.h"

#define PATH_SIZE 4096

/* ---- the kill hook of the tests ------------------------------------------------------------- */

/* CUTTLE_DEPS_KILL_AFTER=N kills the tool (SIGKILL: no cleanup of any kind runs) at its N-th
 * step that touches a file: the test that proves an interrupted change loses nothing. */
static void step(void)
{
    static long left = -1;
    if (left == -1) {
        const char *s = getenv("CUTTLE_DEPS_KILL_AFTER");
        left = s ? strtol(s, NULL, 10) : 0;
        if (left <= 0)
            left = 0;
    }
    if (left > 0 && --left == 0)
        raise(SIGKILL);
}

/* ---- small file helpers --------------------------------------------------------------------- */

static bool join(char *out, const char *project, const char *rel, const char *suffix)
{
    return (size_t)snprintf(out, PATH_SIZE, "%s/%s%s", project, rel, suffix) < PATH_SIZE;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The whole file, NUL-terminated, for free(): the heap allocator is malloc's. Only regular files
 * are read (every file this tool reads is one); a FIFO is refused rather than waited on. */
static char *read_all(const char *path, size_t *len)
{
    return (char *)ct_file_read(path, ct_heap_allocator(), SIZE_MAX - 1, len, NULL, 0);
}

static bool make_parents(const char *path)
{
    char dir[PATH_SIZE];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return false; /* cut short, it would name other folders */
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return true;
}

static bool write_all(const char *path, const char *text, size_t len)
{
    if (!make_parents(path))
        return false;
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(text, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Puts everything written so far on disk before a step that depends on it (the journal's commit,
 * removing the old texts): one syncfs for the project's file system rather than an fsync per
 * file, which made renaming 1,000 referencers take seconds on a virtual disk. */
static void flush_to_disk(const char *project)
{
    int fd = open(project, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        syncfs(fd);
        close(fd);
    }
}

/* Written whole or not at all: a temporary file, then a rename. */
static bool replace_file(const char *path, const char *text, size_t len)
{
    char tmp[PATH_SIZE + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!write_all(tmp, text, len) || rename(tmp, path) != 0) {
        remove(tmp);
        return false;
    }
    return true;
}

/* Removes the folders of `rel` from the deepest up as far as they became empty. */
static void remove_empty_parents(const char *project, const char *rel)
{
    char path[PATH_SIZE];
    if (!join(path, project, rel, ""))
        return;
    const size_t stop = strlen(project);
    char *slash;
    while ((slash = strrchr(path, '/')) && (size_t)(slash - path) > stop) {
        *slash = '\0';
        if (rmdir(path) != 0)
            break;
    }
}

/* ---- renames.log (read by kernel/resources/renames.c, which the compiler shares) ---------- */

bool deps_renamed_to(const char *project, const char *type, const char *name, char *to,
                     size_t to_size, char *date, size_t date_size)
{
    return resources__renamed_to(project, type, name, to, to_size, date, date_size);
}

/* ---- the journal ---------------------------------------------------------------------------- */

typedef struct change_t {
    char **write_paths; /* project-relative files to replace (or create: see `created`) */
    char **write_texts;
    size_t *write_lens;
    uint32_t num_writes;
    bool *created; /* per write: the file did not exist (undo removes it) */
    char **move_from, **move_to;
    uint32_t num_moves;
    uint32_t capacity;
} change_t;

static bool change_reserve(change_t *c)
{
    if (c->num_writes < c->capacity && c->num_moves < c->capacity)
        return true;
    /* Six columns of one capacity: computed once, each column reallocated. */
    const uint32_t used = c->num_writes > c->num_moves ? c->num_writes : c->num_moves;
    const uint32_t capacity = ct_array_capacity(c->capacity, used + 1, 64);
    if (!capacity)
        return false;
    char **a = realloc(c->write_paths, capacity * sizeof *a);
    if (a)
        c->write_paths = a;
    char **b = realloc(c->write_texts, capacity * sizeof *b);
    if (b)
        c->write_texts = b;
    size_t *l = realloc(c->write_lens, capacity * sizeof *l);
    if (l)
        c->write_lens = l;
    char **f = realloc(c->move_from, capacity * sizeof *f);
    if (f)
        c->move_from = f;
    char **t = realloc(c->move_to, capacity * sizeof *t);
    if (t)
        c->move_to = t;
    bool *n = realloc(c->created, capacity * sizeof *n);
    if (n)
        c->created = n;
    if (!a || !b || !l || !f || !t || !n)
        return false;
    c->capacity = capacity;
    return true;
}

static void change_free(change_t *c)
{
    for (uint32_t i = 0; i < c->num_writes; i++) {
        free(c->write_paths[i]);
        free(c->write_texts[i]);
    }
    for (uint32_t i = 0; i < c->num_moves; i++) {
        free(c->move_from[i]);
        free(c->move_to[i]);
    }
    free(c->write_paths);
    free(c->write_texts);
    free(c->write_lens);
    free(c->move_from);
    free(c->move_to);
    free(c->created);
    *c = (change_t){0};
}

static bool journal_write(const char *project, const change_t *c, const char *state)
{
    size_t size = 64;
    for (uint32_t i = 0; i < c->num_writes; i++)
        size += strlen(c->write_paths[i]) + 8;
    for (uint32_t i = 0; i < c->num_moves; i++)
        size += strlen(c->move_from[i]) + strlen(c->move_to[i]) + 8;
    char *text = malloc(size);
    if (!text)
        return false;
    size_t n = (size_t)snprintf(text, size, "cuttle-deps journal 1\nstate %s\n", state);
    for (uint32_t i = 0; i < c->num_writes; i++)
        n += (size_t)snprintf(text + n, size - n, "%s %s\n", c->created[i] ? "create" : "write",
                              c->write_paths[i]);
    for (uint32_t i = 0; i < c->num_moves; i++)
        n += (size_t)snprintf(text + n, size - n, "move %s %s\n", c->move_from[i], c->move_to[i]);
    char path[PATH_SIZE];
    bool ok = join(path, project, DEPS_JOURNAL, "") && replace_file(path, text, n);
    free(text);
    return ok;
}

/* Reads the journal back into c (paths only) and its state. */
static bool journal_read(const char *project, change_t *c, char *state, size_t state_size)
{
    char path[PATH_SIZE];
    size_t len;
    char *text = join(path, project, DEPS_JOURNAL, "") ? read_all(path, &len) : NULL;
    if (!text)
        return false;
    bool ok = strncmp(text, "cuttle-deps journal 1\n", 22) == 0;
    state[0] = '\0';
    for (char *line = text, *end; ok && line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (strncmp(line, "state ", 6) == 0) {
            snprintf(state, state_size, "%s", line + 6);
        } else if (strncmp(line, "write ", 6) == 0 || strncmp(line, "create ", 7) == 0) {
            const bool created = line[0] == 'c';
            ok = change_reserve(c) &&
                 (c->write_paths[c->num_writes] = strdup(line + (created ? 7 : 6)));
            if (ok) {
                c->created[c->num_writes] = created;
                c->write_texts[c->num_writes] = NULL;
                c->write_lens[c->num_writes++] = 0;
            }
        } else if (strncmp(line, "move ", 5) == 0) {
            char *space = strchr(line + 5, ' ');
            ok = space && change_reserve(c);
            if (ok) {
                *space = '\0';
                c->move_from[c->num_moves] = strdup(line + 5);
                c->move_to[c->num_moves] = strdup(space + 1);
                ok = c->move_from[c->num_moves] && c->move_to[c->num_moves];
                c->num_moves++;
            }
        }
    }
    free(text);
    return ok && state[0];
}

static void remove_journal(const char *project)
{
    char path[PATH_SIZE];
    if (join(path, project, DEPS_JOURNAL, ""))
        remove(path);
    step();
}

bool deps_pending(const char *project)
{
    char path[PATH_SIZE];
    return join(path, project, DEPS_JOURNAL, "") && exists(path);
}

/* Steps 4 and 5 for a committed journal; idempotent, so resume can run them again after a
 * kill at any point. */
static int finish(const char *project, const change_t *c, FILE *err)
{
    char path[PATH_SIZE], fresh[PATH_SIZE], old[PATH_SIZE];
    for (uint32_t i = 0; i < c->num_writes; i++) {
        if (!join(path, project, c->write_paths[i], "") ||
            !join(fresh, project, c->write_paths[i], ".cuttle-deps-new") ||
            !join(old, project, c->write_paths[i], ".cuttle-deps-old"))
            return -1;
        if (!exists(fresh))
            continue; /* replaced already */
        if (!exists(old) && exists(path) && link(path, old) != 0) {
            fprintf(err, "cuttle-deps: cannot keep the old text of %s: %s\n", path,
                    strerror(errno));
            return -1;
        }
        step();
        if (rename(fresh, path) != 0) {
            fprintf(err, "cuttle-deps: cannot replace %s: %s\n", path, strerror(errno));
            return -1;
        }
        step();
    }
    for (uint32_t i = 0; i < c->num_moves; i++) {
        if (!join(old, project, c->move_from[i], "") || !join(path, project, c->move_to[i], ""))
            return -1;
        if (!exists(old) && exists(path))
            continue; /* moved already */
        if (!make_parents(path) || rename(old, path) != 0) {
            fprintf(err, "cuttle-deps: cannot move %s to %s: %s\n", c->move_from[i], c->move_to[i],
                    strerror(errno));
            return -1;
        }
        step();
    }
    flush_to_disk(project);
    if (!journal_write(project, c, "done"))
        return -1;
    step();
    for (uint32_t i = 0; i < c->num_writes; i++)
        if (join(old, project, c->write_paths[i], ".cuttle-deps-old"))
            remove(old);
    for (uint32_t i = 0; i < c->num_moves; i++)
        remove_empty_parents(project, c->move_from[i]);
    remove_journal(project);
    return 0;
}

/* Undoes a journal in any state but "done". */
static int undo(const char *project, const change_t *c, FILE *err)
{
    char path[PATH_SIZE], fresh[PATH_SIZE], old[PATH_SIZE];
    int rc = 0;
    for (uint32_t i = c->num_moves; i-- > 0;) {
        if (!join(old, project, c->move_from[i], "") || !join(path, project, c->move_to[i], ""))
            return -1;
        if (exists(path) && !exists(old)) {
            if (!make_parents(old) || rename(path, old) != 0) {
                fprintf(err, "cuttle-deps: cannot move %s back to %s: %s\n", c->move_to[i],
                        c->move_from[i], strerror(errno));
                rc = -1;
                continue;
            }
            remove_empty_parents(project, c->move_to[i]);
        }
        step();
    }
    for (uint32_t i = 0; i < c->num_writes; i++) {
        if (!join(path, project, c->write_paths[i], "") ||
            !join(fresh, project, c->write_paths[i], ".cuttle-deps-new") ||
            !join(old, project, c->write_paths[i], ".cuttle-deps-old"))
            return -1;
        /* Killed between keeping the old text and replacing the file, both names are one file,
         * and rename() between two names of one file does nothing: drop the extra name. */
        struct stat a, b;
        const bool same = stat(old, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
                          a.st_dev == b.st_dev;
        if (exists(old) && (same ? unlink(old) : rename(old, path)) != 0) {
            fprintf(err, "cuttle-deps: cannot restore %s: %s\n", path, strerror(errno));
            rc = -1;
            continue;
        }
        if (c->created[i] && !exists(fresh))
            remove(path); /* it was made by this change */
        remove(fresh);
        step();
    }
    if (!rc)
        remove_journal(project);
    return rc;
}

/* Steps 1 to 5 for a planned change. */
static int run_change(const char *project, const change_t *c, FILE *err)
{
    if (!journal_write(project, c, "prepared")) {
        fprintf(err, "cuttle-deps: cannot write %s/%s: %s\n", project, DEPS_JOURNAL,
                strerror(errno));
        return -1;
    }
    step();
    char fresh[PATH_SIZE];
    for (uint32_t i = 0; i < c->num_writes; i++) {
        if (!join(fresh, project, c->write_paths[i], ".cuttle-deps-new") ||
            !write_all(fresh, c->write_texts[i], c->write_lens[i])) {
            fprintf(err, "cuttle-deps: cannot write %s: %s; nothing was changed\n", fresh,
                    strerror(errno));
            undo(project, c, err);
            return -1;
        }
        step();
    }
    flush_to_disk(project);
    if (!journal_write(project, c, "committed")) {
        fprintf(err, "cuttle-deps: cannot commit the journal: %s; nothing was changed\n",
                strerror(errno));
        undo(project, c, err);
        return -1;
    }
    step();
    if (finish(project, c, err)) {
        fprintf(err, "cuttle-deps: the change stopped half way; undoing it\n");
        if (undo(project, c, err))
            fprintf(err, "cuttle-deps: run `cuttle-deps rollback` once the cause is fixed\n");
        return -1;
    }
    return 0;
}

int deps_resume(const char *project, FILE *err)
{
    change_t c = {0};
    char state[32];
    if (!journal_read(project, &c, state, sizeof state)) {
        change_free(&c);
        fprintf(err, "cuttle-deps: %s/%s cannot be read: nothing to resume\n", project,
                DEPS_JOURNAL);
        return -1;
    }
    int rc;
    if (strcmp(state, "prepared") == 0) {
        /* Nothing had changed yet: the texts may be half written, so the change is dropped. */
        rc = undo(project, &c, err);
        fprintf(err, "cuttle-deps: the interrupted change had not started; nothing changed, run "
                     "it again\n");
    } else {
        rc = finish(project, &c, err);
        if (!rc)
            fprintf(err,
                    "cuttle-deps: finished the interrupted change (%u files rewritten, %u "
                    "moved); run cuttle-compile\n",
                    c.num_writes, c.num_moves);
    }
    change_free(&c);
    return rc;
}

int deps_rollback(const char *project, FILE *err)
{
    change_t c = {0};
    char state[32];
    if (!journal_read(project, &c, state, sizeof state)) {
        change_free(&c);
        fprintf(err, "cuttle-deps: %s/%s cannot be read: nothing to roll back\n", project,
                DEPS_JOURNAL);
        return -1;
    }
    int rc;
    if (strcmp(state, "done") == 0) {
        rc = finish(project, &c, err);
        fprintf(err, "cuttle-deps: the change had finished; only its leftovers were removed\n");
    } else {
        rc = undo(project, &c, err);
        if (!rc)
            fprintf(err, "cuttle-deps: rolled back: every file is as it was\n");
    }
    change_free(&c);
    return rc;
}

/* ---- planning ------------------------------------------------------------------------------- */

typedef struct edit_t {
    size_t offset;
    uint32_t ref; /* the reference it rewrites */
    const char *old_text, *new_text;
} edit_t;

static int compare_edits(const void *a, const void *b)
{
    const edit_t *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Byte offset of (line, column) in text, or (size_t)-1 past its end. */
static size_t offset_of(const char *text, size_t len, uint32_t line, uint32_t column)
{
    size_t at = 0;
    for (uint32_t l = 1; l < line; l++) {
        const char *nl = memchr(text + at, '\n', len - at);
        if (!nl)
            return (size_t)-1;
        at = (size_t)(nl - text) + 1;
    }
    at += column - 1;
    return at <= len ? at : (size_t)-1;
}

/* Applies edits (sorted, not overlapping) to text; a new allocation. */
static char *apply_edits(const char *text, size_t len, const edit_t *edits, uint32_t n,
                         size_t *out_len)
{
    size_t size = len + 1;
    for (uint32_t i = 0; i < n; i++)
        size += strlen(edits[i].new_text);
    char *out = malloc(size);
    if (!out)
        return NULL;
    size_t from = 0, o = 0;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(out + o, text + from, edits[i].offset - from);
        o += edits[i].offset - from;
        const size_t k = strlen(edits[i].new_text);
        memcpy(out + o, edits[i].new_text, k);
        o += k;
        from = edits[i].offset + strlen(edits[i].old_text);
    }
    memcpy(out + o, text + from, len - from);
    o += len - from;
    out[o] = '\0';
    *out_len = o;
    return out;
}

/* Adds the rewrite of one file to the change: `edits` name references by their spans. */
static int plan_file(const deps_index_t *ix, change_t *c, const char *rel, edit_t *edits,
                     uint32_t n, FILE *err)
{
    char path[PATH_SIZE];
    size_t len = 0;
    char *text = join(path, ix->project, rel, "") ? read_all(path, &len) : NULL;
    if (!text) {
        fprintf(err, "cuttle-deps: cannot read %s: %s\n", rel, strerror(errno));
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const deps_ref_t *r = &ix->refs[edits[i].ref];
        edits[i].offset = offset_of(text, len, r->line, r->column);
        const size_t k = strlen(edits[i].old_text);
        if (edits[i].offset == (size_t)-1 || edits[i].offset + k > len ||
            memcmp(text + edits[i].offset, edits[i].old_text, k) != 0) {
            fprintf(err,
                    "%s:%u:%u: \"%s\" is not written there any more: the index is older "
                    "than the file; run cuttle-compile first (nothing was changed)\n",
                    rel, r->line, r->column, edits[i].old_text);
            free(text);
            return -1;
        }
    }
    qsort(edits, n, sizeof *edits, compare_edits);
    /* One span reported twice (an entity a level repeats) is one edit. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!kept || edits[i].offset != edits[kept - 1].offset)
            edits[kept++] = edits[i];
    size_t new_len = 0;
    char *fresh = apply_edits(text, len, edits, kept, &new_len);
    free(text);
    if (!fresh || !change_reserve(c) || !(c->write_paths[c->num_writes] = strdup(rel))) {
        free(fresh);
        fprintf(err, "cuttle-deps: out of memory\n");
        return -1;
    }
    c->write_texts[c->num_writes] = fresh;
    c->created[c->num_writes] = false;
    c->write_lens[c->num_writes++] = new_len;
    return 0;
}

static void today(char *out, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, size, "%Y-%m-%d", &tm);
}

/* The name a moved node has at `to`: its path without the type's extension for a resource.
 * NULL when the move would change its type (a.unit -> a.mesh). */
static char *name_at(const deps_node_t *node, const char *to)
{
    if (!node->resource)
        return strdup(to);
    const size_t n = strlen(to), t = strlen(node->type);
    if (n <= t + 1 || to[n - t - 1] != '.' || strcmp(to + n - t, node->type) != 0)
        return NULL;
    return strndup(to, n - t - 1);
}

/* Rewrites compiled/references/ for what moved or changed, so the index answers for the new
 * names at once: the names of moved targets, the columns after a longer or shorter name on the
 * same line, the file of a moved source. A reference file that cannot be written is removed
 * (the next cuttle-compile writes it again). */
static void reindex(const deps_index_t *ix, char **new_path, char **new_name, FILE *err)
{
    char *line = NULL;
    size_t cap = 0;
    for (uint32_t n = 0; n < ix->num_nodes; n++) {
        const deps_node_t *node = &ix->nodes[n];
        bool touched = new_path[n] != NULL;
        for (uint32_t k = 0; k < node->num_refs && !touched; k++)
            touched = ix->refs[node->first_ref + k].to != DEPS_NONE &&
                      new_name[ix->refs[node->first_ref + k].to];
        if (!touched || !node->resource)
            continue; /* Lua and project.sjson are read afresh at every load */
        char old_refs[PATH_SIZE], new_refs[PATH_SIZE];
        if (!join(old_refs, ix->project, "compiled/references/", node->path) ||
            !join(new_refs, ix->project, "compiled/references/",
                  new_path[n] ? new_path[n] : node->path) ||
            strlen(old_refs) + 6 > PATH_SIZE || strlen(new_refs) + 6 > PATH_SIZE)
            continue;
        strcat(old_refs, ".refs");
        strcat(new_refs, ".refs");
        size_t size = 0;
        bool ok = true;
        for (uint32_t k = 0; k < node->num_refs && ok; k++) {
            const deps_ref_t *r = &ix->refs[node->first_ref + k];
            const char *name = r->to != DEPS_NONE && new_name[r->to] ? new_name[r->to] : r->name;
            long column = r->column;
            for (uint32_t j = 0; j < node->num_refs; j++) { /* earlier spans on its line */
                const deps_ref_t *o = &ix->refs[node->first_ref + j];
                if (o->line == r->line && o->column < r->column && o->to != DEPS_NONE &&
                    new_name[o->to])
                    column += (long)strlen(new_name[o->to]) - (long)strlen(o->name);
            }
            const size_t need = size + strlen(r->type) + strlen(name) + strlen(r->field) + 64;
            if (need > cap) {
                cap = need * 2;
                char *grown = realloc(line, cap);
                if (!grown) {
                    ok = false;
                    break;
                }
                line = grown;
            }
            size += (size_t)snprintf(line + size, cap - size, "%s\t%s\t%s\t%u\t%ld\t%zu\n", r->type,
                                     name, r->field, r->line, r->line ? column : 0,
                                     r->line ? strlen(name) : 0);
        }
        if (new_path[n])
            remove(old_refs);
        if (!ok || !(size ? replace_file(new_refs, line, size) : (remove(new_refs), true))) {
            remove(new_refs);
            fprintf(err, "cuttle-deps: %s: cannot update its references; cuttle-compile will\n",
                    new_path[n] ? new_path[n] : node->path);
        }
    }
    free(line);
}

int deps_apply_moves(deps_index_t *ix, const deps_move_t *moves, uint32_t num_moves, FILE *err)
{
    if (deps_pending(ix->project)) {
        fprintf(err,
                "cuttle-deps: an interrupted change waits (%s): run `cuttle-deps resume` or "
                "`cuttle-deps rollback` first\n",
                DEPS_JOURNAL);
        return -1;
    }
    uint32_t *moved = malloc((num_moves + 1) * sizeof *moved); /* the node of each move */
    char **new_path = calloc(ix->num_nodes + 1, sizeof *new_path);
    char **new_name = calloc(ix->num_nodes + 1, sizeof *new_name);
    edit_t *edits = malloc((ix->num_refs + 1) * sizeof *edits);
    change_t c = {0};
    char *log_text = NULL;
    int rc = moved && new_path && new_name && edits ? 0 : -1;
    if (rc)
        fprintf(err, "cuttle-deps: out of memory\n");
    char why[256], path[PATH_SIZE];
    for (uint32_t i = 0; !rc && i < num_moves; i++) {
        const uint32_t node = deps_index_find(ix, DEPS_FILE, moves[i].from);
        uint32_t n = node;
        for (uint32_t t = 0; n == DEPS_NONE && t < ix->num_types; t++) {
            const size_t k = strlen(moves[i].from), tl = strlen(ix->types[t]);
            if (k > tl + 1 && moves[i].from[k - tl - 1] == '.' &&
                strcmp(moves[i].from + k - tl, ix->types[t]) == 0) {
                char name[PATH_SIZE];
                snprintf(name, sizeof name, "%.*s", (int)(k - tl - 1), moves[i].from);
                n = deps_index_find(ix, ix->types[t], name);
            }
        }
        if (n == DEPS_NONE) {
            fprintf(err, "cuttle-deps: %s: no such file in the project\n", moves[i].from);
            rc = -1;
        } else if (new_path[n]) {
            fprintf(err, "cuttle-deps: %s is moved twice\n", moves[i].from);
            rc = -1;
        } else if (!join(path, ix->project, moves[i].to, "") || exists(path)) {
            fprintf(err, "cuttle-deps: %s already exists; nothing was changed\n", moves[i].to);
            rc = -1;
        } else if (!(new_name[n] = name_at(&ix->nodes[n], moves[i].to))) {
            fprintf(err, "cuttle-deps: %s -> %s would change its type\n", moves[i].from,
                    moves[i].to);
            rc = -1;
        } else if ((ix->nodes[n].resource
                        ? resources__check_name(new_name[n], why, sizeof why)
                        : resources__check_file_path(moves[i].to, why, sizeof why))) {
            fprintf(err, "cuttle-deps: %s is not a good name: %s\n", moves[i].to, why);
            rc = -1;
        } else {
            new_path[n] = strdup(moves[i].to);
            moved[i] = n;
            rc = new_path[n] ? 0 : -1;
        }
    }
    for (uint32_t i = 0; !rc && i < num_moves; i++) /* two moves to one place */
        for (uint32_t j = i + 1; j < num_moves; j++)
            if (strcmp(moves[i].to, moves[j].to) == 0) {
                fprintf(err, "cuttle-deps: %s and %s would both become %s\n", moves[i].from,
                        moves[j].from, moves[i].to);
                rc = -1;
            }
    /* Every referencing file, with its edits. */
    for (uint32_t n = 0; !rc && n < ix->num_nodes; n++) {
        const deps_node_t *node = &ix->nodes[n];
        uint32_t count = 0;
        for (uint32_t k = 0; k < node->num_refs; k++) {
            const uint32_t ri = node->first_ref + k;
            const deps_ref_t *r = &ix->refs[ri];
            if (r->to == DEPS_NONE || !new_name[r->to])
                continue;
            if (!r->line) {
                fprintf(err,
                        "%s: %s: names %s where cuttle-deps cannot see it (it is not in "
                        "the text); check it by hand\n",
                        node->path, r->field, r->name);
                continue;
            }
            if (node->stale) {
                fprintf(err,
                        "%s: changed since cuttle-compile indexed it; run cuttle-compile "
                        "first (nothing was changed)\n",
                        node->path);
                rc = -1;
                break;
            }
            edits[count++] = (edit_t){.ref = ri, .old_text = r->name, .new_text = new_name[r->to]};
        }
        if (!rc && count)
            rc = plan_file(ix, &c, node->path, edits, count, err);
    }
    /* The log, as one more file of the same change. */
    if (!rc) {
        char date[32];
        today(date, sizeof date);
        size_t len = 0;
        char *old = join(path, ix->project, DEPS_RENAME_LOG, "") ? read_all(path, &len) : NULL;
        size_t size = len + 128;
        for (uint32_t n = 0; n < ix->num_nodes; n++)
            if (new_path[n])
                size += strlen(ix->nodes[n].name) + strlen(new_name[n]) + 96;
        log_text = malloc(size);
        size_t at = 0;
        if (log_text && old) {
            memcpy(log_text, old, len);
            at = len;
            if (at && log_text[at - 1] != '\n')
                log_text[at++] = '\n';
        } else if (log_text) {
            at = (size_t)snprintf(log_text, size,
                                  "# Renames by cuttle-deps (DATE TYPE OLD NEW), "
                                  "oldest first: `cuttle-deps fix` reads it.\n");
        }
        for (uint32_t i = 0; log_text && i < num_moves; i++) {
            const uint32_t n = moved[i];
            at += (size_t)snprintf(log_text + at, size - at, "%s %s %s %s\n", date,
                                   ix->nodes[n].type, ix->nodes[n].name, new_name[n]);
        }
        if (!log_text || !change_reserve(&c) ||
            !(c.write_paths[c.num_writes] = strdup(DEPS_RENAME_LOG))) {
            fprintf(err, "cuttle-deps: out of memory\n");
            free(log_text);
            rc = -1;
        } else {
            c.write_texts[c.num_writes] = log_text;
            c.created[c.num_writes] = old == NULL;
            c.write_lens[c.num_writes++] = at;
        }
        free(old);
    }
    for (uint32_t i = 0; !rc && i < num_moves; i++) {
        const uint32_t n = moved[i];
        if (!change_reserve(&c) || !(c.move_from[c.num_moves] = strdup(ix->nodes[n].path)) ||
            !(c.move_to[c.num_moves++] = strdup(new_path[n])))
            rc = -1;
    }
    if (!rc)
        rc = run_change(ix->project, &c, err);
    if (!rc)
        reindex(ix, new_path, new_name, err);
    for (uint32_t n = 0; n < ix->num_nodes && new_path; n++) {
        free(new_path[n]);
        free(new_name[n]);
    }
    free(new_path);
    free(new_name);
    free(moved);
    free(edits);
    change_free(&c);
    return rc;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* `mv` after the file was moved by other means (a plain `git mv`): the references to the old
 * name, missing now, are rewritten to the new one and the rename is logged. */
static int adopt_move(deps_index_t *ix, const char *type, const char *old_name,
                      const char *new_name, FILE *err)
{
    edit_t *edits = malloc((ix->num_refs + 1) * sizeof *edits);
    change_t c = {0};
    int rc = edits ? 0 : -1;
    uint32_t total = 0;
    for (uint32_t n = 0; !rc && n < ix->num_nodes; n++) {
        const deps_node_t *node = &ix->nodes[n];
        uint32_t count = 0;
        for (uint32_t k = 0; k < node->num_refs; k++) {
            const deps_ref_t *r = &ix->refs[node->first_ref + k];
            if (r->to != DEPS_NONE || !r->line || strcmp(r->type, type) != 0 ||
                strcmp(r->name, old_name) != 0)
                continue;
            if (node->stale) {
                fprintf(err,
                        "%s: changed since cuttle-compile indexed it; run cuttle-compile "
                        "first (nothing was changed)\n",
                        node->path);
                rc = -1;
                break;
            }
            edits[count++] =
                (edit_t){.ref = node->first_ref + k, .old_text = r->name, .new_text = new_name};
        }
        if (!rc && count)
            rc = plan_file(ix, &c, node->path, edits, count, err);
        total += count;
    }
    char path[PATH_SIZE], date[32];
    size_t len = 0;
    char *old = !rc && join(path, ix->project, DEPS_RENAME_LOG, "") ? read_all(path, &len) : NULL;
    const size_t size = len + strlen(old_name) + strlen(new_name) + 256;
    char *log_text = rc ? NULL : malloc(size);
    if (log_text) {
        today(date, sizeof date);
        size_t at = old ? len
                        : (size_t)snprintf(log_text, size,
                                           "# Renames by cuttle-deps (DATE "
                                           "TYPE OLD NEW), oldest first: "
                                           "`cuttle-deps fix` reads it.\n");
        if (old)
            memcpy(log_text, old, len);
        if (at && log_text[at - 1] != '\n')
            log_text[at++] = '\n';
        at += (size_t)snprintf(log_text + at, size - at, "%s %s %s %s\n", date, type, old_name,
                               new_name);
        if (change_reserve(&c) && (c.write_paths[c.num_writes] = strdup(DEPS_RENAME_LOG))) {
            c.write_texts[c.num_writes] = log_text;
            c.created[c.num_writes] = old == NULL;
            c.write_lens[c.num_writes++] = at;
        } else {
            free(log_text);
            rc = -1;
        }
    } else {
        rc = -1;
    }
    free(old);
    if (!rc)
        rc = run_change(ix->project, &c, err);
    change_free(&c);
    free(edits);
    /* Names the index does not hold as references (a Lua literal naming what is gone is not a
     * soft reference any more) are found the way fix finds them, now that the log has it. */
    const int fixed = rc ? 0 : deps_fix(ix, err, err);
    if (fixed < 0)
        rc = -1;
    if (!rc)
        fprintf(err,
                "cuttle-deps: %s %s was already moved to %s; %u references and %d other "
                "mentions rewritten, run cuttle-compile\n",
                type, old_name, new_name, total, fixed);
    return rc;
}

int deps_mv_resource(deps_index_t *ix, const char *type, const char *old_name, const char *new_name,
                     bool with_files, FILE *err)
{
    const uint32_t node = deps_index_find(ix, type, old_name);
    if (node == DEPS_NONE && deps_index_find(ix, type, new_name) != DEPS_NONE)
        return adopt_move(ix, type, old_name, new_name, err);
    if (node == DEPS_NONE) {
        fprintf(err, "cuttle-deps: the project has no %s named \"%s\"\n", type, old_name);
        return -1;
    }
    deps_move_t moves[64];
    char *owned[64];
    uint32_t n = 0;
    char to[PATH_SIZE];
    snprintf(to, sizeof to, "%s.%s", new_name, type);
    moves[n++] = (deps_move_t){ix->nodes[node].path, to};
    if (with_files) {
        /* The files it names beside its source go along to the new folder; one named after the
         * resource (crate.mesh's crate.obj) takes the new name. */
        const char *old_base = base_of(old_name), *new_base = base_of(new_name);
        const size_t old_dir = (size_t)(old_base - old_name),
                     new_dir = (size_t)(new_base - new_name);
        const deps_node_t *src = &ix->nodes[node];
        for (uint32_t k = 0; k < src->num_refs && n < 64; k++) {
            const deps_ref_t *r = &ix->refs[src->first_ref + k];
            if (strcmp(r->type, DEPS_FILE) != 0 || r->to == DEPS_NONE)
                continue;
            const char *file = ix->nodes[r->to].path, *file_base = base_of(file);
            if ((size_t)(file_base - file) != old_dir || strncmp(file, old_name, old_dir) != 0)
                continue;
            bool dup = false;
            for (uint32_t i = 1; i < n; i++)
                dup |= strcmp(moves[i].from, file) == 0;
            if (dup)
                continue;
            const char *dot = strrchr(file_base, '.');
            const size_t stem = dot ? (size_t)(dot - file_base) : strlen(file_base);
            char target[PATH_SIZE];
            if (stem == strlen(old_base) && strncmp(file_base, old_base, stem) == 0)
                snprintf(target, sizeof target, "%.*s%s%s", (int)new_dir, new_name, new_base,
                         dot ? dot : "");
            else
                snprintf(target, sizeof target, "%.*s%s", (int)new_dir, new_name, file_base);
            owned[n] = strdup(target);
            moves[n] = (deps_move_t){file, owned[n]};
            if (owned[n])
                n++;
        }
    }
    int rc = deps_apply_moves(ix, moves, n, err);
    for (uint32_t i = 1; i < n; i++)
        free(owned[i]);
    return rc;
}

static int compare_moves(const void *a, const void *b)
{
    return strcmp(((const deps_move_t *)a)->from, ((const deps_move_t *)b)->from);
}

int deps_mv_folder(deps_index_t *ix, const char *old_folder, const char *new_folder, FILE *err)
{
    char from[PATH_SIZE], to[PATH_SIZE];
    snprintf(from, sizeof from, "%s", old_folder);
    snprintf(to, sizeof to, "%s", new_folder);
    for (size_t k; (k = strlen(from)) > 1 && from[k - 1] == '/';)
        from[k - 1] = '\0';
    for (size_t k; (k = strlen(to)) > 1 && to[k - 1] == '/';)
        to[k - 1] = '\0';
    const size_t k = strlen(from), t = strlen(to);
    if (!k || !t || (strncmp(to, from, k) == 0 && (to[k] == '/' || !to[k]))) {
        fprintf(err, "cuttle-deps: cannot move the folder %s into itself\n", from);
        return -1;
    }
    deps_move_t *moves = malloc((ix->num_nodes + 1) * sizeof *moves);
    char **owned = malloc((ix->num_nodes + 1) * sizeof *owned);
    uint32_t n = 0;
    int rc = moves && owned ? 0 : -1;
    for (uint32_t i = 0; !rc && i < ix->num_nodes; i++) {
        const char *p = ix->nodes[i].path;
        if (strncmp(p, from, k) != 0 || p[k] != '/')
            continue;
        const size_t size = t + strlen(p + k) + 1;
        owned[n] = malloc(size);
        if (!owned[n]) {
            rc = -1;
            break;
        }
        snprintf(owned[n], size, "%s%s", to, p + k);
        moves[n] = (deps_move_t){p, owned[n]};
        n++;
    }
    /* In path order, so the log and the journal read the same on every machine. */
    if (!rc)
        qsort(moves, n, sizeof *moves, compare_moves);
    if (!rc && !n) {
        fprintf(err, "cuttle-deps: %s: no such folder in the project (or nothing in it)\n", from);
        rc = -1;
    }
    if (!rc)
        rc = deps_apply_moves(ix, moves, n, err);
    for (uint32_t i = 0; i < n; i++)
        free(owned[i]);
    free(owned);
    free(moves);
    return rc;
}

/* ---- fix ------------------------------------------------------------------------------------ */

/* A name written as a whole string: "name" (or "name.ext" for a root naming a resource by its
 * source path). */
static bool quoted_at(const char *text, size_t len, size_t i, size_t n)
{
    return i > 0 && text[i - 1] == '"' && i + n < len && text[i + n] == '"';
}

int deps_fix(deps_index_t *ix, FILE *out, FILE *err)
{
    if (deps_pending(ix->project)) {
        fprintf(err,
                "cuttle-deps: an interrupted change waits (%s): run `cuttle-deps resume` or "
                "`cuttle-deps rollback` first\n",
                DEPS_JOURNAL);
        return -1;
    }
    uint32_t count = 0;
    resources_rename_t *log = resources__read_renames(ix->project, &count);
    /* The renames that still matter: the old name names nothing now (the log never reserves a
     * name, so one reused since is left alone). */
    typedef struct fix_t {
        const char *old_name;
        char new_name[512];
    } fix_t;
    fix_t *fixes = malloc((count + 1) * sizeof *fixes);
    uint32_t num_fixes = 0;
    for (uint32_t i = 0; fixes && i < count; i++) {
        const char *old = log[i].old_name;
        bool taken = deps_index_find(ix, log[i].type, old) != DEPS_NONE ||
                     deps_index_find(ix, DEPS_FILE, old) != DEPS_NONE;
        for (uint32_t t = 0; !taken && t < ix->num_types; t++)
            taken = deps_index_find(ix, ix->types[t], old) != DEPS_NONE;
        bool seen = false;
        for (uint32_t f = 0; f < num_fixes; f++)
            seen |= strcmp(fixes[f].old_name, old) == 0;
        char date[32];
        if (taken || seen ||
            !resources__renamed_in(log, count, log[i].type, old, fixes[num_fixes].new_name,
                                   sizeof fixes[num_fixes].new_name, date, sizeof date))
            continue;
        fixes[num_fixes++].old_name = old;
    }
    change_t c = {0};
    int rc = fixes ? 0 : -1;
    int fixed = 0;
    for (uint32_t n = 0; !rc && num_fixes && n < ix->num_nodes; n++) {
        const deps_node_t *node = &ix->nodes[n];
        const size_t pl = strlen(node->path);
        if (!node->resource && n != ix->project_node &&
            !(pl > 4 && strcmp(node->path + pl - 4, ".lua") == 0))
            continue;
        char path[PATH_SIZE];
        size_t len = 0;
        char *text = join(path, ix->project, node->path, "") ? read_all(path, &len) : NULL;
        if (!text)
            continue;
        /* Every quoted occurrence of an old name, left to right. */
        edit_t *edits = NULL;
        uint32_t num = 0, cap = 0;
        uint32_t line = 1;
        size_t line_start = 0;
        for (size_t i = 0; i < len && !rc; i++) {
            if (text[i] == '\n') {
                line++;
                line_start = i + 1;
                continue;
            }
            for (uint32_t f = 0; f < num_fixes; f++) {
                const size_t k = strlen(fixes[f].old_name);
                /* memcmp may read all k bytes: never past the text's end. */
                if (text[i] != fixes[f].old_name[0] || k > len - i ||
                    memcmp(text + i, fixes[f].old_name, k) || !quoted_at(text, len, i, k))
                    continue;
                if (!ct_array_reserve_of(ct_heap_allocator(), &edits, &cap, num + 1, 16)) {
                    rc = -1;
                    break;
                }
                edits[num++] = (edit_t){
                    .offset = i, .old_text = fixes[f].old_name, .new_text = fixes[f].new_name};
                fprintf(out, "%s:%u:%zu: \"%s\" -> \"%s\"\n", node->path, line, i - line_start + 1,
                        fixes[f].old_name, fixes[f].new_name);
                i += k - 1;
                break;
            }
        }
        if (!rc && num) {
            size_t new_len = 0;
            char *fresh = apply_edits(text, len, edits, num, &new_len);
            if (!fresh || !change_reserve(&c) ||
                !(c.write_paths[c.num_writes] = strdup(node->path))) {
                free(fresh);
                rc = -1;
            } else {
                c.write_texts[c.num_writes] = fresh;
                c.created[c.num_writes] = false;
                c.write_lens[c.num_writes++] = new_len;
                fixed += (int)num;
            }
        }
        free(edits);
        free(text);
    }
    if (rc)
        fprintf(err, "cuttle-deps: out of memory\n");
    if (!rc && c.num_writes)
        rc = run_change(ix->project, &c, err);
    change_free(&c);
    free(fixes);
    free(log);
    return rc ? -1 : fixed;
}
