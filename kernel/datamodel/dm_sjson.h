/*
 * The data model's SJSON reader: the kernel's syntax (implicit root object, optional commas, bare
 * keys, `=` or `:`, // and block comments), but lossless: every node keeps the byte spans of its
 * key and value in the text, so a writer can replace exactly one value and keep every comment,
 * blank and spelling around it. Change sets, the clipboard and level documents all read with it.
 * Hostile input never reads outside [text, text + len) and nesting is bounded (fuzzed).
 */
#ifndef CT_DM_SJSON_H
#define CT_DM_SJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DM_J_OBJECT = 1, DM_J_ARRAY, DM_J_STRING, DM_J_NUMBER, DM_J_TRUE, DM_J_FALSE, DM_J_NULL };

typedef struct dm_node_t {
    uint8_t type;
    uint32_t start, end;                /* the value's bytes (brackets and quotes included) */
    uint32_t key_start, key_end;        /* a member's key token (quotes included); 0, 0 in arrays */
    uint32_t parent, first, last, next; /* node indices, DM_NONE when absent */
    uint32_t count;                     /* members or elements */
    double num;                         /* DM_J_NUMBER */
} dm_node_t;

typedef struct dm_sjson_t {
    const char *text;
    uint32_t len;
    dm_node_t *nodes; /* nodes[0] is the root object (its braces implicit unless the text has) */
    uint32_t count, capacity;
} dm_sjson_t;

/* Parses; false with "file:line:col: what" in err on malformed text (free is still needed). */
bool dm_sjson__parse(dm_sjson_t *js, const char *text, size_t len, const char *filename, char *err,
                     size_t err_size);
void dm_sjson__free(dm_sjson_t *js);
/* The member of object `obj` named key (decoded comparison), or DM_NONE. */
uint32_t dm_sjson__get(const dm_sjson_t *js, uint32_t obj, const char *key);
/* Decodes a string node (or a member's key when `key`) into a malloc'd NUL-terminated string;
 * *len (may be NULL) gets its length. NULL when out of memory. */
char *dm_sjson__decode(const dm_sjson_t *js, uint32_t node, bool key, uint32_t *len);
/* The same into buf (no allocation): the decoded length, or UINT32_MAX when the token's source
 * bytes (an upper bound of the decoded length) do not fit in cap - 1. */
uint32_t dm_sjson__decode_to(const dm_sjson_t *js, uint32_t node, bool key, char *buf, size_t cap);
/* Whether a member's key equals `key`. */
bool dm_sjson__key_is(const dm_sjson_t *js, uint32_t node, const char *key);
/* "file:line:col" of byte `at` into out. */
void dm_sjson__where(const dm_sjson_t *js, uint32_t at, const char *filename, char *out,
                     size_t size);

#endif
