/* `cuttle --host ADDR:P --project NAME`: a node whose project comes from a file server. The
 * scripts and project.sjson the server lists are copied into a private folder at start (the
 * kernel boots from it); every compiled blob is asked for when the resource system loads it, and
 * validated there exactly as a blob read from disk. */
#include "console/console_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "console/console_client.h"
#include "resources/resources.h"

int file_client__timeout_ms = 30000;
/* The most bytes a node copies from a listing (its scripts and project.sjson). */
#define FILE_CLIENT_MAX_BYTES (64u << 20)

static struct {
    console_conn_t conn;
    bool open;
    char dir[1024]; /* the private copy of the project's scripts (host_folder.c) */
    double next_id;
} g_fc;

/* Sends a 'file' request and waits for its reply. Returns the binary payload moved to the start
 * of the reply's frame (free it with console_conn__free(.., *frame)) or NULL with the reason in
 * why. */
static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static uint8_t *request(cJSON *msg, uint64_t *size, uint32_t *frame, char *why, size_t why_size)
{
    double id = ++g_fc.next_id;
    cJSON_AddStringToObject(msg, "type", "file");
    cJSON_AddNumberToObject(msg, "id", id);
    char *json = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    int rc = json ? console_conn__send(&g_fc.conn, json) : -1;
    cJSON_free(json);
    if (rc) {
        snprintf(why, why_size, "%s", g_fc.conn.error);
        return NULL;
    }
    /* One deadline for the whole request, not one per frame: frames that are not the reply
     * (another id) do not buy the server more time. */
    const int64_t deadline = now_ms() + file_client__timeout_ms;
    for (;;) {
        uint32_t type, len;
        char *payload;
        const int64_t left = deadline - now_ms();
        int r = left > 0 ? console_conn__recv(&g_fc.conn, (int)left, &type, &payload, &len) : 0;
        if (r <= 0) {
            snprintf(why, why_size, "%s", r ? g_fc.conn.error : "no reply in time");
            return NULL;
        }
        uint32_t json_len = len;
        if (type == CONSOLE_FRAME_BINARY) {
            const uint8_t *p = (const uint8_t *)payload;
            json_len =
                len >= 4 ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                         : 0;
            if (len < 4 || json_len > len - 4) {
                console_conn__free(&g_fc.conn, payload, len);
                snprintf(why, why_size, "a malformed reply (JSON length %u in %u bytes)",
                         (unsigned)json_len, (unsigned)len);
                return NULL;
            }
        }
        const char *json_text = payload + (type == CONSOLE_FRAME_BINARY ? 4 : 0);
        cJSON *o = cJSON_ParseWithLength(json_text, json_len);
        const cJSON *rid = cJSON_GetObjectItem(o, "id");
        if (!cJSON_IsNumber(rid) || rid->valuedouble != id) {
            cJSON_Delete(o);
            console_conn__free(&g_fc.conn, payload, len);
            continue;
        }
        const cJSON *err = cJSON_GetObjectItem(o, "error");
        if (type != CONSOLE_FRAME_BINARY || !cJSON_IsTrue(cJSON_GetObjectItem(o, "ok"))) {
            snprintf(why, why_size, "%s", cJSON_IsString(err) ? err->valuestring : "refused");
            cJSON_Delete(o);
            console_conn__free(&g_fc.conn, payload, len);
            return NULL;
        }
        cJSON_Delete(o);
        *size = len - 4 - json_len;
        *frame = len;
        memmove(payload, payload + 4 + json_len, (size_t)*size);
        return (uint8_t *)payload;
    }
}

/* The reply is received straight into a block of the resource allocator, which becomes the blob
 * once the JSON before it is moved out and the block shrunk to size + 1 (in place): a blob of up
 * to CONSOLE_MAX_BLOB bytes is never held twice. Frames between requests go to the heap again; a
 * server that sent more than the reply is disconnected, so none of its bytes stay in resource
 * memory past this call. */
