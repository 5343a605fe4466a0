/* What the files of kernel/resources share; nothing here is API. */
#ifndef CT_KERNEL_RESOURCES_INTERNAL_H
#define CT_KERNEL_RESOURCES_INTERNAL_H

#include "resources.h"

/* Longest canonical name, in bytes. Names become file paths under compiled/, so this keeps every
 * path we build well inside PATH_MAX. */
#define RESOURCES_MAX_NAME 200
#define RESOURCES_MAX_TYPE 32
#define RESOURCES_HEADER_SIZE 40u
#define RESOURCES_PATH_SIZE 4096

/* resources.c: the service's state. */
const char *resources__project_dir(void); /* NULL without a project */
bool resources__is_strict(void);

/* names.c */
ct_resource_id_t resources__id(const char *type, const char *name);
/* Looks under the project for a source `<name>.<type>` whose spelling differs only by case;
 * on a hit writes its project-relative path into out. */
bool resources__find_case_variant(const char *project_dir, const char *type, const char *name,
                                  char *out, size_t out_size);
/* A path to a file inside the project that compilers may read (ct_resource_api_v4.depends_on):
 * relative, '/' between non-empty segments, no '.' or '..' segments, no backslash or control
 * character, at most RESOURCES_MAX_FILE_PATH bytes. Looser than a name (any case, any other
 * byte), since it names a file somebody else made (the .bin beside a .gltf), not a resource. */
int resources__check_file_path(const char *path, char *err, size_t err_size);

/* blob.c: fills the 40-byte header in front of `payload_size` bytes at blob + 40. */
void resources__write_header(uint8_t *blob, const char *type_name, uint32_t format_version,
                             uint64_t payload_size);

/* types.c */
const ct_resource_type_t *resources__find_type(const char *type);
/* The plugin that registered a type (NULL: the kernel or a test). */
ct_plugin_o *resources__type_owner(const ct_resource_type_t *type);
int resources__register_type(const ct_resource_type_t *type);
void resources__unregister_type(const char *type);
int resources__replace_type(const ct_resource_type_t *type);
void resources__forget_types(void);

/* compile_ctx.c: compiles one source text into a whole blob (header + payload) allocated from
 * resources__allocator(); `path` names the source in messages. The blob is the caller's
 * (free with size *blob_size). Returns 0 or a negative ct_error, having logged why. */
int resources__compile_text(const ct_resource_type_t *type, const char *path, const char *text,
                            size_t len, uint8_t **blob, uint64_t *blob_size);

/* What one compile read besides its source text (the files named through source_file and
 * depends_on, each once, project-relative) and how many warnings it gave: cuttle-compile keeps
 * both in its manifest to know when the resource must be compiled again. */
#define RESOURCES_MAX_FILES 256       /* files one resource may be built from */
#define RESOURCES_MAX_FORMAT_NAME 63  /* "component.mesh" */
#define RESOURCES_MAX_FORMATS_USED 64 /* formats one resource may depend on */
#define RESOURCES_MAX_FILE_PATH 1024
typedef struct resources_compile_record_t {
    char **files; /* strings and array from resources__allocator() */
    uint32_t num_files, capacity;
    uint32_t warnings;
    /* Called (when set) the moment a file is first noted, which is before a compiler reads what
     * source_file handed it: the caller stamps the file then, so what it keeps says what the
     * compile read, not what is there once it ends. */
    void (*noted)(void *user, uint32_t index, const char *file);
    void *noted_user;
    /* The references the compile reported (ct_resource_api_v6.reference), one line each:
     * "type\tname\tfield\tline\tcolumn\tlength\n" (line and column 1-based, in bytes; 0 0 0
     * when the name was not found in the text). From resources__allocator(). */
    char *refs;
    uint32_t refs_len, refs_capacity;
    uint32_t num_refs;
    /* The formats the compile declared it depends on (uses_format), with their versions then. */
    struct {
        char what[RESOURCES_MAX_FORMAT_NAME + 1];
        uint32_t version;
    } formats[RESOURCES_MAX_FORMATS_USED];
    uint32_t num_formats;
} resources_compile_record_t;
/* resources__compile_text that also fills `record` (which the caller frees with
 * resources__record_free, whatever the result). */
int resources__compile_text_recorded(const ct_resource_type_t *type, const char *path,
                                     const char *text, size_t len, uint8_t **blob,
                                     uint64_t *blob_size, resources_compile_record_t *record);
