/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* fanotify ABI values that Debian 12's <sys/fanotify.h> may lack. The
 * kernel may be newer than the headers; these numbers are ABI and never
 * change. Shared by the daemon and the VM probe (tests/vm/smoke/), which
 * builds on its own, so this header includes nothing of the project. */

#include <sys/fanotify.h>

#ifndef FAN_REPORT_PIDFD
#define FAN_REPORT_PIDFD 0x00000080     /* Linux 5.15 */
#endif
#ifndef FAN_EVENT_INFO_TYPE_PIDFD
#define FAN_EVENT_INFO_TYPE_PIDFD 4
struct fanotify_event_info_pidfd {
        struct fanotify_event_info_header hdr;
        int pidfd;
};
#endif
#ifndef FAN_NOPIDFD
#define FAN_NOPIDFD FAN_NOFD            /* the reader exited before the event was read */
#endif
#ifndef FAN_EPIDFD
#define FAN_EPIDFD (-2)                 /* the kernel could not make a pidfd */
#endif
/* Mount events in a mount namespace (Linux 6.14). */
#ifndef FAN_MNT_ATTACH
#define FAN_MNT_ATTACH 0x01000000
#endif
#ifndef FAN_REPORT_MNT
#define FAN_REPORT_MNT 0x00004000
#endif
#ifndef FAN_MARK_MNTNS
#define FAN_MARK_MNTNS 0x00000110
#endif
#ifndef FAN_EVENT_INFO_TYPE_MNT
#define FAN_EVENT_INFO_TYPE_MNT 7       /* struct fanotify_event_info_mnt: the mount's unique id at offset 8 */
#endif
