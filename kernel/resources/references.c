/*
 * The references a source makes to other resources (ct_resource_api_v6.reference): where each
 * name is written in the source text, noted in the compile's record for the project's reference
 * index, and, under cuttle-compile, a compile error when the resource does not exist.
 *
 * Compilers get a parsed tree without positions, so the span is found in the text: the next
 * occurrence of the name as a whole string ("meshes/crate" in quotes, or bare between
 * separators) from where the previous reference was found. Compilers report references in the
 * order they read them, which is the order they are written, so repeated names (ten units naming
 * the same material) each get their own span; a name found nowhere after the cursor is searched
 * from the start once more before it is noted without a span (0 0 0).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ct_array.h"
#include "base/log.h"
#include "data/nearest.h"
#include "resources_internal.h"

/* The names of a type a miss looks through for the nearest one, at most. */
#define MAX_CANDIDATES 4096
#define MAX_DEPTH 64

static bool name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '/' || c == '-' || c == '.';
}

/* The offset of the next whole occurrence of `name` in text[from..len), or (size_t)-1. */
static size_t find_name(const char *text, size_t len, size_t from, const char *name)
{
    const size_t n = strlen(name);
    if (!n || n > len)
        return (size_t)-1;
    for (size_t i = from; i + n <= len; i++) {
        if (text[i] != name[0] || memcmp(text + i, name, n) != 0)
            continue;
        const bool left = i == 0 || !name_byte(text[i - 1]);
        const bool right = i + n == len || !name_byte(text[i + n]);
        if (left && right)
            return i;
    }
    return (size_t)-1;
}

static bool append_ref(resources_compile_record_t *r, const char *line, size_t n)
{
    /* The text of one source's references (short lines, each checked against all before it)
     * stays far below 4 GiB; past it the compile fails as out of memory. */
    if (n >= UINT32_MAX - r->refs_len ||
        !ct_array_reserve_of(resources__allocator(), &r->refs, &r->refs_capacity,
                             (uint32_t)(r->refs_len + n + 1), 256))
        return false;
    memcpy(r->refs + r->refs_len, line, n + 1);
    r->refs_len += n;
    r->num_refs++;
    return true;
}

typedef struct candidates_t {
    char *names[MAX_CANDIDATES];
    uint32_t count;
} candidates_t;

/* Collects the names of sources "<name>.<type>" under dir/rel (compiled/ and dot entries left
 * out), in no particular order. */
static void collect(const char *dir, const char *rel, const char *type, candidates_t *c, int depth)
{
    char path[RESOURCES_PATH_SIZE];
    snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
    DIR *d = depth <= MAX_DEPTH ? opendir(path) : NULL;
    if (!d)
        return;
    const size_t type_len = strlen(type);
    struct dirent *entry;
    while ((entry = readdir(d)) && c->count < MAX_CANDIDATES) {
        const char *e = entry->d_name;
        if (e[0] == '.' || (!rel[0] && strcmp(e, RESOURCES_COMPILED_DIR) == 0))
            continue;
        char child[RESOURCES_PATH_SIZE], full[RESOURCES_PATH_SIZE];
        int n = snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", e);
        int m = snprintf(full, sizeof full, "%s/%s", dir, child);
        struct stat st;
        if (n < 0 || (size_t)n >= sizeof child || m < 0 || (size_t)m >= sizeof full ||
            stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            collect(dir, child, type, c, depth + 1);
        } else if ((size_t)n > type_len + 1 && child[n - type_len - 1] == '.' &&
                   strcmp(child + n - type_len, type) == 0) {
            child[n - type_len - 1] = '\0';
            const size_t size = strlen(child) + 1;
            char *copy = ct_alloc(resources__allocator(), size);
            if (copy) {
                memcpy(copy, child, size);
                c->names[c->count++] = copy;
            }
        }
    }
    closedir(d);
}

static const char *base_name(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}

/* Writes into out the existing name of `type` nearest to `name` ("" for none): a plausible
 * misspelling first, else the same file name in another folder (a moved resource). */
static void nearest_existing(const char *dir, const char *type, const char *name, char *out,
                             size_t out_size)
{
    out[0] = '\0';
    candidates_t *c = ct_alloc(resources__allocator(), sizeof *c);
    if (!c)
        return;
    c->count = 0;
    collect(dir, "", type, c, 0);
    const char *best = data__nearest_name(name, (const char *const *)c->names, c->count);
    for (uint32_t i = 0; !best && i < c->count; i++)
        if (strcmp(base_name(c->names[i]), base_name(name)) == 0)
            best = c->names[i];
    if (best)
        snprintf(out, out_size, "%s", best);
    for (uint32_t i = 0; i < c->count; i++)
        ct_free(resources__allocator(), c->names[i], strlen(c->names[i]) + 1);
    ct_free(resources__allocator(), c, sizeof *c);
}

