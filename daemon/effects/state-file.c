/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "state-file.h"
#include "strutil.h"

const char *state_file_unsafe(const struct stat *st) {
        if (st->st_uid != geteuid())
                return "it is not owned by the daemon's user (root)";
        if (st->st_mode & (S_IWGRP | S_IWOTH))
                return "others can write to it";
        return NULL;
}

int state_file_save(int dir_fd, const char *name, const char *text) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        size_t len = strlen(text);
        int r;

        /* A fresh name, created exclusively and not through a link: nothing
         * planted in the directory is written through. */
        for (unsigned i = 0; fd < 0; i++) {
                uint32_t rnd = 0;

                (void) getrandom(&rnd, sizeof rnd, GRND_NONBLOCK);
                free(tmp);
                if (asprintf(&tmp, ".%s.%d.%08x", name, (int) getpid(), (unsigned) rnd) < 0)
                        return -ENOMEM;
                fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0 && (errno != EEXIST || i >= 16))
                        return -errno;
        }
        if (write(fd, text, len) != (ssize_t) len || fsync(fd) < 0) {
                r = errno ? -errno : -EIO;
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
                r = -errno;
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        return 0;
}

int state_file_load(int dir_fd, const char *name, size_t max, char **ret, char **ret_why) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        const char *why;
        ssize_t n;

        /* O_NONBLOCK: a FIFO planted there must not hang the start-up. */
        fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) {
                if (errno == ENOENT)
                        return -ENOENT;
                if (errno == ELOOP)
                        return set_why(ret_why, -EPERM, "it is a symbolic link");
                return set_why(ret_why, -EPERM, "cannot open it: %s", strerror(errno));
        }
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return set_why(ret_why, -EPERM, "it is not a regular file");
        why = state_file_unsafe(&st);
        if (why)
                return set_why(ret_why, -EPERM, "%s", why);
        if ((size_t) st.st_size > max)
                return set_why(ret_why, -EPERM, "it is too large (%lld bytes, at most %zu)", (long long) st.st_size,
                               max);
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        n = read(fd, buf, max + 1);
        if (n < 0)
                return -errno;
        if ((size_t) n > max)
                return set_why(ret_why, -EPERM, "it grew past %zu bytes while read", max);
        buf[n] = '\0';
        if ((size_t) n != strlen(buf))
                return set_why(ret_why, -EPERM, "it holds a NUL byte");
        *ret = TAKE_PTR(buf);
        return 0;
}
