/*
 * ct_resource.h: named, compiled resources. Kernel API "ct.resource".
 *
 * Names (after the seed post "What Is In a Name?"). A resource is named by its canonical
 * project-relative path without extension plus its type, which is the source file's extension:
 * the source `levels/arena.level` is the resource ("level", "levels/arena"). Canonical means:
 * lower-case ASCII letters, digits, '_', '-', '.', and '/' between non-empty segments; no leading
 * or trailing '/', no '.' or '..' segments, no '//', no backslashes, and the spelling on disk
 * must match exactly. A non-canonical name is refused with a message saying why; it is never
 * normalised silently. Type and name are hashed separately with 64-bit MurmurHash64A (seed 0).
 *
 * Source data (SJSON) is compiled by `cuttle-compile --project DIR` into DIR/compiled/, one blob
 * per resource, only when the source or the compiler's format version changed. Each blob starts
 * with a ct_blob_header_t; on load the kernel checks magic, header version, type, format version,
 * size and checksum, then hands the payload to the type's `load`, which validates its own layout
 * (every offset and count in range). A bad blob is refused with a message naming it; nothing is
 * ever read out of bounds.
 *
 * Lua: Resource.load(type, name) loads a compiled resource ahead of use (raising an error that
 * names it on failure) and Resource.unload(type, name) drops that load.
 *
 * Resource types are registered by modules (the entities module registers "level" and "unit").
 *
 * Threads: main thread only, like the callbacks of the types.
 */
#ifndef CT_RESOURCE_H
#define CT_RESOURCE_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_RESOURCE_API 0x0dd8dc27u /* "ct.resource" */

/* The header every compiled blob starts with. Little-endian, 40 bytes, frozen. */
#define CT_BLOB_MAGIC 0x42525443u /* "CTRB" */
#define CT_BLOB_HEADER_VERSION 1u
/* The compiled blob's header (see above). */
typedef struct ct_blob_header_t {
    uint32_t magic;          /* CT_BLOB_MAGIC */
    uint32_t header_version; /* CT_BLOB_HEADER_VERSION */
    uint64_t type;           /* MurmurHash64A of the type name */
    uint32_t format_version; /* the type's format_version when compiled */
    uint32_t reserved;       /* 0 */
    uint64_t payload_size;   /* bytes after the header */
    uint64_t checksum;       /* MurmurHash64A of the payload */
} ct_blob_header_t;

/* A resource's identity: the hashes of its type and of its canonical name (see id()). */
typedef struct ct_resource_id_t {
    uint64_t type; /* ct_hash64 of the type name ("unit") */
    uint64_t name; /* ct_hash64 of the canonical name ("units/crate") */
} ct_resource_id_t;

struct ct_data_o;
/* One compile in progress, handed to a type's compile callback (opaque). */
typedef struct ct_compile_ctx_o ct_compile_ctx_o;

/*
 * A resource type. All callbacks run on the main thread.
 *   compile: turns the parsed source into the payload with resource_api->write(ctx, ...).
 *            Report bad data with resource_api->compile_error(ctx, ...) (which names the file)
 *            and return a negative ct_error. The kernel writes the header.
 *   load:    validates `payload` (size bytes, already checksummed) and returns the runtime
 *            object, which may be `payload` itself (the kernel keeps the payload alive until
 *            unload). On bad data returns NULL and writes the reason into err.
 *   unload:  releases what load made. Optional.
 */
typedef struct ct_resource_type_t {
    const char *type; /* "level"; also the source file extension */
    uint32_t format_version;
    void *user_data;
    int (*compile)(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx);
    void *(*load)(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size);
    void (*unload)(void *user_data, void *runtime);
} ct_resource_type_t;

