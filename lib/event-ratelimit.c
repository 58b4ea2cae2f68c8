/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>

#include "event-ratelimit.h"
#include "event-util.h"
#include "time-util.h"

struct EventRatelimit {
        sd_event_source *source;        /* not ours: its owner's */
        sd_event_source *resume;        /* our timer: the interval's end; NULL: libsystemd limits it */
        uint64_t interval, begin;
        unsigned burst, dispatched;
};

static int on_interval_end(sd_event_source *s, uint64_t usec, void *userdata) {
        EventRatelimit *rl = userdata;

        rl->dispatched = 0;
        (void) sd_event_source_set_enabled(rl->source, SD_EVENT_ON);
        return 0;
}

int event_ratelimit_new_own(sd_event_source *s, uint64_t interval_usec, unsigned burst, EventRatelimit **ret) {
        EventRatelimit *rl;
        int r;

        if (!s || interval_usec == 0 || burst == 0)
                return -EINVAL;
        rl = calloc(1, sizeof *rl);
        if (!rl)
                return -ENOMEM;
        *rl = (EventRatelimit) { .source = s, .interval = interval_usec, .burst = burst };
        /* To the µs: sd-event's default accuracy (250 ms) would stretch a
         * 10 ms interval 25 times. */
        r = sd_event_add_time(sd_event_source_get_event(s), &rl->resume, CLOCK_MONOTONIC, UINT64_MAX, 1,
                              on_interval_end, rl);
        if (r >= 0)
                r = sd_event_source_set_enabled(rl->resume, SD_EVENT_OFF);
        if (r < 0) {
                event_ratelimit_free(rl);
                return r;
        }
        (void) sd_event_source_set_description(rl->resume, "ratelimit-resume");
        *ret = rl;
        return 0;
}

int event_ratelimit_new(sd_event_source *s, uint64_t interval_usec, unsigned burst, EventRatelimit **ret) {
#if EVENT_SOURCE_RATELIMIT
        EventRatelimit *rl;
        int r;

        if (!s || interval_usec == 0 || burst == 0)
                return -EINVAL;
        r = sd_event_source_set_ratelimit(s, interval_usec, burst);
        if (r < 0)
                return r;
        rl = calloc(1, sizeof *rl);
        if (!rl)
                return -ENOMEM;
        *rl = (EventRatelimit) { .source = s, .interval = interval_usec, .burst = burst };
        *ret = rl;
        return 0;
#else
        return event_ratelimit_new_own(s, interval_usec, burst, ret);
#endif
}

void event_ratelimit_dispatched(EventRatelimit *rl) {
        uint64_t now;

        if (!rl || !rl->resume)
                return;
        now = now_usec(CLOCK_MONOTONIC);
        if (rl->dispatched == 0 || now - rl->begin >= rl->interval) {
                rl->begin = now;
                rl->dispatched = 0;
        }
        if (++rl->dispatched < rl->burst)
                return;
        /* The burst is spent: the source waits for the interval's end. */
        if (sd_event_source_set_enabled(rl->source, SD_EVENT_OFF) >= 0)
                event_timer_at(rl->resume, rl->begin + rl->interval);
}

EventRatelimit *event_ratelimit_free(EventRatelimit *rl) {
        if (!rl)
                return NULL;
        sd_event_source_disable_unref(rl->resume);
        free(rl);
        return NULL;
}
