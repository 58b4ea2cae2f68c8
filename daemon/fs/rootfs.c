/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "macro.h"
#include "rootfs.h"

int root_path(const char *root, const char *path, char **ret) {
        char *p;

        if (!path || path[0] != '/')
                return -EINVAL;
        if (!root || strcmp(root, "/") == 0)
                p = strdup(path);
        else if (asprintf(&p, "%s%s", root, path) < 0)
                p = NULL;
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

/* Reads fd to its end: from offset at with pread(), or, at < 0, from where
 * it stands (a FIFO). short_is_end: a read short of what was asked ends
 * the file (a regular file, a sysfs attribute, a sysctl), sparing the
 * read that returns 0. */
static int read_all(int fd, off_t at, bool short_is_end, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, alloc = 0;

        for (;;) {
                size_t want;
                ssize_t n;

                if (alloc - len < 4096) {
                        size_t grown = alloc ? alloc * 2 : 8192;
                        char *b;
                        if (grown > max + 1)
                                grown = max + 1;
                        if (grown <= len)
                                return -EFBIG;
                        b = realloc(buf, grown);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        alloc = grown;
                }
                want = alloc - len - 1;
                n = at < 0 ? read(fd, buf + len, want) : pread(fd, buf + len, want, at + (off_t) len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += n;
                if (len >= max)
                        return -EFBIG;
                if (short_is_end && (size_t) n < want)
                        break;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int fd_read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        return read_all(fd, -1, false, max, ret, ret_len);
}

int fd_pread_all(int fd, size_t max, char **ret, size_t *ret_len) {
        return read_all(fd, 0, false, max, ret, ret_len);
}

int root_read_file_len(const char *root, const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        r = root_path(root, path, &full);
        if (r < 0)
                return r;
        fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return fd_read_all(fd, max, ret, ret_len);
}

int root_read_file(const char *root, const char *path, size_t max, char **ret) {
        return root_read_file_len(root, path, max, ret, NULL);
}

int root_file_init(RootFile *f, const char *path) {
        *f = (RootFile) { .fd = -1 };
        if (strlen(path) >= sizeof f->path)
                return -ENAMETOOLONG;
        strcpy(f->path, path);
        return 0;
}

void root_file_close(RootFile *f) {
        f->fd = safe_close(f->fd);
        f->quiet = false;
}

/* Opens f's file into f->fd; one that is not a regular file (a FIFO
 * standing in for the kernel in tests) is not kept: it is handed back in
 * *ret_once, to be read once, as opened. */
static int root_file_open(const char *root, RootFile *f, int *ret_once) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -1;
        struct statfs sfs;
        struct stat st;
        int r;

        r = root_path(root, f->path, &full);
        if (r < 0)
                return r;
        fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0)
                return -errno;
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->kernel = sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC;
        /* A sysctl's handler writes its whole value in one read; a seq file
         * fills one page at a time. */
        f->to_eof = sfs.f_type == PROC_SUPER_MAGIC && strncmp(f->path, "/proc/sys/", 10) != 0;
        f->quiet = false;
        if (S_ISREG(st.st_mode))
                f->fd = TAKE_FD(fd);
        else
                *ret_once = TAKE_FD(fd);
        return 0;
}

int root_file_read(const char *root, RootFile *f, size_t max, char **ret) {
        _cleanup_close_ int once = -1;
        struct stat st;
        int r;

        /* A test tree's file may be removed, or replaced by a rename: read
         * the one at the path then. The kernel's own files are not unlinked. */
        if (f->fd >= 0 && !f->kernel && (fstat(f->fd, &st) < 0 || st.st_nlink == 0))
                root_file_close(f);
        if (f->fd >= 0) {
                r = read_all(f->fd, 0, !f->to_eof, max, ret, NULL);
                if (r >= 0 || r == -EFBIG || r == -ENOMEM)
                        return r;
                /* Gone (a node's sysfs directory removed: -ENODEV): the path
                 * may name another file by now. */
                root_file_close(f);
        }
        r = root_file_open(root, f, &once);
        if (r < 0)
                return r;
        if (once >= 0)
                return read_all(once, -1, false, max, ret, NULL);
        return read_all(f->fd, 0, !f->to_eof, max, ret, NULL);
}

bool root_file_adopt(RootFile *f, int *fd, const struct stat *st) {
        if (f->fd < 0 || f->quiet || (uint64_t) st->st_dev != f->dev || (uint64_t) st->st_ino != f->ino)
                return false;
        safe_close(f->fd);
        f->fd = TAKE_FD(*fd);
        f->quiet = true;
        return true;
}

int root_write_string(const char *root, const char *path, const char *value) {
        _cleanup_free_ char *full = NULL;
        _cleanup_close_ int fd = -1;
        size_t len = strlen(value);
        ssize_t n;
        int r;

        r = root_path(root, path, &full);
        if (r < 0)
                return r;
        /* O_TRUNC: harmless on procfs, and keeps a regular file in a test tree
         * from keeping the tail of a longer old value. */
        fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        /* A fresh open is at offset 0; write(), not pwrite(), so a FIFO
         * standing in for the kernel in tests behaves like the sysctl. */
        n = write(fd, value, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int root_exists(const char *root, const char *path) {
        _cleanup_free_ char *full = NULL;
        int r = root_path(root, path, &full);
        if (r < 0)
                return r;
        return access(full, F_OK) < 0 ? -errno : 0;
}

int root_normalize(const char *arg, char **ret) {
        char buf[PATH_MAX];
        char *p;

        if (!arg || !*arg)
                return -EINVAL;
        /* Resolve now: later paths are built by concatenation. */
        if (!realpath(arg, buf))
                return -errno;
        p = strdup(buf);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}
