/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Who reads the statistics files: a fanotify notification group (classic
 * fd mode: FID reporting fails on procfs/sysfs before 6.7) with FAN_ACCESS
 * marks on every watched file, and attribution of each read to a process.
 *
 * The watched files live under --root (they are statistics files). The
 * reader's process information is read from the daemon's own /proc, not
 * the root's: fanotify reports pids in the listener's pid namespace. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cause.h"
#include "containers.h"
#include "time-util.h"

typedef struct Readers Readers;

/* The parts of a reader's identity, each read from /proc when asked for. */
typedef enum AttributionField {
        ATTRIBUTE_COMM = 1 << 0,
        ATTRIBUTE_EXE = 1 << 1,
        ATTRIBUTE_UID = 1 << 2,
        ATTRIBUTE_UNIT = 1 << 3,        /* unit and session (libsystemd reads the cgroup) */
        ATTRIBUTE_ALL = (1 << 4) - 1,
} AttributionField;

typedef struct ReadEvent {
        bool overflow;          /* the queue overflowed: reads were lost */
        bool late;              /* ...or stayed queued too long (READERS_BEHIND_MAX_USEC): taken as lost */
        pid_t pid;              /* 0 if unknown */
        bool pid_verified;      /* a pidfd proved the process was still the reader when attributed */
        const char *comm;       /* NULL if the process is gone, or not attributed yet */
        const char *exe;
        const char *unit;       /* sd_pid_get_unit(), else sd_pid_get_user_unit(), else NULL */
        const char *session;    /* sd_pid_get_session() or NULL */
        bool has_uid;
        uid_t uid;
        const char *path;       /* the watched path as configured, e.g. "/sys/devices/system/node/node1/numastat" */
        bool has_exe_id;        /* the binary's device and inode: stat() of /proc/PID/exe, or the exit record */
        uint64_t exe_dev, exe_ino;
        bool from_exit_record;  /* named from its taskstats exit record: gone before we looked */
        pid_t exit_ppid;        /* ...its parent then (0: unknown) */
        uint64_t exit_began;    /* ...when it began, seconds since the epoch (0: unknown) */
        void *attribution;      /* private to readers.c */
        /* The daemon's own read, and nothing else set: fanotify's fd to the
         * file read, which the callback may take (leaving -1). Reads
         * through it are reported to no one. NULL for anyone else's. */
        int *own_fd;
        bool inspected;         /* its process was looked into for this read: not again */
} ReadEvent;

/* Called once per read event, with the fields set by
 * readers_set_early_fields() attributed; read_event_attribute() attributes
 * the rest. The strings live only during the call. */
typedef void (*ReadersCallback)(Readers *r, ReadEvent *ev, void *userdata);
/* Called once when the group stops working (a read error that leaves the
 * event queued, an unknown metadata version): no read will be seen again
 * through r. Event fds left in the buffer are closed first. The callback
 * may free r. */
typedef void (*ReadersFailure)(Readers *r, int error, void *userdata);

/* Creates the group. Needs CAP_SYS_ADMIN: returns -EPERM otherwise, which
 * the caller reports (the daemon then runs without reader detection). */
int readers_new(sd_event *event, ReadersCallback cb, ReadersFailure fail, void *userdata, Readers **ret);
Readers *readers_free(Readers *r);

/* (Re)marks the files: each pattern is a glob ("/sys/devices/system/node/node*
 * /numastat") resolved under root at call time, and again under each of
 * views (NULL-terminated, may be NULL: "/proc/1/root", pid 1's view of the
 * same files), marking each inode once. Then the files a look into each
 * of containers found (containers.h: O_PATH fds, kept), each marked
 * through its fd, looking nothing up; one that cannot be marked costs
 * only itself. Old marks are
 * removed first, so calling it again after a node is added or removed
 * re-marks. Returns the number of inodes marked; a negative errno only if
 * the root's or the views' own files cannot be marked, and then nothing is
 * marked. A pattern matching nothing, or a view that cannot be resolved,
 * is not an error. */
int readers_watch(Readers *r, const char *root, char * const *patterns, char * const *views,
                  const ProcInstances *containers);

/* A process that is not a reader (a varlink caller holding counting on):
 * its comm and unit or session, from the daemon's /proc and sd-login, and
 * the uid its socket credentials gave. */
