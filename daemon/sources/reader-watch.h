/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reader detection kept alive: the fanotify group (readers.h), and when
 * it fails (an error reading it, or its files cannot be marked), a new one
 * after a back-off that doubles from 1 s to 5 min. Its owner hears of a
 * loss and of a group that is back, which it marks; while there is none,
 * the policy cannot see readers. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "readers.h"

typedef struct ReaderWatch ReaderWatch;

typedef struct ReaderWatchOps {
        ReadersCallback read;                           /* each read event, as readers.h says */
        void (*lost)(ReaderWatch *w, void *userdata);   /* the group is gone; a retry is set */
        /* A retry made a group: mark it, then reader_watch_back() or
         * reader_watch_lost(). */
        void (*retried)(ReaderWatch *w, void *userdata);
        void (*retry_failed)(ReaderWatch *w, void *userdata);   /* no group yet; the next retry is set */
} ReaderWatchOps;

int reader_watch_new(sd_event *event, const ReaderWatchOps *ops, void *userdata, ReaderWatch **ret);
ReaderWatch *reader_watch_free(ReaderWatch *w);

/* The first group. Without one (no CAP_SYS_ADMIN, no fanotify), the error
 * is kept for status and no retry is set: nothing will change that. */
int reader_watch_start(ReaderWatch *w);
/* The group is lost (what: why, before error's text): dropped, the error
 * kept, the next try set. Tells nobody: the caller decided it. */
void reader_watch_lost(ReaderWatch *w, int error, const char *what);
/* The retried group marked its files: the error is over. */
void reader_watch_back(ReaderWatch *w);

/* The group; NULL while there is none. */
Readers *reader_watch_readers(const ReaderWatch *w);
const char *reader_watch_error(const ReaderWatch *w);
uint64_t reader_watch_retry_at(const ReaderWatch *w);   /* CLOCK_REALTIME µs; 0: no retry pending */
