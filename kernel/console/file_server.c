/* `cuttle --serve-project DIR --port P`: the seed post's file server. Nodes started with
 * `--host ADDR:P --project NAME` read the project from here: its scripts and project.sjson once
 * at start (listed in the hello), its compiled blobs through the resource system as they load
 * them (validated there like blobs read from disk). Nothing outside DIR is ever served. */
#include "console/console_internal.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/memory.h"
#include "resources/resources.h"

#define SERVED_MAX_DEPTH 8

static struct {
    char root[PATH_MAX]; /* realpath of DIR */
    char name[256];      /* its last path component: what --project NAME must say */
    cJSON *files;        /* project-relative paths of project.sjson and every .lua file */
} g_srv;

static bool served_extension(const char *name)
{
    size_t n = strlen(name);
    return (n > 4 && !strcmp(name + n - 4, ".lua")) || !strcmp(name, "project.sjson");
}

/* Lists the scripts below `rel` (depth and count bounded; compiled/, dot files and names that are
 * not plain paths skipped: nodes refuse a listing with one). */
static void list_files(const char *rel, int depth)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s%s%s", g_srv.root, rel[0] ? "/" : "", rel);
    DIR *d = n > 0 && (size_t)n < sizeof path ? opendir(path) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && cJSON_GetArraySize(g_srv.files) < FILE_SERVER_MAX_FILES) {
        if (e->d_name[0] == '.' || (!rel[0] && !strcmp(e->d_name, RESOURCES_COMPILED_DIR)))
            continue;
        char child[PATH_MAX];
        if ((size_t)snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >=
            FILE_SERVER_MAX_PATH)
            continue;
        char full[PATH_MAX + 512];
        int len = snprintf(full, sizeof full, "%s/%s", g_srv.root, child);
        struct stat st;
        char why[512];
        if (len < 0 || (size_t)len >= sizeof full || lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < SERVED_MAX_DEPTH)
            list_files(child, depth + 1);
        else if (S_ISREG(st.st_mode) && file_server__plain_path(child, why, sizeof why))
            cJSON_AddItemToArray(g_srv.files, cJSON_CreateString(child));
    }
    closedir(d);
}

