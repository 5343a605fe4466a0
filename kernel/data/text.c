/* Text into a growing buffer (data/text.h). */
#include "data/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void data__text_put(data_text_t *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = 0;
}

void data__text_puts(data_text_t *t, const char *s) { data__text_put(t, s, strlen(s)); }

void data__text_number(data_text_t *t, double d)
{
    if (!isfinite(d)) {
        data__text_put(t, "null", 4);
        return;
    }
    char buf[32];
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    data__text_put(t, buf, (size_t)n);
}

void data__text_string(data_text_t *t, const char *s, size_t n)
{
    data__text_put(t, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        data__text_put(t, s + run, i - run);
        char esc[8];
        int k = c == '"'    ? snprintf(esc, sizeof esc, "\\\"")
                : c == '\\' ? snprintf(esc, sizeof esc, "\\\\")
                : c == '\n' ? snprintf(esc, sizeof esc, "\\n")
                : c == '\t' ? snprintf(esc, sizeof esc, "\\t")
                            : snprintf(esc, sizeof esc, "\\u%04x", c);
        data__text_put(t, esc, (size_t)k);
        run = i + 1;
    }
    data__text_put(t, s + run, n - run);
    data__text_put(t, "\"", 1);
}
