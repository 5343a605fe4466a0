/*
 * The built-in preprocessor filter (see censor_ifdef.h for what it keeps and removes). One pass
 * over the lines with a stack of open conditional groups; a light lexer tracks block comments
 * across lines so a `#if` inside a comment is not taken for a directive.
 */
#include "censor_ifdef.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool censor_ifdef_add(censor_ifdef_t *f, const char *option, char *err, size_t err_size)
{
    bool define = !strncmp(option, "-D", 2), undefine = !strncmp(option, "-U", 2);
    const char *name = option + 2;
    size_t len = strcspn(name, "=");
    bool valid =
        (define || undefine) && len > 0 && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 0; valid && i < len; i++)
        valid = isalnum((unsigned char)name[i]) || name[i] == '_';
    long long value = 1;
    if (valid && name[len] == '=') {
        char *end;
        value = strtoll(name + len + 1, &end, 0);
        valid = define && end != name + len + 1 && *end == '\0';
    }
    if (!valid) {
        snprintf(err, err_size, "'%s' is not -DSYMBOL, -DSYMBOL=INTEGER or -USYMBOL", option);
        return false;
    }
    if (f->num_symbols == CENSOR_IFDEF_MAX_SYMBOLS) {
        snprintf(err, err_size, "more than %d symbols", CENSOR_IFDEF_MAX_SYMBOLS);
        return false;
    }
    f->symbols[f->num_symbols++] =
        (censor_symbol_t){.name = name, .defined = define, .value = value};
    return true;
}

static const censor_symbol_t *find_symbol(const censor_ifdef_t *f, const char *name, size_t len)
{
    for (int i = f->num_symbols - 1; i >= 0; i--) {
        const char *s = f->symbols[i].name;
        if (strncmp(s, name, len) == 0 && (s[len] == '\0' || s[len] == '='))
            return &f->symbols[i];
    }
    return NULL;
}

/* ---- Conditions: a value the symbols decide, or not. ---------------------------------------- */

typedef struct cond_t {
    bool known;
    long long value;
} cond_t;

typedef struct expr_t {
    const censor_ifdef_t *f;
    const char *p, *end;
    int depth;
    bool unreadable; /* anything outside the grammar: the whole condition is undecided */
} expr_t;

static const cond_t UNKNOWN = {false, 0};

static void skip_space(expr_t *e)
{
    while (e->p < e->end && isspace((unsigned char)*e->p))
        e->p++;
}

static bool accept(expr_t *e, const char *token)
{
    skip_space(e);
    size_t n = strlen(token);
    if ((size_t)(e->end - e->p) >= n && !memcmp(e->p, token, n)) {
        e->p += n;
        return true;
    }
    return false;
}

static size_t identifier(expr_t *e, const char **name)
{
    skip_space(e);
    const char *s = e->p;
    if (s < e->end && (isalpha((unsigned char)*s) || *s == '_')) {
        while (e->p < e->end && (isalnum((unsigned char)*e->p) || *e->p == '_'))
            e->p++;
    }
    *name = s;
    return (size_t)(e->p - s);
}

static cond_t parse_or(expr_t *e);

static cond_t parse_defined(expr_t *e)
{
    bool paren = accept(e, "(");
    const char *name;
    size_t len = identifier(e, &name);
    if (len == 0 || (paren && !accept(e, ")"))) {
        e->unreadable = true;
        return UNKNOWN;
    }
    const censor_symbol_t *s = find_symbol(e->f, name, len);
    return s ? (cond_t){true, s->defined} : UNKNOWN;
}

static cond_t parse_primary(expr_t *e)
{
    skip_space(e);
    if (e->p >= e->end || ++e->depth > 64) {
        e->unreadable = true;
        return UNKNOWN;
    }
    cond_t c;
    if (accept(e, "!")) {
        c = parse_primary(e);
        c = c.known ? (cond_t){true, !c.value} : UNKNOWN;
    } else if (accept(e, "(")) {
        c = parse_or(e);
        if (!accept(e, ")"))
            e->unreadable = true;
    } else if (isdigit((unsigned char)*e->p)) {
        char *after;
        c = (cond_t){true, strtoll(e->p, &after, 0)};
        e->p = after;
        while (e->p < e->end && strchr("uUlL", *e->p))
            e->p++;
    } else {
        const char *name;
        size_t len = identifier(e, &name);
        if (len == 7 && !memcmp(name, "defined", 7))
            c = parse_defined(e);
        else if (len == 0 || accept(e, "(")) /* not an identifier, or a function-like macro */
            e->unreadable = true, c = UNKNOWN;
        else {
            const censor_symbol_t *s = find_symbol(e->f, name, len);
            c = !s ? UNKNOWN : (cond_t){true, s->defined ? s->value : 0};
        }
    }
    e->depth--;
    return c;
}

