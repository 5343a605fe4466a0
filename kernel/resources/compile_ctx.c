/* Compiling one source text: parse it, let the type write its payload into a growing buffer
 * that already has room for the header in front, then fill the header in. The result is a whole
 * blob in one allocation, the same bytes whether it goes to a file or straight to load_source. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ct_array.h"
#include "base/log.h"
#include "data/sjson.h"
#include "lua/lua_env.h"
#include "resources_internal.h"

struct ct_compile_ctx_o {
    const char *path;
    uint8_t *buf;
    uint64_t size; /* bytes used, header included */
    uint64_t capacity;
    int failure;     /* the first ct_error met while writing or reported */
    char scope[256]; /* what is being compiled ("entity 'crate' (#3)"), "" for the whole file */
    resources_compile_record_t *record; /* NULL: nobody keeps track (load_source) */
    resources_ref_cursor_t refs;        /* the source text, for where references are written */
};

resources_ref_cursor_t *resources__ref_cursor(ct_compile_ctx_o *ctx) { return &ctx->refs; }
resources_compile_record_t *resources__ctx_record(ct_compile_ctx_o *ctx) { return ctx->record; }

void resources__write(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size)
{
    if (!ctx || ctx->failure || size == 0)
        return;
    if (!bytes) {
        log__error("%s: write of %llu bytes from NULL; the compile fails", ctx->path,
                   (unsigned long long)size);
        ctx->failure = CT_ERR_INVALID;
        return;
    }
    if (size > ctx->capacity - ctx->size) {
        uint64_t want = ctx->size + size;
        uint64_t capacity = ctx->capacity * 2;
        if (capacity < want)
            capacity = want;
        if (capacity > SIZE_MAX) {
            log__error("%s: a payload of %llu bytes does not fit in memory", ctx->path,
                       (unsigned long long)capacity);
            ctx->failure = CT_ERR_NOMEM;
            return;
        }
        uint8_t *grown =
            ct_realloc(resources__allocator(), ctx->buf, (size_t)ctx->capacity, (size_t)capacity);
        if (!grown) {
            log__error("%s: out of memory growing the payload to %llu bytes", ctx->path,
                       (unsigned long long)capacity);
            ctx->failure = CT_ERR_NOMEM;
            return;
        }
        ctx->buf = grown;
        ctx->capacity = capacity;
    }
    memcpy(ctx->buf + ctx->size, bytes, (size_t)size);
    ctx->size += size;
}

uint64_t resources__written(const ct_compile_ctx_o *ctx)
{
    return ctx ? ctx->size - RESOURCES_HEADER_SIZE : 0;
}

static void report(ct_compile_ctx_o *ctx, ct_log_level level, const char *fmt, va_list ap)
{
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    bool scoped = ctx && ctx->scope[0];
    log__write(NULL, level, "%s: %s%s%s", ctx ? ctx->path : "(no source)", scoped ? ctx->scope : "",
               scoped ? ": " : "", message);
}

void resources__set_scope(ct_compile_ctx_o *ctx, const char *scope)
{
    if (ctx)
        snprintf(ctx->scope, sizeof ctx->scope, "%s", scope ? scope : "");
}

void resources__compile_error(ct_compile_ctx_o *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(ctx, CT_LOG_ERROR, fmt, ap);
    va_end(ap);
    if (ctx && !ctx->failure)
        ctx->failure = CT_ERR_BAD_DATA;
}

/* With --strict, a warning about data fails the compile like an error. */
void resources__compile_warning(ct_compile_ctx_o *ctx, const char *fmt, ...)
{
    bool strict = resources__is_strict();
    va_list ap;
    va_start(ap, fmt);
    report(ctx, strict ? CT_LOG_ERROR : CT_LOG_WARNING, fmt, ap);
    va_end(ap);
    if (ctx && ctx->record)
        ctx->record->warnings++;
    if (strict && ctx && !ctx->failure)
        ctx->failure = CT_ERR_BAD_DATA;
}

const char *resources__source_path(const ct_compile_ctx_o *ctx) { return ctx ? ctx->path : ""; }

bool resources__source_file(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                            size_t out_size)
{
    char why[256];
    const char *dir = resources__project_dir();
    if (!file || resources__check_name(file, why, sizeof why)) {
        resources__compile_error(ctx, "%s: \"%s\" is not a canonical project path: %s", field,
                                 file ? file : "(null)", file ? why : "missing");
        return false;
    }
    if (!dir) {
        resources__compile_error(ctx, "%s: cannot read \"%s\" without a project folder", field,
                                 file);
        return false;
    }
    const int n = snprintf(out, out_size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= out_size) {
        resources__compile_error(ctx, "%s: the path of \"%s\" is too long", field, file);
        return false;
    }
    /* Compilers open what this names with their own readers: a FIFO or a device there would
     * hang them (the guard on sources and blobs does not see it), so only a regular file (or
     * none: the reader says it is missing) is handed out. Noted either way, so a change to it
     * compiles the source again. */
    struct stat st;
    const bool fits = stat(out, &st) != 0 || S_ISREG(st.st_mode);
    if (!resources__depends_on(ctx, field, file))
        return false;
    if (!fits)
        resources__compile_error(ctx, "%s: \"%s\" is not a regular file", field, file);
    return fits;
}