typedef struct ct_resource_api_v1 {
    /* Registers a type (the struct is copied; strings must stay valid). CT_ERR_CONFLICT if the
     * type name is taken. */
    int (*register_type)(const ct_resource_type_t *type);
    /* Unloads every resource of that type and forgets the type. */
    void (*unregister_type)(const char *type);

    /* 0 if `name` is canonical, else CT_ERR_INVALID with the reason in err. */
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);

    /* Loads the compiled resource from the project's compiled folder. 0 if loaded (or already
     * loaded: loads are counted), else a negative ct_error with the reason logged. */
    int (*load)(const char *type, const char *name);
    /* Compiles `source` text (SJSON) in memory and loads the result under `name`, without files:
     * for tests, tools and generated content. Errors as load. */
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    /* The runtime object of a loaded resource, or NULL. */
    void *(*get)(const char *type, const char *name);
    /* Drops one load; the last unload calls the type's unload. */
    void (*unload)(const char *type, const char *name);

    /* For compile callbacks: appends bytes to the payload; the current payload size. */
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    /* For compile callbacks: logs "file: message" as an error (the compile then fails) or a
     * warning; the project-relative source path being compiled. */
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    /* True when the kernel runs with --strict (warnings about data should become errors). */
    bool (*strict)(void);
    /* For hot reload: gives a registered type new callbacks and user_data (same name, same
     * format_version); loaded resources stay loaded, and the new unload will release what the old
     * load made. CT_ERR_NOT_FOUND or CT_ERR_VERSION otherwise (CT_ERR_INVALID without compile or
     * load), logged, with the type left as it was. */
    int (*replace_type)(const ct_resource_type_t *type);
} ct_resource_api_v1;

/* Version 2: everything of v1 (same order, same meaning), plus files a source names. */
typedef struct ct_resource_api_v2 {
    int (*register_type)(const ct_resource_type_t *type);
    void (*unregister_type)(const char *type);
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);
    int (*load)(const char *type, const char *name);
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    void *(*get)(const char *type, const char *name);
    void (*unload)(const char *type, const char *name);
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    bool (*strict)(void);
    int (*replace_type)(const ct_resource_type_t *type);

    /*
     * For compile callbacks whose source names another file (an animation clip's
     * `source = "mocap/walk.bvh"`): writes into out the path to open for the project-relative
     * name `file`, which must be canonical (see the top of this header; so it cannot leave the
     * project). Returns false, having reported "source: field: why" as a compile error, for a bad
     * name, a path too long for out, or when there is no project folder (load_source without a
     * project). The file is noted as one the resource is built from (see depends_on in v4):
     * cuttle-compile compiles the resource again when the file changes or disappears.
     */
    bool (*source_file)(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                        size_t out_size);
} ct_resource_api_v2;

/*
 * One field a compiler reads from a source object, for check_fields. `type` is a ct_data_type
 * (ct_data.h): CT_DATA_NUMBER, CT_DATA_STRING, ...; 0 (CT_DATA_INVALID) accepts any type (the
 * compiler checks it). For CT_DATA_ARRAY, `numbers` > 0 requires exactly that many finite
 * numbers ([x y z] is {"position", CT_DATA_ARRAY, 3}).
 */
typedef struct ct_field_t {
    const char *name; /* the field's key in the source object */
    int32_t type;
    uint32_t numbers;
} ct_field_t;

/*
 * Version 3: everything of v2 (same order, same meaning), plus the one way every compiler checks
 * the fields it reads, and scopes that make every message name the entity (or other part) at
 * fault:
 *
 *     static const ct_field_t body_fields[] = {
 *         {"mass", CT_DATA_NUMBER, 0}, {"velocity", CT_DATA_ARRAY, 3}, {"kind", CT_DATA_STRING, 0},
 *     };
 *     if (!res->check_fields(ctx, source, "body", body_fields, 3))
 *         return CT_ERR_BAD_DATA;
 *
 * reports, for instance, "levels/arena.level: entity 'crate': body.masss: unknown field (did you
 * mean 'mass'?)".
 */
