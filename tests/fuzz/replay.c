/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without libFuzzer (the plain and the sanitizer builds), a harness is a
 * test: it runs every file of its corpus (the seeds, and the inputs that
 * once found a bug) through LLVMFuzzerTestOneInput, one TAP line each. A
 * crash, a sanitizer report or a hang fails it. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int run_file(const char *path, unsigned *n);
static int run_dir(const char *dir, unsigned *n);

static int run_file(const char *path, unsigned *n) {
        FILE *f = fopen(path, "re");
        uint8_t *data;
        long size;

        if (!f)
                return -1;
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        rewind(f);
        data = malloc(size > 0 ? (size_t) size : 1);
        if (!data || fread(data, 1, (size_t) size, f) != (size_t) size) {
                fclose(f);
                free(data);
                return -1;
        }
        fclose(f);
        (void) LLVMFuzzerTestOneInput(data, (size_t) size);
        free(data);
        printf("ok %u - %s\n", ++*n, path);
        fflush(stdout);
        return 0;
}

/* Run as a test (no arguments): its corpus by its own name, fuzz-NAME:
 * $TEST_SRCDIR/tests/fuzz/corpus/NAME and the files NAME.seeds lists. */
static int run_own_corpus(const char *argv0, unsigned *n) {
        const char *srcdir = getenv("TEST_SRCDIR"), *base = strrchr(argv0, '/');
        char dir[4096], seeds[sizeof dir + sizeof ".seeds"], line[4096];
        FILE *f;

        base = base ? base + 1 : argv0;
        if (!srcdir || strncmp(base, "fuzz-", 5) != 0)
                return -1;
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", srcdir, base + 5);
        snprintf(seeds, sizeof seeds, "%s.seeds", dir);
        f = fopen(seeds, "re");
        while (f && fgets(line, sizeof line, f)) {
                char path[8192];
                line[strcspn(line, "\n")] = '\0';
                if (!line[0])
                        continue;
                snprintf(path, sizeof path, "%s/%s", srcdir, line);
                if (run_file(path, n) < 0)
                        printf("not ok %u - cannot read %s\n", ++*n, path);
        }
        if (f)
                fclose(f);
        return run_dir(dir, n);
}

static int run_dir(const char *dir, unsigned *n) {
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return -1;
        while ((de = readdir(d))) {
                char path[8192];
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                if (run_file(path, n) < 0)
                        printf("not ok %u - cannot read %s\n", ++*n, path);
        }
        closedir(d);
        return 0;
}

int main(int argc, char *argv[]) {
        unsigned n = 0;

        alarm(60);
        if (argc == 1 && run_own_corpus(argv[0], &n) < 0)
                printf("not ok 1 - set TEST_SRCDIR, or give corpus files or directories\n"), n = 1;
        for (int i = 1; i < argc; i++)
                if (run_dir(argv[i], &n) < 0 && run_file(argv[i], &n) < 0)
                        printf("not ok %u - cannot read %s\n", ++n, argv[i]);
        if (n == 0)
                printf("not ok 1 - no corpus given\n"), n = 1;
        printf("1..%u\n", n);
        return 0;
}
