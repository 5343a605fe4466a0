#include "fixture.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "base/memory.h"
#include "data/sjson.h"
#include "resources/resources.h"
#include "test_type.h"

void fixture_start(const char *project_dir)
{
    assert_int_equal(memory__init(MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY), 0);
    assert_int_equal(resources__init(project_dir, false), 0);
    test_type_use(data__api_v1(), resources__api_v1());
}

void fixture_stop(void)
{
    resources__shutdown();
    assert_int_equal(memory__corruption_count(), 0);
    assert_int_equal(memory__shutdown(), 0);
}

const char *fixture_make_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cuttle-res-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void fixture_remove_dir(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

void fixture_write(const char *dir, const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

void fixture_set_mtime(const char *dir, const char *rel, int64_t sec)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct timeval times[2] = {{.tv_sec = (time_t)sec}, {.tv_sec = (time_t)sec}};
    assert_int_equal(utimes(path, times), 0);
}

int fixture_exists(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &st) == 0;
}

int fixture_setup(void **state)
{
    (void)state;
    fixture_start(NULL);
    return 0;
}

int fixture_teardown(void **state)
{
    (void)state;
    fixture_stop();
    return 0;
}
