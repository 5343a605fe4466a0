/*
 * A small deterministic fuzz driver, so every fuzz target runs on every test build (and under
 * ASan+UBSan) without needing libFuzzer. It feeds the target its seed files, then mutations of
 * them (bit flips, byte changes, insertions, deletions, truncations, splices) for a fixed number
 * of iterations from a fixed random seed.
 *
 * The same targets build for coverage-guided fuzzing with clang, e.g.:
 *   clang -g -fsanitize=fuzzer,address -Iapi -Ikernel tests/data/fuzz_sjson.c ... -o fuzz_sjson
 *
 * Usage: <target> [--iterations N] [seed files or folders...]
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEDS 256
#define FUZZ_MAX_INPUT (64 * 1024)

static uint8_t *seeds[MAX_SEEDS];
static size_t seed_sizes[MAX_SEEDS];
static size_t num_seeds;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void add_seed_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f || num_seeds == MAX_SEEDS) {
        if (f)
            fclose(f);
        return;
    }
    uint8_t *buf = malloc(FUZZ_MAX_INPUT);
    size_t n = fread(buf, 1, FUZZ_MAX_INPUT, f);
    fclose(f);
    seeds[num_seeds] = buf;
    seed_sizes[num_seeds] = n;
    num_seeds++;
}

static void add_seed_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz: no seed at %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_seed_file(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        add_seed_file(child);
    }
    if (d)
        closedir(d);
}

/* Applies 1-4 random edits to buf (size *n, capacity FUZZ_MAX_INPUT). */
static void mutate(uint8_t *buf, size_t *n)
{
    int edits = 1 + (int)(next_random() % 4);
    for (int i = 0; i < edits; i++) {
        size_t pos = *n ? (size_t)(next_random() % *n) : 0;
        switch (next_random() % 7) {
        case 0: /* flip a bit */
            if (*n)
                buf[pos] ^= (uint8_t)(1u << (next_random() % 8));
            break;
        case 1: /* random byte */
            if (*n)
                buf[pos] = (uint8_t)next_random();
            break;
        case 2: /* interesting byte */
            if (*n) {
                static const uint8_t interesting[] = {0,   0xff, 0x7f, 0x80, '"', '{', '}', '[',
                                                      ']', '=',  ':',  '\\', '/', '*', '\n'};
                buf[pos] = interesting[next_random() % sizeof interesting];
            }
            break;
        case 3: /* insert a byte */
            if (*n < FUZZ_MAX_INPUT) {
                memmove(buf + pos + 1, buf + pos, *n - pos);
                buf[pos] = (uint8_t)next_random();
                (*n)++;
            }
            break;
        case 4: /* delete a run */
            if (*n) {
                size_t len = 1 + (size_t)(next_random() % 8);
                if (len > *n - pos)
                    len = *n - pos;
                memmove(buf + pos, buf + pos + len, *n - pos - len);
                *n -= len;
            }
            break;
        case 5: /* truncate */ *n = pos; break;
        case 6: /* splice in part of another seed */
            if (num_seeds) {
                size_t s = (size_t)(next_random() % num_seeds);
                if (seed_sizes[s]) {
                    size_t from = (size_t)(next_random() % seed_sizes[s]);
                    size_t len = 1 + (size_t)(next_random() % 32);
                    if (len > seed_sizes[s] - from)
                        len = seed_sizes[s] - from;
                    if (len > FUZZ_MAX_INPUT - pos)
                        len = FUZZ_MAX_INPUT - pos;
                    memcpy(buf + pos, seeds[s] + from, len);
                    if (pos + len > *n)
                        *n = pos + len;
                }
            }
            break;
        }
    }
}

int main(int argc, char **argv)
{
    long iterations = 20000;
    const char *env = getenv("CUTTLE_FUZZ_ITERATIONS");
    if (env)
        iterations = atol(env);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atol(argv[++i]);
        else
            add_seed_path(argv[i]);
    }

    for (size_t s = 0; s < num_seeds; s++)
        LLVMFuzzerTestOneInput(seeds[s], seed_sizes[s]);

    /* The input lives in an exactly-sized heap copy so ASan catches any read past its end. */
    uint8_t *work = malloc(FUZZ_MAX_INPUT);
    for (long it = 0; it < iterations; it++) {
        size_t n = 0;
        if (num_seeds) {
            size_t s = (size_t)(next_random() % num_seeds);
            n = seed_sizes[s];
            memcpy(work, seeds[s], n);
        }
        mutate(work, &n);
        uint8_t *exact = malloc(n ? n : 1);
        memcpy(exact, work, n);
        LLVMFuzzerTestOneInput(exact, n);
        free(exact);
    }
    free(work);
    for (size_t s = 0; s < num_seeds; s++)
        free(seeds[s]);
    printf("fuzz: %zu seeds, %ld mutated inputs, no crash\n", num_seeds, iterations);
    return 0;
}
