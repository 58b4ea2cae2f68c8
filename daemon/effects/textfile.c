/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "macro.h"
#include "resolve.h"
#include "strutil.h"
#include "textfile.h"

/* The directory of path, with no symbolic link anywhere on the way; and
 * path's last component. Not safe_dir_open_parent(): it refuses a directory
 * on the way owned by anyone but root, and the collector's is under
 * prometheus's /var/lib/prometheus. */
static int open_parent(const char *path, int *ret_fd, char **ret_name) {
        _cleanup_free_ char *dir = NULL, *name = NULL;
        _cleanup_close_ int pathfd = -EBADF;
        int fd, r;

        r = path_split_file(path, &dir, &name);
        if (r < 0)
                return r;
        pathfd = resolve_open_path(AT_FDCWD, dir, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (pathfd < 0)
                return pathfd;
        fd = openat(pathfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        *ret_name = TAKE_PTR(name);
        return 0;
}

#define TMP_SUFFIX ".tmp"

/* Not *.prom: the collector never reads a half-written one. The name is
 * random: the directory's owner (prometheus) must not be able to take it
 * beforehand and make every write fail. */
static int create_temporary(int dfd, const char *name, char **ret) {
        for (unsigned attempt = 0; attempt < 16; attempt++) {
                _cleanup_free_ char *tmp = NULL;
                uint64_t rnd;
                int fd;

                if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                        return -errno;
                if (asprintf(&tmp, ".%s.%016" PRIx64 TMP_SUFFIX, name, rnd) < 0)
                        return -ENOMEM;
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        *ret = TAKE_PTR(tmp);
                        return fd;
                }
                if (errno != EEXIST)
                        return -errno;
        }
        return -EEXIST;
}

/* Temporary files of ours a crash left: regular files, ours, named as
 * create_temporary() names them. */
static void remove_leftovers(int dfd, const char *name) {
        _cleanup_free_ char *prefix = NULL;
        int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
        struct dirent *de;

        if (!d) {
                safe_close(lfd);
                return;
        }
        if (asprintf(&prefix, ".%s.", name) >= 0)
                while ((de = readdir(d))) {
                        size_t len = strlen(de->d_name);
                        struct stat st;

                        if (!startswith(de->d_name, prefix) || len != strlen(prefix) + 16 + strlen(TMP_SUFFIX) ||
                            !streq(de->d_name + len - strlen(TMP_SUFFIX), TMP_SUFFIX))
                                continue;
                        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                            st.st_uid == geteuid())
                                (void) unlinkat(dfd, de->d_name, 0);
                }
        closedir(d);
}

int textfile_write(const char *path, const char *text, TextfileId *ret_id, char **ret_why) {
        _cleanup_free_ char *name = NULL, *tmp = NULL;
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        size_t len = strlen(text);
        struct stat st;
        int r;

        r = open_parent(path, &dfd, &name);
        if (r < 0)
                return set_why(ret_why, r, "cannot open the directory of %s%s", path,
                               r == -ELOOP ? " (a symbolic link on the way)" : "");
        remove_leftovers(dfd, name);
        fd = create_temporary(dfd, name, &tmp);
        if (fd < 0)
                return set_why(ret_why, fd, "cannot create a temporary file next to %s", path);
        /* The daemon's umask (the unit's 0077) must not hide it from the collector. */
        if (fchmod(fd, 0644) < 0 || write(fd, text, len) != (ssize_t) len || fstat(fd, &st) < 0) {
                r = errno > 0 ? -errno : -EIO;
                (void) unlinkat(dfd, tmp, 0);
                return set_why(ret_why, r, "cannot write %s", path);
        }
        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = -errno;
                (void) unlinkat(dfd, tmp, 0);
                return set_why(ret_why, r, "cannot rename the new %s into place", path);
        }
        if (ret_id)
                *ret_id = (TextfileId) { .dev = (uint64_t) st.st_dev, .ino = (uint64_t) st.st_ino };
        return 0;
}

int textfile_remove(const char *path, const TextfileId *id) {
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int dfd = -EBADF;
        struct stat st;
        int r;

        if (!id || id->ino == 0)
                return 0;
        r = open_parent(path, &dfd, &name);
        if (r < 0)
                return r;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if ((uint64_t) st.st_dev != id->dev || (uint64_t) st.st_ino != id->ino)
                return 0;       /* someone else's now */
        return unlinkat(dfd, name, 0) < 0 ? -errno : 1;
}
