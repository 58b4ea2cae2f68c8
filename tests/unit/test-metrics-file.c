/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The metrics textfile as the daemon keeps it: written when its text or
 * path changes and not otherwise, an error told once when it comes and
 * once when it goes, and the file removed only while it is ours. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics-file.h"
#include "tap.h"

static char dir[] = "/tmp/test-metrics-file-XXXXXX";

static char *at(const char *name) {
        static char path[256];

        snprintf(path, sizeof path, "%s/%s", dir, name);
        return path;
}

static char *content(const char *name) {
        static char buf[256];
        FILE *f = fopen(at(name), "re");
        size_t n = 0;

        if (!f)
                return NULL;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        return buf;
}

static void test_update(void) {
        MetricsFile *f = metrics_file_new();
        char path[256];
        uint64_t then;

        if (!f)
                abort();
        snprintf(path, sizeof path, "%s", at("a.prom"));
        is_int(metrics_file_update(f, path, "x 1\n"), 0, "a first write: no error came or went");
        is_str(content("a.prom"), "x 1\n", "  the text is there");
        ok(metrics_file_at(f, path), "  and the file is known to be ours there");
        then = metrics_file_written_at(f);
        ok(then > 0, "  its time kept");

        unlink(path);
        is_int(metrics_file_update(f, path, "x 1\n"), 0, "the same text at the same path");
        ok(content("a.prom") == NULL, "  is not written again");

        is_int(metrics_file_update(f, path, "x 2\n"), 0, "a new text");
        is_str(content("a.prom"), "x 2\n", "  is written");

        /* A directory where the file should be: the write fails. */
        is_int(mkdir(at("b.prom"), 0755), 0, "a directory stands where the next path points");
        is_int(metrics_file_update(f, at("b.prom"), "x 3\n"), 1, "a failed write: the error came");
        ok(metrics_file_error(f) != NULL, "  and says why: %s", metrics_file_error(f));
        is_int(metrics_file_update(f, at("b.prom"), "x 4\n"), 0, "  the same failure again: nothing new to tell");
        ok(metrics_file_at(f, path), "  the file we wrote is still the one we know");

        rmdir(at("b.prom"));
        is_int(metrics_file_update(f, at("b.prom"), "x 5\n"), 1, "the write works again: the error went");
        ok(metrics_file_error(f) == NULL, "  none is shown");
        is_str(content("b.prom"), "x 5\n", "  the text is at the new path");

        metrics_file_remove(f);
        ok(access(at("b.prom"), F_OK) < 0, "removed: the file is gone");
        ok(!metrics_file_at(f, at("b.prom")), "  and forgotten");
        ok(access(path, F_OK) == 0, "  the file at the old path, no longer ours, is left");
        metrics_file_free(f);
}

static void test_not_ours(void) {
        MetricsFile *f = metrics_file_new();
        FILE *other;

        if (!f)
                abort();
        is_int(metrics_file_update(f, at("c.prom"), "x 1\n"), 0, "written");
        /* Someone else replaces it (a new inode, made while ours still
         * exists): not ours to remove any more. */
        other = fopen(at("theirs"), "we");
        if (other) {
                fputs("theirs\n", other);
                fclose(other);
        }
        {
                char theirs[256];

                snprintf(theirs, sizeof theirs, "%s", at("theirs"));
                is_int(rename(theirs, at("c.prom")), 0, "someone else replaces it");
        }
        metrics_file_remove(f);
        is_str(content("c.prom"), "theirs\n", "a file replaced by someone else is not removed");
        metrics_file_free(f);
        metrics_file_remove(NULL);      /* none: nothing to do */
        ok(metrics_file_error(NULL) == NULL && metrics_file_written_at(NULL) == 0, "no file: no error, no time");
}

int main(void) {
        if (!mkdtemp(dir))
                abort();
        test_update();
        test_not_ours();
        {
                char cmd[300];

                snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
                if (system(cmd) != 0)
                        printf("# could not remove %s\n", dir);
        }
        return tap_done();
}
