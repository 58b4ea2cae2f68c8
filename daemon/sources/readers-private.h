/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What readers.c, readers-attribution.c and readers-watch.c share: the
 * group's state, and the functions that cross them. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "event-ratelimit.h"
#include "missing.h"
#include "readers.h"

#define FANOTIFY_FLAGS (FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK)
#define FANOTIFY_EVENT_FLAGS (O_RDONLY | O_CLOEXEC | O_LARGEFILE)

/* What a marked file is known by. Events are mapped back by inode rather
 * than by the event fd's /proc/self/fd link: the kernel's spelling of that
 * path depends on mounts (bind-mounted roots, a container's /proc), the
 * inode does not. */
typedef struct WatchId {
        dev_t dev;
        ino_t ino;
        size_t path;            /* index into watched */
        char *full;             /* where root's tree has it, to unmark it by; NULL: a container's file,
                                 * left marked until its superblock goes */
} WatchId;

/* The last read event of a pid, for coalescing a burst. */
typedef struct RecentRead {
        pid_t pid;
        dev_t dev;
        ino_t ino;
        uint64_t at;            /* CLOCK_MONOTONIC µs */
} RecentRead;

#define RECENT_READS 1024       /* direct-mapped by pid */
/* Reads of one file by one process closer than this are one: the first is
 * judged and handed on, the rest only counted. */
#define COALESCE_USEC (100 * 1000)
#define READERS_RATELIMIT_USEC (10 * 1000)
#define READERS_BURST 4

struct Readers {
        sd_event *event;
        sd_event_source *source;
        EventRatelimit *ratelimit;      /* source's */
        int fd;
        bool have_pidfd;
        pid_t self;
        unsigned early_fields;

        ReadersCallback callback;
        ReadersFailure failure;
        void *userdata;

        RecentRead recent[RECENT_READS];
        uint64_t coalesced;
        uint64_t consumed;      /* bytes read from the queue, in all */
        BehindMark behind;
        uint64_t behind_max;
        uint64_t behind_lost;   /* times the queue stayed behind past behind_max */

        char **watched;         /* as configured (no root prefix), each once, NULL-terminated */
        WatchId *ids;           /* every inode marked: a path may have one per view */
        size_t n_ids;
        size_t *slots;          /* ids by inode: open addressing, index + 1, 0 empty */
        size_t n_slots;         /* a power of two, or 0 */
};

/* Process information of one reader, from the daemon's own /proc. */
typedef struct Attribution {
        char *comm;
        char *exe;
        char *unit;
        char *session;
        bool has_uid;
        uid_t uid;
        bool has_exe_id;
        uint64_t exe_dev, exe_ino;
} Attribution;

/* One event's attribution, done in phases (see readers_set_early_fields()). */
typedef struct EventAttribution {
        Attribution a;
        pid_t pid;
        int pidfd;              /* FAN_NOPIDFD, FAN_EPIDFD or an fd */
        bool have_pidfd;        /* the group reports pidfds at all */
        bool gone;              /* nothing (more) to attribute: the reader is gone or unknown */
        unsigned done;
} EventAttribution;

/* readers.c */
void readers_clear_watched(Readers *r);
void watch_ids_free(WatchId *ids, size_t n);
ssize_t ids_find(const WatchId *ids, const size_t *slots, size_t n_slots, dev_t dev, ino_t ino);
int ids_index(const WatchId *ids, size_t index, size_t **slots, size_t *n_slots);

/* readers-attribution.c */
void attribution_done(void *p);
void attribute_fields(EventAttribution *ea, ReadEvent *ev, unsigned fields);

