/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "macro.h"
#include "missing.h"
#include "rootfs.h"
#include "resolve.h"
#include "strutil.h"

#define RESOLVE_SUPPORTED (RESOLVE_IN_ROOT | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
#define WALK_LINKS_MAX 40       /* the kernel's MAXSYMLINKS */
#define WALK_DEPTH_MAX 256

/* The directories walked into, the start first: ".." pops one. */
typedef struct Walk {
        int fds[WALK_DEPTH_MAX];
        size_t n;
        uint64_t resolve;
        uint64_t mount;         /* the start's, for RESOLVE_NO_XDEV */
} Walk;

static void walk_done(Walk *w) {
        for (size_t i = 0; i < w->n; i++)
                safe_close(w->fds[i]);
        w->n = 0;
}

/* Type and mount of fd, from cached attributes: a FUSE file system someone
 * mounted on the way must not be asked (its server could never answer). */
static int inspect(int fd, mode_t *ret_mode, uint64_t *ret_mount) {
        struct statx sx;

        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID,
                  &sx) < 0)
                return -errno;
        *ret_mode = sx.stx_mode;
        /* Before 5.8 no mount ID: the device tells file systems apart, if
         * not two bind mounts of one. */
        *ret_mount = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id
                                                  : (UINT64_C(1) << 63) | makedev(sx.stx_dev_major, sx.stx_dev_minor);
        return 0;
}

/* Takes fd as the walk's new top, or (replace) its only directory. */
static int walk_enter(Walk *w, int fd, bool replace) {
        mode_t mode;
        uint64_t mount;
        int r;

        r = inspect(fd, &mode, &mount);
        if (r < 0 || ((w->resolve & RESOLVE_NO_XDEV) && mount != w->mount)) {
                safe_close(fd);
                return r < 0 ? r : -EXDEV;
        }
        if (replace)
                walk_done(w);
        if (w->n >= WALK_DEPTH_MAX) {
                safe_close(fd);
                return -ENAMETOOLONG;
        }
        w->fds[w->n++] = fd;
        return 0;
}

static int walk_start(Walk *w, int dirfd, const char *path) {
        mode_t mode;
        int fd, r;

        fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = inspect(fd, &mode, &w->mount);
        if (r < 0) {
                safe_close(fd);
                return r;
        }
        w->fds[w->n++] = fd;
        if (path[0] == '/' && !(w->resolve & RESOLVE_IN_ROOT)) {
                fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                return fd < 0 ? -errno : walk_enter(w, fd, true);
        }
        return 0;
}

/* An absolute link: back to the root (the start, in RESOLVE_IN_ROOT). */
static int walk_to_root(Walk *w) {
        int fd;

        if (w->resolve & RESOLVE_IN_ROOT) {
                while (w->n > 1)
                        safe_close(w->fds[--w->n]);
                return 0;
        }
        fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : walk_enter(w, fd, true);
}

