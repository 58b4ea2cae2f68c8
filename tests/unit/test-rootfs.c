/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A file kept open between readings (RootFile): each reading is the file's
 * text now, whether rewritten in place, replaced, removed or a FIFO; the
 * kernel's own files read whole, past procfs' page; an fd to the same file
 * is adopted, any other refused. */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "rootfs.h"
#include "tap.h"

static char root[64];

static void put(const char *rel, const char *text) {
        char path[256];
        FILE *f;

        snprintf(path, sizeof path, "%s%s", root, rel);
        f = fopen(path, "we");  /* in place: same inode, truncated */
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                printf("Bail out! cannot write %s\n", path);
}

static char *read_kept(RootFile *f) {
        char *text = NULL;
        return root_file_read(root, f, 65536, &text) < 0 ? NULL : text;
}

static void test_tree_file(void) {
        RootFile f;
        char path[256], tmp[256];
        char *t;
        int fd;

        is_int(root_file_init(&f, "/proc/vmstat"), 0, "a kept file");
        put("/proc/vmstat", "numa_hit 1\nnuma_miss 0\n");
        t = read_kept(&f);
        is_str(t, "numa_hit 1\nnuma_miss 0\n", "the first reading");
        free(t);
        fd = f.fd;
        ok(fd >= 0 && !f.kernel && !f.quiet, "  kept open; not the kernel's, not quiet");

        put("/proc/vmstat", "numa_hit 2\n");
        t = read_kept(&f);
        is_str(t, "numa_hit 2\n", "rewritten shorter in place: the new text, nothing of the old");
        free(t);
        is_int(f.fd, fd, "  through the same fd");

        snprintf(path, sizeof path, "%s/proc/vmstat", root);
        snprintf(tmp, sizeof tmp, "%s/proc/vmstat.new", root);
        put("/proc/vmstat.new", "numa_hit 3\n");
        ok(rename(tmp, path) == 0, "replaced by a rename");
        t = read_kept(&f);
        is_str(t, "numa_hit 3\n", "  the new file's text, not the unlinked one's");
        free(t);

        ok(unlink(path) == 0, "removed");
        ok(root_file_read(root, &f, 65536, &t) == -ENOENT, "  a reading fails: ENOENT");
        is_int(f.fd, -1, "  nothing kept");
        put("/proc/vmstat", "numa_hit 4\n");
        t = read_kept(&f);
        is_str(t, "numa_hit 4\n", "back: read again");
        free(t);

        ok(root_file_read(root, &f, 4, &t) == -EFBIG, "longer than allowed: EFBIG");
        root_file_close(&f);
        is_int(f.fd, -1, "closed");
}

static void *fifo_writer(void *arg) {
        int fd = open(arg, O_WRONLY | O_CLOEXEC);

        if (fd >= 0) {
                (void) !write(fd, "1\n", 2);
                close(fd);
        }
        return NULL;
}

static void test_fifo(void) {
        char path[256];
        RootFile f;
        pthread_t t;
        char *text = NULL;
        int r;

        snprintf(path, sizeof path, "%s/proc/sys/vm/numa_stat", root);
        if (mkfifo(path, 0600) < 0) {
                tap_skip("mkfifo failed");
                return;
        }
        (void) root_file_init(&f, "/proc/sys/vm/numa_stat");
        for (int i = 0; i < 2; i++) {
                pthread_create(&t, NULL, fifo_writer, path);
                r = root_file_read(root, &f, 4096, &text);
                pthread_join(t, NULL);
                is_int(r, 0, "a FIFO standing in for a sysctl reads");
                is_str(text, "1\n", "  what its writer wrote");
                free(text);
                text = NULL;
                is_int(f.fd, -1, "  and is not kept: each reading opens it");
        }
}

static size_t lines(const char *t) {
        size_t n = 0;

        for (; t && *t; t++)
                n += *t == '\n';
        return n;
}

static void test_kernel_files(void) {
        _cleanup_free_ char *fresh = NULL;
        char *t;
        RootFile f;
        size_t kept_lines = 0, kept_len = 0;

        /* A seq file of short records beyond a page: procfs hands it out a
         * page a read, so a short read is not its end. */
        (void) root_file_init(&f, "/proc/slabinfo");
        if (root_read_file("/", "/proc/slabinfo", 1 << 20, &fresh) < 0 || strlen(fresh) <= 4096) {
                tap_skip("no /proc/slabinfo longer than a page to read (needs root)");
                return;
        }
        for (int i = 0; i < 2; i++) {
                t = NULL;
                is_int(root_file_read("/", &f, 1 << 20, &t), 0, "/proc/slabinfo read through a kept fd");
                kept_lines = lines(t);
                kept_len = t ? strlen(t) : 0;
                free(t);
        }
        ok(f.kernel && f.to_eof, "  the kernel's, read to the end (a seq file)");
        ok(kept_len > 4096, "  past procfs' page (%zu bytes)", kept_len);
        is_u64(kept_lines, lines(fresh), "  reread whole: as many lines as a fresh open's");
        root_file_close(&f);

        (void) root_file_init(&f, "/proc/sys/kernel/ostype");
        t = read_kept(&f);
        free(t);
        t = NULL;
        is_int(root_file_read("/", &f, 4096, &t), 0, "a sysctl read through a kept fd");
        is_str(t, "Linux\n", "  its value, again");
        ok(f.kernel && !f.to_eof, "  the kernel's, one read (a sysctl's value comes whole)");
        free(t);
        root_file_close(&f);
}

static void test_adopt(void) {
        RootFile f;
        struct stat st;
        char path[256];
        char *t;
        int same, other;

        put("/proc/vmstat", "numa_hit 5\n");
        put("/proc/zoneinfo", "Node 0\n");
        (void) root_file_init(&f, "/proc/vmstat");
        snprintf(path, sizeof path, "%s/proc/zoneinfo", root);
        other = open(path, O_RDONLY | O_CLOEXEC);
        ok(other >= 0 && fstat(other, &st) == 0, "an fd to another file");
        ok(!root_file_adopt(&f, &other, &st), "  not adopted while nothing is kept");
        free(read_kept(&f));
        ok(!root_file_adopt(&f, &other, &st), "  nor as another file's");
        ok(other >= 0, "  left to its owner");
        close(other);

        snprintf(path, sizeof path, "%s/proc/vmstat", root);
        same = open(path, O_RDONLY | O_CLOEXEC);
        ok(same >= 0 && fstat(same, &st) == 0, "an fd to the same file");
        ok(root_file_adopt(&f, &same, &st), "  adopted");
        is_int(same, -1, "  taken");
        ok(f.quiet, "  the kept file is quiet now");
        put("/proc/vmstat", "numa_hit 6\n");
        t = read_kept(&f);
        is_str(t, "numa_hit 6\n", "  and reads the file's text");
        free(t);
        root_file_close(&f);
        ok(!f.quiet && f.fd == -1, "closed: neither open nor quiet");
}

int main(void) {
        char cmd[128];

        snprintf(root, sizeof root, "/tmp/test-rootfs.XXXXXX");
        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %m\n");
                return 1;
        }
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/proc/sys/vm'", root);
        if (system(cmd) != 0) {
                printf("Bail out! cannot build the tree in %s\n", root);
                return 1;
        }
        test_tree_file();
        test_fifo();
        test_kernel_files();
        test_adopt();
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", root);
        return tap_done();
}
