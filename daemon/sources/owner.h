/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whose a process is, and who it is now, as our own /proc and the
 * kernel's namespace objects tell it (nothing of its root is asked).
 *
 * The owner is the user a look's cost is charged to: in our own user
 * namespace, the process's real uid; in another one, the user who owns the
 * outermost user namespace below ours, so that one user's subordinate uids
 * (65,536 of them on Debian) are that one user. Root (0) owns its own
 * processes and every user namespace root made. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "parsers.h"

/* The owner of pid, whose real uid is uid. */
int process_owner(pid_t pid, uid_t uid, uid_t *ret);
/* The owner of pid's mount namespace: who can mount there (0 for one of
 * our own user namespace). */
int mntns_owner(pid_t pid, uid_t *ret);
/* The owner of a user namespace (an fd to it); -ENOENT if it is ours. */
int userns_owner(int userns_fd, uid_t *ret);

/* pid's ids now (/proc/PID/status). */
int process_ids(pid_t pid, ProcIds *ret);
/* Whether two sets of ids are the same, groups included. */
bool proc_ids_equal(const ProcIds *a, const ProcIds *b);
