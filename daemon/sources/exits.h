/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Readers gone before we looked, named from their exit records
 * ([readers] exit_records): a source that keeps its reads parked until the
 * taskstats record that names each comes (or its deadline passes), and
 * hands each back, one at a time, as a read to handle. Its own timer and
 * the records' news are its wakeups; nobody is called back from inside a
 * lookup (exits_name(), exits_parent() read records without telling). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "readers.h"

typedef struct Exits Exits;

/* A parked read that is due: named by its record if it came. ev lives
 * until the handler returns. */
typedef void (*ExitsReadFn)(Exits *x, ReadEvent *ev, void *userdata);

int exits_new(sd_event *event, ExitsReadFn on_read, void *userdata, Exits **ret);
Exits *exits_free(Exits *x);

/* Exit records on or off. On: -errno when taskstats is unavailable (the
 * reason is in exits_error()). Off: the parked reads are handed back,
 * unnamed, on the loop's next turn. */
int exits_enable(Exits *x, bool on);
bool exits_enabled(const Exits *x);
const char *exits_error(const Exits *x);

typedef struct ExitsStats {
        uint64_t named;         /* reads named by their exit record */
        uint64_t missed;        /* ...whose record did not come in time */
        unsigned version;       /* taskstats' version, 0 if off */
} ExitsStats;

ExitsStats exits_stats(const Exits *x);

/* Parks ev if its reader is gone and an exit record may name it; it comes
 * back through on_read. Returns whether it did. */
bool exits_park(Exits *x, ReadEvent *ev);
/* A reader that exited while we named it, before its binary was known:
 * its record is queued already (the kernel sends it before the process's
 * /proc entry goes). Names ev from it, if it came. */
void exits_name(Exits *x, ReadEvent *ev);
/* pid's parent, from its exit record; -ESRCH if none has come. */
int exits_parent(Exits *x, pid_t pid, pid_t *ret);
/* A gone process's real uid and binary, from its exit record. */
int exits_binary(Exits *x, pid_t pid, uid_t *ret_uid, uint64_t *ret_exe_dev, uint64_t *ret_exe_ino);

/* How many reads are parked. */
size_t exits_parked(const Exits *x);
/* Parks a read of path by a gone pid, taken at since, without looking for
 * its record: the next look does (tests set up a read that is due).
 * -ENOSPC when PARKED_MAX are parked. */
int exits_park_unlooked(Exits *x, pid_t pid, uint64_t since, const char *path, const uid_t *uid);

static inline void exits_freep(Exits **x) {
        exits_free(*x);
}
