/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whose a process is, and its ids now. See owner.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "owner.h"
#include "rootfs.h"

/* Namespace ioctls (linux/nsfs.h), which the build's headers may lack. */
#define NSIO_TYPE_ 0xb7
#define NS_GET_USERNS_ _IO(NSIO_TYPE_, 0x1)
#define NS_GET_PARENT_ _IO(NSIO_TYPE_, 0x2)
#define NS_GET_OWNER_UID_ _IO(NSIO_TYPE_, 0x4)

/* User namespaces nest 32 deep at most. */
#define USERNS_DEPTH_MAX 33

static bool same_inode(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int userns_owner(int userns_fd, uid_t *ret) {
        _cleanup_close_ int fd = -EBADF;
        struct stat own, st;

        if (stat("/proc/self/ns/user", &own) < 0)
                return -errno;
        fd = fcntl(userns_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        for (unsigned depth = 0; depth < USERNS_DEPTH_MAX; depth++) {
                _cleanup_close_ int parent = -EBADF;
                struct stat pst;

                if (fstat(fd, &st) < 0)
                        return -errno;
                if (same_inode(&st, &own))
                        return -ENOENT;
                parent = ioctl(fd, NS_GET_PARENT_);
                if (parent < 0)
                        return -errno;
                if (fstat(parent, &pst) < 0)
                        return -errno;
                if (same_inode(&pst, &own)) {
                        /* The outermost below ours: its creator is one of
                         * our users, whatever uids it maps. */
                        uid_t owner;

                        if (ioctl(fd, NS_GET_OWNER_UID_, &owner) < 0)
                                return -errno;
                        *ret = owner;
                        return 0;
                }
                close(fd);
                fd = TAKE_FD(parent);
        }
        return -ELOOP;
}

static int open_ns(pid_t pid, const char *which) {
        char path[64];
        int fd;

        snprintf(path, sizeof path, "/proc/" PID_FMT "/ns/%s", pid, which);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int process_owner(pid_t pid, uid_t uid, uid_t *ret) {
        _cleanup_close_ int fd = open_ns(pid, "user");
        int r;

        if (fd < 0)
                return fd;
        r = userns_owner(fd, ret);
        if (r == -ENOENT) {
                *ret = uid;
                return 0;
        }
        return r;
}

int mntns_owner(pid_t pid, uid_t *ret) {
        _cleanup_close_ int fd = open_ns(pid, "mnt"), userns = -EBADF;
        int r;

        if (fd < 0)
                return fd;
        userns = ioctl(fd, NS_GET_USERNS_);
        if (userns < 0)
                return -errno;
        r = userns_owner(userns, ret);
        if (r == -ENOENT) {
                *ret = 0;
                return 0;
        }
        return r;
}

int process_ids(pid_t pid, ProcIds *ret) {
        _cleanup_free_ char *status = NULL;
        char path[64];
        int r;

        /* Our own /proc, whatever --root says: pids are ours. */
        snprintf(path, sizeof path, "/proc/" PID_FMT "/status", pid);
        r = root_read_file("/", path, 64 * 1024, &status);
        if (r < 0)
                return r;
        return proc_status_ids(status, ret);
}

bool proc_ids_equal(const ProcIds *a, const ProcIds *b) {
        return memcmp(a->uid, b->uid, sizeof a->uid) == 0 && memcmp(a->gid, b->gid, sizeof a->gid) == 0 &&
               a->n_groups == b->n_groups && memcmp(a->groups, b->groups, a->n_groups * sizeof a->groups[0]) == 0;
}
