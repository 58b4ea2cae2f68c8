/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

/* A source's wakeups limited as sd_event_source_set_ratelimit() limits them
 * (libsystemd 248): at most burst dispatches an interval; past them the
 * source is off until the interval ends. Before 248 (Debian 11 has 247) the
 * limit is our own: the source's handler tells each dispatch, and a timer
 * turns the source on again. Without it a read flood kept the daemon, at
 * SCHED_FIFO, busy on its CPU (78% of a core, 1,000 readers). */
typedef struct EventRatelimit EventRatelimit;

/* s's limit: libsystemd's where it has one, else our own. */
int event_ratelimit_new(sd_event_source *s, uint64_t interval_usec, unsigned burst, EventRatelimit **ret);
/* Our own, whatever libsystemd has (for tests). */
int event_ratelimit_new_own(sd_event_source *s, uint64_t interval_usec, unsigned burst, EventRatelimit **ret);
/* At each dispatch of the source, in its handler. */
void event_ratelimit_dispatched(EventRatelimit *rl);
/* Before the source goes, or is turned off for good. */
EventRatelimit *event_ratelimit_free(EventRatelimit *rl);
