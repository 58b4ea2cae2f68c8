/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A source's wakeups limited: an always-readable eventfd is dispatched at
 * most burst times an interval, whether libsystemd limits it (248) or our
 * own limit does (before 248, as on Debian 11), and it comes back after
 * each interval; once the limit is freed while the source waits, nothing
 * turns it on again. */

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event-ratelimit.h"
#include "macro.h"
#include "tap.h"
#include "time-util.h"

#define INTERVAL (200 * USEC_PER_MSEC)
#define BURST 4
#define WANTED (3 * BURST)
/* The limiter reads the clock before the callback does: a callback
 * preempted in between (both cores busy) sees a window up to a time slice
 * short. An unlimited source's gap is microseconds, a halved interval's
 * 100 ms: both still fail. */
#define OBSERVER_SLACK (INTERVAL / 4)

typedef struct Run {
        EventRatelimit *rl;
        uint64_t at[WANTED];
        unsigned n;
} Run;

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Run *run = userdata;

        event_ratelimit_dispatched(run->rl);
        if (run->n < WANTED)
                run->at[run->n] = now_usec(CLOCK_MONOTONIC);
        if (++run->n >= WANTED)
                (void) sd_event_exit(sd_event_source_get_event(s), 0);
        return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Runs e until it exits, or for at most usec. */
static void run_for(sd_event *e, uint64_t usec) {
        sd_event_source *deadline = NULL;

        if (sd_event_add_time_relative(e, &deadline, CLOCK_MONOTONIC, usec, 1, on_deadline, NULL) < 0 ||
            sd_event_loop(e) < 0)
                abort();
        sd_event_source_disable_unref(deadline);
}

static void check(const char *which, bool own) {
        sd_event *e = NULL;
        sd_event_source *s = NULL;
        Run run = {};
        uint64_t v = 1;
        int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        bool spaced = true;

        if (fd < 0 || write(fd, &v, sizeof v) != sizeof v || sd_event_new(&e) < 0 ||
            sd_event_add_io(e, &s, fd, EPOLLIN, on_readable, &run) < 0)
                abort();
        ok((own ? event_ratelimit_new_own : event_ratelimit_new)(s, INTERVAL, BURST, &run.rl) == 0, "%s: set", which);
        run_for(e, 10 * USEC_PER_SEC);
        ok(run.n == WANTED, "%s: an always-readable source comes back after each interval (%u dispatches)", which, run.n);
        for (unsigned i = BURST; i < run.n && i < WANTED; i += BURST)
                if (run.at[i] - run.at[i - BURST] < INTERVAL - OBSERVER_SLACK)
                        spaced = false;
        ok(spaced, "%s: at most %d dispatches an interval (%.1f ms for %u)", which, BURST,
           (double) (run.at[WANTED - 1] - run.at[0]) / USEC_PER_MSEC, WANTED);
        sd_event_source_unref(s);
        event_ratelimit_free(run.rl);
        sd_event_unref(e);
        close(fd);
}

/* Freed while the source waits for the interval's end: it stays off. */
static void check_free(void) {
        sd_event *e = NULL;
        sd_event_source *s = NULL;
        Run run = {};
        uint64_t v = 1;
        int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), enabled = -1;

        if (fd < 0 || write(fd, &v, sizeof v) != sizeof v || sd_event_new(&e) < 0 ||
            sd_event_add_io(e, &s, fd, EPOLLIN, on_readable, &run) < 0 ||
            event_ratelimit_new_own(s, INTERVAL, BURST, &run.rl) < 0)
                abort();
        while (run.n < BURST)
                if (sd_event_run(e, UINT64_MAX) < 0)
                        abort();
        (void) sd_event_source_get_enabled(s, &enabled);
        ok(enabled == SD_EVENT_OFF, "own: its burst spent, the source waits");
        run.rl = event_ratelimit_free(run.rl);
        run_for(e, 3 * INTERVAL);
        ok(run.n == BURST, "own: freed while it waits, nothing turns it on again (%u dispatches)", run.n);
        sd_event_source_unref(s);
        sd_event_unref(e);
        close(fd);
}

int main(void) {
        sd_event *e = NULL;
        sd_event_source *s = NULL;
        EventRatelimit *rl = NULL;

        if (sd_event_new(&e) < 0 || sd_event_add_defer(e, &s, NULL, NULL) < 0)
                abort();
        is_int(event_ratelimit_new_own(s, 0, BURST, &rl), -EINVAL, "an interval of 0 is refused");
        is_int(event_ratelimit_new(s, INTERVAL, 0, &rl), -EINVAL, "a burst of 0 is refused");
        sd_event_source_unref(s);
        sd_event_unref(e);

        check("own", true);
        check("as built (libsystemd's where it has one)", false);
        check_free();
        return tap_done();
}
