/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Backend detection and write/read-back on directory trees of every kernel
 * kind, including one whose sysctl "accepts" a word and keeps its old value
 * (the v3 handler), a read-only one, and one whose file vanished. */

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "macro.h"
#include "rootfs.h"
#include "tap.h"

static char *make_tree(const char *sysctl, const char *value) {
        char tmpl[] = "/tmp/numastatd-test-XXXXXX";
        char *root = strdup(mkdtemp(tmpl));
        char path[512];

        snprintf(path, sizeof path, "%s/proc/sys/vm", root);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
        if (system(cmd) != 0)
                abort();
        if (sysctl) {
                FILE *f;
                snprintf(path, sizeof path, "%s/proc/sys/vm/%s", root, sysctl);
                f = fopen(path, "we");
                fputs(value, f);
                fclose(f);
        }
        return root;
}

static void remove_tree(char *root) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        (void) !system(cmd);
        free(root);
}

static char *file_content(const char *root, const char *sysctl) {
        char rel[256];
        char *t = NULL;
        snprintf(rel, sizeof rel, "/proc/sys/vm/%s", sysctl);
        if (root_read_file(root, rel, 4096, &t) < 0)
                return NULL;
        return t;
}

static void test_detect(void) {
        static const struct {
                const char *file, *value;
                BackendKind kind;
                KernelMode mode;
        } cases[] = {
                { "numa_stats_mode", "auto\n", BACKEND_NUMA_STATS_MODE, KERNEL_MODE_AUTO },
                { "vmstat_mode", "Strict\n", BACKEND_VMSTAT_MODE, KERNEL_MODE_STRICT },
                { "numa_stat", "1\n", BACKEND_NUMA_STAT, KERNEL_MODE_STRICT },
                { "numa_stat", "0\n", BACKEND_NUMA_STAT, KERNEL_MODE_COARSE },
                { NULL, NULL, BACKEND_NONE, KERNEL_MODE_UNKNOWN },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *root = make_tree(cases[i].file, cases[i].value);
                BackendKind k = _BACKEND_MAX;
                KernelMode m = _KERNEL_MODE_MAX;
                char *err = NULL;

                is_int(backend_detect(root, &k), 0, "detect succeeds");
                is_int(k, cases[i].kind, cases[i].file ? cases[i].file : "no sysctl: backend none");
                is_int(backend_read(root, k, &m, &err), 0, "read succeeds");
                is_int(m, cases[i].mode, "initial mode read");
                free(err);
                remove_tree(root);
        }

        /* numa_stats_mode wins over the older spellings and mainline's file. */
        char *root = make_tree("numa_stat", "1\n");
        char p[512];
        BackendKind k;
        snprintf(p, sizeof p, "%s/proc/sys/vm/vmstat_mode", root);
        close(open(p, O_CREAT | O_WRONLY, 0644));
        is_int(backend_detect(root, &k), 0, "detect with two files");
        is_int(k, BACKEND_VMSTAT_MODE, "vmstat_mode preferred over numa_stat");
        snprintf(p, sizeof p, "%s/proc/sys/vm/numa_stats_mode", root);
        close(open(p, O_CREAT | O_WRONLY, 0644));
        is_int(backend_detect(root, &k), 0, "detect with three files");
        is_int(k, BACKEND_NUMA_STATS_MODE, "numa_stats_mode preferred over both");
        remove_tree(root);
}

