/*
 * The project's rename log (<project>/renames.log), written by cuttle-deps mv: one line per
 * renamed resource or file, "DATE TYPE OLD NEW" (DATE the UTC day, TYPE "@file" for a plain
 * file), oldest first; lines starting with '#' are comments. The compiler reads it to turn a
 * reference to a renamed name (a merged branch that still uses it) into a message that says so;
 * cuttle-deps fix reads it to rewrite such references. The log never reserves a name: callers
 * consult it only for names that name nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources_internal.h"

/* Renames followed from one name at most (a -> b -> c ...): a log edited into a loop ends. */
#define MAX_CHAIN 64

resources_rename_t *resources__read_renames(const char *project_dir, uint32_t *count)
{
    *count = 0;
    char path[RESOURCES_PATH_SIZE];
    const int n = project_dir ? snprintf(path, sizeof path, "%s/renames.log", project_dir) : -1;
    /* Plain stdio and malloc: cuttle-deps reads it without the resource service running. */
    FILE *f = n > 0 && (size_t)n < sizeof path ? fopen(path, "rb") : NULL;
    if (!f)
        return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size < 0 || size > (long)CT_RESOURCE_MAX_SOURCE_BYTES || fseek(f, 0, SEEK_SET) != 0)
        size = -1;
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    const size_t len = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text)
        return NULL;
    text[len] = '\0';
    uint32_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    resources_rename_t *entries = malloc(lines * sizeof *entries);
    for (char *line = text, *end; entries && line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = '\0';
        resources_rename_t *e = &entries[*count];
        if (line[0] != '#' &&
            sscanf(line, "%31s %63s %511s %511s", e->date, e->type, e->old_name, e->new_name) == 4)
            (*count)++;
    }
    free(text);
    return entries;
}

bool resources__renamed_in(const resources_rename_t *log, uint32_t count, const char *type,
                           const char *name, char *to, size_t to_size, char *date, size_t date_size)
{
    int64_t at = -1;
    for (uint32_t i = count; i-- > 0;)
        if (strcmp(log[i].type, type) == 0 && strcmp(log[i].old_name, name) == 0) {
            at = i;
            break;
        }
    if (at < 0)
        return false;
    snprintf(date, date_size, "%s", log[at].date);
    const char *current = log[at].new_name;
    for (int chain = 0; chain < MAX_CHAIN; chain++) {
        int64_t next = -1;
        for (uint32_t i = (uint32_t)at + 1; i < count; i++)
            if (strcmp(log[i].type, type) == 0 && strcmp(log[i].old_name, current) == 0)
                next = i;
        if (next < 0)
            break;
        at = next;
        current = log[at].new_name;
    }
    snprintf(to, to_size, "%s", current);
    return true;
}

bool resources__renamed_to(const char *project_dir, const char *type, const char *name, char *to,
                           size_t to_size, char *date, size_t date_size)
{
    uint32_t count;
    resources_rename_t *log = resources__read_renames(project_dir, &count);
    const bool found =
        log && resources__renamed_in(log, count, type, name, to, to_size, date, date_size);
    free(log);
    return found;
}
