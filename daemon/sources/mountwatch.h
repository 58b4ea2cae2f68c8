/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Mounts attached in known mount namespaces (fanotify FAN_MNT_ATTACH with
 * FAN_MARK_MNTNS, Linux 6.14 and later): a container whose namespace the
 * scan already saw and which mounts a procfs afterwards is rescanned at
 * once, not at the next container_scan. New namespaces are not announced;
 * the scan finds those. A namespace is marked through a fd opened and
 * closed at once: nothing here keeps a namespace alive, and the kernel
 * drops a namespace's mark when it goes.
 *
 * Each owner's namespaces (owner.h: root's, then each user's as they come,
 * up to MOUNT_GROUPS - 2 users; the rest share one) are marked in a
 * fanotify group of their own, so that which group an event comes from
 * says whose namespaces it is about, whatever else the kernel can tell: a
 * user mounting in a loop makes only that user's namespaces looked into
 * again, even where statmount() is missing (before 6.8) or filtered (a
 * seccomp filter older than it), and the mounter is gone. Where statmount()
 * works, the one namespace is told. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct MountWatch MountWatch;

#define MOUNT_GROUPS 8          /* root's, six users', the shared one */

/* Where a mount was attached: the owner of the namespace(s), and the
 * namespace if the kernel told it. owner (uid_t) -1: one of the owners
 * sharing the last group (never root). ns 0: any of owner's. A mount
 * already gone is not told at all where the kernel can tell. */
typedef struct MountSeen {
        uid_t owner;
        uint64_t ns;
} MountSeen;

#define MOUNT_SEEN_MAX 32       /* distinct places told per batch; beyond, all of that group's */

/* Mounts were attached in a marked namespace (one call per batch, with
 * where). */
typedef void (*MountWatchCallback)(MountWatch *w, const MountSeen *seen, size_t n_seen, void *userdata);

/* -EINVAL (or -EOPNOTSUPP) on kernels without mount events, -EPERM without
 * CAP_SYS_ADMIN. */
int mount_watch_new(sd_event *event, MountWatchCallback cb, void *userdata, MountWatch **ret);
MountWatch *mount_watch_free(MountWatch *w);

/* Marks the mount namespace of pid (whose inode is ns, owned by owner),
 * once. */
int mount_watch_add(MountWatch *w, pid_t pid, uint64_t ns, uid_t owner);
/* Forgets namespaces not in keep (gone, or no longer shown by a process),
 * so that the set stays bounded; their marks the kernel drops itself. A
 * user's group left empty is closed, for another user to have. */
void mount_watch_retain(MountWatch *w, const uint64_t *keep, size_t n_keep);
size_t mount_watch_count(const MountWatch *w);
uint64_t mount_watch_events(const MountWatch *w);
/* Whether owner has a group of its own (its mounts are told as its). */
bool mount_watch_owner_grouped(const MountWatch *w, uid_t owner);