static void test_parse(void) {
        is_int(backend_parse_mode(BACKEND_NUMA_STAT, "1\n"), KERNEL_MODE_STRICT, "mainline 1");
        is_int(backend_parse_mode(BACKEND_NUMA_STAT, " 0 "), KERNEL_MODE_COARSE, "mainline 0");
        is_int(backend_parse_mode(BACKEND_NUMA_STAT, "2"), KERNEL_MODE_UNKNOWN, "mainline 2 unknown");
        is_int(backend_parse_mode(BACKEND_NUMA_STAT, "strict"), KERNEL_MODE_UNKNOWN, "mainline has no words");
        is_int(backend_parse_mode(BACKEND_NUMA_STATS_MODE, "Coarse\n"), KERNEL_MODE_COARSE, "v3 Coarse");
        is_int(backend_parse_mode(BACKEND_NUMA_STATS_MODE, "auto"), KERNEL_MODE_AUTO, "v3 auto");
        is_int(backend_parse_mode(BACKEND_NUMA_STATS_MODE, "1"), KERNEL_MODE_UNKNOWN, "v3 has no numbers");
        is_int(backend_parse_mode(BACKEND_NUMA_STATS_MODE, ""), KERNEL_MODE_UNKNOWN, "empty");
        is_int(backend_parse_mode(BACKEND_NONE, "1"), KERNEL_MODE_UNKNOWN, "none reads nothing");
        ok(!backend_supports(BACKEND_NUMA_STAT, KERNEL_MODE_AUTO), "mainline cannot do auto");
        ok(backend_supports(BACKEND_VMSTAT_MODE, KERNEL_MODE_AUTO), "patched can do auto");
        ok(!backend_supports(BACKEND_NONE, KERNEL_MODE_STRICT), "none supports nothing");
}

