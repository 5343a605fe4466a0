/*
 * cuttle-hash: prints the ids of names as lines ready to paste into a header.
 *
 *   $ cuttle-hash acme.weather
 *   #define ACME_WEATHER_API 0x04559dd8u   followed by the name in a comment, as in api/,
 *   #define ACME_WEATHER_ID64 0xb97b9a1a3a3df23cull   likewise.
 *
 * The 32-bit value is ct_hash32 (an API id), the 64-bit one ct_hash64 (resource, type and
 * component ids). The macro stem is the name upper-cased, with every character that cannot appear
 * in an identifier replaced by '_'. It includes api/ct_hash.h, so it computes exactly what the
 * engine and every plugin compute.
 */
#include <stdio.h>
#include <string.h>

#include "ct_hash.h"

/* Writes the macro stem of `name` ("acme.weather" -> "ACME_WEATHER") into out. */
static void macro_stem(const char *name, char *out, size_t out_size)
{
    size_t n = 0;
    if (name[0] >= '0' && name[0] <= '9' && n + 1 < out_size)
        out[n++] = '_';
    for (const char *c = name; *c && n + 1 < out_size; c++) {
        bool lower = *c >= 'a' && *c <= 'z';
        bool keep = (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        out[n++] = lower ? (char)(*c - 'a' + 'A') : keep ? *c : '_';
    }
    out[n] = '\0';
}

static const char usage[] = "usage: cuttle-hash NAME...\n"
                            "prints #define lines with each name's 32-bit API id (ct_hash32) and\n"
                            "64-bit id (ct_hash64), as in api/*.h\n";

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    /* Names never start with '-': such an argument is a mistyped option, not a name to hash. */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            fprintf(stderr, "cuttle-hash: unknown option %s\n%s", argv[i], usage);
            return 2;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        char stem[256];
        macro_stem(name, stem, sizeof stem);
        printf("#define %s_API 0x%08xu /* \"%s\" */\n", stem, ct_hash32(name), name);
        printf("#define %s_ID64 0x%016llxull /* \"%s\" */\n", stem,
               (unsigned long long)ct_hash64(name), name);
    }
    return 0;
}
