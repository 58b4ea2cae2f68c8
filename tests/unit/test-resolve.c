/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resolve_open_path(): the walk it falls back to gives what openat2() gives,
 * case by case (the same inode, or the same error); and under a seccomp
 * filter that answers openat2() with ENOSYS, as systemd's
 * RestrictSUIDSGID= does, the catalogue's lookups and the metrics textfile
 * still work. */

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "missing.h"
#include "resolve.h"
#include "rootfs.h"
#include "strutil.h"
#include "tap.h"
#include "textfile.h"

#define PROBE (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
#define TEXTFILE (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

static char base[64];

static const char *at(const char *rel) {
        static char buf[8][512];
        static unsigned i;
        char *b = buf[i++ % 8];
        snprintf(b, sizeof buf[0], "%s/%s", base, rel);
        return b;
}

typedef struct Case {
        const char *path;       /* relative to the root; "@" first: absolute, from base */
        uint64_t resolve;
        const char *expect;     /* the file it must find, relative to base; NULL: an error */
        int expect_errno;
        bool needs_mount;
} Case;

/* root/ stands for a container's root; base/secret is outside it. */
static const Case cases[] = {
        { "bin/node_exporter", PROBE, "root/bin/node_exporter", 0, false },
        { "/bin/node_exporter", PROBE, "root/bin/node_exporter", 0, false },
        { "/etc/netdata/netdata.conf", PROBE, "root/etc/netdata/netdata.conf", 0, false },
        { "abs/netdata.conf", PROBE, "root/etc/netdata/netdata.conf", 0, false },
        { "deep/a/abs/netdata.conf", PROBE, "root/etc/netdata/netdata.conf", 0, false },
        { "rel/netdata.conf", PROBE, "root/etc/netdata/netdata.conf", 0, false },
        { "deep/a/b/c", PROBE, "root/deep/a/b/c", 0, false },
        { "deep/a/b/../../a/./b/c", PROBE, "root/deep/a/b/c", 0, false },
        { "chain", PROBE, "root/etc/netdata/netdata.conf", 0, false },
        { "dirlink/../bin/node_exporter", PROBE, NULL, ENOENT, false },
        /* ".." and absolute links never leave the root */
        { "../../../../secret", PROBE, "root/secret", 0, false },
        { "up/secret", PROBE, "root/secret", 0, false },
        { "hostsecret", PROBE, NULL, ENOENT, false },
        { "loop", PROBE, NULL, ELOOP, false },
        { "nothere", PROBE, NULL, ENOENT, false },
        { "bin/node_exporter/x", PROBE, NULL, ENOTDIR, false },
        { "", PROBE, NULL, ENOENT, false },
        { "/", PROBE, "root", 0, false },
        { "..", PROBE, "root", 0, false },
        /* a mount on the way, or at the end */
        { "mnt/file", PROBE, NULL, EXDEV, true },
        { "mnt", PROBE, NULL, EXDEV, true },
        { "mntlink/file", PROBE, NULL, EXDEV, true },
        { "mnt/file", RESOLVE_IN_ROOT, "root/mnt/file", 0, true },
        /* the textfile's: no symbolic link anywhere, from "/" */
        { "@root/etc/netdata", TEXTFILE, "root/etc/netdata", 0, false },
        { "@root/abs", TEXTFILE, NULL, ELOOP, false },
        { "@root/deep/a/../a/b", TEXTFILE, "root/deep/a/b", 0, false },
        { "@root/mnt", TEXTFILE, "root/mnt", 0, true },
        /* a relative path without RESOLVE_IN_ROOT may climb out */
        { "../secret", 0, "secret", 0, false },
        { "hostsecret", 0, "secret", 0, false },
};

/* What a case gave: the inode found, or the error. */
typedef struct Result {
        dev_t dev;
        ino_t ino;
        int error;
} Result;

static Result result_of(int fd) {
        struct stat st;
        Result r = { .error = fd < 0 ? -fd : 0 };

        if (fd >= 0) {
                if (fstat(fd, &st) < 0)
                        r.error = errno;
                else
                        r = (Result) { .dev = st.st_dev, .ino = st.st_ino };
                close(fd);
        }
        return r;
}

static Result run_case(int rootfd, const Case *c, int (*open_fn)(int, const char *, uint64_t)) {
        if (c->path[0] == '@')
                return result_of(open_fn(AT_FDCWD, at(c->path + 1), c->resolve));
        return result_of(open_fn(rootfd, c->path, c->resolve));
}

static int openat2_raw(int dirfd, const char *path, uint64_t resolve) {
        struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = resolve };
        int fd = (int) syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        return fd < 0 ? -errno : fd;
}