static int walk_up(Walk *w) {
        int fd;

        if (w->n > 1) {
                safe_close(w->fds[--w->n]);
                return 0;
        }
        if (w->resolve & RESOLVE_IN_ROOT)
                return 0;       /* ".." of the root is the root */
        fd = openat(w->fds[0], "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : walk_enter(w, fd, true);
}

int resolve_walk(int dirfd, const char *path, uint64_t resolve) {
        _cleanup_(walk_done) Walk w = { .resolve = resolve };
        _cleanup_free_ char *todo = NULL;
        unsigned links = 0;
        int r;

        if (!path || (resolve & ~(uint64_t) RESOLVE_SUPPORTED))
                return -EINVAL;
        if (!*path)
                return -ENOENT;
        r = walk_start(&w, dirfd, path);
        if (r < 0)
                return r;
        todo = strdup(path);
        if (!todo)
                return -ENOMEM;

        for (;;) {
                _cleanup_free_ char *comp = NULL;
                const char *p = todo + strspn(todo, "/");
                size_t len = strcspn(p, "/");
                mode_t mode;
                uint64_t mount;
                int fd;

                if (!*p)
                        break;
                comp = strndup(p, len);
                if (!comp)
                        return -ENOMEM;
                memmove(todo, p + len, strlen(p + len) + 1);
                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        r = walk_up(&w);
                        if (r < 0)
                                return r;
                        continue;
                }

                fd = openat(w.fds[w.n - 1], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                r = inspect(fd, &mode, &mount);
                if (r >= 0 && S_ISLNK(mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(fd, "", target, sizeof target - 1);
                        char *next;

                        r = n < 0 ? -errno : 0;
                        safe_close(fd);
                        if (r < 0)
                                return r;
                        if ((resolve & RESOLVE_NO_SYMLINKS) || ++links > WALK_LINKS_MAX)
                                return -ELOOP;
                        target[n] = '\0';
                        if (asprintf(&next, "%s/%s", target, todo) < 0)
                                return -ENOMEM;
                        free(todo);
                        todo = next;
                        if (target[0] == '/') {
                                r = walk_to_root(&w);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }
                if (r < 0) {
                        safe_close(fd);
                        return r;
                }
                r = walk_enter(&w, fd, false);
                if (r < 0)
                        return r;
        }
        w.n--;
        return w.fds[w.n];      /* ours now: walk_done() stops below it */
}

int resolve_open_path(int dirfd, const char *path, uint64_t resolve) {
        struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = resolve };
        int fd = (int) syscall(SYS_openat2, dirfd, path, &how, sizeof how);

        if (fd >= 0)
                return fd;
        if (errno != ENOSYS && errno != EPERM)
                return -errno;
        return resolve_walk(dirfd, path, resolve);
}

#define MOUNTINFO_MAX (4 * 1024 * 1024)

/* The type of the file system with device major:minor, from the process's
 * mountinfo, else (a root inside a mount the process cannot see, as after
 * a chroot) from ours: NULL if neither has it. */
static const char *fstype_of_dev(const char *mountinfo, unsigned major, unsigned minor, char *buf, size_t size) {
        _cleanup_free_ char *ours = NULL;

        if (mountinfo && mountinfo_fstype(mountinfo, major, minor, buf, size))
                return buf;
        if (root_read_file("/", "/proc/self/mountinfo", MOUNTINFO_MAX, &ours) >= 0 &&
            mountinfo_fstype(ours, major, minor, buf, size))
                return buf;
        return NULL;
}

int resolve_open_fs_root(const char *mountinfo, int rootfd, const char *path, long magic) {
        const char *want = magic == PROC_SUPER_MAGIC ? "proc" : magic == SYSFS_MAGIC ? "sysfs" : NULL;
        _cleanup_close_ int fd = -1;
        struct statfs sfs;
        struct statx sx;
        char type[64];

        if (!want)
                return -EINVAL;
        fd = resolve_open_path(rootfd, path, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (fd < 0)
                return fd;
        /* The type from the mount table first: fstatfs() on a FUSE mount
         * asks its server, which may never answer. */
        if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &sx) < 0)
                return -errno;
        if (!fstype_of_dev(mountinfo, sx.stx_dev_major, sx.stx_dev_minor, type, sizeof type) || !streq(type, want))
                return -EMEDIUMTYPE;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if ((long) sfs.f_type != magic || !S_ISDIR(sx.stx_mode))
                return -EMEDIUMTYPE;
        /* A mount's root, not a directory of it bind-mounted there. */
        if ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
                return -EMEDIUMTYPE;
        if (sx.stx_ino != 1)    /* procfs' and kernfs' root inode */
                return -EMEDIUMTYPE;
        return TAKE_FD(fd);
}

const char *mountinfo_fstype(const char *text, unsigned major, unsigned minor, char *buf, size_t size) {
        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n'), *sep, *type;
                size_t len = eol ? (size_t) (eol - line) : strlen(line), tlen;
                unsigned id, parent, maj, min;

                /* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER" */
                sep = memmem(line, len, " - ", 3);
                if (sep && sscanf(line, "%u %u %u:%u ", &id, &parent, &maj, &min) == 4 && maj == major &&
                    min == minor) {
                        type = sep + 3;
                        tlen = strcspn(type, " \n");
                        if (tlen == 0 || tlen >= size)
                                return NULL;
                        memcpy(buf, type, tlen);
                        buf[tlen] = '\0';
                        return buf;
                }
                line = eol ? eol + 1 : NULL;
        }
        return NULL;
}

bool resolve_root_may_block(const char *mountinfo, int rootfd) {
        char type[64];
        struct statx sx;

        /* Cached attributes: no request reaches a FUSE server. */
        if (statx(rootfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &sx) < 0)
                return true;
        if (!fstype_of_dev(mountinfo, sx.stx_dev_major, sx.stx_dev_minor, type, sizeof type))
                return true;
        return streq(type, "fuse") || startswith(type, "fuse.") || streq(type, "fuseblk");
}