bool file_server__plain_path(const char *rel, char *why, size_t why_size)
{
    size_t n = strlen(rel);
    bool ok = n > 0 && n < FILE_SERVER_MAX_PATH && rel[0] != '/' &&
              served_extension(strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
    for (const char *p = rel; ok && *p; p++) {
        bool segment_start = p == rel || p[-1] == '/';
        ok = (*p == '/' && !segment_start) || (*p != '/' && !(segment_start && *p == '.'));
        ok = ok && (*p == '/' || *p == '.' || *p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') ||
                    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'));
    }
    if (!ok)
        snprintf(why, why_size,
                 "path '%.200s' is not a project script (plain names, .lua or "
                 "project.sjson, no '..', under %d bytes)",
                 rel, FILE_SERVER_MAX_PATH);
    return ok;
}

/* Whether `path` (after every symlink) is inside the served root; `out` gets the resolved path.
 * Scripts and compiled blobs alike pass here: a link under compiled/ or a linked compiled/ folder
 * must not serve a file outside the project. */
static bool contained(const char *path, const char *shown, char *out, char *why, size_t why_size)
{
    if (!realpath(path, out)) {
        snprintf(why, why_size, "no file '%.200s' in the project", shown);
        return false;
    }
    size_t root_len = strlen(g_srv.root);
    if (strncmp(out, g_srv.root, root_len) != 0 || out[root_len] != '/') {
        snprintf(why, why_size, "path '%.200s' leads outside the project", shown);
        return false;
    }
    return true;
}

/* A project-relative path a client may ask for: a plain path that (after symlinks) is still
 * inside the root. */
static bool resolve_path(const char *rel, char *out, char *why, size_t why_size)
{
    if (!file_server__plain_path(rel, why, why_size))
        return false;
    char joined[PATH_MAX + 512];
    snprintf(joined, sizeof joined, "%s/%s", g_srv.root, rel);
    return contained(joined, rel, out, why, why_size);
}

static void send_file(console_client_t *c, const console_message_t *m, const char *path,
                      const char *shown)
{
    struct stat st;
    /* Not blocking and not following a link swapped in after the check: a FIFO or a device must
     * not hang the server (fstat refuses whatever is not a regular file). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > CONSOLE_MAX_BLOB - CONSOLE_BLOB_JSON_ROOM) {
        if (f)
            fclose(f);
        console_server__error(c, m, false, "cannot serve '%s': %s", shown,
                              f ? "not a regular file or too big" : strerror(errno));
        return;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *data = ct_alloc(c->server->allocator, size + 1);
    size_t got = data ? fread(data, 1, size, f) : 0;
    fclose(f);
    if (!data || got != size) {
        if (data)
            ct_free(c->server->allocator, data, size + 1);
        console_server__error(c, m, false, "cannot read '%s'", shown);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "file");
    if (m->has_id)
        cJSON_AddNumberToObject(o, "id", m->id);
    cJSON_AddBoolToObject(o, "ok", true);
    cJSON_AddStringToObject(o, "file", shown);
    cJSON_AddNumberToObject(o, "size", (double)size);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json)
        console_server__send_binary(c, json, data, size);
    cJSON_free(json);
    ct_free(c->server->allocator, data, size + 1);
}

static void serve(console_server_t *s, console_client_t *c, const console_message_t *m)
{
    (void)s;
    if (m->kind != CONSOLE_MSG_FILE) {
        console_server__error(c, m, false,
                              "this is a file server: it answers 'file' messages only");
        return;
    }
    char path[PATH_MAX], why[512], shown[600];
    if (m->text) {
        if (!resolve_path(m->text, path, why, sizeof why)) {
            console_server__error(c, m, false, "%s", why);
            return;
        }
        send_file(c, m, path, m->text);
        return;
    }
    if (resources__check_type_name(m->resource, why, sizeof why) ||
        resources__check_name(m->name, why, sizeof why)) {
        console_server__error(c, m, false, "%s '%.200s': %s", m->resource, m->name, why);
        return;
    }
    if (!resources__blob_path(g_srv.root, m->resource, m->name, path, sizeof path)) {
        console_server__error(c, m, false, "%s '%.200s': the path is too long", m->resource,
                              m->name);
        return;
    }
    snprintf(shown, sizeof shown, "%s/%s.bin", m->resource, m->name);
    char resolved[PATH_MAX];
    if (!contained(path, shown, resolved, why, sizeof why)) {
        if (errno == ENOENT) /* nodes read "cannot serve" as "not there" */
            snprintf(why, sizeof why, "cannot serve '%.300s': %s", shown, strerror(errno));
        console_server__error(c, m, false, "%s", why);
        return;
    }
    send_file(c, m, resolved, shown);
}

static void on_tick(uv_timer_t *t) { (void)t; }

int file_server__run(const console_options_t *o, int (*stop_requested)(void))
{
    char project_file[PATH_MAX + 32];
    struct stat st;
    if (!realpath(o->serve_dir, g_srv.root) ||
        (snprintf(project_file, sizeof project_file, "%s/project.sjson", g_srv.root),
         stat(project_file, &st) != 0)) {
        fprintf(stderr, "cuttle: --serve-project %s: not a project folder (no project.sjson)\n",
                o->serve_dir);
        return 2;
    }
    const char *slash = strrchr(g_srv.root, '/');
    if (snprintf(g_srv.name, sizeof g_srv.name, "%s", slash ? slash + 1 : g_srv.root) >=
        (int)sizeof g_srv.name)
        g_srv.name[0] = '\0';
    g_srv.files = cJSON_CreateArray();
    list_files("", 0);
    cJSON *hello = cJSON_CreateObject();
    cJSON_AddStringToObject(hello, "project", g_srv.name);
    cJSON_AddItemReferenceToObject(hello, "files", g_srv.files);
    char *text = cJSON_PrintUnformatted(hello);
    cJSON_Delete(hello);
    /* The hello wants the fields without their braces. */
    text[strlen(text) - 1] = '\0';

    int status = 1;
    uv_loop_t loop;
    console_server_t server;
    if (memory__init(0) == 0 && uv_loop_init(&loop) == 0) {
        ct_allocator_t *allocator = memory__create(NULL, "file server");
        const char *token = o->token ? o->token : getenv("CUTTLE_CONSOLE_TOKEN");
        console_server_desc_t desc = {
            .what = "file server",
            .bind = o->bind,
            .port = o->serve_port,
            .token = token && *token ? token : NULL,
            .handler = serve,
            .hello = text + 1,
        };
        if (allocator && console_server__start(&server, &loop, allocator, &desc) == 0) {
            printf("file server: serving project '%s' (%d scripts) from %s on %s:%d\n", g_srv.name,
                   cJSON_GetArraySize(g_srv.files), g_srv.root, o->bind ? o->bind : "127.0.0.1",
                   server.port);
            fflush(stdout);
            uv_timer_t tick;
            uv_timer_init(&loop, &tick);
            uv_timer_start(&tick, on_tick, 100, 100); /* notice signals */
            while (!stop_requested())
                uv_run(&loop, UV_RUN_ONCE);
            uv_close((uv_handle_t *)&tick, NULL);
            console_server__stop(&server);
            status = 0;
        }
        if (allocator)
            memory__destroy(allocator);
        uv_run(&loop, UV_RUN_NOWAIT);
        uv_loop_close(&loop);
        memory__shutdown();
    }
    cJSON_free(text);
    cJSON_Delete(g_srv.files);
    return status;
}