static Result expected(const Case *c) {
        struct stat st;

        if (!c->expect)
                return (Result) { .error = c->expect_errno };
        if (stat(at(c->expect), &st) < 0)
                return (Result) { .error = -1 };
        return (Result) { .dev = st.st_dev, .ino = st.st_ino };
}

static bool same(Result a, Result b) {
        return a.error == b.error && (a.error || (a.dev == b.dev && a.ino == b.ino));
}

static void report(const char *what, const Case *c, Result got, Result want) {
        if (!ok(same(got, want), "%s: %s%s (resolve %#llx)", what,
                c->path[0] == '@' ? "" : c->path[0] == '/' ? "ROOT" : "ROOT/",
                c->path[0] == '@' ? c->path + 1 : c->path, (unsigned long long) c->resolve))
                printf("#   got error %d ino %llu, expected error %d ino %llu\n", got.error,
                       (unsigned long long) got.ino, want.error, (unsigned long long) want.ino);
}

static int refuse_openat2(void) {
        struct sock_filter filter[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = ELEMENTSOF(filter), .filter = filter };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                return -errno;
        return 0;
}

static void test_mountinfo(void) {
        static const char info[] =
                "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
                "25 22 0:5 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
                "88 22 0:51 / /home/u/mnt rw,nosuid,nodev,relatime shared:40 master:3 - fuse.sshfs u@h:/ rw\n"
                "89 22 0:52 /sub /srv rw - fuse /dev/fuse rw,user_id=1000\n"
                "broken line without separator\n";
        char buf[64];

        is_str(mountinfo_fstype(info, 253, 1, buf, sizeof buf), "ext4", "mountinfo: the root's ext4, by its device");
        is_str(mountinfo_fstype(info, 0, 5, buf, sizeof buf), "proc", "  procfs");
        is_str(mountinfo_fstype(info, 0, 51, buf, sizeof buf), "fuse.sshfs", "  a FUSE mount with optional fields");
        is_str(mountinfo_fstype(info, 0, 52, buf, sizeof buf), "fuse", "  plain fuse");
        ok(!mountinfo_fstype(info, 0, 99, buf, sizeof buf), "  a device no mount has: none");
        ok(!mountinfo_fstype(info, 253, 1, buf, 3), "  a type longer than the buffer: none, not cut");
        ok(!mountinfo_fstype("", 0, 5, buf, sizeof buf), "  an empty text: none");
}

/* Crossing mounts of the root's own file system: a mount table decides. */
static void test_mounts_on(void) {
        const char *mi = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                         "30 22 8:1 /usr /usr ro - ext4 /dev/sda1 rw\n"
                         "31 22 0:44 / /usr/local rw - fuse.x x rw\n"
                         "32 22 0:45 / /usr2 rw - tmpfs t rw\n";

        ok(resolve_path_mounts_on(mi, 8, 1, "/usr/bin/perl"), "/usr bound over itself: the root's file system");
        ok(!resolve_path_mounts_on(mi, 8, 1, "/usr/local/bin/x"), "/usr/local a FUSE mount: not");
        ok(resolve_path_mounts_on(mi, 8, 1, "/usr2x/y"), "/usr2x is not under /usr2");
        ok(!resolve_path_mounts_on(mi, 8, 1, "/usr2"), "/usr2 itself: another file system");
        ok(!resolve_path_mounts_on(mi, 8, 2, "/usr/bin/perl"), "another root device: not");
        ok(!resolve_path_mounts_on(NULL, 8, 1, "/usr/bin/perl"), "no mount table: not");
        ok(!resolve_path_mounts_on(mi, 8, 1, "usr/bin"), "a relative path: not");
}

