/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* numastatctl hold: counting on while the caller's connection lasts (and
 * at most until `until`). Any uid may hold: it only ever turns counting
 * on; HOLDS_PER_UID_MAX bounds what one user can pile up. The service owns
 * the holds; the manager hears of each change (holds_changed_t) and reads
 * them through these functions. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "cause.h"
#include "strutil.h"
#include "varlink-server.h"

#define HOLDS_PER_UID_MAX 8

typedef struct Holds Holds;

/* A hold, as status shows it. */
typedef struct HoldInfo {
        uint64_t id;
        ReaderRef owner;                /* the caller, by its socket credentials */
        char *reason;                   /* as the caller said it (raw, untrusted) */
        uint64_t since, until;          /* CLOCK_REALTIME µs; until 0: while connected */
} HoldInfo;

/* The holds in force changed: one was added, or released ones dropped. */
typedef void (*holds_changed_t)(const Holds *holds, void *userdata);

int holds_new(sd_event *event, holds_changed_t changed, void *userdata, Holds **ret);
Holds *holds_free(Holds *hs);

/* A hold for link's caller, told to changed before this returns. Refuses,
 * with a negative errno and a sentence, a caller whose credentials are
 * unknown or who has HOLDS_PER_UID_MAX holds already. timeout 0: while
 * connected; when it passes, the call gets its last reply
 * ({"held": false}) and the hold is released. */
int holds_add(Holds *hs, Varlink *link, const char *reason, usec_t timeout, uint64_t *ret_id,
              const char **ret_why);
/* The id of link's hold; 0: it has none (one hold per connection). */
uint64_t holds_of_link(const Holds *hs, const Varlink *link);
/* Ends hold id. It stays in force until the loop has taken what was
 * queued before (the held command's last read usually comes just before
 * its exit, and is the hold's); then it goes, told to changed. */
void holds_release(Holds *hs, uint64_t id);
/* From now on, released holds go at once and untold: the loop is ending. */
void holds_stop(Holds *hs);

/* The holds in force, oldest first. NULL counts none. */
size_t holds_count(const Holds *hs);
const HoldInfo *holds_get(const Holds *hs, size_t i);
/* CLOCK_MONOTONIC µs since when holds have been in force without a break,
 * taken after the change that made the first one was told. */
usec_t holds_held_since(const Holds *hs);
