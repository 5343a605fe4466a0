/*
 * The built-in preprocessor filter of cuttle-censor: removes the code that a set of symbols
 * decides, as unifdef does, and leaves a blank line wherever it removed one, so line numbers in
 * the censored file match the original (a licensee's crash report points at the same line).
 *
 * Symbols are either defined (-DSYM, or -DSYM=VALUE with an integer value) or undefined (-USYM);
 * every other symbol is unknown. For each conditional group:
 *   - a condition the symbols decide is resolved: its directive lines become blank lines, the
 *     branches not taken become blank lines, the taken branch stays;
 *   - a condition they do not decide is kept as written, directive and all;
 *   - a chain that mixes both is kept in the shape that stays correct: a decided-false `#elif`
 *     disappears, a decided-true `#elif` after undecided ones becomes `#else`, an undecided
 *     `#elif` after decided-false ones becomes `#if`.
 * Conditions understood: `#ifdef S`, `#ifndef S`, `#if`/`#elif` over `defined S`, `defined(S)`,
 * integer literals, symbols, `!`, `&&`, `||`, `==`, `!=`, `<`, `>`, `<=`, `>=` and parentheses.
 * An expression it cannot read is undecided (kept), never guessed.
 *
 * Input is text; a buffer holding a NUL byte is binary and passed through untouched.
 * Errors (an `#else`/`#elif`/`#endif` without `#if`, an `#if` never closed, nesting deeper than
 * CENSOR_IFDEF_MAX_DEPTH) are reported with the line number; nothing is written then. A lenient
 * filter (real histories hold commits that never compiled) keeps a stray directive as written,
 * leaves groups open at the end as they are, and reports the first problem as a warning.
 */
#ifndef CUTTLE_CENSOR_IFDEF_H
#define CUTTLE_CENSOR_IFDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { CENSOR_IFDEF_MAX_DEPTH = 256, CENSOR_IFDEF_MAX_SYMBOLS = 256 };

typedef struct censor_symbol_t {
    const char *name; /* borrowed */
    bool defined;
    long long value; /* defined symbols: -DSYM means 1 */
} censor_symbol_t;

typedef struct censor_ifdef_t {
    censor_symbol_t symbols[CENSOR_IFDEF_MAX_SYMBOLS];
    int num_symbols;
    bool lenient; /* unbalanced conditionals are a warning, not an error */
} censor_ifdef_t;

/* Adds "-DSYM", "-DSYM=N" or "-USYM" (the text is borrowed and must outlive f). Returns false
 * with a message in err for anything else or when the table is full. */
bool censor_ifdef_add(censor_ifdef_t *f, const char *option, char *err, size_t err_size);

/* Filters in[0..in_size) into *out (malloc'd, *out_size bytes; the caller frees it). On an error
 * returns false with "line N: what" in err and *out NULL; on success err is empty, or holds the
 * warning of a lenient filter. */
bool censor_ifdef_run(const censor_ifdef_t *f, const char *in, size_t in_size, char **out,
                      size_t *out_size, char *err, size_t err_size);

#endif
