/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Why counting is in the state it is: a cause as data, not as text. The
 * policy engine hands it out with every decision; history entries, the
 * journal, status and metrics all read it from there. Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum Cause {
        CAUSE_STARTUP,          /* the daemon started (auto: the start counts as a read) */
        CAUSE_READ,             /* a counted read, by the reader in ReaderRef */
        CAUSE_LOST_READS,       /* the fanotify queue overflowed: reads nobody saw */
        CAUSE_PRESSURE_ABOVE,   /* the allocation rate held above coarse_above */
        CAUSE_PRESSURE_BELOW,   /* the allocation rate held below strict_below */
        CAUSE_OPERATOR,         /* SetPolicy */
        CAUSE_RELOAD,           /* the configuration was reloaded */
        CAUSE_EXTERNAL,         /* someone else wrote the sysctl */
        CAUSE_READERS_UNSEEN,   /* reader detection is unavailable or died */
        CAUSE_EXIT,             /* the daemon stops and leaves exit_mode */
        CAUSE_IGNORED_READ,     /* a read by an ignored reader (it triggers a patched kernel's auto all the same) */
        CAUSE_UNSEEN_READ,      /* a read the kernel's log reported and no watch saw (a container's procfs, say) */
        CAUSE_ARMED_SAMPLE,     /* the daemon's own sample of the allocation rate while armed */
        CAUSE_REARM,            /* the daemon re-armed a triggered auto: pressure still calls for counting off */
        CAUSE_HOLD,             /* a hold (numastatctl hold) keeps counting on; ReaderRef: its owner */
        _CAUSE_MAX,
        _CAUSE_INVALID = -22,
} Cause;

/* "startup", "read", "lost-reads", "pressure-above", ...: stable names for
 * the journal (NUMASTATD_CAUSE=), varlink and metrics labels. */
const char *cause_to_string(Cause c);
Cause cause_from_string(const char *s);
/* Causes that come with a ReaderRef: a counted or an ignored read, or a
 * hold (its owner, with no path). */
static inline bool cause_has_reader(Cause c) {
        return c == CAUSE_READ || c == CAUSE_IGNORED_READ || c == CAUSE_HOLD;
}

#define READER_COMM_MAX 64      /* TASK_COMM_LEN is 16; room for a longer one */
#define READER_UNIT_MAX 256
#define READER_PATH_MAX 256

/* Who read which file. Every string is as the process chose it (untrusted,
 * raw): whoever shows it escapes it. Empty strings are unknown. */
typedef struct ReaderRef {
        bool redacted;          /* shown to a caller who may not see it: its comm and file only */
        pid_t pid;              /* 0: unknown */
        bool pid_verified;      /* a pidfd proved the pid was the reader's while it was named */
        bool has_uid;
        uid_t uid;
        char comm[READER_COMM_MAX];     /* empty: gone before it could be named */
        char unit[READER_UNIT_MAX];     /* its systemd unit or session */
        char path[READER_PATH_MAX];     /* the statistics file read */
} ReaderRef;

/* Fills r; NULL strings become empty, long ones are cut. */
void reader_ref_set(ReaderRef *r, pid_t pid, bool pid_verified, bool has_uid, uid_t uid, const char *comm,
                    const char *unit, const char *path);

/* Room for reader_ref_format() of any reader, cut at a sane length. */
#define READER_REF_TEXT_MAX 512

/* What a caller who may not see another user's process is shown of it:
 * its comm and the file, not its pid, uid, unit or executable. */
ReaderRef reader_ref_redact(const ReaderRef *r);

/* "cat (pid 42, uid 0, session-3.scope) read /proc/vmstat", every string
 * C-escaped (see cescape()); redacted: "cat (another user's process) read
 * /proc/vmstat". Returns buf. */
char *reader_ref_format(const ReaderRef *r, char *buf, size_t size);
/* The same without the file: "cat (pid 42, uid 0, session-3.scope)". */
char *reader_ref_format_who(const ReaderRef *r, char *buf, size_t size);
