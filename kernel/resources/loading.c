/* Loaded resources: the blob (kept alive for the runtime object, which may point into it), the
 * runtime object and a load count per (type, name) id. Few enough for a linear walk over one
 * array; removal swaps the last record in. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ct_array.h"
#include "base/log.h"
#include "resources_internal.h"

typedef struct loaded_t {
    ct_resource_id_t id;
    const ct_resource_type_t *type;
    uint32_t count;
    uint8_t *blob;
    size_t blob_alloc; /* the size the blob was allocated with */
    void *runtime;
} loaded_t;

static loaded_t *records;
static uint32_t num_records;
static uint32_t capacity;

static loaded_t *find(ct_resource_id_t id)
{
    for (uint32_t i = 0; i < num_records; i++) {
        if (records[i].id.name == id.name && records[i].id.type == id.type)
            return &records[i];
    }
    return NULL;
}

static void drop(loaded_t *r)
{
    if (r->type->unload)
        r->type->unload(r->type->user_data, r->runtime);
    ct_free(resources__allocator(), r->blob, r->blob_alloc);
    *r = records[--num_records];
    if (num_records == 0) {
        ct_free(resources__allocator(), records, capacity * sizeof *records);
        records = NULL;
        capacity = 0;
    }
}

/* Checks the type and the name of a load; on success *out is the type and *loaded the record
 * if already loaded. */
static int prepare(const char *type, const char *name, const ct_resource_type_t **out,
                   loaded_t **loaded)
{
    *out = resources__find_type(type);
    if (!*out) {
        log__error("resources: cannot load '%s': no resource type '%s' is registered",
                   name ? name : "(null)", type ? type : "(null)");
        return CT_ERR_NOT_FOUND;
    }
    char err[256];
    if (resources__check_name(name, err, sizeof err)) {
        char disk[RESOURCES_PATH_SIZE];
        bool variant =
            resources__find_case_variant(resources__project_dir(), type, name, disk, sizeof disk);
        log__error("resources: cannot load %s '%s': the name is not canonical: %s%s%s%s", type,
                   name ? name : "(null)", err, variant ? "; the file on disk is '" : "",
                   variant ? disk : "", variant ? "'" : "");
        return CT_ERR_INVALID;
    }
    *loaded = find(resources__id(type, name));
    return 0;
}

/* Validates a whole blob and has the type make its runtime object from the payload. */
static int make_runtime(const ct_resource_type_t *t, const uint8_t *blob, uint64_t size,
                        void **runtime, char *err, size_t err_size)
{
    const void *payload;
    uint64_t payload_size;
    int rc = resources__validate_blob(blob, size, t->type, t->format_version, &payload,
                                      &payload_size, err, err_size);
    if (rc)
        return rc;
    *runtime = t->load(t->user_data, payload, payload_size, err, err_size);
    return *runtime ? 0 : CT_ERR_BAD_DATA;
}

/* Validates a whole blob and hands its payload to the type. Takes ownership of the blob. */
static int install(const ct_resource_type_t *t, const char *name, const char *what, uint8_t *blob,
                   uint64_t size, size_t alloc)
{
    char err[512] = "";
    void *runtime = NULL;
    int rc = make_runtime(t, blob, size, &runtime, err, sizeof err);
    if (!rc &&
        !ct_array_reserve_of(resources__allocator(), &records, &capacity, num_records + 1, 32)) {
        snprintf(err, sizeof err, "out of memory");
        rc = CT_ERR_NOMEM;
        if (t->unload)
            t->unload(t->user_data, runtime);
    }
    if (rc) {
        log__error("%s: refused: %s", what, err[0] ? err : "the type's load failed");
        ct_free(resources__allocator(), blob, alloc);
        return rc;
    }
    records[num_records++] = (loaded_t){
        .id = resources__id(t->type, name),
        .type = t,
        .count = 1,
        .blob = blob,
        .blob_alloc = alloc,
        .runtime = runtime,
    };
    return 0;
}

