/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Lookups inside another user's process, off the event loop. Each runs in
 * a short-lived child of ours that first opens what it needs of the
 * process (/proc/PID/root, cmdline, mountinfo) and then takes the
 * process's own file-system credentials (its fs uid and gid, its groups,
 * no capabilities, not dumpable). It has a deadline and is killed past it.
 * Whatever the process's root, mount table or files do (a FUSE server that
 * never answers, an overlay in front of one, a mount table of megabytes),
 * the loop only ever waits for an fd; and a file the process names is
 * opened only as that process could open it.
 *
 * The answer, or the lack of one, comes back once per asker through the
 * done callback, from the loop. A mount namespace whose lookup by a uid
 * timed out is left alone for that uid for a minute: one user cannot make
 * us wait again and again, and does not make others' looks wait. Lookups are limited in number, per uid and in all (the unit's
 * TasksMax= holds the children, and a child stuck in the kernel past
 * SIGKILL still takes its place until it exits). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "time-util.h"

#define INSPECT_DEADLINE_USEC (100 * USEC_PER_MSEC)
#define INSPECT_MAY_BLOCK_USEC (60 * USEC_PER_SEC)
#define INSPECT_MAX 5           /* children at once, at most (inspector_new() may set fewer) */
#define INSPECT_WAITERS_MAX 8   /* askers of one lookup */
#define INSPECT_REQUEST_MAX 512
#define INSPECT_ANSWER_MAX (16 * 1024)
#define INSPECT_FDS_MAX 250     /* fds an answer may carry (SCM_MAX_FD is 253) */
#define INSPECT_MOUNTINFO_MAX (1024 * 1024)     /* a mount table a real system needs */

typedef struct Inspector Inspector;

typedef struct InspectTarget {
        pid_t pid;
        uint64_t start;         /* its /proc/PID/stat starttime: the child checks it is that process */
        uid_t uid;              /* whose share of the lookups it takes */
        uint64_t mntns;         /* its mount namespace's inode */
} InspectTarget;

/* What the child has of the process, opened before it took the process's
 * credentials; each -1 if it could not be opened. */
typedef struct InspectedProcess {
        pid_t pid;
        int rootfd;             /* /proc/PID/root, O_PATH */
        int cmdlinefd;          /* /proc/PID/cmdline */
        int environfd;          /* /proc/PID/environ */
        uint64_t root_magic;    /* its root's superblock magic, as the kernel tells it (statmount());
                                 * 0: the kernel cannot (before 6.11), see inspected_mountinfo() */
        int mountinfofd;        /* /proc/PID/mountinfo */
} InspectedProcess;

/* In the child: /proc/PID/mountinfo, read as the process once, on first
 * use (a look that needs no mount table reads none); NULL if unreadable or
 * over INSPECT_MOUNTINFO_MAX (a lookup in its root may then block). */
const char *inspected_mountinfo(const InspectedProcess *p);

/* In the child: whether a lookup in the process's root could wait on a
 * FUSE server: its root's file system is FUSE, or cannot be told. */
bool inspected_root_may_block(const InspectedProcess *p);

/* Runs in the child, as the process: fills answer (size bytes, zeroed),
 * and may hand back up to INSPECT_FDS_MAX fds it opened (fds, *n_fds).
 * 0, or a negative errno: no answer. */
typedef int (*InspectWork)(const InspectedProcess *p, const void *request, void *answer, size_t size, int *fds,
                           size_t *n_fds);

typedef enum InspectOutcome {
        INSPECT_ANSWERED,
        INSPECT_TIMED_OUT,      /* killed at its deadline */
        INSPECT_FAILED,         /* no answer: the process gone or changed, the child killed, ... */
        INSPECT_PENDING,        /* no answer yet, past the asker's patience: the look goes on, and
                                 * its outcome comes later to the same token */
} InspectOutcome;

/* answer: INSPECT_ANSWER_MAX bytes, only with INSPECT_ANSWERED, with the
 * fds it carried (each -1 once taken; the rest are closed after). */
typedef void (*InspectDone)(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds,
                            void *token, void *userdata);

/* max children at once (at most INSPECT_MAX), per_uid of them for one uid. */
int inspector_new(sd_event *event, unsigned max, unsigned per_uid, InspectDone done, void (*free_token)(void *token),
                  void *userdata, Inspector **ret);
/* Kills what runs; each waiting token is freed, not answered. */
Inspector *inspector_free(Inspector *in);

/* Starts a lookup of the process by work(request) (request_size bytes,
 * compared whole: a lookup under way with the same target and request is
 * joined). done gets token once (twice with a patience: INSPECT_PENDING
 * first; a look already past it is not joined: -EINPROGRESS).
 * -EWOULDBLOCK: the mount namespace timed out for t->uid within
 * INSPECT_MAY_BLOCK_USEC; -EBUSY: too many under way, for
 * t->uid or in all; -ENOBUFS: too many wait on that lookup. done is never
 * called from inside this call. */
int inspector_ask(Inspector *in, const InspectTarget *t, InspectWork work, const void *request, size_t request_size,
                  void *token);

/* Called (from the loop) each time a child is reaped and its place is
 * free again: an asker that was refused -EBUSY may ask now. */
void inspector_set_freed(Inspector *in, void (*freed)(Inspector *in, void *userdata));

/* Another deadline than INSPECT_DEADLINE_USEC (past it the child is
 * killed), and a patience before it (0: none): past that, each asker is
 * told INSPECT_PENDING once, and later the outcome. */
void inspector_set_deadline(Inspector *in, uint64_t usec, uint64_t patience);

/* At most per_second new looks a second for each uid but root's, burst at
 * once (refused: -EBUSY, as past the other limits): what one user's
 * processes make the daemon's children cost. 0: no limit (the default). */
void inspector_set_rate(Inspector *in, unsigned per_second, unsigned burst);
uint64_t inspector_rate_refused(const Inspector *in);     /* looks refused by it, in all */

/* Whether lookups in mount namespace mntns by uid timed out lately. */
bool inspector_may_block(const Inspector *in, uint64_t mntns, uid_t uid);

/* Children not reaped yet (a killed one may take a while). */
size_t inspector_running(const Inspector *in);
uint64_t inspector_timeouts(const Inspector *in);
