/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel's own word on its NUMA statistics state, from /dev/kmsg.
 *
 * A patched kernel (numa_stats_mode, seed 003) logs every change of its
 * counting state, including the one the sysctl file cannot show: "auto"
 * turning counting on at the first read. The daemon follows those lines
 * where /dev/kmsg is readable (not under the unit's ProtectKernelLogs=),
 * to know exactly whether an "auto" kernel is armed or triggered. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef enum KmsgNuma {
        KMSG_NUMA_NONE,                 /* not about NUMA statistics */
        KMSG_NUMA_STRICT,               /* "strict, enable numa statistics" */
        KMSG_NUMA_COARSE,               /* "coarse, disable numa statistics, and clear numa counters" */
        KMSG_NUMA_AUTO_ARMED,           /* "auto, numa statistics enabled at the next read" */
        KMSG_NUMA_AUTO_ON,              /* "auto, numa statistics stay enabled" */
        KMSG_NUMA_AUTO_TRIGGERED,       /* "auto, enable numa statistics on read" */
        KMSG_NUMA_MAINLINE_ON,          /* mainline vm.numa_stat 0 -> 1: "enable numa statistics" */
        KMSG_NUMA_MAINLINE_OFF,         /* mainline 1 -> 0: "disable numa statistics, and clear numa counters" */
        _KMSG_NUMA_MAX,
} KmsgNuma;

const char *kmsg_numa_to_string(KmsgNuma k);

/* One /dev/kmsg record ("PRIO,SEQ,TS,FLAGS;MESSAGE\n" and continuation
 * lines) → what it says about NUMA statistics, and its sequence number
 * (0 if absent). Pure. */
KmsgNuma kmsg_parse_record(const char *record, size_t len, uint64_t *ret_seq);

typedef struct KmsgMonitor KmsgMonitor;
/* What was logged since the last take: counts[kind], records of each kind. */
typedef void (*KmsgCallback)(KmsgMonitor *k, const unsigned counts[_KMSG_NUMA_MAX], void *userdata);

/* Opens ROOT/dev/kmsg (the host's under "/", a test's file or FIFO under a
 * tree), skips what is there already, and reports NUMA lines as they come.
 * -EACCES/-EPERM/-ENOENT when it cannot be read: the caller goes on without. */
int kmsg_monitor_new(sd_event *event, const char *root, KmsgCallback cb, void *userdata, KmsgMonitor **ret);
KmsgMonitor *kmsg_monitor_free(KmsgMonitor *k);
/* Takes whatever is there now, without waiting for the loop, and calls
 * nobody back: counts[kind] says how many records of each kind were read.
 * Returns how many were about NUMA statistics. The kernel logs a trigger
 * inside the read that causes it, before the reader's fanotify event is
 * queued: a caller that takes the log before each read orders the two.
 * The callback hears only what the loop's own wakeups read. */
size_t kmsg_monitor_take(KmsgMonitor *k, unsigned counts[static _KMSG_NUMA_MAX]);

static inline void kmsg_monitor_freep(KmsgMonitor **k) {
        kmsg_monitor_free(*k);
}