/* Why a compiled blob is missing, as far as the disk can tell. */
static void report_missing(const char *type, const char *name, const char *path)
{
    const char *project = resources__project_dir();
    char source[RESOURCES_PATH_SIZE];
    char disk[RESOURCES_PATH_SIZE];
    struct stat st;
    snprintf(source, sizeof source, "%s/%s.%s", project, name, type);
    if (stat(source, &st) == 0)
        log__error("%s: not compiled (the source %s.%s exists: run cuttle-compile)", path, name,
                   type);
    else if (resources__find_case_variant(project, type, name, disk, sizeof disk))
        log__error("%s: not compiled; the only source differing just in case is '%s' (names "
                   "on disk must be lower case)",
                   path, disk);
    else
        log__error("%s: not compiled and no source %s.%s in %s", path, name, type, project);
}

static struct {
    resources_blob_source_f fn;
    void *ctx;
} g_source;

void resources__set_blob_source(resources_blob_source_f fn, void *ctx)
{
    g_source.fn = fn;
    g_source.ctx = ctx;
}

/* Reads the compiled blob of (type, name) into memory (size + 1 bytes); logs why not. */
static int read_blob(const char *type, const char *name, char *path, uint8_t **blob, uint64_t *size)
{
    if (g_source.fn)
        return g_source.fn(g_source.ctx, type, name, path, RESOURCES_PATH_SIZE, blob, size);
    const char *project = resources__project_dir();
    if (!project) {
        log__error("resources: cannot load %s '%s': no project (only load_source works)", type,
                   name);
        return CT_ERR_NOT_FOUND;
    }
    if (!resources__blob_path(project, type, name, path, RESOURCES_PATH_SIZE)) {
        log__error("resources: cannot load %s '%s': the path is too long", type, name);
        return CT_ERR_INVALID;
    }
    *blob = resources__read_file(path, size);
    if (!*blob) {
        if (errno == ENOENT) {
            report_missing(type, name, path);
            return CT_ERR_NOT_FOUND;
        }
        log__error("%s: cannot read: %s", path, resources__read_error(errno));
        return errno == ENOMEM ? CT_ERR_NOMEM : CT_ERR_IO;
    }
    return 0;
}

int resources__load(const char *type, const char *name)
{
    const ct_resource_type_t *t;
    loaded_t *loaded;
    int rc = prepare(type, name, &t, &loaded);
    if (rc)
        return rc;
    if (loaded) {
        loaded->count++;
        return 0;
    }
    char path[RESOURCES_PATH_SIZE];
    uint8_t *blob;
    uint64_t size;
    if ((rc = read_blob(type, name, path, &blob, &size)))
        return rc;
    return install(t, name, path, blob, size, (size_t)size + 1);
}

static uint64_t reload_count;

uint64_t resources__reloads(void) { return reload_count; }

/* Makes the runtime object of a new blob and swaps it for the loaded one's; takes the blob. */
static int swap_in(const ct_resource_type_t *t, const char *type, const char *name,
                   const char *what, uint8_t *blob, uint64_t size, size_t alloc)
{
    char err[512] = "";
    void *runtime = NULL;
    int rc = make_runtime(t, blob, size, &runtime, err, sizeof err);
    if (rc) {
        log__error("%s: reload refused (the loaded version stays): %s", what,
                   err[0] ? err : "the type's load failed");
        ct_free(resources__allocator(), blob, alloc);
        return rc;
    }
    /* The record may have moved if the type's load loaded other resources. */
    loaded_t *loaded = find(resources__id(type, name));
    if (t->unload)
        t->unload(t->user_data, loaded->runtime);
    ct_free(resources__allocator(), loaded->blob, loaded->blob_alloc);
    loaded->blob = blob;
    loaded->blob_alloc = alloc;
    loaded->runtime = runtime;
    reload_count++;
    log__info("%s: reloaded", what);
    return 0;
}

