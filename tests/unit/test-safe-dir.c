/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories root may write in: a path through someone else's directory,
 * a world-writable one, or someone else's symbolic link is refused; root's
 * own links, "..", sticky directories with root's entries are fine. Needs
 * root (the tree has other owners). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "safe-dir.h"
#include "strutil.h"
#include "tap.h"

#define NOBODY 65534

static char base[64];

static const char *at(const char *rel) {
        static char buf[4][512];
        static unsigned i;
        char *b = buf[i++ % 4];
        snprintf(b, sizeof buf[0], "%s/%s", base, rel);
        return b;
}

/* Opens PATH; on success checks the fd is the directory EXPECT (same inode). */
static int open_check(const char *path, SafeDirFlags flags, const char *expect, char **why) {
        _cleanup_close_ int fd = -1;
        struct stat a, b;
        int r;

        free(*why);
        *why = NULL;
        r = safe_dir_open(path, flags, &fd, why);
        if (r < 0)
                return r;
        if (fstat(fd, &a) < 0 || stat(expect, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
                return -ESTALE;
        /* It is a real directory fd: *at() works on it. */
        if (faccessat(fd, ".", R_OK, 0) < 0)
                return -EBADF;
        return 0;
}

static void test_safe(void) {
        _cleanup_free_ char *why = NULL;

        is_int(open_check(base, 0, base, &why), 0, "a private directory of root's opens");
        is_int(open_check(at("new/a/b"), SAFE_DIR_CREATE, at("new/a/b"), &why), 0,
               "missing directories are created");
        struct stat st;
        ok(stat(at("new/a"), &st) == 0 && (st.st_mode & 07777) == 0755 && st.st_uid == 0,
           "created 0755, owned by root");
        is_int(open_check(at("nothere/x"), 0, base, &why), -ENOENT, "without SAFE_DIR_CREATE, missing is ENOENT");
        ok(why && strstr(why, "nothere"), "the sentence names it: %s", strnull(why));

        /* /tmp-like: sticky and world-writable, with root's directory in it. */
        is_int(open_check(at("sticky/rootdir"), 0, at("sticky/rootdir"), &why), 0,
               "a root-owned directory in a sticky world-writable one opens");
        is_int(open_check(at("sticky/rootdir/../rootdir/./"), 0, at("sticky/rootdir"), &why), 0,
               "\"..\" and \".\" are walked, not refused");
        is_int(open_check(at("rootlink"), 0, at("sticky/rootdir"), &why), 0,
               "root's symbolic link (relative, through \"..\") is followed");
        is_int(open_check(at("abslink/rootdir"), 0, at("sticky/rootdir"), &why), 0,
               "root's absolute symbolic link is followed");
}

static void test_refused(void) {
        _cleanup_free_ char *why = NULL;

        is_int(open_check(at("theirs/sub"), 0, at("theirs/sub"), &why), -EPERM,
               "a directory of another user on the way is refused");
        ok(why && strstr(why, "/theirs is owned by another user"), "saying which: %s", strnull(why));
        is_int(open_check(at("theirs/sub"), SAFE_DIR_CREATE, at("theirs/sub"), &why), -EPERM,
               "... also when creating");
        is_int(open_check(at("open/sub"), 0, at("open/sub"), &why), -EPERM,
               "a world-writable, not sticky directory on the way is refused");
        ok(why && strstr(why, "writable by others"), "saying so: %s", strnull(why));
        is_int(open_check(at("open"), 0, at("open"), &why), -EPERM, "... and as the directory itself");
        is_int(open_check(at("sticky/theirdir"), 0, at("sticky/theirdir"), &why), -EPERM,
               "another user's directory in a sticky one is refused");
        is_int(open_check(at("sticky/theirlink/x"), SAFE_DIR_CREATE, at("sticky/rootdir"), &why), -EPERM,
               "another user's symbolic link in a sticky one is refused");
        ok(why && strstr(why, "symbolic link owned by another user"), "saying so: %s", strnull(why));
        ok(access(at("sticky/rootdir/x"), F_OK) < 0, "and nothing was created where it points");
        is_int(open_check(at("loop"), 0, base, &why), -ELOOP, "a loop of links ends");
        is_int(open_check(at("file/x"), 0, base, &why), -ENOTDIR, "a file on the way is ENOTDIR");
        is_int(open_check("relative/path", 0, base, &why), -EINVAL, "a relative path is refused");
}

static void test_parent(void) {
        _cleanup_free_ char *why = NULL, *name = NULL;
        _cleanup_close_ int fd = -1;

        is_int(safe_dir_open_parent(at("sticky/rootdir/sock"), 0, &fd, &name, &why), 0, "the parent opens");
        is_str(name, "sock", "the last component is the name");
        ok(fd >= 0 && mknodat(fd, name, S_IFREG | 0600, 0) == 0 && access(at("sticky/rootdir/sock"), F_OK) == 0,
           "and a file made at the fd lands there");
        static const char *const bad[] = { "/", "/x/", "/x/.", "/x/..", "sock" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *n = NULL;
                int dfd = -1;
                is_int(safe_dir_open_parent(bad[i], 0, &dfd, &n, &why), -EINVAL, bad[i]);
                ok(dfd < 0 && !n, "no fd or name handed out for %s", bad[i]);
        }
}

int main(void) {
        if (geteuid() != 0) {
                printf("1..0 # SKIP needs root: the tree has directories and links of other owners\n");
                return 0;
        }
        strcpy(base, "/tmp/test-safe-dir-XXXXXX");
        if (!mkdtemp(base))
                return 1;
        /* base (0700, root) holds:
         *   theirs/sub      a directory of uid 65534
         *   open/sub        world-writable, not sticky
         *   sticky/         1777: rootdir (root's), theirdir and theirlink -> rootdir (65534's)
         *   rootlink -> sticky/../sticky/rootdir, abslink -> BASE/sticky
         *   loop -> loop, file */
        if (mkdir(at("theirs"), 0755) < 0 || mkdir(at("theirs/sub"), 0755) < 0 || chown(at("theirs"), NOBODY, NOBODY) < 0 ||
            mkdir(at("open"), 0777) < 0 || chmod(at("open"), 0777) < 0 || mkdir(at("open/sub"), 0755) < 0 ||
            mkdir(at("sticky"), 0777) < 0 || chmod(at("sticky"), 01777) < 0 ||
            mkdir(at("sticky/rootdir"), 0755) < 0 || mkdir(at("sticky/theirdir"), 0755) < 0 ||
            chown(at("sticky/theirdir"), NOBODY, NOBODY) < 0 || symlink("rootdir", at("sticky/theirlink")) < 0 ||
            lchown(at("sticky/theirlink"), NOBODY, NOBODY) < 0 ||
            symlink("sticky/../sticky/rootdir", at("rootlink")) < 0 || symlink(at("sticky"), at("abslink")) < 0 ||
            symlink("loop", at("loop")) < 0 || mknod(at("file"), S_IFREG | 0644, 0) < 0) {
                printf("Bail out! cannot build the test tree in %s: %m\n", base);
                return 1;
        }

        test_safe();
        test_refused();
        test_parent();

        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (system(cmd) != 0)
                printf("# could not remove the test directory\n");
        printf("1..%u\n", tap_n);
        return tap_failed ? 1 : 0;
}
