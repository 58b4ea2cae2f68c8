/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* libsystemd limits a source's wakeups (248); before, event-ratelimit.h's
 * own limit does. */
#define EVENT_SOURCE_RATELIMIT HAVE_DECL_SD_EVENT_SOURCE_SET_RATELIMIT

/* A one-shot timer due at when (CLOCK_MONOTONIC µs); UINT64_MAX: off. */
static inline void event_timer_at(sd_event_source *s, uint64_t when) {
        if (when == UINT64_MAX) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time(s, when);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}