static int fetch_blob(void *ctx, const char *type, const char *name, char *path, size_t path_size,
                      uint8_t **blob, uint64_t *size)
{
    (void)ctx;
    snprintf(path, path_size, "%s/%s/%s/%s.bin", g_fc.conn.peer, RESOURCES_COMPILED_DIR, type,
             name);
    ct_allocator_t *a = resources__allocator();
    if (!console_conn__set_allocator(&g_fc.conn, a)) {
        log__error("%s: the file server sent what was not asked for; disconnecting", path);
        console_conn__close(&g_fc.conn);
        return CT_ERR_IO;
    }
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "resource", type);
    cJSON_AddStringToObject(m, "name", name);
    char why[512];
    uint32_t frame = 0;
    uint8_t *data = request(m, size, &frame, why, sizeof why);
    if (!console_conn__set_allocator(&g_fc.conn, NULL)) {
        /* A frame begun and not ended: after the reply, the server sent more than it; without a
         * reply, it stopped (closed, or went quiet) in the middle of one. */
        log__error("%s: the file server %s; disconnecting", path,
                   data ? "sent more than its reply" : "stopped in the middle of its reply");
        console_conn__close(&g_fc.conn); /* frees what it sent, from the resource allocator */
        console_conn__set_allocator(&g_fc.conn, NULL);
    }
    if (!data) {
        log__error("%s: the file server did not send it: %s", path, why);
        return CT_ERR_NOT_FOUND;
    }
    *blob = ct_realloc(a, data, (size_t)frame + 1, (size_t)*size + 1);
    if (!*blob) {
        ct_free(a, data, (size_t)frame + 1);
        return CT_ERR_NOMEM;
    }
    (*blob)[*size] = '\0';
    return 0;
}

/* Creates `rel` (a plain path: file_server__plain_path) in the private folder, one segment at a
 * time from the folder's descriptor, never through a link: folders are opened O_NOFOLLOW and the
 * file is created exclusively, so a link or file planted there is an error, not a way out. */