static void test_write(void) {
        static const struct {
                const char *file, *initial;
                KernelMode mode;
                const char *expect;
        } cases[] = {
                { "numa_stats_mode", "auto\n", KERNEL_MODE_COARSE, "coarse\n" },
                { "numa_stats_mode", "coarse\n", KERNEL_MODE_STRICT, "strict\n" },
                { "numa_stats_mode", "strict\n", KERNEL_MODE_AUTO, "auto\n" },
                { "vmstat_mode", "strict\n", KERNEL_MODE_COARSE, "coarse\n" },
                { "numa_stat", "1\n", KERNEL_MODE_COARSE, "0\n" },
                { "numa_stat", "0\n", KERNEL_MODE_STRICT, "1\n" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *root = make_tree(cases[i].file, cases[i].initial);
                BackendKind k;
                char *err = NULL, *content;
                char name[128];

                backend_detect(root, &k);
                snprintf(name, sizeof name, "%s: write %s", cases[i].file, kernel_mode_to_string(cases[i].mode));
                is_int(backend_write(root, k, cases[i].mode, &err), 0, name);
                ok(err == NULL, "no error message on success");
                content = file_content(root, cases[i].file);
                is_str(content, cases[i].expect, "file holds the lowercase word (whole, no old tail)");
                free(content);
                free(err);
                remove_tree(root);
        }

        /* Mainline has no auto: refused before anything is written. */
        char *root = make_tree("numa_stat", "1\n"), *err = NULL, *content;
        is_int(backend_write(root, BACKEND_NUMA_STAT, KERNEL_MODE_AUTO, &err), -EOPNOTSUPP, "mainline auto refused");
        ok(err && strstr(err, "cannot be set to 'auto'"), "refusal says why: %s", err);
        content = file_content(root, "numa_stat");
        is_str(content, "1\n", "file untouched");
        free(content);
        free(err);
        err = NULL;
        is_int(backend_write(root, BACKEND_NONE, KERNEL_MODE_STRICT, &err), -EOPNOTSUPP, "none writes nothing");
        free(err);
        remove_tree(root);
}

/* A fake v3 kernel: the sysctl is a FIFO served by a thread that swallows
 * whatever is written and then reads back the old value, as the v3 handler
 * does for a word it does not know. */
typedef struct FakeKernel {
        char path[512];
        char written[64];
        const char *keeps;
} FakeKernel;

static void *fake_kernel(void *p) {
        FakeKernel *fk = p;
        int fd = open(fk->path, O_RDONLY);
        ssize_t n = read(fd, fk->written, sizeof fk->written - 1);
        fk->written[n > 0 ? n : 0] = 0;
        close(fd);
        fd = open(fk->path, O_WRONLY);
        (void) !write(fd, fk->keeps, strlen(fk->keeps));
        close(fd);
        return NULL;
}

static void test_v3_accepts_garbage(void) {
        char *root = make_tree(NULL, NULL), *err = NULL;
        FakeKernel fk = { .keeps = "strict\n" };
        pthread_t t;
        int r;

        snprintf(fk.path, sizeof fk.path, "%s/proc/sys/vm/numa_stats_mode", root);
        if (mkfifo(fk.path, 0644) < 0) {
                tap_skip("mkfifo failed");
                return;
        }
        pthread_create(&t, NULL, fake_kernel, &fk);
        r = backend_write(root, BACKEND_NUMA_STATS_MODE, KERNEL_MODE_COARSE, &err);
        pthread_join(t, NULL);
        is_int(r, -EIO, "write that the kernel did not take is an error, not success");
        is_str(fk.written, "coarse\n", "one write of the lowercase word reached the kernel");
        ok(err && strstr(err, "reads back 'strict'"), "error names the read-back: %s", err);
        free(err);
        remove_tree(root);
}

static bool write_is_eacces(void *root) {
        char *e = NULL;
        int r = backend_write(root, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE, &e);
        return r == -EACCES && e && strstr(e, "Permission denied");
}

static void test_failures(void) {
        char *root = make_tree("numa_stat", "1\n"), *err = NULL;
        char path[512];
        struct stat st;
        int r;

        /* The sysctl vanished after detection: ENOENT, and no file appears. */
        snprintf(path, sizeof path, "%s/proc/sys/vm/numa_stat", root);
        unlink(path);
        is_int(backend_write(root, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE, &err), -ENOENT, "vanished file: ENOENT");
        ok(err && strstr(err, "cannot write '0' to /proc/sys/vm/numa_stat"), "error names the write: %s", err);
        ok(stat(path, &st) < 0 && errno == ENOENT, "no regular file created in its place");
        free(err);
        err = NULL;
        is_int(backend_read(root, BACKEND_NUMA_STAT, &(KernelMode){ 0 }, &err), -ENOENT, "read of vanished file");
        free(err);
        err = NULL;

        /* Garbage in the file reads back as an error. */
        FILE *f = fopen(path, "we");
        fputs("7\n", f);
        fclose(f);
        KernelMode m = KERNEL_MODE_STRICT;
        is_int(backend_read(root, BACKEND_NUMA_STAT, &m, &err), -EBADMSG, "unknown value is an error");
        ok(err && strstr(err, "holds '7'"), "error quotes the value: %s", err);
        free(err);
        err = NULL;

        /* Not allowed to write: EACCES, checked as an unprivileged user. */
        f = fopen(path, "we");
        fputs("1\n", f);
        fclose(f);
        chmod(path, 0644);
        chmod(root, 0755);
        if (geteuid() == 0) {
                ok(as_nobody(write_is_eacces, root), "unprivileged write: EACCES with message");

                /* Read-only file system: EROFS, in a private mount namespace. */
                int status;
                pid_t pid = fork();
                if (pid == 0) {
                        char *e = NULL;
                        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                            mount(root, root, NULL, MS_BIND, NULL) < 0 ||
                            mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
                                _exit(100);
                        r = backend_write(root, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE, &e);
                        _exit(r == -EROFS && e && strstr(e, "Read-only file system") ? 0 : 1);
                }
                waitpid(pid, &status, 0);
                if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
                        tap_skip("cannot make a read-only bind mount here (no mount namespace)");
                else
                        ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only tree: EROFS with message");
        } else {
                chmod(path, 0444);
                r = backend_write(root, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE, &err);
                is_int(r, -EACCES, "read-only file as non-root: EACCES");
                free(err);
                tap_skip("EROFS check needs root for a read-only bind mount");
        }
        remove_tree(root);
}

int main(void) {
        alarm(60);      /* a hang (e.g. the fake kernel's FIFO) fails instead of stalling make check */
        test_detect();
        test_parse();
        test_write();
        test_v3_accepts_garbage();
        test_failures();
        return tap_done();
}