/* ---- mounts, as the kernel tells them (Linux 6.11 and later) ---- */

/* ABI the build's headers may lack; these numbers never change. */
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#define STATX_MNT_ID_UNIQUE_ 0x00004000U
#define STATMOUNT_SB_BASIC_ 0x1
#define MNT_ID_REQ_SIZE_VER1_ 32
#define NS_GET_MNTNS_ID_ _IOR(0xb7, 0x5, uint64_t)

/* struct statx as the kernel has it (glibc's may not name stx_mnt_id). */
typedef struct KernelStatx {
        uint32_t mask, blksize;
        uint64_t attributes;
        uint32_t nlink, uid, gid;
        uint16_t mode, pad1;
        uint64_t ino, size, blocks, attributes_mask;
        uint64_t times[8];      /* atime, btime, ctime, mtime: 16 bytes each */
        uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
        uint64_t mnt_id;
        uint64_t spare[13];
} KernelStatx;
_Static_assert(offsetof(KernelStatx, mnt_id) == 144 && sizeof(KernelStatx) == 256, "struct statx's layout");

typedef struct MntIdReq {
        uint32_t size, spare;
        uint64_t mnt_id, param, mnt_ns_id;
} MntIdReq;

/* The fields of struct statmount read here, at their offsets. */
typedef struct StatmountHead {
        uint32_t size, mnt_opts;
        uint64_t mask;
        uint32_t sb_dev_major, sb_dev_minor;
        uint64_t sb_magic;
} StatmountHead;

uint64_t mntns_id(int nsfd) {
        uint64_t id = 0;

        return ioctl(nsfd, NS_GET_MNTNS_ID_, &id) < 0 ? 0 : id;
}

static int statmount_basic(uint64_t mnt_id, uint64_t ns_id, StatmountHead *ret) {
        MntIdReq req = { .size = MNT_ID_REQ_SIZE_VER1_, .mnt_id = mnt_id, .param = STATMOUNT_SB_BASIC_,
                         .mnt_ns_id = ns_id };
        uint64_t buf[128];      /* struct statmount is 512 bytes before its strings */

        if (ns_id == 0)
                return -EOPNOTSUPP;
        if (syscall(__NR_statmount, &req, buf, sizeof buf, 0) < 0)
                return -errno;
        memcpy(ret, buf, sizeof *ret);
        return 0;
}

int mount_attached_in(uint64_t mnt_id, uint64_t ns_id) {
        StatmountHead h;
        int r = statmount_basic(mnt_id, ns_id, &h);

        if (r >= 0)
                return 1;
        return r == -ENOENT ? 0 : r;
}

int mount_magic_of(int fd, uint64_t ns_id, uint64_t *ret) {
        KernelStatx sx = {};
        StatmountHead h;
        int r;

        /* Cached attributes: nothing reaches a FUSE server. */
        if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID_UNIQUE_, &sx) < 0)
                return -errno;
        if (!(sx.mask & STATX_MNT_ID_UNIQUE_))
                return -EOPNOTSUPP;     /* before Linux 6.8 */
        r = statmount_basic(sx.mnt_id, ns_id, &h);
        if (r < 0)
                return r == -EINVAL || r == -ENOSYS ? -EOPNOTSUPP : r;
        if (!(h.mask & STATMOUNT_SB_BASIC_))
                return -EOPNOTSUPP;
        *ret = h.sb_magic;
        return 0;
}

bool resolve_kernel_tells_mounts(void) {
        static int works = -1;

        if (works < 0) {
                _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC),
                                    ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
                uint64_t magic;

                works = root >= 0 && ns >= 0 && mount_magic_of(root, mntns_id(ns), &magic) >= 0;
        }
        return works;
}

bool resolve_path_mounts_on(const char *mountinfo, unsigned major, unsigned minor, const char *path) {
        if (!mountinfo || !path || path[0] != '/')
                return false;
        for (const char *line = mountinfo; *line;) {
                const char *end = strchrnul(line, '\n');
                char point[PATH_MAX];
                unsigned ma, mi;
                size_t l;

                /* "ID PARENT MAJOR:MINOR ROOT POINT ...": POINT as the
                 * process sees it, in its own root. */
                if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, point) == 3) {
                        l = strlen(point);
                        if (l > 1 && strncmp(path, point, l) == 0 && (path[l] == '/' || path[l] == '\0') &&
                            (ma != major || mi != minor))
                                return false;
                }
                line = *end ? end + 1 : end;
        }
        return true;
}