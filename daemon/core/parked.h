/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reads whose reader had exited before it was looked at, waiting for its
 * taskstats exit record (which comes 50 µs to 20 ms after the read event),
 * so that ignore rules can match it and status can name it. The wait is
 * safe: the reader is gone and its read was answered with whatever the
 * kernel had; counting on a few ms later changes nothing it saw. Pure: the
 * caller says what time it is and whether a read's record has come.
 *
 * Oldest first. A read is due when its record has come, or at its
 * deadline; the caller handles due reads one at a time, as events, and
 * none inside another. A reader still exiting at the deadline has not sent
 * its record yet (taskstats sends it halfway through exit, and on a busy
 * machine the exiting task may wait its turn for long): its read waits on,
 * up to PARKED_EXITING_MAX_USEC. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PARKED_MAX 64
#define PARKED_DEADLINE_USEC (50 * 1000ULL)     /* records come 50 µs to 20 ms after the read */
#define PARKED_EXITING_MAX_USEC (1000 * 1000ULL) /* ...or later, while the reader is still exiting */
#define PARKED_POLL_USEC (2 * 1000ULL)          /* how often to look for records meanwhile */

typedef struct ParkedRead {
        pid_t pid;
        uint64_t since;         /* CLOCK_MONOTONIC µs, when the event was taken */
        char *path;
        char *comm;             /* what /proc still showed (a zombie's comm), or NULL */
        bool has_uid;
        uid_t uid;
} ParkedRead;

void parked_read_done(ParkedRead *p);

typedef struct ParkedReads ParkedReads;

ParkedReads *parked_reads_new(void);
ParkedReads *parked_reads_free(ParkedReads *p);
size_t parked_reads_count(const ParkedReads *p);

/* Parks a read of path by pid taken at since (comm and uid: what /proc
 * still showed; NULL if nothing). When PARKED_MAX are parked already, the
 * oldest makes room: it is moved to *ret_evicted (returns 1) for the
 * caller to handle now, as it is. 0 if nothing was evicted; -ENOMEM. */
int parked_reads_add(ParkedReads *p, pid_t pid, uint64_t since, const char *path, const char *comm,
                     const uid_t *uid, ParkedRead *ret_evicted);

/* What the caller sees of a parked read's reader: whether its exit record
 * has come, and (asked only past the deadline) whether it is still exiting,
 * its record yet to be sent. */
typedef struct ParkedLookup {
        bool (*has_record)(const ParkedRead *r, void *userdata);
        bool (*exiting)(const ParkedRead *r, void *userdata);
        void *userdata;
} ParkedLookup;

/* Takes the oldest read that is due at now: its record has come, or its
 * deadline has passed and its reader is not still exiting (lookup NULL:
 * records are off, every read is due). Moves it to *ret (the caller owns
 * it) and returns true; false if none is due. */
bool parked_reads_take_due(ParkedReads *p, uint64_t now, const ParkedLookup *lookup, ParkedRead *ret);

/* When to look again for the reads still parked: a poll, or the earliest
 * deadline (or, past it, the end of the wait for an exiting reader) if
 * sooner. UINT64_MAX when none is parked. */
uint64_t parked_reads_next(const ParkedReads *p, uint64_t now);

/* How far back the exit record of a read taken at `taken` may have been
 * received: before the read was taken, the record of a reader that exited
 * at once may be in already. In the first second after boot, any. */
#define PARKED_LOOKBACK_USEC (1000 * 1000ULL)
uint64_t exit_record_not_before(uint64_t taken);