static bool exists(const char *dir, const char *type, const char *name)
{
    char path[RESOURCES_PATH_SIZE];
    struct stat st;
    const int n = snprintf(path, sizeof path, "%s/%s.%s", dir, name, type);
    if (n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return true;
    return resources__blob_path(dir, type, name, path, sizeof path) && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

bool resources__reference(ct_compile_ctx_o *ctx, const char *field, const char *type,
                          const char *name)
{
    char why[256];
    if (!field)
        field = "(no field)";
    if (!type || resources__check_type_name(type, why, sizeof why)) {
        resources__compile_error(ctx, "%s: \"%s\" is not a resource type: %s", field,
                                 type ? type : "(null)", type ? why : "missing");
        return false;
    }
    if (!name || resources__check_name(name, why, sizeof why)) {
        resources__compile_error(ctx, "%s: \"%s\" is not a resource name: %s", field,
                                 name ? name : "(null)", name ? why : "missing");
        return false;
    }
    resources_compile_record_t *record = ctx ? resources__ctx_record(ctx) : NULL;
    if (!record)
        return true; /* load_source: nobody keeps an index, and the project may be elsewhere */

    const char *dir = resources__project_dir();
    if (dir && !exists(dir, type, name)) {
        char nearest[RESOURCES_MAX_NAME + 1], renamed[512], date[32];
        if (resources__renamed_to(dir, type, name, renamed, sizeof renamed, date, sizeof date))
            /* A merged branch that still names what was renamed since: say so, and how to fix
             * every such reference at once. */
            resources__compile_error(ctx,
                                     "%s: `%s` was renamed to `%s` on %s; run `cuttle-deps "
                                     "fix`",
                                     field, name, renamed, date);
        else if (nearest_existing(dir, type, name, nearest, sizeof nearest), nearest[0])
            resources__compile_error(ctx, "%s: no %s named \"%s\" (nearest: \"%s\")", field, type,
                                     name, nearest);
        else
            resources__compile_error(ctx, "%s: no %s named \"%s\" (the project has none near it)",
                                     field, type, name);
        return false;
    }
    return resources__note_reference(ctx, field, type, name);
}

bool resources__note_reference(ct_compile_ctx_o *ctx, const char *field, const char *type,
                               const char *name)
{
    resources_compile_record_t *record = ctx ? resources__ctx_record(ctx) : NULL;
    if (!record)
        return true;
    if (!field)
        field = "(no field)";
    resources_ref_cursor_t *cur = resources__ref_cursor(ctx);
    size_t at = find_name(cur->text, cur->len, cur->next, name);
    if (at == (size_t)-1)
        at = find_name(cur->text, cur->len, 0, name);
    unsigned line = 0, column = 0, length = 0;
    if (at != (size_t)-1) {
        line = 1;
        size_t line_start = 0;
        for (size_t i = 0; i < at; i++)
            if (cur->text[i] == '\n') {
                line++;
                line_start = i + 1;
            }
        column = (unsigned)(at - line_start) + 1;
        length = (unsigned)strlen(name);
        cur->next = at + length;
    }
    char entry[RESOURCES_MAX_TYPE + RESOURCES_MAX_NAME + 512];
    /* Fields come from compilers: a tab or newline in one would split the line. */
    char clean_field[256];
    snprintf(clean_field, sizeof clean_field, "%s", field);
    for (char *p = clean_field; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    const int n = snprintf(entry, sizeof entry, "%s\t%s\t%s\t%u\t%u\t%u\n", type, name, clean_field,
                           line, column, length);
    /* An entity written once and repeated by the compiler (a level's `repeat`) reports the same
     * span many times: it is one reference in the text, so it is kept once. */
    for (const char *seen = record->refs && n > 0 ? strstr(record->refs, entry) : NULL; seen;
         seen = strstr(seen + 1, entry))
        if (seen == record->refs || seen[-1] == '\n')
            return true;
    if (n < 0 || (size_t)n >= sizeof entry || !append_ref(record, entry, (size_t)n)) {
        resources__compile_error(ctx, "%s: out of memory noting the reference to \"%s\"", field,
                                 name);
        return false;
    }
    return true;
}