static cond_t compare(cond_t a, const char *op, cond_t b)
{
    if (!a.known || !b.known)
        return UNKNOWN;
    long long r = !strcmp(op, "==")   ? a.value == b.value
                  : !strcmp(op, "!=") ? a.value != b.value
                  : !strcmp(op, "<=") ? a.value <= b.value
                  : !strcmp(op, ">=") ? a.value >= b.value
                  : !strcmp(op, "<")  ? a.value < b.value
                                      : a.value > b.value;
    return (cond_t){true, r};
}

static cond_t parse_comparison(expr_t *e)
{
    static const char *ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    cond_t a = parse_primary(e);
    for (int guard = 0; guard < 64 && !e->unreadable; guard++) {
        const char *op = NULL;
        for (size_t i = 0; !op && i < sizeof ops / sizeof *ops; i++)
            op = accept(e, ops[i]) ? ops[i] : NULL;
        if (!op)
            break;
        a = compare(a, op, parse_primary(e));
    }
    return a;
}

static cond_t parse_and(expr_t *e)
{
    cond_t a = parse_comparison(e);
    while (!e->unreadable && accept(e, "&&")) {
        cond_t b = parse_comparison(e);
        bool a_false = a.known && !a.value, b_false = b.known && !b.value;
        a = a_false || b_false   ? (cond_t){true, 0}
            : a.known && b.known ? (cond_t){true, 1}
                                 : UNKNOWN;
    }
    return a;
}

static cond_t parse_or(expr_t *e)
{
    cond_t a = parse_and(e);
    while (!e->unreadable && accept(e, "||")) {
        cond_t b = parse_and(e);
        bool a_true = a.known && a.value, b_true = b.known && b.value;
        a = a_true || b_true ? (cond_t){true, 1} : a.known && b.known ? (cond_t){true, 0} : UNKNOWN;
    }
    return a;
}

/* Evaluates a directive's condition text (comments already removed). */
static cond_t evaluate(const censor_ifdef_t *f, const char *text, size_t len)
{
    expr_t e = {.f = f, .p = text, .end = text + len};
    cond_t c = parse_or(&e);
    skip_space(&e);
    return e.unreadable || e.p != e.end ? UNKNOWN : (c.known ? (cond_t){true, c.value != 0} : c);
}

/* ---- Lines and directives. ------------------------------------------------------------------ */

typedef enum { D_NONE, D_IF, D_IFDEF, D_IFNDEF, D_ELIF, D_ELSE, D_ENDIF } directive_t;

typedef struct line_t {
    const char *start; /* first byte of the logical line */
    size_t length;     /* through its last newline: a directive continued with '\' spans lines */
    size_t keyword_at; /* directives: offset of the keyword ("if", "elif", ...) */
    size_t keyword_len;
    directive_t directive;
    bool condition_ok;
    int physical_lines;
    char condition[1024]; /* the condition text, comments removed (read_line clears the rest) */
} line_t;

typedef struct out_t {
    char *data;
    size_t size, capacity;
    bool failed;
} out_t;

static void put(out_t *o, const char *bytes, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->size + n > o->capacity) {
        size_t cap = o->capacity ? o->capacity : 4096;
        while (cap < o->size + n)
            cap *= 2;
        char *grown = realloc(o->data, cap);
        if (!grown) {
            o->failed = true;
            return;
        }
        o->data = grown, o->capacity = cap;
    }
    memcpy(o->data + o->size, bytes, n);
    o->size += n;
}

/* Writes one empty line for every physical line of l, keeping each line's own ending. */
static void put_blank(out_t *o, const line_t *l)
{
    for (size_t i = 0; i < l->length; i++) {
        if (l->start[i] == '\n')
            put(o, (i > 0 && l->start[i - 1] == '\r') ? "\r\n" : "\n",
                (i > 0 && l->start[i - 1] == '\r') ? 2 : 1);
    }
}

/* Writes l with its keyword replaced (for "#elif" -> "#if" and "#elif ..." -> "#else"). */
static void put_rekeyed(out_t *o, const line_t *l, const char *keyword, bool drop_condition)
{
    put(o, l->start, l->keyword_at);
    put(o, keyword, strlen(keyword));
    if (!drop_condition) {
        size_t after = l->keyword_at + l->keyword_len;
        put(o, l->start + after, l->length - after);
        return;
    }
    /* "#else" keeps the line count: one newline per physical line. */
    const char *nl = memchr(l->start, '\n', l->length);
    put(o, nl && nl > l->start && nl[-1] == '\r' ? "\r\n" : "\n",
        nl && nl > l->start && nl[-1] == '\r' ? 2 : (nl ? 1 : 0));
    line_t rest = *l;
    if (nl) {
        rest.start = nl + 1;
        rest.length = l->length - (size_t)(nl + 1 - l->start);
        put_blank(o, &rest);
    }
}

