/*
 * The string literals of a Lua chunk, for soft references (deps.h). A tokenizer just good enough
 * to tell strings from comments and code: a name inside a comment is not a reference, a name in
 * a string is one whatever the code does with it. Malformed text never reads past the end: an
 * unterminated string ends at its line's end, an unterminated long string or comment at the end.
 */
#include <string.h>

#include "deps.h"

typedef struct lexer_t {
    const char *text;
    size_t len, at;
    uint32_t line;
    size_t line_start;
} lexer_t;

static void advance(lexer_t *x)
{
    if (x->text[x->at] == '\n') {
        x->line++;
        x->line_start = x->at + 1;
    }
    x->at++;
}

/* At '[': the level of a long bracket "[==[" (2), or -1 when it is not one. */
static int long_level(const lexer_t *x)
{
    size_t i = x->at + 1;
    int level = 0;
    while (i < x->len && x->text[i] == '=') {
        level++;
        i++;
    }
    return i < x->len && x->text[i] == '[' ? level : -1;
}

/* Skips a long bracket of `level` whose opening starts at x->at; calls found for its content
 * when `found` is set. */
static void long_bracket(lexer_t *x, int level,
                         void (*found)(void *, const char *, size_t, uint32_t, uint32_t),
                         void *user)
{
    x->at += (size_t)level + 2;
    if (x->at < x->len && x->text[x->at] == '\n') /* Lua drops a first newline */
        advance(x);
    const size_t start = x->at;
    const uint32_t line = x->line;
    const uint32_t column = (uint32_t)(start - x->line_start) + 1;
    while (x->at < x->len) {
        if (x->text[x->at] == ']') {
            size_t i = x->at + 1;
            int n = 0;
            while (i < x->len && x->text[i] == '=') {
                n++;
                i++;
            }
            if (n == level && i < x->len && x->text[i] == ']') {
                if (found)
                    found(user, x->text + start, x->at - start, line, column);
                x->at = i + 1;
                return;
            }
        }
        advance(x);
    }
}

void deps_lua_literals(const char *text, size_t len,
                       void (*found)(void *user, const char *s, size_t n, uint32_t line,
                                     uint32_t column),
                       void *user)
{
    lexer_t x = {.text = text, .len = len, .line = 1};
    while (x.at < x.len) {
        const char c = text[x.at];
        if (c == '-' && x.at + 1 < len && text[x.at + 1] == '-') {
            x.at += 2;
            int level = x.at < len && text[x.at] == '[' ? long_level(&x) : -1;
            if (level >= 0) {
                long_bracket(&x, level, NULL, NULL);
            } else {
                while (x.at < len && text[x.at] != '\n')
                    x.at++;
            }
        } else if (c == '[' && long_level(&x) >= 0) {
            long_bracket(&x, long_level(&x), found, user);
        } else if (c == '"' || c == '\'') {
            advance(&x);
            const size_t start = x.at;
            const uint32_t line = x.line;
            const uint32_t column = (uint32_t)(start - x.line_start) + 1;
            while (x.at < len && text[x.at] != c && text[x.at] != '\n') {
                if (text[x.at] == '\\' && x.at + 1 < len)
                    advance(&x);
                advance(&x);
            }
            if (x.at < len && text[x.at] == c) {
                found(user, text + start, x.at - start, line, column);
                x.at++;
            }
        } else {
            advance(&x);
        }
    }
}
