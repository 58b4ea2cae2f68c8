/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A path opened under openat2()'s RESOLVE_* constraints, as an O_PATH fd.
 * openat2() does it where it may be called. Where a seccomp filter refuses
 * it (systemd's RestrictSUIDSGID= answers ENOSYS, because a filter cannot
 * look into struct open_how; so did older container runtimes' defaults),
 * the same constraints are kept by a walk one component at a time.
 * Supported: RESOLVE_IN_ROOT, RESOLVE_NO_XDEV, RESOLVE_NO_SYMLINKS and
 * RESOLVE_NO_MAGICLINKS; returns an fd or a negative errno. */
int resolve_open_path(int dirfd, const char *path, uint64_t resolve);

/* The walk alone: what resolve_open_path() falls back to (and the tests
 * compare with openat2()). A link's text is followed, never a magic link's
 * object; ".." goes back to the directory the walk came from, and never
 * above the root with RESOLVE_IN_ROOT. */
int resolve_walk(int dirfd, const char *path, uint64_t resolve);

/* The directory path inside a process's root rootfd (O_PATH), only if it
 * is the root directory of a file system of type magic (PROC_SUPER_MAGIC
 * or SYSFS_MAGIC): a procfs or sysfs someone mounted there, not a
 * directory made to look like one. No symbolic link is followed on the
 * way, and nothing is asked of another file system (FUSE) before the
 * process's mountinfo (its /proc/PID/mountinfo text) says that this is a
 * procfs or sysfs. */
int resolve_open_fs_root(const char *mountinfo, int rootfd, const char *path, long magic);

/* The type ("proc", "fuse.sshfs") of the file system with device
 * major:minor in a /proc/PID/mountinfo text, into buf; NULL if none of its
 * mounts is there. Pure. */
const char *mountinfo_fstype(const char *text, unsigned major, unsigned minor, char *buf, size_t size);

/* Whether looking up a path inside a process's root (rootfd) could wait on
 * a FUSE server another user runs: the root's file system, told from
 * cached attributes and the process's mountinfo (never by asking the file
 * system itself), is a fuse one, or cannot be told. */
bool resolve_root_may_block(const char *mountinfo, int rootfd);
/* Whether every mount at path or a directory above it (but /), in a mount
 * table (/proc/PID/mountinfo), is of the file system MAJOR:MINOR: crossing
 * them (a read-only bind of /usr, as systemd's ProtectSystem= makes) asks
 * nothing of another file system. A mount point with an escape (\040)
 * never matches a catalogue's path. */
bool resolve_path_mounts_on(const char *mountinfo, unsigned major, unsigned minor, const char *path);

/* The 64-bit id of the mount namespace nsfd is (NS_GET_MNTNS_ID, Linux
 * 6.11); 0 if the kernel cannot tell. */
uint64_t mntns_id(int nsfd);

/* Whether mount mnt_id is attached in the mount namespace ns_id (1) or
 * not (0), asked of the kernel (statmount()): no file system is looked
 * at. A negative errno where it cannot be told (a seccomp filter, a
 * kernel before 6.11). Needs CAP_SYS_ADMIN over that namespace, unless it
 * is ours. */
int mount_attached_in(uint64_t mnt_id, uint64_t ns_id);

/* The superblock magic (FUSE_SUPER_MAGIC, ...) of the mount fd is on, in
 * the mount namespace ns_id: its unique mount id from cached attributes
 * (statx()), then statmount(). Nothing is asked of the file system, and no
 * mount table is read. -EOPNOTSUPP where the kernel cannot tell (before
 * 6.11); the same permissions as mount_attached_in(). */
int mount_magic_of(int fd, uint64_t ns_id, uint64_t *ret);
/* Whether the kernel tells a mount's file system this way here (Linux
 * 6.11, and a seccomp filter that lets statmount() through): asked once,
 * of our own root. Else a look reads the process's mount table. */
bool resolve_kernel_tells_mounts(void);
