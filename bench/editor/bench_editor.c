/* bench_editor: runs bench/editor/bench_editor.py (the figures need a browser, driven from Python
 * over the DevTools protocol) with this build's engine, so scripts/bench.sh finds it like every
 * other benchmark. Arguments are passed on (--modules DIR). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char *args[64] = {"python3", BENCH_EDITOR_SCRIPT, "--modules", BENCH_EDITOR_MODULES};
    int n = 4;
    for (int i = 1; i < argc && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    execvp("python3", args);
    perror("bench_editor: cannot run python3");
    return 1;
}
