/*
 * Shared by the benchmark programs: a clock, a median, and the two outputs every benchmark gives
 * (one JSON object per figure on its own line, then a table for people). Benchmarks measure and
 * print; they never pass or fail on time.
 */
#ifndef CT_BENCH_H
#define CT_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_FIGURES 32

typedef struct bench_figure_t {
    const char *name;
    double value;
    const char *unit;
    const char *what;
} bench_figure_t;

static bench_figure_t bench__figures[BENCH_MAX_FIGURES];
static int bench__num_figures;

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench__compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n samples (sorts them in place). */
static inline double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, bench__compare_doubles);
    return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

/* Records a figure and prints its JSON line at once (so a crash later still leaves the figures). */
static inline void bench_report(const char *name, double value, const char *unit, const char *what)
{
    printf("{\"name\": \"%s\", \"value\": %.4g, \"unit\": \"%s\"}\n", name, value, unit);
    fflush(stdout);
    if (bench__num_figures < BENCH_MAX_FIGURES)
        bench__figures[bench__num_figures++] = (bench_figure_t){name, value, unit, what};
}

/* Prints the table of every figure reported so far. */
static inline void bench_print_table(void)
{
    printf("\n%-40s %14s  %-6s %s\n", "figure", "value", "unit", "what");
    for (int i = 0; i < bench__num_figures; i++) {
        const bench_figure_t *f = &bench__figures[i];
        printf("%-40s %14.4g  %-6s %s\n", f->name, f->value, f->unit, f->what);
    }
}

/* The value of `--name VALUE` in argv, or NULL. */
static inline const char *bench_arg(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return NULL;
}

#endif