void resources__record_free(resources_compile_record_t *record);
bool resources__depends_on(ct_compile_ctx_o *ctx, const char *field, const char *file);
void resources__write(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
uint64_t resources__written(const ct_compile_ctx_o *ctx);
void resources__compile_error(ct_compile_ctx_o *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void resources__compile_warning(ct_compile_ctx_o *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *resources__source_path(const ct_compile_ctx_o *ctx);
bool resources__source_file(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                            size_t out_size);
void resources__set_scope(ct_compile_ctx_o *ctx, const char *scope);
/* references.c: ct_resource_api_v6.reference. */
bool resources__reference(ct_compile_ctx_o *ctx, const char *field, const char *type,
                          const char *name);
/* What references.c needs of a compile context: the source text, the record, and where the
 * previous reference was found (the next one is searched from there). */
typedef struct resources_ref_cursor_t {
    const char *text;
    size_t len;
    size_t next; /* offset the next search starts at */
} resources_ref_cursor_t;
resources_ref_cursor_t *resources__ref_cursor(ct_compile_ctx_o *ctx);
resources_compile_record_t *resources__ctx_record(ct_compile_ctx_o *ctx);
/* Notes where `name` (of `type`, or RESOURCES_FILE_REF for a file) is written in the source,
 * for the reference index, without checking that it exists. False when out of memory (reported
 * as a compile error). */
#define RESOURCES_FILE_REF "@file"
bool resources__note_reference(ct_compile_ctx_o *ctx, const char *field, const char *type,
                               const char *name);

/* formats.c: ct_resource_api_v6.declare_format, format, uses_format. */
void resources__declare_format(const char *what, uint32_t version);
uint32_t resources__format(const char *what);
bool resources__uses_format(ct_compile_ctx_o *ctx, const char *what);
void resources__forget_formats(void);

/* renames.c: <project>/renames.log, the renames cuttle-deps made ("DATE TYPE OLD NEW"). */
typedef struct resources_rename_t {
    char date[32], type[64], old_name[512], new_name[512];
} resources_rename_t;
/* Its entries, oldest first (free() the array); NULL with *count 0 without a log. */
resources_rename_t *resources__read_renames(const char *project_dir, uint32_t *count);
/* The name (type, name) has now by the log, following later renames of the new name, and the
 * date of its first rename; false when the log never renamed it. */
bool resources__renamed_in(const resources_rename_t *log, uint32_t count, const char *type,
                           const char *name, char *to, size_t to_size, char *date,
                           size_t date_size);
bool resources__renamed_to(const char *project_dir, const char *type, const char *name, char *to,
                           size_t to_size, char *date, size_t date_size);

/* fields.c: ct_resource_api_v3.check_fields. */
bool resources__check_fields(ct_compile_ctx_o *ctx, const struct ct_data_o *object,
                             const char *what, const ct_field_t *fields, uint32_t num_fields);

/* loading.c */
int resources__load(const char *type, const char *name);
int resources__load_source(const char *type, const char *name, const char *source, size_t len);
void *resources__get(const char *type, const char *name);
/* The same from the project's source file, compiled again (ct_resource_api_v5.reload_source). */
int resources__reload_source(const char *type, const char *name);
/* How many times a loaded resource was replaced (either reload). */
uint64_t resources__reloads(void);
void resources__unload(const char *type, const char *name);
/* Unloads every resource of `type`, or of every type, whatever their load counts. */
void resources__unload_type(const ct_resource_type_t *type);
void resources__unload_all(void);

/* files.c: small filesystem helpers. */
/* Reads a whole file into memory from resources__allocator(); NULL (errno set) on failure. */
uint8_t *resources__read_file(const char *path, uint64_t *size);
/* The same, refusing (EFBIG) a file over `max` bytes before anything is allocated. */
uint8_t *resources__read_file_max(const char *path, uint64_t max, uint64_t *size);

/* watching.c: sources followed for hot reload (ct_resource_api_v5.watch_source). */
int resources__watch_source(const char *type, const char *name);
void resources__unwatch_source(const char *type, const char *name);
void resources__forget_watches(void);
/* Why resources__read_file failed, from its errno: a directory (EISDIR), not a regular file
 * (ENODEV: FIFOs are refused before they can block), too big (EFBIG), or the system's words. */
const char *resources__read_error(int error);

#endif