typedef struct ct_resource_api_v3 {
    int (*register_type)(const ct_resource_type_t *type);
    void (*unregister_type)(const char *type);
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);
    int (*load)(const char *type, const char *name);
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    void *(*get)(const char *type, const char *name);
    void (*unload)(const char *type, const char *name);
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    bool (*strict)(void);
    int (*replace_type)(const ct_resource_type_t *type);
    bool (*source_file)(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                        size_t out_size);

    /* Checks that `object` is an object whose every member is one of the `num_fields` fields,
     * with the declared type. Each problem is a compile error (the compile fails) naming the
     * file, the scope, `what` ("body"; NULL for none) and the field: an unknown field with the
     * nearest known name (or the list of known ones), a wrong type, a wrong number of numbers,
     * a number that is not finite. Returns true when there was no problem. */
    bool (*check_fields)(ct_compile_ctx_o *ctx, const struct ct_data_o *object, const char *what,
                         const ct_field_t *fields, uint32_t num_fields);
    /* Names the part of the source being compiled ("entity 'crate'"); compile_error,
     * compile_warning and check_fields put it after the file name until the next call. The text
     * is copied (up to 255 bytes); NULL or "" clears it. */
    void (*set_scope)(ct_compile_ctx_o *ctx, const char *scope);
    /* Of `count` names, the one nearest to `word` (a plausible misspelling: at most a third of
     * its letters, and at least 2, differ), or NULL. For compilers' own "did you mean" hints. */
    const char *(*nearest_name)(const char *word, const char *const *names, uint32_t count);
} ct_resource_api_v3;

/*
 * Version 4: everything of v3 (same order, same meaning), plus the files a resource is built
 * from besides its source.
 *
 * cuttle-compile keeps, per compiled source, the files its compile read (their time, size and
 * content hash) and compiles it again when any of them changes or is gone, as it does when the
 * source itself changes. Files opened through source_file are noted by it; a compiler declares
 * the others itself, typically files a reader found on its own (the .bin buffers beside a .gltf):
 *
 *     if (!res->source_file(ctx, "source", name, path, sizeof path))   // notes "models/box.gltf"
 *         return CT_ERR_BAD_DATA;
 *     ct_gltf_t *doc = ct_gltf_load_file(path, ...);
 *     for (uint32_t i = 0; i < doc->num_files; i++)                    // "models/box.bin"
 *         res->depends_on(ctx, "source", joined(folder_of(name), doc->files[i]));
 *
 * A compile that fails keeps nothing, so it is tried again on the next run whatever changed.
 */
typedef struct ct_resource_api_v4 {
    int (*register_type)(const ct_resource_type_t *type);
    void (*unregister_type)(const char *type);
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);
    int (*load)(const char *type, const char *name);
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    void *(*get)(const char *type, const char *name);
    void (*unload)(const char *type, const char *name);
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    bool (*strict)(void);
    int (*replace_type)(const ct_resource_type_t *type);
    bool (*source_file)(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                        size_t out_size);
    bool (*check_fields)(ct_compile_ctx_o *ctx, const struct ct_data_o *object, const char *what,
                         const ct_field_t *fields, uint32_t num_fields);
    void (*set_scope)(ct_compile_ctx_o *ctx, const char *scope);
    const char *(*nearest_name)(const char *word, const char *const *names, uint32_t count);

    /* For compile callbacks: notes that the resource is also built from `file`, a path relative
     * to the project folder: '/' between non-empty segments, no '.' or '..' segment, no
     * backslash (any case; it need not be a canonical name, since it names a file someone else
     * made). The same file noted twice counts once; at most 256 files per resource. Returns
     * false, having reported "source: field: why" as a compile error (so the compile fails), for
     * a bad path or too many files. Outside cuttle-compile (load_source) it only checks the path.
     * Whether the file exists is for the compiler to find out when it reads it. */
    bool (*depends_on)(ct_compile_ctx_o *ctx, const char *field, const char *file);
} ct_resource_api_v4;

/*
 * Version 5: everything of v4 (same order, same meaning), plus hot reload for modules: one way
 * for every module to have its loaded resources follow their sources while the engine runs
 * (edited with --watch or not), so none keeps a private path that reads and compiles sources.
 *
 *     res->load("render_config", "default");
 *     res->watch_source("render_config", "default");   // once, after the load
 *     ...each frame:
 *     if (res->reloads() != seen) {                      // something was replaced
 *         seen = res->reloads();
 *         adopt(res->get("render_config", "default"));   // get() answers the new object
 *     }
 *
 * A reload makes the new runtime object with the type's load, swaps it in (get() returns it; the
 * load count stays) and then unloads the old one, so a module must not keep what get() returned
 * across a frame without comparing reloads(). Main thread only, like the rest of this API.
 */
#define CT_RESOURCE_MAX_SOURCE_BYTES (16u << 20) /* a source reload_source reads, at most */