int main(void) {
        _cleanup_close_ int rootfd = -1;
        bool have_mount = false, have_openat2;
        Result want[ELEMENTSOF(cases)];
        int pipefd[2];
        pid_t pid;

        snprintf(base, sizeof base, "/tmp/test-resolve.XXXXXX");
        if (!mkdtemp(base))
                return 1;
        if (mkdir(at("root"), 0755) < 0 || mkdir(at("root/bin"), 0755) < 0 || mkdir(at("root/etc"), 0755) < 0 ||
            mkdir(at("root/etc/netdata"), 0755) < 0 || mkdir(at("root/deep"), 0755) < 0 ||
            mkdir(at("root/deep/a"), 0755) < 0 || mkdir(at("root/deep/a/b"), 0755) < 0 ||
            mkdir(at("root/mnt"), 0755) < 0 || mkdir(at("prom"), 0755) < 0 ||
            mknod(at("root/bin/node_exporter"), S_IFREG | 0755, 0) < 0 ||
            mknod(at("root/etc/netdata/netdata.conf"), S_IFREG | 0644, 0) < 0 ||
            mknod(at("root/deep/a/b/c"), S_IFREG | 0644, 0) < 0 || mknod(at("root/secret"), S_IFREG | 0600, 0) < 0 ||
            mknod(at("secret"), S_IFREG | 0600, 0) < 0 || symlink("/etc/netdata", at("root/abs")) < 0 ||
            symlink("/etc/netdata", at("root/deep/a/abs")) < 0 ||
            symlink("etc/netdata", at("root/rel")) < 0 || symlink("../../../../..", at("root/up")) < 0 ||
            symlink(at("secret"), at("root/hostsecret")) < 0 || symlink("rel/../netdata/../../abs/netdata.conf", at("root/chain")) < 0 ||
            symlink("deep/a/b", at("root/dirlink")) < 0 || symlink("loop", at("root/loop")) < 0 ||
            symlink("/mnt", at("root/mntlink")) < 0) {
                printf("Bail out! cannot build the test tree in %s: %m\n", base);
                return 1;
        }

        /* A mount of its own for the RESOLVE_NO_XDEV cases, in a mount
         * namespace of the test's (needs root). */
        if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
            mount("tmpfs", at("root/mnt"), "tmpfs", 0, "size=1m") == 0)
                have_mount = mknod(at("root/mnt/file"), S_IFREG | 0644, 0) == 0;
        rootfd = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return 1;
        {
                int fd = openat2_raw(rootfd, "bin", 0);
                have_openat2 = fd != -ENOSYS;
                safe_close(fd);
        }

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Case *c = &cases[i];

                want[i] = expected(c);
                if (c->needs_mount && !have_mount) {
                        tap_skip("no mount namespace of our own (the test needs root) for the mount cases");
                        continue;
                }
                report("the walk finds what it must", c, run_case(rootfd, c, resolve_walk), want[i]);
                if (have_openat2)
                        report("openat2() agrees", c, run_case(rootfd, c, openat2_raw), want[i]);
        }
        if (!have_openat2)
                tap_skip("this kernel has no openat2() to compare the walk with");

        /* Under a filter that refuses openat2(): one byte per check back. */
        if (pipe(pipefd) < 0 || (pid = fork()) < 0)
                return 1;
        if (pid == 0) {
                char verdicts[ELEMENTSOF(cases) + 3];
                size_t n = 0;
                TextfileId id = {};
                _cleanup_free_ char *why = NULL;
                struct stat st;

                close(pipefd[0]);
                if (refuse_openat2() < 0)
                        _exit(2);
                verdicts[n++] = openat2_raw(rootfd, "bin", 0) == -ENOSYS;
                for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                        verdicts[n++] = (cases[i].needs_mount && !have_mount) ||
                                        same(run_case(rootfd, &cases[i], resolve_open_path), want[i]);
                verdicts[n++] = textfile_write(at("prom/numastatd.prom"), "x 1\n", &id, &why) == 0 &&
                                stat(at("prom/numastatd.prom"), &st) == 0 && st.st_size == 4;
                verdicts[n++] = textfile_remove(at("prom/numastatd.prom"), &id) == 1 &&
                                access(at("prom/numastatd.prom"), F_OK) < 0;
                _exit(write(pipefd[1], verdicts, n) == (ssize_t) n ? 0 : 3);
        }
        close(pipefd[1]);
        {
                char v[ELEMENTSOF(cases) + 3] = {};
                ssize_t n = read(pipefd[0], v, sizeof v);
                int status = 0;

                waitpid(pid, &status, 0);
                is_int(n, (ssize_t) sizeof v, "the child under a seccomp filter reported every case");
                ok(v[0], "seccomp filter: openat2() answers ENOSYS, as under RestrictSUIDSGID=");
                for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                        ok(v[1 + i], "openat2() refused: resolve_open_path() still finds what it must: %s", cases[i].path);
                ok(v[ELEMENTSOF(cases) + 1], "openat2() refused: the metrics textfile is written");
                ok(v[ELEMENTSOF(cases) + 2], "openat2() refused: the metrics textfile is removed");
        }

        (void) umount2(at("root/mnt"), MNT_DETACH);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (system(cmd) != 0)
                printf("# could not remove the test directory\n");
        test_mountinfo();
        {
                /* Our own root is no FUSE: looked into. */
                int fd = open("/proc/self/root", O_PATH | O_DIRECTORY | O_CLOEXEC);
                char *mountinfo = NULL;

                (void) root_read_file("/", "/proc/self/mountinfo", 4 * 1024 * 1024, &mountinfo);

                ok(mountinfo != NULL, "our own mountinfo is read");
                ok(fd >= 0 && !resolve_root_may_block(mountinfo, fd), "our own root may be looked into");
                ok(fd >= 0 && !resolve_root_may_block(NULL, fd), "  also from ours when a process's cannot be read");
                free(mountinfo);
                safe_close(fd);
        }
        test_mounts_on();
        return tap_done();
}
