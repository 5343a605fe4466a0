/* The nearest known name to a misspelt one, for messages such as "unknown key 'boot_scirpt'
 * (did you mean 'boot_script'?)". Optimal string alignment distance: insertions, deletions,
 * substitutions and swaps of two neighbours each cost one. */
#include <string.h>

#include "data/nearest.h"

#define NEAREST_MAX_LEN 64 /* longer names are compared on their first 64 bytes */

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t data__edit_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, NEAREST_MAX_LEN), m = strnlen(b, NEAREST_MAX_LEN);
    size_t d[NEAREST_MAX_LEN + 1][NEAREST_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    }
    return d[n][m];
}

const char *data__nearest_name(const char *word, const char *const *names, uint32_t count)
{
    if (!word || !names)
        return NULL;
    /* A suggestion must be closer than a rewrite: at most a third of the word, and at least 2. */
    size_t len = strnlen(word, NEAREST_MAX_LEN);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    const char *best = NULL;
    size_t best_distance = limit + 1;
    for (uint32_t i = 0; i < count; i++) {
        if (!names[i])
            continue;
        size_t distance = data__edit_distance(word, names[i]);
        if (distance < best_distance) {
            best = names[i];
            best_distance = distance;
        }
    }
    return best;
}
