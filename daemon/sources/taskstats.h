/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Exit records of every process, from the kernel's taskstats (generic
 * netlink, libnl-genl): what a reader that is gone before the daemon could
 * look at /proc was (its comm, uid and executable), to name it and to match
 * ignore rules. Registering needs CAP_NET_ADMIN in the initial user
 * namespace; in another network namespace registration succeeds but no
 * record arrives.
 *
 * The daemon receives every exit on the system. Records are read in
 * batches (the io source is rate-limited; taskstats_fetch() reads all that
 * is queued when a read waits for one), filtered to main threads at once,
 * and only the last TASKSTATS_RECENT are kept: as many as the socket's
 * buffer holds, so that a drain after the daemon was slow or stopped loses
 * none of the records it was behind on. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/taskstats.h>
#include <systemd/sd-event.h>

#define TASKSTATS_RECENT 8192
#define TASKSTATS_COMM_MAX 32           /* TS_COMM_LEN */

typedef struct TaskExit {
        uint16_t version;       /* of struct taskstats */
        pid_t pid;              /* ac_pid: the thread that exited */
        pid_t tgid;             /* ac_tgid (version >= 12); else 0: unknown */
        pid_t ppid;
        uid_t uid;              /* real uid */
        uint64_t began;         /* ac_btime: when the process began, seconds since the epoch */
        char comm[TASKSTATS_COMM_MAX + 1];      /* raw, NUL-terminated */
        bool has_exe;           /* version >= 12, and not a kernel thread */
        uint64_t exe_dev, exe_ino;      /* as stat() reports the binary */
        uint64_t received;      /* CLOCK_MONOTONIC µs, set by the listener */
} TaskExit;

/* A record as far as we read it, whatever version these headers are
 * (Debian 11's are version 10): their struct taskstats, and version 12's
 * fields (Linux 5.19) at their place after version 10's ac_btime64. Fields
 * are only ever appended, so each keeps its offset in every later version. */
#define TASKSTATS_V10_END (offsetof(struct taskstats, ac_btime64) + sizeof(uint64_t))
typedef union TaskstatsRecord {
        struct taskstats header;
        struct {
                unsigned char through_v10[TASKSTATS_V10_END];
                uint64_t compact_count, compact_delay_total;    /* v11 */
                uint32_t ac_tgid;                               /* v12 */
                uint64_t ac_tgetime __attribute__((aligned(8)));
                uint64_t ac_exe_dev, ac_exe_inode;
        } v12;
} TaskstatsRecord;
#define TASKSTATS_V12_END (offsetof(TaskstatsRecord, v12.ac_exe_inode) + sizeof(uint64_t))

/* Parses one struct taskstats of any version >= 1 (newer kernels send a
 * longer one: the fields we read keep their offsets). Pure; -EBADMSG if it
 * is too short for what its version claims. */
int taskstats_parse_stats(const void *data, size_t len, TaskExit *ret);

/* Walks one netlink datagram from the family `family` (several messages
 * may share it) and calls cb for each per-thread exit record
 * (TASKSTATS_TYPE_AGGR_PID). Pure. Returns the number of records, or
 * -EBADMSG if the datagram is malformed (the records before it were
 * passed on). */
int taskstats_parse_datagram(const void *buf, size_t len, int family,
                             void (*cb)(const TaskExit *e, void *userdata), void *userdata);

/* Whether e is a process's own exit (its main thread), as the fanotify
 * pid of a read names it; records of other threads carry nothing more. */
bool task_exit_is_process(const TaskExit *e);

typedef struct Taskstats Taskstats;
/* New exit records arrived (at least one process's). */
typedef void (*TaskstatsCallback)(Taskstats *t, void *userdata);

/* Registers for the exit records of every possible CPU. -EPERM without
 * CAP_NET_ADMIN, -ENOENT (or -EOPNOTSUPP) without taskstats in the kernel;
 * the caller reports it and the daemon works without. */
int taskstats_new(sd_event *event, TaskstatsCallback cb, void *userdata, Taskstats **ret);
Taskstats *taskstats_free(Taskstats *t);

/* Reads every record queued now into what taskstats_find() looks in. A
 * process's record is queued before its parent can reap it, so after a
 * fetch the records of every process gone from /proc are kept (unless
 * more than TASKSTATS_RECENT exited since, or the queue overflowed). cb
 * never runs inside a fetch: if a process's record came, the loop runs it
 * on its next turn. */
void taskstats_fetch(Taskstats *t);

/* The newest exit record of process pid received at or after not_before
 * (CLOCK_MONOTONIC µs: a pid reused since is not mistaken), or NULL. */
const TaskExit *taskstats_find(const Taskstats *t, pid_t pid, uint64_t not_before);

/* What a read waiting for its reader's exit record knows of the reader. */
typedef struct ExitQuery {
        pid_t pid;
        uint64_t not_before;    /* CLOCK_MONOTONIC µs: records received before belong to another life of pid */
        uint64_t read_by;       /* seconds since the epoch: the read was taken then, so its reader began by then */
        bool has_uid;
        uid_t uid;              /* the reader's, if /proc told it before the reader went */
} ExitQuery;

/* Of records (any order), the reader's exit record: pid's, received at
 * or after not_before, begun by read_by (with a second's slack: ac_btime
 * is whole seconds) and, where the reader's uid is known, of that uid.
 * NULL if none is, or if two are: pid was reused within the window, so
 * which process read is not known, and the read is not named (it counts).
 * Never by pid alone. Pure. */
const TaskExit *task_exit_pick(const TaskExit *const *records, size_t n, const ExitQuery *q);
/* The same among the records received. */
const TaskExit *taskstats_find_reader(const Taskstats *t, const ExitQuery *q);

typedef struct TaskstatsStats {
        uint64_t records;       /* exit records received (every thread) */
        uint64_t processes;     /* ...of processes (kept in the recent ring) */
        uint64_t overflows;     /* times the socket's queue overflowed: records lost */
        uint16_t version;       /* of the last record; 0 before one */
} TaskstatsStats;
TaskstatsStats taskstats_stats(const Taskstats *t);

static inline void taskstats_freep(Taskstats **t) {
        taskstats_free(*t);
}
