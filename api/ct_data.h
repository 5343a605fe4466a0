/*
 * ct_data.h: source data trees (SJSON and JSON). Kernel API "ct.data".
 *
 * Source data is written in SJSON, the seed's simplified JSON: the root braces are implicit,
 * commas are optional, keys may be bare identifiers, `=` may stand for `:`, and `//` and block
 * comments are allowed. Plain JSON is valid SJSON. Example:
 *
 *     name = "crate"
 *     mass = 10
 *     tags = [ "wood" "breakable" ]
 *     shape = { type = "box" half_extents = [0.5 0.5 0.5] }
 *
 * Parsing gives a read-only tree of ct_data_o nodes owned by the root. Walk children linearly
 * with first_child/next. Errors name the file, line and column.
 *
 * Threads: any. Parsing touches no shared state, and a tree is never changed after parsing, so
 * several threads may read one tree at once (destroy it only when all are done).
 */
#ifndef CT_DATA_H
#define CT_DATA_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_DATA_API 0x220278b7u /* "ct.data" */

/* A node of a parsed tree (opaque; owned by the root that destroy frees). */
typedef struct ct_data_o ct_data_o;

/* The type of a node; CT_DATA_INVALID for NULL. */
typedef enum ct_data_type {
    CT_DATA_INVALID = 0,
    CT_DATA_NULL,
    CT_DATA_BOOL,
    CT_DATA_NUMBER,
    CT_DATA_STRING,
    CT_DATA_ARRAY,
    CT_DATA_OBJECT,
} ct_data_type;

typedef struct ct_data_api_v1 {
    /*
     * Parses SJSON (or JSON) text of `len` bytes. `filename` only names the text in messages.
     * On error returns NULL and writes "file:line:col: what" into err (err_size bytes,
     * NUL-terminated; err may be NULL). The tree is the caller's: free it with destroy.
     */
    ct_data_o *(*parse)(const char *text, size_t len, const char *filename, char *err,
                        size_t err_size);
    /* Reads and parses a file; errors as parse (a missing file says so). */
    ct_data_o *(*load_file)(const char *path, char *err, size_t err_size);
    /* Frees a tree returned by parse or load_file. Accepts NULL. */
    void (*destroy)(ct_data_o *root);

    /* The node's type (CT_DATA_INVALID for NULL). */
    ct_data_type (*type)(const ct_data_o *node);
    /* Member of an object by key (NULL if absent or node is not an object). */
    const ct_data_o *(*get)(const ct_data_o *object, const char *key);
    /* Children of an array or object, in order. next() of the last child is NULL. */
    const ct_data_o *(*first_child)(const ct_data_o *node);
    const ct_data_o *(*next)(const ct_data_o *child);
    /* Number of children (linear time). */
    uint32_t (*count)(const ct_data_o *node);
    /* The key of an object member ("" for array elements). */
    const char *(*key)(const ct_data_o *member);

    /* Values, or `fallback` when the node is NULL or of another type. */
    double (*number)(const ct_data_o *node, double fallback);
    bool (*boolean)(const ct_data_o *node, bool fallback);
    const char *(*string)(const ct_data_o *node, const char *fallback);
} ct_data_api_v1;

#ifdef __cplusplus
}
#endif
#endif