/* Checks a reload's type and name and that the resource is loaded. */
static int prepare_reload(const char *type, const char *name, const ct_resource_type_t **t)
{
    loaded_t *loaded;
    int rc = prepare(type, name, t, &loaded);
    if (!rc && !loaded) {
        log__error("resources: cannot reload %s '%s': it is not loaded", type, name);
        rc = CT_ERR_NOT_FOUND;
    }
    return rc;
}

int resources__reload(const char *type, const char *name)
{
    const ct_resource_type_t *t;
    int rc = prepare_reload(type, name, &t);
    if (rc)
        return rc;
    char path[RESOURCES_PATH_SIZE];
    uint8_t *blob;
    uint64_t size;
    if ((rc = read_blob(type, name, path, &blob, &size)))
        return rc;
    return swap_in(t, type, name, path, blob, size, (size_t)size + 1);
}

int resources__reload_source(const char *type, const char *name)
{
    const ct_resource_type_t *t;
    int rc = prepare_reload(type, name, &t);
    if (rc)
        return rc;
    const char *project = resources__project_dir();
    char path[RESOURCES_PATH_SIZE];
    if (!project ||
        (size_t)snprintf(path, sizeof path, "%s/%s.%s", project, name, type) >= sizeof path) {
        log__error("resources: cannot reload %s '%s' from source: %s", type, name,
                   project ? "the path is too long" : "there is no project folder");
        return CT_ERR_INVALID;
    }
    uint64_t text_size;
    uint8_t *text = resources__read_file_max(path, CT_RESOURCE_MAX_SOURCE_BYTES, &text_size);
    if (!text) {
        log__error("%s: cannot reload: %s (the loaded version stays)", path,
                   resources__read_error(errno));
        return errno == ENOMEM ? CT_ERR_NOMEM : CT_ERR_IO;
    }
    uint8_t *blob;
    uint64_t size;
    rc = resources__compile_text(t, path, (const char *)text, (size_t)text_size, &blob, &size);
    ct_free(resources__allocator(), text, (size_t)text_size + 1);
    if (rc) {
        log__error("%s: does not compile; the loaded version stays", path);
        return rc;
    }
    return swap_in(t, type, name, path, blob, size, (size_t)size);
}

int resources__load_source(const char *type, const char *name, const char *source, size_t len)
{
    const ct_resource_type_t *t;
    loaded_t *loaded;
    int rc = prepare(type, name, &t, &loaded);
    if (rc)
        return rc;
    if (loaded) {
        loaded->count++;
        return 0;
    }
    char what[RESOURCES_PATH_SIZE];
    snprintf(what, sizeof what, "%s.%s", name, type);
    uint8_t *blob;
    uint64_t size;
    rc = resources__compile_text(t, what, source ? source : "", source ? len : 0, &blob, &size);
    return rc ? rc : install(t, name, what, blob, size, (size_t)size);
}

void *resources__get(const char *type, const char *name)
{
    if (!type || !name)
        return NULL;
    loaded_t *r = find(resources__id(type, name));
    return r ? r->runtime : NULL;
}

void resources__unload(const char *type, const char *name)
{
    loaded_t *r = type && name ? find(resources__id(type, name)) : NULL;
    if (!r) {
        /* After shutdown everything is already unloaded: a plugin tidying up is no mistake. */
        if (resources__allocator())
            log__warning("resources: unload of %s '%s', which is not loaded",
                         type ? type : "(null)", name ? name : "(null)");
        return;
    }
    if (--r->count == 0)
        drop(r);
}

void resources__unload_type(const ct_resource_type_t *type)
{
    for (uint32_t i = 0; i < num_records;) {
        if (records[i].type == type)
            drop(&records[i]); /* the last record moves into slot i */
        else
            i++;
    }
}

void resources__unload_all(void)
{
    while (num_records)
        drop(&records[num_records - 1]);
}