/* Notes `file` once in the record; false (the compile fails) when the record cannot hold it. */
static bool record_file(ct_compile_ctx_o *ctx, const char *field, const char *file)
{
    resources_compile_record_t *r = ctx->record;
    for (uint32_t i = 0; i < r->num_files; i++)
        if (strcmp(r->files[i], file) == 0)
            return true;
    if (r->num_files == RESOURCES_MAX_FILES) {
        resources__compile_error(ctx,
                                 "%s: \"%s\" is one file more than the %d a resource may be "
                                 "built from",
                                 field, file, RESOURCES_MAX_FILES);
        return false;
    }
    ct_allocator_t *a = resources__allocator();
    if (!ct_array_reserve_of(a, &r->files, &r->capacity, r->num_files + 1, 8))
        goto nomem;
    const size_t size = strlen(file) + 1;
    char *copy = ct_alloc(a, size);
    if (!copy)
        goto nomem;
    memcpy(copy, file, size);
    r->files[r->num_files++] = copy;
    if (r->noted)
        r->noted(r->noted_user, r->num_files - 1, copy);
    return true;
nomem:
    log__error("%s: out of memory noting \"%s\" (%s) as a file it is built from", ctx->path, file,
               field);
    ctx->failure = CT_ERR_NOMEM;
    return false;
}

bool resources__depends_on(ct_compile_ctx_o *ctx, const char *field, const char *file)
{
    char why[256];
    if (!field)
        field = "(no field)";
    if (resources__check_file_path(file, why, sizeof why)) {
        resources__compile_error(ctx, "%s: \"%s\" is not a path inside the project: %s", field,
                                 file ? file : "(null)", why);
        return false;
    }
    /* Also a reference with its span: cuttle-deps moves the file and rewrites where it is
     * named (a file a reader found on its own, not in the text, is noted without a span). */
    return !ctx || !ctx->record ||
           (record_file(ctx, field, file) &&
            resources__note_reference(ctx, field, RESOURCES_FILE_REF, file));
}

void resources__record_free(resources_compile_record_t *record)
{
    ct_allocator_t *a = resources__allocator();
    for (uint32_t i = 0; i < record->num_files; i++)
        ct_free(a, record->files[i], strlen(record->files[i]) + 1);
    if (record->files)
        ct_free(a, record->files, record->capacity * sizeof *record->files);
    if (record->refs)
        ct_free(a, record->refs, record->refs_capacity);
    *record = (resources_compile_record_t){0};
}

int resources__compile_text(const ct_resource_type_t *type, const char *path, const char *text,
                            size_t len, uint8_t **blob, uint64_t *blob_size)
{
    return resources__compile_text_recorded(type, path, text, len, blob, blob_size, NULL);
}

int resources__compile_text_recorded(const ct_resource_type_t *type, const char *path,
                                     const char *text, size_t len, uint8_t **blob,
                                     uint64_t *blob_size, resources_compile_record_t *record)
{
    *blob = NULL;
    *blob_size = 0;
    char err[512];
    cJSON *tree = sjson__parse(text, len, path, err, sizeof err);
    if (!tree) {
        log__error("%s", err);
        return CT_ERR_BAD_DATA;
    }
    ct_compile_ctx_o ctx = {.path = path, .record = record, .refs = {.text = text, .len = len}};
    static const uint8_t header_room[RESOURCES_HEADER_SIZE];
    resources__write(&ctx, header_room, sizeof header_room);
    int rc = ctx.failure;
    if (!rc) {
        /* A compiler may run outside any Lua call (cuttle-compile): if it raises through the Lua
         * API anyway, the panic names it. */
        char phase[RESOURCES_PATH_SIZE + 16];
        snprintf(phase, sizeof phase, "compiling %s", path);
        lua_env__set_plugin_phase(phase, resources__type_owner(type));
        rc = type->compile(type->user_data, (const struct ct_data_o *)tree, &ctx);
        lua_env__set_plugin_phase(NULL, NULL);
    }
    cJSON_Delete(tree);
    if (!rc)
        rc = ctx.failure;
    else if (!ctx.failure)
        log__error("%s: the '%s' compiler failed: %s", path, type->type, log__error_name(rc));
    if (rc) {
        if (ctx.buf)
            ct_free(resources__allocator(), ctx.buf, (size_t)ctx.capacity);
        return rc < 0 ? rc : CT_ERR_BAD_DATA;
    }
    resources__write_header(ctx.buf, type->type, type->format_version,
                            ctx.size - RESOURCES_HEADER_SIZE);
    /* Trim to the exact size: the blob's owner frees it with the size it knows. */
    if (ctx.capacity != ctx.size) {
        uint8_t *exact =
            ct_realloc(resources__allocator(), ctx.buf, (size_t)ctx.capacity, (size_t)ctx.size);
        if (!exact) {
            log__error("%s: out of memory trimming the blob to %llu bytes", path,
                       (unsigned long long)ctx.size);
            ct_free(resources__allocator(), ctx.buf, (size_t)ctx.capacity);
            return CT_ERR_NOMEM;
        }
        ctx.buf = exact;
    }
    *blob = ctx.buf;
    *blob_size = ctx.size;
    return 0;
}
