/*
 * ct_types.h: the few types every Cuttle API header shares.
 *
 * Every other header in api/ includes this one; one that builds on another API includes that
 * header too and says so (ct_world.h on ct_entity.h, ct_module.h on ct_plugin.h and the SDK
 * helpers it uses). Each compiles on its own in C and C++ (tests/abi). This one depends only on
 * the C standard library.
 *
 * What lives here:
 *   - CT_EXPORT, the one attribute a plugin needs on `get_plugin_api`.
 *   - ct_get_api_f, the signature of both `get_plugin_api` and `get_engine_api`.
 *   - ct_error, the engine's error codes as one X-macro list (enum + names).
 *   - ct_allocator_t, the allocator interface every module allocates through.
 *   - the Lua types that API tables mention (a plugin never needs lua.h to use them).
 */
#ifndef CT_TYPES_H
#define CT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the one symbol a plugin exports. Everything else in a plugin should be `static`. */
#if defined(_WIN32)
#define CT_EXPORT __declspec(dllexport)
#else
#define CT_EXPORT __attribute__((visibility("default")))
#endif

/*
 * The query function. `api` is a 32-bit API id (see ct_plugin.h: the MurmurHash2 of the API's
 * name), `version` the major version of a frozen struct. The answer is a pointer to the API table
 * or NULL when that API is not available at that version: callers must handle NULL.
 */
typedef void *(*ct_get_api_f)(uint32_t api, uint32_t version);

/*
 * Error codes. Functions that can fail because the environment failed (I/O, memory, sockets) or
 * because data was bad return 0 on success or one of these, negative. ct_error_name() turns a code
 * into its identifier and ct_error_message() into a sentence (both in ct_log_api_v1).
 */
#define CT_ERROR_MAP(X)                                                                            \
    X(OK, 0, "success")                                                                            \
    X(NOMEM, -1, "out of memory")                                                                  \
    X(IO, -2, "input/output error")                                                                \
    X(NOT_FOUND, -3, "not found")                                                                  \
    X(INVALID, -4, "invalid argument")                                                             \
    X(BAD_DATA, -5, "malformed or corrupt data")                                                   \
    X(VERSION, -6, "unsupported version")                                                          \
    X(MISSING_API, -7, "a required API is not available")                                          \
    X(CONFLICT, -8, "two providers or names conflict")                                             \
    X(CYCLE, -9, "dependency cycle")                                                               \
    X(INIT_FAILED, -10, "initialisation failed")                                                   \
    X(LUA, -11, "Lua error")                                                                       \
    X(FULL, -12, "capacity exhausted")                                                             \
    X(STALE, -13, "handle refers to something that no longer exists")

/* CT_ERR_OK (0) and the negative codes of CT_ERROR_MAP, as CT_ERR_<name>. */
typedef enum ct_error {
#define CT__ERROR_ENUM(name, code, msg) CT_ERR_##name = code,
    CT_ERROR_MAP(CT__ERROR_ENUM)
#undef CT__ERROR_ENUM
} ct_error;

/*
 * An allocator. Every module allocates through one it was given (never malloc directly), so the
 * kernel can count bytes per owner, report leaks at shutdown and switch on debug fills and
 * canaries. `realloc` with new_size 0 frees and returns NULL; with ptr NULL it allocates.
 * `old_size` must be the size the block was allocated with (allocators do not store sizes for
 * you; debug modes check it). Allocation failure returns NULL. Thread-safe.
 * `file`/`line` name the call site in leak reports: use the ct_alloc/ct_free macros.
 */
typedef struct ct_allocator_o ct_allocator_o;
typedef struct ct_allocator_t {
    ct_allocator_o *inst; /* the allocator's own state */
    /* Allocates, resizes or frees (see above); call it through ct_alloc, ct_free, ct_realloc. */
    void *(*realloc)(struct ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                     const char *file, uint32_t line);
} ct_allocator_t;

#define ct_alloc(a, size) ((a)->realloc((a), NULL, 0, (size), __FILE__, __LINE__))
#define ct_free(a, ptr, size) ((void)(a)->realloc((a), (ptr), (size), 0, __FILE__, __LINE__))
#define ct_realloc(a, ptr, old_size, new_size)                                                     \
    ((a)->realloc((a), (ptr), (old_size), (new_size), __FILE__, __LINE__))

/* A loaded plugin as the kernel knows it. Opaque; passed back to the kernel to tag logs etc. */
typedef struct ct_plugin_o ct_plugin_o;

/* Lua's own types, declared here so API tables can mention them without lua.h. */
typedef struct lua_State lua_State;
typedef int (*lua_CFunction)(lua_State *L);

#ifdef __cplusplus
}
#endif
#endif