typedef struct ct_resource_api_v5 {
    int (*register_type)(const ct_resource_type_t *type);
    void (*unregister_type)(const char *type);
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);
    int (*load)(const char *type, const char *name);
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    void *(*get)(const char *type, const char *name);
    void (*unload)(const char *type, const char *name);
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    bool (*strict)(void);
    int (*replace_type)(const ct_resource_type_t *type);
    bool (*source_file)(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                        size_t out_size);
    bool (*check_fields)(ct_compile_ctx_o *ctx, const struct ct_data_o *object, const char *what,
                         const ct_field_t *fields, uint32_t num_fields);
    void (*set_scope)(ct_compile_ctx_o *ctx, const char *scope);
    const char *(*nearest_name)(const char *word, const char *const *names, uint32_t count);
    bool (*depends_on)(ct_compile_ctx_o *ctx, const char *field, const char *file);

    /* Compiles a loaded resource again from its source in the project folder
     * (<project>/<name>.<type>) and swaps the new runtime object in. The source is read the way
     * blobs are: opened without blocking and refused unless it is a regular file (a FIFO, a
     * device such as /dev/zero, a directory: never waited on, never read), and refused over
     * CT_RESOURCE_MAX_SOURCE_BYTES. On any failure the loaded version stays and the log says why,
     * naming the file. Returns 0, CT_ERR_NOT_FOUND (not loaded), CT_ERR_IO (unreadable),
     * CT_ERR_BAD_DATA (does not compile or load) or CT_ERR_NOMEM. */
    int (*reload_source)(const char *type, const char *name);
    /* Follows a loaded resource's source: at each frame's safe point (after the frame's hooks
     * and script, where plugins are hot-reloaded too) the kernel compares the file's modification
     * time, size and inode with what it saw before and, when they differ, calls reload_source
     * once for that change. Following the same resource twice follows it once; it ends with
     * unwatch_source or when the resource's last load is unloaded. At most 256 sources are
     * followed. Returns 0, CT_ERR_NOT_FOUND (not loaded) or CT_ERR_FULL. */
    int (*watch_source)(const char *type, const char *name);
    void (*unwatch_source)(const char *type, const char *name);
    /* How many times since boot a loaded resource was replaced by a reload (reload_source, a
     * followed source, the console's `reload`). Cheap: compare it each frame and ask get()
     * again for what you keep when it moved. */
    uint64_t (*reloads)(void);
} ct_resource_api_v5;

/*
 * Version 6: everything of v5 (same order, same meaning; the members older versions added are
 * documented where they were added), plus the references a source makes to other resources, so
 * that tools know every one of them (cuttle-deps: uses, used-by, missing, unused, renames that
 * rewrite each reference in place):
 *
 *     const char *mesh = data->string(data->get(src, "mesh"), NULL);
 *     if (!res->reference(ctx, "mesh.mesh", "mesh", mesh))   // unit -> meshes/crate.mesh
 *         return CT_ERR_BAD_DATA;
 *
 * A compiler calls it for each resource name it reads from its source, in the order they appear.
 */
