/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reader-watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "event-util.h"
#include "log.h"
#include "strutil.h"
#include "time-util.h"

#define RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define RETRY_MAX_USEC (5 * 60 * USEC_PER_SEC)

struct ReaderWatch {
        sd_event *event;
        Readers *readers;               /* NULL: reader detection unavailable (or died) */
        char *error;
        usec_t backoff;                 /* the next retry's delay after a failure */
        uint64_t retry_at;              /* CLOCK_REALTIME µs, for status; 0: no retry pending */
        sd_event_source *timer;
        ReaderWatchOps ops;
        void *userdata;
};

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

int reader_watch_new(sd_event *event, const ReaderWatchOps *ops, void *userdata, ReaderWatch **ret) {
        ReaderWatch *w = calloc(1, sizeof *w);
        int r;

        if (!w)
                return -ENOMEM;
        *w = (ReaderWatch) {
                .event = sd_event_ref(event), .backoff = RETRY_MIN_USEC, .ops = *ops, .userdata = userdata,
        };
        r = sd_event_add_time(event, &w->timer, CLOCK_MONOTONIC, USEC_INFINITY, 0, on_retry, w);
        if (r >= 0) {
                (void) sd_event_source_set_description(w->timer, "readers-retry");
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        }
        if (r < 0) {
                reader_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

ReaderWatch *reader_watch_free(ReaderWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->timer);
        readers_free(w->readers);
        free(w->error);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

/* The next try, after the back-off (which doubles, up to its bound).
 * Returns the delay. */
static usec_t schedule_retry(ReaderWatch *w) {
        usec_t delay = w->backoff;

        w->backoff = MIN(w->backoff * 2, RETRY_MAX_USEC);
        w->retry_at = now_usec(CLOCK_REALTIME) + delay;
        event_timer_at(w->timer, now_usec(CLOCK_MONOTONIC) + delay);
        return delay;
}

void reader_watch_lost(ReaderWatch *w, int error, const char *what) {
        usec_t delay;

        w->readers = readers_free(w->readers);
        set_source_error(&w->error, error, "%s: %m; retrying", what);
        delay = schedule_retry(w);
        log_warning("Reader detection lost; policy auto keeps counting on; next try in %" PRIu64 " s.",
                    delay / USEC_PER_SEC);
}

/* The group failed on its own (readers.h): it may be freed now. */
static void on_failed(Readers *r, int error, void *userdata) {
        ReaderWatch *w = userdata;

        reader_watch_lost(w, error, "reader detection failed");
        w->ops.lost(w, w->userdata);
}

static void on_read_event(Readers *r, ReadEvent *ev, void *userdata) {
        ReaderWatch *w = userdata;

        w->ops.read(r, ev, w->userdata);
}

int reader_watch_start(ReaderWatch *w) {
        int r = readers_new(w->event, on_read_event, on_failed, w, &w->readers);

        if (r < 0) {
                set_source_error(&w->error, r, "fanotify unavailable: %m%s", r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
                log_warning_errno(r, "Reader detection unavailable (fanotify: %m); "
                                     "policy auto cannot see readers and keeps counting on.");
        }
        return r;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        ReaderWatch *w = userdata;
        int r;

        r = readers_new(w->event, on_read_event, on_failed, w, &w->readers);
        if (r < 0) {
                usec_t delay = schedule_retry(w);

                log_warning_errno(r, "Cannot re-create reader detection (fanotify: %m); next try in %" PRIu64 " s.",
                                  delay / USEC_PER_SEC);
                w->ops.retry_failed(w, w->userdata);
                return 0;
        }
        w->ops.retried(w, w->userdata);
        return 0;
}

void reader_watch_back(ReaderWatch *w) {
        log_notice("Reader detection is back.");
        w->error = mfree(w->error);
        w->retry_at = 0;
        w->backoff = RETRY_MIN_USEC;
}

Readers *reader_watch_readers(const ReaderWatch *w) {
        return w ? w->readers : NULL;
}

const char *reader_watch_error(const ReaderWatch *w) {
        return w ? w->error : NULL;
}

uint64_t reader_watch_retry_at(const ReaderWatch *w) {
        return w ? w->retry_at : 0;
}