static int write_file(const char *rel, const uint8_t *data, uint64_t size)
{
    int dir = open(g_fc.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const char *leaf = rel;
    for (const char *slash; dir >= 0 && (slash = strchr(leaf, '/')); leaf = slash + 1) {
        char segment[FILE_SERVER_MAX_PATH];
        snprintf(segment, sizeof segment, "%.*s", (int)(slash - leaf), leaf);
        int next = mkdirat(dir, segment, 0700) == 0 || errno == EEXIST
                       ? openat(dir, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                       : -1;
        int saved = errno;
        close(dir);
        errno = saved;
        dir = next;
    }
    int fd = dir >= 0
                 ? openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                 : -1;
    uint64_t done = 0;
    while (fd >= 0 && done < size) {
        ssize_t n = write(fd, data + done, (size_t)(size - done));
        if (n <= 0 && errno != EINTR)
            break;
        done += n > 0 ? (uint64_t)n : 0;
    }
    int saved = errno;
    bool ok = fd >= 0 && done == size && close(fd) == 0;
    if (fd >= 0 && !ok)
        close(fd);
    if (dir >= 0)
        close(dir);
    if (!ok) {
        log__error("--host %s: cannot write '%s' in %s: %s (links and files already there are "
                   "never written through)",
                   g_fc.conn.peer, rel, g_fc.dir, strerror(saved));
        return CT_ERR_IO;
    }
    return 0;
}

/* Fetches a listed file into the private folder; *total counts the bytes fetched so far. The
 * reply may be no longer than what is left of FILE_CLIENT_MAX_BYTES (and its JSON): a longer one
 * is refused as soon as its header is read, before any of it is buffered. */
static int copy_file(const char *rel, uint64_t *total)
{
    const uint64_t left = FILE_CLIENT_MAX_BYTES - *total;
    console_conn__set_max_payload(&g_fc.conn, (uint32_t)left + CONSOLE_BLOB_JSON_ROOM);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "path", rel);
    char why[512];
    uint64_t size;
    uint32_t frame = 0;
    uint8_t *data = request(m, &size, &frame, why, sizeof why);
    if (!data && g_fc.conn.reader.refused) {
        log__error("--host %s: refusing '%s': the file server announced a reply of %u bytes, more "
                   "than the %" PRIu64 " bytes left of the %u MiB the listed files may take "
                   "(nothing of it was read; the project is not started)",
                   g_fc.conn.peer, rel, (unsigned)g_fc.conn.reader.refused, left,
                   (unsigned)(FILE_CLIENT_MAX_BYTES >> 20));
        return CT_ERR_BAD_DATA;
    }
    if (!data) {
        log__error("--host %s: cannot fetch %s: %s", g_fc.conn.peer, rel, why);
        return CT_ERR_IO;
    }
    *total += size;
    int rc = CT_ERR_BAD_DATA;
    if (*total > FILE_CLIENT_MAX_BYTES)
        log__error("--host %s: '%s' takes the listed files past %u MiB; refusing the project",
                   g_fc.conn.peer, rel, (unsigned)(FILE_CLIENT_MAX_BYTES >> 20));
    else
        rc = write_file(rel, data, size);
    console_conn__free(&g_fc.conn, (char *)data, frame);
    return rc;
}

/* Checks the whole listing before anything is fetched: at most FILE_SERVER_MAX_FILES names, each
 * a plain path by the server's own rule. */
static int check_listing(const cJSON *files)
{
    int count = cJSON_GetArraySize(files);
    if (count > FILE_SERVER_MAX_FILES) {
        log__error("--host %s: the file server lists %d files (at most %d); refusing its listing",
                   g_fc.conn.peer, count, FILE_SERVER_MAX_FILES);
        return CT_ERR_BAD_DATA;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, files)
    {
        char why[512];
        if (!cJSON_IsString(f) || !file_server__plain_path(f->valuestring, why, sizeof why)) {
            log__error("--host %s: refusing the file server's listing: %s", g_fc.conn.peer,
                       cJSON_IsString(f) ? why : "an entry is not a string");
            return CT_ERR_BAD_DATA;
        }
    }
    return 0;
}

int file_client__connect(const console_options_t *o, const char *project_name,
                         const char **project_dir)
{
    char host[64];
    int port;
    if (console_conn__parse_address(o->host, host, sizeof host, &port)) {
        log__error("--host %s: give ADDR:PORT", o->host);
        return CT_ERR_INVALID;
    }
    /* The hello, a listing of at most FILE_SERVER_MAX_FILES names, is far under 1 MiB. */
    if (console_conn__open(&g_fc.conn, host, port, CONSOLE_MAX_PAYLOAD, 5000)) {
        log__error("--host: %s", g_fc.conn.error);
        return CT_ERR_IO;
    }
    g_fc.open = true;
    uint32_t type, len;
    char *hello;
    const int got = console_conn__recv(&g_fc.conn, file_client__timeout_ms, &type, &hello, &len);
    if (got != 1) {
        const bool refused = g_fc.conn.reader.refused != 0;
        if (refused)
            log__error("--host %s: refusing a hello of %u bytes (at most %u; nothing of it was "
                       "read)",
                       o->host, (unsigned)g_fc.conn.reader.refused, (unsigned)CONSOLE_MAX_PAYLOAD);
        else
            log__error("--host %s: no hello (is it a file server?): %s", o->host,
                       got ? g_fc.conn.error : "nothing in time");
        file_client__disconnect();
        return refused ? CT_ERR_BAD_DATA : CT_ERR_IO;
    }
    cJSON *h = cJSON_Parse(hello);
    free(hello);
    const cJSON *service = cJSON_GetObjectItem(h, "service"),
                *project = cJSON_GetObjectItem(h, "project"),
                *files = cJSON_GetObjectItem(h, "files");
    int rc = 0;
    if (!cJSON_IsString(service) || strcmp(service->valuestring, "file server") ||
        !cJSON_IsString(project) || !cJSON_IsArray(files)) {
        log__error(
            "--host %s: not a file server (start one with cuttle --serve-project DIR --port P)",
            o->host);
        rc = CT_ERR_BAD_DATA;
    } else if (strcmp(project->valuestring, project_name)) {
        log__error("--host %s serves project '%s', not '%s'", o->host, project->valuestring,
                   project_name);
        rc = CT_ERR_NOT_FOUND;
    }
    /* The file server's credential is its own: the node's console token (which lets anyone
     * run code in this engine) is never sent to a server that merely asks for one. */
    const char *token = o->host_token ? o->host_token : getenv("CUTTLE_HOST_TOKEN");
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItem(h, "auth")) && (!token || !*token)) {
        log__error("--host %s wants a token: give it with --host-token (or CUTTLE_HOST_TOKEN)",
                   o->host);
        rc = CT_ERR_INVALID;
    } else if (!rc && cJSON_IsTrue(cJSON_GetObjectItem(h, "auth"))) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "type", "auth");
        cJSON_AddStringToObject(m, "token", token);
        char *json = cJSON_PrintUnformatted(m);
        cJSON_Delete(m);
        console_conn__send(&g_fc.conn, json);
        cJSON_free(json);
    }
    if (!rc)
        rc = check_listing(files);
    if (!rc)
        rc = host_folder__make(g_fc.dir, sizeof g_fc.dir);
    uint64_t total = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, files)
    {
        if (!rc)
            rc = copy_file(f->valuestring, &total);
    }
    cJSON_Delete(h);
    if (rc) {
        file_client__disconnect();
        return rc;
    }
    console_conn__set_max_payload(&g_fc.conn, CONSOLE_MAX_BLOB); /* compiled blobs from now on */
    resources__set_blob_source(fetch_blob, NULL);
    *project_dir = g_fc.dir;
    log__info("--host %s: project '%s' (scripts in %s, compiled data from the server)", o->host,
              project_name, g_fc.dir);
    return 0;
}

void file_client__disconnect(void)
{
    resources__set_blob_source(NULL, NULL);
    if (g_fc.open)
        console_conn__close(&g_fc.conn);
    g_fc.open = false;
    host_folder__remove(g_fc.dir);
    g_fc.dir[0] = '\0';
}
