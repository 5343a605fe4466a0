/*
 * Questions to the index: uses, used-by, missing, unused, collisions and the graph.
 *
 * Every reference prints as "path:line:column: field -> type name", the form editors and CI logs
 * turn into links; a reference the compiler could not place in its text prints line 0.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ct_hash.h"
#include "deps.h"
#include "resources/resources_internal.h"

static const char *type_word(const char *type)
{
    return strcmp(type, DEPS_FILE) == 0 ? "file" : type;
}

static void print_ref(const deps_index_t *ix, const deps_ref_t *r, FILE *out)
{
    fprintf(out, "%s:%u:%u: %s -> %s %s%s%s\n", ix->nodes[r->from].path, r->line, r->column,
            r->field, type_word(r->type), r->name, r->soft ? " (soft)" : "",
            r->to == DEPS_NONE ? " (missing)" : "");
}

uint32_t deps_uses(const deps_index_t *ix, uint32_t node, FILE *out)
{
    const deps_node_t *n = &ix->nodes[node];
    for (uint32_t i = 0; i < n->num_refs; i++)
        print_ref(ix, &ix->refs[n->first_ref + i], out);
    return n->num_refs;
}

uint32_t deps_used_by(const deps_index_t *ix, uint32_t node, FILE *out)
{
    uint32_t count = 0;
    for (uint32_t i = ix->nodes[node].first_user; i != DEPS_NONE; i = ix->refs[i].next_user) {
        print_ref(ix, &ix->refs[i], out);
        count++;
    }
    return count;
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
    *len = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (text)
        text[*len] = '\0';
    return text;
}

/* A source moved without the tool (a plain `git mv`): the manifest still knows the content of
 * the missing one (its size and hash, until the next cuttle-compile), and a source of the same
 * type has that content now. Writes its path into out; false when there is none. */
static bool moved_to(const deps_index_t *ix, cJSON *manifest, const char *type, const char *name,
                     char *out, size_t out_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", name, type);
    const cJSON *entry, *sources = cJSON_GetObjectItemCaseSensitive(manifest, "sources");
    cJSON_ArrayForEach(entry, sources)
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(entry, "path");
        if (!cJSON_IsString(p) || strcmp(p->valuestring, path) != 0)
            continue;
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(entry, "size");
        const cJSON *hash = cJSON_GetObjectItemCaseSensitive(entry, "hash");
        if (!cJSON_IsNumber(size) || !cJSON_IsString(hash))
            return false;
        const uint64_t want = strtoull(hash->valuestring, NULL, 16);
        for (uint32_t i = 0; i < ix->num_nodes; i++) {
            const deps_node_t *n = &ix->nodes[i];
            if (!n->resource || strcmp(n->type, type) != 0)
                continue;
            char full[8200];
            size_t len = 0;
            snprintf(full, sizeof full, "%s/%s", ix->project, n->path);
            char *text = read_text(full, &len);
            const bool same =
                text && (double)len == size->valuedouble && ct_murmur64a(text, len, 0) == want;
            free(text);
            if (same) {
                snprintf(out, out_size, "%s", n->path);
                return true;
            }
        }
        return false;
    }
    return false;
}

uint32_t deps_missing(const deps_index_t *ix, FILE *out)
{
    uint32_t count = 0;
    char manifest_path[4200];
    size_t manifest_len = 0;
    snprintf(manifest_path, sizeof manifest_path, "%s/compiled/manifest.json", ix->project);
    char *manifest_text = read_text(manifest_path, &manifest_len);
    cJSON *manifest = manifest_text ? cJSON_ParseWithLength(manifest_text, manifest_len) : NULL;
    free(manifest_text);
    uint32_t num_log = 0; /* renames.log, read once for every missing reference */
    resources_rename_t *log = resources__read_renames(ix->project, &num_log);
    for (uint32_t i = 0; i < ix->num_refs; i++) {
        const deps_ref_t *r = &ix->refs[i];
        if (r->to != DEPS_NONE || r->soft)
            continue;
        count++;
        fprintf(out, "%s:%u:%u: %s: no %s named \"%s\"", ix->nodes[r->from].path, r->line,
                r->column, r->field, type_word(r->type), r->name);
        char to[512], date[64];
        if (log &&
            resources__renamed_in(log, num_log, r->type, r->name, to, sizeof to, date, sizeof date))
            fprintf(out, "; \"%s\" was renamed to \"%s\" on %s: run cuttle-deps fix", r->name, to,
                    date);
        else if (manifest && moved_to(ix, manifest, r->type, r->name, to, sizeof to))
            fprintf(out,
                    "; %s.%s moved to %s (the same content): run `cuttle-deps mv %s %s "
                    "%.*s`",
                    r->name, r->type, to, r->type, r->name, (int)(strlen(to) - strlen(r->type) - 1),
                    to);
        fputc('\n', out);
    }
    cJSON_Delete(manifest);
    free(log);
    return count;
}

/* What `unused` starts from: project.sjson (its boot script and roots) and every Lua script,
 * since scripts load each other by means the index does not follow (require, dofile). */
static bool is_root(const deps_index_t *ix, uint32_t node)
{
    const char *p = ix->nodes[node].path;
    const size_t n = strlen(p);
    return node == ix->project_node ||
           (!ix->nodes[node].resource && n > 4 && strcmp(p + n - 4, ".lua") == 0);
}

