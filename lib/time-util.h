/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <time.h>

#include "macro.h"

/* A clock in microseconds: CLOCK_MONOTONIC (sd-event's timers run on it) or
 * CLOCK_REALTIME (times shown to people). */
static inline uint64_t now_usec(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}
