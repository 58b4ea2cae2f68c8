/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* numastatctl hold: counting on while the caller's connection lasts (and
 * at most until `until`). Any uid may hold: it only ever turns counting
 * on; HOLDS_PER_UID_MAX bounds what one user can pile up. The manager owns
 * holds (manager_hold_add/remove); status reads them. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "cause.h"

#define HOLDS_PER_UID_MAX 8

struct Manager;
struct Varlink;

typedef struct Hold {
        struct Manager *manager;
        uint64_t id;
        struct Varlink *link;           /* ref; the hold ends when it closes (NULL once released) */
        ReaderRef owner;                /* the caller, by its socket credentials */
        char *reason;                   /* as the caller said it (raw, untrusted) */
        uint64_t since, until;          /* CLOCK_REALTIME µs; until 0: while connected */
        sd_event_source *timer;         /* until */
        bool released;                  /* still in force until what was queued before is taken */
} Hold;
