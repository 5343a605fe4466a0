/*
 * formats_arena.h: the one allocation scheme of the source-format readers (private to formats/).
 *
 * A reader's output (a glTF document, a BVH file) is short-lived data a resource compiler reads
 * once and throws away, so everything it holds comes from one arena: a chain of blocks freed
 * together. Blocks come from the caller's allocator, or from malloc when it passes NULL (tools
 * and tests). No reader ever frees a single piece.
 */
#ifndef FORMATS_ARENA_H
#define FORMATS_ARENA_H

#include "ct_types.h"

typedef struct formats__block formats__block;

typedef struct formats__arena {
    ct_allocator_t *allocator; /* NULL: malloc */
    formats__block *blocks;
} formats__arena;

/* size bytes, 16-aligned and zeroed, or NULL when memory ran out. */
void *formats__alloc(formats__arena *a, size_t size);
/* count * size bytes, NULL on overflow as well. */
void *formats__alloc_array(formats__arena *a, size_t count, size_t size);
/* A NUL-terminated copy of len bytes of s. */
char *formats__strndup(formats__arena *a, const char *s, size_t len);
/* Frees every block. The arena may be used again afterwards. */
void formats__arena_free(formats__arena *a);

#endif
