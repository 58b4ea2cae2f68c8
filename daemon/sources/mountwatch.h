/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Mounts attached in known mount namespaces (fanotify FAN_MNT_ATTACH with
 * FAN_MARK_MNTNS, Linux 6.14 and later): a container whose namespace the
 * scan already saw and which mounts a procfs afterwards is rescanned at
 * once, not at the next container_scan. New namespaces are not announced;
 * the scan finds those. A namespace is marked through a fd opened and
 * closed at once: nothing here keeps a namespace alive, and the kernel
 * drops a namespace's mark when it goes. */

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct MountWatch MountWatch;
/* Where a mount was attached: the mount namespace, and the owner of its
 * user namespace (who can mount there). One that could not be told apart
 * in time is unknown: uid -1, namespace 0. A mount already gone is not
 * told at all. */
typedef struct MountSeen {
        uid_t uid;
        uint64_t ns;
} MountSeen;

#define MOUNT_SEEN_MAX 32       /* distinct mounters told per batch; beyond, one unknown */

/* Mounts were attached in a marked namespace (one call per batch, with
 * its distinct mounters). */
typedef void (*MountWatchCallback)(MountWatch *w, const MountSeen *seen, size_t n_seen, void *userdata);

/* -EINVAL (or -EOPNOTSUPP) on kernels without mount events, -EPERM without
 * CAP_SYS_ADMIN. */
int mount_watch_new(sd_event *event, MountWatchCallback cb, void *userdata, MountWatch **ret);
MountWatch *mount_watch_free(MountWatch *w);

/* Marks the mount namespace of pid (whose inode is ns), once. */
int mount_watch_add(MountWatch *w, pid_t pid, uint64_t ns);
/* Forgets namespaces not in keep (gone, or no longer shown by a process),
 * so that the set stays bounded; their marks the kernel drops itself. */
void mount_watch_retain(MountWatch *w, const uint64_t *keep, size_t n_keep);
size_t mount_watch_count(const MountWatch *w);
uint64_t mount_watch_events(const MountWatch *w);
