/* What every resource test needs: the memory and resource services up (without booting a whole
 * kernel), a scratch project folder, and files written into it. */
#ifndef CT_TEST_RESOURCES_FIXTURE_H
#define CT_TEST_RESOURCES_FIXTURE_H

#include <stdint.h>

/* Starts memory (fill + canary) and resources for `project_dir` (NULL: none). */
void fixture_start(const char *project_dir);
/* Shuts both down; fails the test on leaks or memory corruption. */
void fixture_stop(void);
/* cmocka setup/teardown: fixture_start(NULL) around each test, then fixture_stop. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* A fresh folder under /tmp (its path is returned, static) and its removal. */
const char *fixture_make_dir(void);
void fixture_remove_dir(const char *dir);
/* Writes `text` to dir/rel, creating folders. */
void fixture_write(const char *dir, const char *rel, const char *text);
/* Sets the modification time of dir/rel to `sec` seconds after the epoch. */
void fixture_set_mtime(const char *dir, const char *rel, int64_t sec);
/* Whether dir/rel exists. */
int fixture_exists(const char *dir, const char *rel);

#endif
