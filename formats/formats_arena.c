/* formats_arena.c: see formats_arena.h. */
#include "formats_arena.h"

#include <stdlib.h>
#include <string.h>

/* Every allocation gets its own block: readers allocate a few large arrays, not many small
 * objects, so a bump allocator would save little and hide the sizes from leak reports. */
struct formats__block {
    formats__block *next;
    size_t size; /* of the whole block, header included */
    _Alignas(16) unsigned char data[];
};

void *formats__alloc(formats__arena *a, size_t size)
{
    if (size > SIZE_MAX - sizeof(formats__block))
        return NULL;
    const size_t total = sizeof(formats__block) + size;
    formats__block *b = a->allocator ? ct_alloc(a->allocator, total) : malloc(total);
    if (!b)
        return NULL;
    memset(b, 0, total);
    b->size = total;
    b->next = a->blocks;
    a->blocks = b;
    return b->data;
}

void *formats__alloc_array(formats__arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return formats__alloc(a, count * size);
}

char *formats__strndup(formats__arena *a, const char *s, size_t len)
{
    char *d = formats__alloc(a, len + 1);
    if (d)
        memcpy(d, s, len);
    return d;
}

void formats__arena_free(formats__arena *a)
{
    formats__block *b = a->blocks;
    while (b) {
        formats__block *next = b->next;
        if (a->allocator)
            ct_free(a->allocator, b, b->size);
        else
            free(b);
        b = next;
    }
    a->blocks = NULL;
}