/* Copies the condition text of a directive into l->condition without comments; a comment left
 * open makes the condition unreadable. */
static void read_condition(line_t *l, const char *text, size_t len)
{
    size_t n = 0;
    l->condition_ok = true;
    for (size_t i = 0; i < len && l->condition_ok; i++) {
        if (text[i] == '\\' && (i + 1 == len || text[i + 1] == '\n' || text[i + 1] == '\r'))
            continue;
        if (text[i] == '/' && i + 1 < len && text[i + 1] == '/')
            break;
        if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
            const char *close = NULL;
            for (size_t j = i + 2; j + 1 < len && !close; j++)
                close = text[j] == '*' && text[j + 1] == '/' ? text + j : NULL;
            if (!close)
                l->condition_ok = false;
            else
                i = (size_t)(close - text) + 1;
            continue;
        }
        if (n + 1 >= sizeof l->condition)
            l->condition_ok = false;
        else
            l->condition[n++] = text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
    }
    l->condition[n] = '\0';
}

static const struct {
    const char *word;
    directive_t directive;
} keywords[] = {{"ifdef", D_IFDEF}, {"ifndef", D_IFNDEF}, {"if", D_IF},
                {"elif", D_ELIF},   {"else", D_ELSE},     {"endif", D_ENDIF}};

/* Reads the logical line at p (end: end of input). A line starting inside a block comment, or
 * without '#' as its first non-blank, is not a directive. */
static void read_line(line_t *l, const char *p, const char *end, bool in_comment)
{
    memset(l, 0, offsetof(line_t, condition));
    l->start = p;
    const char *q = p;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    bool hash = !in_comment && q < end && *q == '#';
    /* A directive continues over lines ending in '\'. */
    const char *e = p;
    l->physical_lines = 1;
    for (;;) {
        const char *nl = memchr(e, '\n', (size_t)(end - e));
        if (!nl) {
            e = end;
            break;
        }
        const char *last = nl > e && nl[-1] == '\r' ? nl - 1 : nl;
        e = nl + 1;
        if (!hash || last == p || last[-1] != '\\' || e >= end)
            break;
        l->physical_lines++;
    }
    l->length = (size_t)(e - p);
    if (!hash)
        return;
    q++;
    while (q < e && (*q == ' ' || *q == '\t'))
        q++;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++) {
        size_t n = strlen(keywords[i].word);
        if ((size_t)(e - q) >= n && !memcmp(q, keywords[i].word, n) &&
            (q + n == e || !(isalnum((unsigned char)q[n]) || q[n] == '_'))) {
            l->directive = keywords[i].directive;
            l->keyword_at = (size_t)(q - p);
            l->keyword_len = n;
            read_condition(l, q + n, (size_t)(e - q - n));
            return;
        }
    }
}

/* Whether a block comment is open after the line [p, p+n), given whether one was open before.
 * Strings and character literals are skipped so a comment opener inside one opens nothing. */
static bool comment_open_after(const char *p, size_t n, bool open)
{
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        if (open) {
            if (p[i] == '*' && i + 1 < n && p[i + 1] == '/')
                open = false, i++;
        } else if (quote) {
            if (p[i] == '\\')
                i++;
            else if (p[i] == quote || p[i] == '\n')
                quote = 0;
        } else if (p[i] == '"' || p[i] == '\'') {
            quote = p[i];
        } else if (p[i] == '/' && i + 1 < n && p[i + 1] == '*') {
            open = true, i++;
        } else if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
            const char *nl = memchr(p + i, '\n', n - i);
            if (!nl)
                break;
            i = (size_t)(nl - p);
        }
    }
    return open;
}

/* ---- The pass. ------------------------------------------------------------------------------ */

typedef struct group_t {
    bool outer;       /* the enclosing context was being output */
    bool ignore;      /* inside a removed branch: every line goes, directives included */
    bool passthrough; /* an undecided condition opened the chain: its directives stay */
    bool taken;       /* a decided-true branch was chosen: the rest of the chain goes */
    bool active;      /* the current branch is output */
} group_t;

typedef struct pass_t {
    const censor_ifdef_t *f;
    group_t stack[CENSOR_IFDEF_MAX_DEPTH];
    int depth;
    out_t out;
    int line_number;
} pass_t;

static bool outputting(const pass_t *s)
{
    return s->depth == 0 || (s->stack[s->depth - 1].outer && s->stack[s->depth - 1].active &&
                             !s->stack[s->depth - 1].ignore);
}