typedef struct ct_resource_api_v6 {
    int (*register_type)(const ct_resource_type_t *type);
    void (*unregister_type)(const char *type);
    int (*check_name)(const char *name, char *err, size_t err_size);
    ct_resource_id_t (*id)(const char *type, const char *name);
    int (*load)(const char *type, const char *name);
    int (*load_source)(const char *type, const char *name, const char *source, size_t len);
    void *(*get)(const char *type, const char *name);
    void (*unload)(const char *type, const char *name);
    void (*write)(ct_compile_ctx_o *ctx, const void *bytes, uint64_t size);
    uint64_t (*written)(const ct_compile_ctx_o *ctx);
    void (*compile_error)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*compile_warning)(ct_compile_ctx_o *ctx, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    const char *(*source_path)(const ct_compile_ctx_o *ctx);
    bool (*strict)(void);
    int (*replace_type)(const ct_resource_type_t *type);
    bool (*source_file)(ct_compile_ctx_o *ctx, const char *field, const char *file, char *out,
                        size_t out_size);
    bool (*check_fields)(ct_compile_ctx_o *ctx, const struct ct_data_o *object, const char *what,
                         const ct_field_t *fields, uint32_t num_fields);
    void (*set_scope)(ct_compile_ctx_o *ctx, const char *scope);
    const char *(*nearest_name)(const char *word, const char *const *names, uint32_t count);
    bool (*depends_on)(ct_compile_ctx_o *ctx, const char *field, const char *file);

    /* Compiles a loaded resource again from its source in the project folder
     * (<project>/<name>.<type>) and swaps the new runtime object in. The source is read the way
     * blobs are: opened without blocking and refused unless it is a regular file (a FIFO, a
     * device such as /dev/zero, a directory: never waited on, never read), and refused over
     * CT_RESOURCE_MAX_SOURCE_BYTES. On any failure the loaded version stays and the log says why,
     * naming the file. Returns 0, CT_ERR_NOT_FOUND (not loaded), CT_ERR_IO (unreadable),
     * CT_ERR_BAD_DATA (does not compile or load) or CT_ERR_NOMEM. */
    int (*reload_source)(const char *type, const char *name);
    /* Follows a loaded resource's source: at each frame's safe point (after the frame's hooks
     * and script, where plugins are hot-reloaded too) the kernel compares the file's modification
     * time, size and inode with what it saw before and, when they differ, calls reload_source
     * once for that change. Following the same resource twice follows it once; it ends with
     * unwatch_source or when the resource's last load is unloaded. At most 256 sources are
     * followed. Returns 0, CT_ERR_NOT_FOUND (not loaded) or CT_ERR_FULL. */
    int (*watch_source)(const char *type, const char *name);
    void (*unwatch_source)(const char *type, const char *name);
    /* How many times since boot a loaded resource was replaced by a reload (reload_source, a
     * followed source, the console's `reload`). Cheap: compare it each frame and ask get()
     * again for what you keep when it moved. */
    uint64_t (*reloads)(void);

    /* Notes that the source being compiled names the resource `name` of `type` in `field` (the
     * path of the field in messages: "mesh.material"). The kernel finds where the name is
     * written in the source text (line, column and length of the string's bytes, searching
     * forward from the previous reference) and, under cuttle-compile, keeps it in the project's
     * reference index (compiled/references/<source>.refs). Under cuttle-compile a name with
     * neither a source (<project>/<name>.<type>) nor a blob is a compile error naming the file,
     * the field, the missing name and the nearest existing name of that type, or, when the
     * project's renames.log (written by `cuttle-deps mv`) renamed it, "`units/old` was renamed to
     * `units/new` on DATE; run `cuttle-deps fix`". Files named through source_file and depends_on
     * are indexed too (type "@file"), so cuttle-deps can move them. Returns false,
     * having reported why as a compile error, for a name that is not canonical, a missing
     * resource or no memory; true otherwise (outside cuttle-compile it only checks the name). */
    bool (*reference)(ct_compile_ctx_o *ctx, const char *field, const char *type, const char *name);

    /*
     * Compiled data that knows its format. A resource type's blobs carry its format_version in
     * their header; these say the same for what a blob holds of other parts, such as a
     * component type's instances inside every level and unit:
     *
     *     res->declare_format("component.mesh", 3);           // the rendering module, at init
     *     ...
     *     res->uses_format(ctx, "component.mesh");             // the entities compiler, per section
     *     uint32_t v = res->format("component.mesh");          // written beside the section
     *
     * declare_format sets the version of `what` (1 to 63 bytes; a later call, such as a hot
     * reload's, replaces it). format returns it, 0 when nobody declared it. uses_format notes
     * that the source being compiled depends on the version declared now: cuttle-compile keeps
     * it per source and compiles the source again, naming why, when the declared version differs
     * at a later run (as it does when the type's format_version or the plugin that provides the
     * type changes). Returns false, having reported why as a compile error, for a bad name or
     * more than 64 formats in one resource. A loader that finds another version in a blob
     * refuses it with "recompile" rather than read it.
     */
    void (*declare_format)(const char *what, uint32_t version);
    uint32_t (*format)(const char *what);
    bool (*uses_format)(ct_compile_ctx_o *ctx, const char *what);
} ct_resource_api_v6;

#ifdef __cplusplus
}
#endif
#endif
