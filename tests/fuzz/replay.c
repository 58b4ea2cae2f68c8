/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without libFuzzer (the plain and the sanitizer builds), a harness is a
 * test: it runs every file of its corpus (the seeds, and the inputs that
 * once found a bug) through LLVMFuzzerTestOneInput, one TAP line each. A
 * crash, a sanitizer report, a hang or a broken property (the harness
 * aborts) fails it; so does a verdict (accepted or rejected, which the
 * harness reports with fuzz_verdict()) other than the one the corpus's
 * NAME.expect gives for that file. */
#define FUZZ_REPLAY 1
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int run_file(const char *path, unsigned *n);
static int run_dir(const char *dir, unsigned *n);

/* What the running input got, as the harness reported it. */
static int verdict = -1;        /* -1: not reported, 0: rejected, 1: accepted */

void fuzz_verdict(bool accepted) {
        verdict = accepted;
}

/* NAME.expect: "PATH accepted|rejected" per line, PATH as the TAP line
 * names the file. */
typedef struct Expectation {
        char *path;
        bool accepted;
} Expectation;

static Expectation *expected;
static size_t n_expected;
static bool expect_all;          /* the corpus has a NAME.expect: every file needs a line */
static const char *srcdir;       /* TEST_SRCDIR, which the TAP line's path starts with */

static int load_expectations(const char *file) {
        char line[4096], path[4096], word[16];
        FILE *f = fopen(file, "re");

        if (!f)
                return errno == ENOENT ? 0 : -1;
        while (fgets(line, sizeof line, f)) {
                Expectation *e;

                if (line[0] == '#' || line[0] == '\n')
                        continue;
                if (sscanf(line, "%4095s %15s", path, word) != 2 ||
                    (strcmp(word, "accepted") != 0 && strcmp(word, "rejected") != 0)) {
                        fclose(f);
                        return -1;
                }
                e = realloc(expected, (n_expected + 1) * sizeof *expected);
                if (!e)
                        abort();
                expected = e;
                expected[n_expected++] = (Expectation) { strdup(path), strcmp(word, "accepted") == 0 };
        }
        fclose(f);
        return 0;
}

static const Expectation *expectation_for(const char *path) {
        size_t k = srcdir ? strlen(srcdir) : 0;

        if (k > 0 && strncmp(path, srcdir, k) == 0 && path[k] == '/')
                path += k + 1;
        for (size_t i = 0; i < n_expected; i++)
                if (strcmp(expected[i].path, path) == 0)
                        return &expected[i];
        return NULL;
}

/* One TAP line: ok unless the verdict differs from the expected one. */
static void report(const char *path, unsigned *n) {
        const Expectation *e = expectation_for(path);
        const char *got = verdict < 0 ? "no verdict" : verdict ? "accepted" : "rejected";

        if (!e && expect_all)
                printf("not ok %u - %s (%s): no line in the corpus's .expect\n", ++*n, path, got);
        else if (!e)
                printf("ok %u - %s (%s)\n", ++*n, path, got);
        else if (verdict == e->accepted)
                printf("ok %u - %s (%s, as expected)\n", ++*n, path, got);
        else
                printf("not ok %u - %s: %s, expected %s\n", ++*n, path, got, e->accepted ? "accepted" : "rejected");
        fflush(stdout);
}

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
        verdict = -1;
        (void) LLVMFuzzerTestOneInput(data, (size_t) size);
        free(data);
        report(path, n);
        return 0;
}

/* Run as a test (no arguments): its corpus by its own name, fuzz-NAME:
 * $TEST_SRCDIR/tests/fuzz/corpus/NAME and the files NAME.seeds lists. */
static int run_own_corpus(const char *argv0, unsigned *n) {
        const char *base = strrchr(argv0, '/');
        char dir[4096], seeds[sizeof dir + sizeof ".seeds"], expect[sizeof dir + sizeof ".expect"], line[4096];
        FILE *f;

        srcdir = getenv("TEST_SRCDIR");
        base = base ? base + 1 : argv0;
        if (!srcdir || strncmp(base, "fuzz-", 5) != 0)
                return -1;
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", srcdir, base + 5);
        snprintf(seeds, sizeof seeds, "%s.seeds", dir);
        snprintf(expect, sizeof expect, "%s.expect", dir);
        if (load_expectations(expect) < 0) {
                printf("not ok %u - cannot read %s\n", ++*n, expect);
                return 0;
        }
        expect_all = n_expected > 0;
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