void process_describe(pid_t pid, uid_t uid, ReaderRef *ret);
/* pid's parent, from the daemon's /proc; -ESRCH, -ENOENT once it is gone. */
int process_parent(pid_t pid, pid_t *ret);
/* A running process's real uid and its binary's device and inode (cached
 * attributes: nothing is asked of its file system). */
int process_binary(pid_t pid, uid_t *ret_uid, uint64_t *ret_exe_dev, uint64_t *ret_exe_ino);
/* Whether pid is exiting and not yet a zombie: its exit record (taskstats)
 * is not sent yet. */
bool process_exiting(pid_t pid);
/* pid's start time (/proc/PID/stat's starttime), which with the pid names
 * one process; -ESRCH, -ENOENT once it is gone. */
int process_start_time(pid_t pid, uint64_t *ret);
/* The same, and which exec of it runs now (proc_stat_image(): 0 if it
 * cannot be told), from one read of its stat. */
int process_start_image(pid_t pid, uint64_t *ret_start, uint64_t *ret_image);
/* The inode of pid's namespace which ("mnt", "user"; pid 0: ours), from the
 * daemon's /proc; 0 if it cannot be told. Nothing of its root is asked. */
uint64_t process_ns(pid_t pid, const char *which);

/* Which fields to attribute before the callback runs: those a decision
 * needs (the ignore rules' fields). Reading /proc and the cgroup costs tens
 * of microseconds a field: a read that turns counting on should not wait
 * for what only the record needs. Default: ATTRIBUTE_ALL. */
void readers_set_early_fields(Readers *r, unsigned fields);

/* Attributes what ev lacks, and checks the process is still the reader
 * (the pidfd): fields of a process that is gone are dropped. Only during
 * the callback. */
void read_event_attribute(ReadEvent *ev);

/* Whether the reader had exited (or was exiting: a zombie) when its event
 * was handled, so that /proc cannot name it (or its binary) any more. Only
 * during the callback. */
bool read_event_exited(ReadEvent *ev);

/* What was marked, for status: NULL-terminated, owned by r. */
char * const *readers_watched(Readers *r);

/* Read events not handed on: a process reading a file again within 100 ms
 * of its last handed-on read of it (one burst, judged once). */
uint64_t readers_coalesced(Readers *r);

/* Bytes of read events queued and not handled yet (FIONREAD); 0 without r. */
int readers_pending(Readers *r);
/* Handles queued events now, as the event loop would, at most
 * READERS_BATCH_READS reads of the queue (some 170 events each): the work
 * per wakeup is bounded, whatever a flood of readers queues. The callbacks
 * run from here. Returns 1 if events are still queued, 0 if none are, -1 if
 * the group failed (the failure callback may have freed r). */
#define READERS_BATCH_READS 2

/* How long a read event may wait in the queue (a loop kept busy) before
 * what is queued is taken as lost reads, as an overflow is: counting goes
 * on rather than on for reads judged late. A flood whose events are all
 * taken within the bound is not late, however full the queue stays. */
#define READERS_BEHIND_MAX_USEC (100 * USEC_PER_MSEC)
void readers_set_behind_max(Readers *r, uint64_t usec);
uint64_t readers_behind_lost(Readers *r);

/* The events' age, told without their times: after a flush at now, with
 * consumed bytes read from the queue in all and queued still there, a mark
 * (the time, and the stream position of the queue's end then) stands until
 * every event queued before it has been read. Returns true when an event
 * queued before a mark older than bound is still unread (then a new mark
 * starts). Pure. */
typedef struct BehindMark {
        uint64_t at;            /* CLOCK_MONOTONIC µs; 0: none */
        uint64_t position;      /* bytes: the queue's end when it was set */
} BehindMark;
bool behind_step(BehindMark *m, uint64_t now, uint64_t consumed, uint64_t queued, uint64_t bound);
int readers_flush(Readers *r);

/* Whether FAN_REPORT_PIDFD is in use (kernel >= 5.15). */
bool readers_have_pidfd(Readers *r);

/* For tests: handles buf as if read() from the group had returned it, so
 * a failure (a bad metadata version) can be injected. */
void readers_process_buffer(Readers *r, const void *buf, size_t len);

static inline void readers_freep(Readers **r) {
        readers_free(*r);
}
