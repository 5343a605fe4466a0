/* The nearest known name to a misspelt one, for messages that suggest the fix. */
#ifndef CT_KERNEL_NEAREST_H
#define CT_KERNEL_NEAREST_H

#include "ct_types.h"

/* Edits (insert, delete, substitute, swap neighbours) from a to b, on their first 64 bytes. */
size_t data__edit_distance(const char *a, const char *b);
/* The name in names[0..count) nearest to `word`, or NULL when none is close enough to be a
 * plausible misspelling (at most max(2, len / 3) edits). NULL entries are skipped. */
const char *data__nearest_name(const char *word, const char *const *names, uint32_t count);

#endif
