/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Lookups inside another user's process, off the event loop. Each runs in
 * a short-lived child of ours that first opens what it needs of the
 * process (/proc/PID/root, cmdline, mountinfo) and then takes the ids the
 * daemon saw the process with (at its read): its uid and gid (each as all
 * four, and the process must still show them so), its groups, no
 * capabilities, not dumpable, and a death signal that outlives the change.
 * It has a deadline and is killed past it (the unit keeps CAP_KILL for
 * that: the child is the process's user's, who may stop it). Whatever the
 * process's root, mount table or files do (a FUSE server that never
 * answers, an overlay in front of one, a mount table of megabytes), the
 * loop only ever waits for an fd; and a file the process names is opened
 * only as that process could open it. An answer stands only if the
 * process still runs the binary it was seen with, with the same ids.
 *
 * The answer, or the lack of one, comes back once per asker through the
 * done callback, from the loop. What one user's processes make us cost is
 * bounded by owner (owner.h: one user's subordinate uids are one owner),
 * and in all: children at once, with places only root's looks may take;
 * new looks a second; and a user whose look timed out gets no new one for
 * a minute, nor while that child lingers (killed at its deadline, it may
 * still sleep in the kernel, in a FUSE request: its slot is given back at
 * the deadline all the same, and it counts against the children kept). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "parsers.h"
#include "time-util.h"

#define INSPECT_DEADLINE_USEC (100 * USEC_PER_MSEC)
#define INSPECT_MAY_BLOCK_USEC (60 * USEC_PER_SEC)
#define INSPECT_MAX 5           /* slots: children at once, at most (InspectLimits may set fewer) */
#define INSPECT_LINGER_MAX 4    /* children past their slot kept, at most */
#define INSPECT_WAITERS_MAX 8   /* askers of one lookup */
#define INSPECT_REQUEST_MAX 512
#define INSPECT_ANSWER_MAX (16 * 1024)
#define INSPECT_FDS_MAX 250     /* fds an answer may carry (SCM_MAX_FD is 253) */
#define INSPECT_MOUNTINFO_MAX (1024 * 1024)     /* a mount table a real system needs */

typedef struct Inspector Inspector;

typedef struct InspectTarget {
        pid_t pid;
        uint64_t start;         /* its /proc/PID/stat starttime: the child checks it is that process */
        uid_t owner;            /* whose share of the looks it takes (owner.h): 0 is root's */
        ProcIds ids;            /* its ids as seen (at its read), settled: what the child becomes */
        bool has_exe_id;        /* the binary it was seen running, which it must still run after */
        uint64_t exe_dev, exe_ino;
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
        INSPECT_FAILED,         /* no answer: the process gone, its ids not as seen, the child killed,
                                 * a malformed answer, ... */
        INSPECT_CHANGED,        /* an answer, discarded: meanwhile the process ran another binary, or
                                 * took other ids */
        INSPECT_PENDING,        /* no answer yet, past the asker's patience: the look goes on, and
                                 * its outcome comes later to the same token */
} InspectOutcome;

/* answer: INSPECT_ANSWER_MAX bytes, only with INSPECT_ANSWERED, with the
 * fds it carried (each -1 once taken; the rest are closed after). */
typedef void (*InspectDone)(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds,
                            void *token, void *userdata);

typedef struct InspectLimits {
        unsigned slots;         /* children looking at once, at most INSPECT_MAX */
        unsigned root_slots;    /* ...of which only root's looks may take */
        unsigned per_owner;     /* ...and one owner's (but root's) */
        unsigned linger;        /* children out of their slot, not gone yet, kept on top (at most
                                 * INSPECT_LINGER_MAX); root's looks may always use the last ones */
} InspectLimits;

int inspector_new(sd_event *event, const InspectLimits *limits, InspectDone done, void (*free_token)(void *token),
                  void *userdata, Inspector **ret);
/* Kills what runs; each waiting token is freed, not answered. */
Inspector *inspector_free(Inspector *in);

/* Starts a lookup of the process by work(request) (request_size bytes,
 * compared whole: a lookup under way with the same target and request is
 * joined). done gets token once (twice with a patience: INSPECT_PENDING
 * first; a look already past it is not joined: -EINPROGRESS).
 * Refused: -EPERM, t->ids are not settled (proc_ids_settled()); -ETIMEDOUT,
 * a look of t->owner's timed out within INSPECT_MAY_BLOCK_USEC (for root,
 * one into the same mount namespace), or one of its children lingers past
 * its deadline; -EBUSY, no place (slots, children kept, the rate of all);
 * -EDQUOT, none for t->owner now (its share of the slots, its rate);
 * -ENOBUFS: too many wait on that lookup. done is never called from inside
 * this call. */
int inspector_ask(Inspector *in, const InspectTarget *t, InspectWork work, const void *request, size_t request_size,
                  void *token);

/* Called (from the loop) each time a child is reaped: an asker that was
 * refused -EBUSY may ask now. (A slot given back as a look ends, answered
 * or not, is free by the time its askers are told.) */
void inspector_set_freed(Inspector *in, void (*freed)(Inspector *in, void *userdata));

/* Another deadline than INSPECT_DEADLINE_USEC (past it the child is
 * killed), and a patience before it (0: none): past that, each asker is
 * told INSPECT_PENDING once, and later the outcome. */
void inspector_set_deadline(Inspector *in, uint64_t usec, uint64_t patience);

/* How long an owner's looks are refused after one of theirs timed out
 * (INSPECT_MAY_BLOCK_USEC); a child that lingers holds them longer. */
void inspector_set_hold(Inspector *in, uint64_t usec);

/* New looks a second for each owner but root (refused: -EDQUOT), and for
 * all of them together (refused: -EBUSY), since a host may have many
 * users: what other users' processes make the daemon's children cost.
 * Each up to burst at once; per_second 0: no limit (the default). */
typedef struct InspectRate {
        unsigned per_second, burst;
} InspectRate;
void inspector_set_rate(Inspector *in, InspectRate owner, InspectRate all);

typedef struct InspectStats {
        uint64_t started, answered, timed_out, failed, changed;
        uint64_t refused;       /* looks not started: no place, a rate, a timeout lately */
        size_t running, lingering;
} InspectStats;
InspectStats inspector_stats(const Inspector *in);

/* Whether owner's looks (root's: into mount namespace mntns) are refused
 * for a timeout lately, or a child lingering past its deadline. */
bool inspector_may_block(const Inspector *in, uid_t owner, uint64_t mntns);

/* Children not reaped yet, in their slots and lingering. */
size_t inspector_running(const Inspector *in);