uint32_t deps_unused(const deps_index_t *ix, FILE *out)
{
    uint32_t *stack = malloc((ix->num_nodes + 1) * sizeof *stack);
    bool *seen = calloc(ix->num_nodes + 1, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        fprintf(out, "out of memory\n");
        return 1;
    }
    uint32_t top = 0;
    for (uint32_t i = 0; i < ix->num_nodes; i++)
        if (is_root(ix, i)) {
            seen[i] = true;
            stack[top++] = i;
        }
    while (top) {
        const deps_node_t *n = &ix->nodes[stack[--top]];
        for (uint32_t k = 0; k < n->num_refs; k++) {
            uint32_t to = ix->refs[n->first_ref + k].to;
            if (to != DEPS_NONE && !seen[to]) {
                seen[to] = true;
                stack[top++] = to;
            }
        }
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < ix->num_nodes; i++)
        if (ix->nodes[i].resource && !seen[i]) {
            fprintf(out, "%s\n", ix->nodes[i].path);
            count++;
        }
    free(stack);
    free(seen);
    return count;
}

typedef struct hashed_t {
    uint64_t hash;
    const char *text; /* the name or type */
    const char *path; /* a file that has it */
} hashed_t;

static int compare_hashed(const void *a, const void *b)
{
    const hashed_t *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return strcmp(x->text, y->text);
}

uint32_t deps_collisions(const deps_index_t *ix, uint64_t (*hash)(const char *s), FILE *out)
{
    hashed_t *all = malloc((2 * (size_t)ix->num_nodes + 1) * sizeof *all);
    if (!all) {
        fprintf(out, "out of memory\n");
        return 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < ix->num_nodes; i++) {
        const deps_node_t *node = &ix->nodes[i];
        /* A file a compile named (source_file, depends_on: an OBJ, a BVH) is loaded by its
         * path's hash like a resource by its name's, so its path shares their hash space. */
        if (!node->resource) {
            if (node->first_user != DEPS_NONE)
                all[n++] = (hashed_t){hash(node->path), node->path, node->path};
            continue;
        }
        all[n++] = (hashed_t){hash(node->name), node->name, node->path};
        all[n++] = (hashed_t){hash(node->type), node->type, node->path};
    }
    qsort(all, n, sizeof *all, compare_hashed);
    uint32_t count = 0;
    for (uint32_t i = 1; i < n; i++) {
        /* Equal texts sort together: the same name in two types is one name, not a collision. */
        if (all[i].hash != all[i - 1].hash || strcmp(all[i].text, all[i - 1].text) == 0)
            continue;
        fprintf(out, "hash %016llx: \"%s\" (%s) and \"%s\" (%s)\n", (unsigned long long)all[i].hash,
                all[i - 1].text, all[i - 1].path, all[i].text, all[i].path);
        count++;
    }
    free(all);
    return count;
}

/* ---- graph export --------------------------------------------------------------------------- */

static void json_string(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* Whether a node belongs in the graph: a resource, or a file that makes or gets references. */
static bool in_graph(const deps_index_t *ix, uint32_t i)
{
    const deps_node_t *n = &ix->nodes[i];
    return n->resource || n->num_refs || n->first_user != DEPS_NONE;
}

void deps_graph_dot(const deps_index_t *ix, FILE *out)
{
    fprintf(out, "digraph references {\n  rankdir=LR;\n  node [shape=box];\n");
    for (uint32_t i = 0; i < ix->num_nodes; i++)
        if (in_graph(ix, i)) {
            fprintf(out, "  ");
            json_string(ix->nodes[i].path, out); /* DOT's quoting is JSON's for these names */
            fprintf(out, "%s;\n", ix->nodes[i].resource ? "" : " [shape=note]");
        }
    for (uint32_t i = 0; i < ix->num_refs; i++) {
        const deps_ref_t *r = &ix->refs[i];
        fprintf(out, "  ");
        json_string(ix->nodes[r->from].path, out);
        fprintf(out, " -> ");
        if (r->to != DEPS_NONE) {
            json_string(ix->nodes[r->to].path, out);
        } else {
            char missing[600];
            snprintf(missing, sizeof missing, "missing %s %s", type_word(r->type), r->name);
            json_string(missing, out);
        }
        fprintf(out, " [label=");
        json_string(r->field, out);
        fprintf(out, "%s%s];\n", r->soft ? ", style=dashed" : "",
                r->to == DEPS_NONE ? ", color=red" : "");
    }
    fprintf(out, "}\n");
}

void deps_graph_json(const deps_index_t *ix, FILE *out)
{
    fprintf(out, "{\"nodes\": [");
    bool first = true;
    for (uint32_t i = 0; i < ix->num_nodes; i++) {
        if (!in_graph(ix, i))
            continue;
        fprintf(out, "%s\n  {\"path\": ", first ? "" : ",");
        json_string(ix->nodes[i].path, out);
        fprintf(out, ", \"type\": ");
        json_string(type_word(ix->nodes[i].type), out);
        fprintf(out, ", \"name\": ");
        json_string(ix->nodes[i].name, out);
        fprintf(out, "}");
        first = false;
    }
    fprintf(out, "],\n\"references\": [");
    for (uint32_t i = 0; i < ix->num_refs; i++) {
        const deps_ref_t *r = &ix->refs[i];
        fprintf(out, "%s\n  {\"from\": ", i ? "," : "");
        json_string(ix->nodes[r->from].path, out);
        fprintf(out, ", \"type\": ");
        json_string(type_word(r->type), out);
        fprintf(out, ", \"name\": ");
        json_string(r->name, out);
        fprintf(out, ", \"to\": ");
        if (r->to != DEPS_NONE)
            json_string(ix->nodes[r->to].path, out);
        else
            fprintf(out, "null");
        fprintf(out, ", \"field\": ");
        json_string(r->field, out);
        fprintf(out, ", \"line\": %u, \"column\": %u, \"soft\": %s}", r->line, r->column,
                r->soft ? "true" : "false");
    }
    fprintf(out, "]}\n");
}
