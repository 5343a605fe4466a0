/* Canonical resource names and their ids (after "What Is In a Name?"): one spelling per resource,
 * so that equal names mean equal resources and a name can be hashed. Nothing is normalised: a
 * name that is not canonical is refused with the reason. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ct_hash.h"
#include "resources_internal.h"

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* Checks one segment [s, s + len) that starts at position `at` of the whole name. */
static int check_segment(const char *s, size_t len, size_t at, char *err, size_t err_size)
{
    if (len == 0) {
        snprintf(err, err_size, "empty segment at position %zu ('//', or '/' at an end)", at);
        return CT_ERR_INVALID;
    }
    if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.')) {
        snprintf(err, err_size, "'%.*s' segment at position %zu (names are not relative paths)",
                 (int)len, s, at);
        return CT_ERR_INVALID;
    }
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (is_name_char(c))
            continue;
        if (c >= 'A' && c <= 'Z')
            snprintf(err, err_size,
                     "upper-case '%c' at position %zu (names are lower case, as on disk)", c,
                     at + i);
        else if (c == '\\')
            snprintf(err, err_size, "backslash at position %zu (use '/')", at + i);
        else
            snprintf(err, err_size, "character 0x%02x at position %zu is not allowed",
                     (unsigned)(unsigned char)c, at + i);
        return CT_ERR_INVALID;
    }
    return 0;
}

int resources__check_name(const char *name, char *err, size_t err_size)
{
    char scratch[1];
    if (!err) {
        err = scratch;
        err_size = sizeof scratch;
    }
    if (!name || !name[0]) {
        snprintf(err, err_size, "empty name");
        return CT_ERR_INVALID;
    }
    size_t len = strnlen(name, RESOURCES_MAX_NAME + 1);
    if (len > RESOURCES_MAX_NAME) {
        snprintf(err, err_size, "longer than %d bytes", RESOURCES_MAX_NAME);
        return CT_ERR_INVALID;
    }
    if (name[0] == '/') {
        snprintf(err, err_size, "leading '/' (names are relative to the project)");
        return CT_ERR_INVALID;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && name[i] != '/')
            continue;
        int rc = check_segment(name + start, i - start, start, err, err_size);
        if (rc)
            return rc;
        start = i + 1;
    }
    return 0;
}

int resources__check_type_name(const char *type, char *err, size_t err_size)
{
    char scratch[1];
    if (!err) {
        err = scratch;
        err_size = sizeof scratch;
    }
    size_t len = type ? strnlen(type, RESOURCES_MAX_TYPE + 1) : 0;
    if (len == 0 || len > RESOURCES_MAX_TYPE) {
        snprintf(err, err_size, "a type name has 1 to %d characters", RESOURCES_MAX_TYPE);
        return CT_ERR_INVALID;
    }
    for (size_t i = 0; i < len; i++) {
        char c = type[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            snprintf(err, err_size,
                     "type '%s': character %zu is not a lower-case letter, digit or '_'", type, i);
            return CT_ERR_INVALID;
        }
    }
    return 0;
}

int resources__check_file_path(const char *path, char *err, size_t err_size)
{
    char scratch[1];
    if (!err) {
        err = scratch;
        err_size = sizeof scratch;
    }
    const size_t len = path ? strnlen(path, RESOURCES_MAX_FILE_PATH + 1) : 0;
    if (len == 0 || len > RESOURCES_MAX_FILE_PATH) {
        snprintf(err, err_size, "a file path has 1 to %d bytes", RESOURCES_MAX_FILE_PATH);
        return CT_ERR_INVALID;
    }
    if (path[0] == '/') {
        snprintf(err, err_size, "leading '/' (paths are relative to the project)");
        return CT_ERR_INVALID;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        const unsigned char c = i < len ? (unsigned char)path[i] : '/';
        if (c < 0x20 || c == 0x7f || c == '\\') {
            snprintf(err, err_size, "character 0x%02x at position %zu is not allowed", c, i);
            return CT_ERR_INVALID;
        }
        if (c != '/')
            continue;
        const size_t seg = i - start;
        if (seg == 0 || (seg == 1 && path[start] == '.') ||
            (seg == 2 && path[start] == '.' && path[start + 1] == '.')) {
            snprintf(err, err_size, "empty, '.' or '..' segment at position %zu", start);
            return CT_ERR_INVALID;
        }
        start = i + 1;
    }
    return 0;
}

ct_resource_id_t resources__id(const char *type, const char *name)
{
    return (ct_resource_id_t){ct_hash64(type ? type : ""), ct_hash64(name ? name : "")};
}

/* Finds the entry of `dir` equal to `want` ignoring case; copies its spelling into out. */
static bool find_entry_ignoring_case(const char *dir, const char *want, char *out, size_t out_size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strcasecmp(e->d_name, want) == 0) {
            snprintf(out, out_size, "%s", e->d_name);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* Only a name that is wrong just in its case has a case variant on disk worth pointing at. */
static bool canonical_but_for_case(const char *name)
{
    char lower[RESOURCES_MAX_NAME + 1];
    size_t i = 0;
    for (; name[i] && i < RESOURCES_MAX_NAME; i++)
        lower[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
    lower[i] = '\0';
    return !name[i] && resources__check_name(lower, NULL, 0) == 0;
}

bool resources__find_case_variant(const char *project_dir, const char *type, const char *name,
                                  char *out, size_t out_size)
{
    if (!project_dir || !name || !type || !canonical_but_for_case(name))
        return false;
    char rel[RESOURCES_PATH_SIZE] = "";
    char dir[RESOURCES_PATH_SIZE];
    snprintf(dir, sizeof dir, "%s", project_dir);
    const char *seg = name;
    for (;;) {
        const char *slash = strchr(seg, '/');
        char want[RESOURCES_PATH_SIZE];
        if (slash)
            snprintf(want, sizeof want, "%.*s", (int)(slash - seg), seg);
        else
            snprintf(want, sizeof want, "%s.%s", seg, type);
        char found[RESOURCES_PATH_SIZE / 4];
        if (!want[0] || !find_entry_ignoring_case(dir, want, found, sizeof found))
            return false;
        size_t rl = strlen(rel), dl = strlen(dir);
        snprintf(rel + rl, sizeof rel - rl, "%s%s", rl ? "/" : "", found);
        snprintf(dir + dl, sizeof dir - dl, "/%s", found);
        if (!slash)
            break;
        seg = slash + 1;
    }
    snprintf(out, out_size, "%s", rel);
    return true;
}

bool resources__blob_path(const char *project_dir, const char *type, const char *name, char *out,
                          size_t out_size)
{
    int n =
        snprintf(out, out_size, "%s/%s/%s/%s.bin", project_dir, RESOURCES_COMPILED_DIR, type, name);
    return n > 0 && (size_t)n < out_size;
}
