/*
 * Text written into one growing buffer: JSON (or SJSON) output of the kernel's parts, without
 * building a tree first. A failed allocation sets `failed` and every later write does nothing,
 * so a writer checks once at the end. The buffer is always NUL-terminated; free(t.s) when done.
 *
 *   data_text_t t = {0};
 *   data__text_puts(&t, "{\"name\":");
 *   data__text_string(&t, name, strlen(name));
 *   data__text_puts(&t, "}");
 *   if (!t.failed) send(t.s, t.len);
 *   free(t.s);
 */
#ifndef CT_KERNEL_DATA_TEXT_H
#define CT_KERNEL_DATA_TEXT_H

#include <stddef.h>

#include "ct_types.h"

typedef struct data_text_t {
    char *s; /* NULL until the first write */
    size_t len, cap;
    bool failed; /* out of memory: the text is incomplete */
} data_text_t;

void data__text_put(data_text_t *t, const char *s, size_t n);
void data__text_puts(data_text_t *t, const char *s);
/* The shortest spelling of d that reads back exactly; "null" when d is not finite (JSON has no
 * spelling for it). */
void data__text_number(data_text_t *t, double d);
/* s[0..n) as a JSON string: quotes, and escapes for quote, backslash and control bytes. */
void data__text_string(data_text_t *t, const char *s, size_t n);

#endif