static cond_t directive_condition(const pass_t *s, const line_t *l)
{
    if (!l->condition_ok)
        return UNKNOWN;
    if (l->directive == D_IF || l->directive == D_ELIF)
        return evaluate(s->f, l->condition, strlen(l->condition));
    expr_t e = {.f = s->f, .p = l->condition, .end = l->condition + strlen(l->condition)};
    const char *name;
    size_t len = identifier(&e, &name);
    skip_space(&e);
    const censor_symbol_t *sym = len && e.p == e.end ? find_symbol(s->f, name, len) : NULL;
    if (!sym)
        return UNKNOWN;
    return (cond_t){true, l->directive == D_IFDEF ? sym->defined : !sym->defined};
}

static bool open_group(pass_t *s, const line_t *l, char *err, size_t err_size)
{
    if (s->depth == CENSOR_IFDEF_MAX_DEPTH) {
        snprintf(err, err_size, "line %d: conditionals nested deeper than %d", s->line_number,
                 CENSOR_IFDEF_MAX_DEPTH);
        return false;
    }
    bool outer = outputting(s);
    group_t *g = &s->stack[s->depth++];
    *g = (group_t){.outer = outer, .ignore = !outer};
    if (g->ignore) {
        put_blank(&s->out, l);
        return true;
    }
    cond_t c = directive_condition(s, l);
    g->passthrough = !c.known;
    g->taken = c.known && c.value;
    g->active = !c.known || c.value;
    if (g->passthrough)
        put(&s->out, l->start, l->length);
    else
        put_blank(&s->out, l);
    return true;
}

static void next_branch(pass_t *s, group_t *g, const line_t *l)
{
    if (g->ignore || g->taken) {
        g->active = false;
        put_blank(&s->out, l);
        return;
    }
    cond_t c = l->directive == D_ELSE ? (cond_t){true, 1} : directive_condition(s, l);
    if (c.known) {
        g->active = c.value != 0;
        g->taken = g->active;
        if (g->passthrough && g->active)
            put_rekeyed(&s->out, l, "else", l->directive == D_ELIF);
        else
            put_blank(&s->out, l);
        return;
    }
    g->active = true;
    if (g->passthrough)
        put(&s->out, l->start, l->length);
    else
        put_rekeyed(&s->out, l, "if", false); /* every branch before it was removed */
    g->passthrough = true;
}

static bool directive(pass_t *s, const line_t *l, char *err, size_t err_size)
{
    if (l->directive == D_IF || l->directive == D_IFDEF || l->directive == D_IFNDEF)
        return open_group(s, l, err, err_size);
    if (s->depth == 0) {
        if (!err[0])
            snprintf(err, err_size, "line %d: #%.*s without #if", s->line_number,
                     (int)l->keyword_len, l->start + l->keyword_at);
        put(&s->out, l->start, l->length); /* lenient: the stray line stays as written */
        return s->f->lenient;
    }
    group_t *g = &s->stack[s->depth - 1];
    if (l->directive == D_ENDIF) {
        if (g->passthrough && !g->ignore)
            put(&s->out, l->start, l->length);
        else
            put_blank(&s->out, l);
        s->depth--;
        return true;
    }
    next_branch(s, g, l);
    return true;
}

bool censor_ifdef_run(const censor_ifdef_t *f, const char *in, size_t in_size, char **out,
                      size_t *out_size, char *err, size_t err_size)
{
    *out = NULL, *out_size = 0;
    err[0] = '\0';
    pass_t *s = calloc(1, sizeof *s);
    line_t *l = malloc(sizeof *l);
    if (!s || !l) {
        free(s), free(l);
        snprintf(err, err_size, "out of memory");
        return false;
    }
    s->f = f;
    bool ok = true;
    if (memchr(in, '\0', in_size)) {
        put(&s->out, in, in_size); /* binary: not ours to read */
    } else {
        bool in_comment = false;
        const char *p = in, *end = in + in_size;
        while (ok && p < end) {
            s->line_number++;
            read_line(l, p, end, in_comment);
            in_comment = comment_open_after(p, l->length, in_comment);
            if (l->directive != D_NONE)
                ok = directive(s, l, err, err_size);
            else if (outputting(s))
                put(&s->out, l->start, l->length);
            else
                put_blank(&s->out, l);
            s->line_number += l->physical_lines - 1;
            p += l->length;
        }
        if (ok && s->depth > 0) {
            if (!err[0])
                snprintf(err, err_size, "line %d: %d #if never closed by #endif", s->line_number,
                         s->depth);
            ok = f->lenient;
        }
    }
    if (s->out.failed) {
        snprintf(err, err_size, "out of memory");
        ok = false;
    }
    if (ok) {
        *out = s->out.data ? s->out.data : malloc(1);
        *out_size = s->out.size;
        ok = *out != NULL;
    } else {
        free(s->out.data);
    }
    free(s), free(l);
    return ok;
}
