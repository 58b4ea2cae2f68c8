/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Holds, as the manager sees them: whether they may be taken, and the
 * engine told when they change. The service keeps them (holds.c). */
#include <errno.h>

#include "manager.h"
#include "manager-internal.h"
#include "time-util.h"

static const char *refuse(int *ret_error, int error, const char *why) {
        *ret_error = error;
        return why;
}

const char *manager_hold_refused(const Manager *m, int *ret_error) {
        if (manager_backend(m) == BACKEND_NONE)
                return refuse(ret_error, -EOPNOTSUPP, "this kernel has no interface for NUMA statistics");
        if (engine_dry_run(manager_engine(m)))
                return refuse(ret_error, -EOPNOTSUPP, "the daemon runs in dry-run mode and writes nothing");
        if (engine_paused(manager_engine(m)))
                return refuse(ret_error, -EBUSY,
                              "paused after someone else changed the mode: numastatctl set-policy resumes");
        if (engine_policy(manager_engine(m)) == POLICY_COARSE)
                return refuse(ret_error, -EPERM,
                              "policy coarse: counting stays off (an administrator may set-policy auto)");
        return refuse(ret_error, 0, NULL);
}

void manager_handle_holds_changed(Manager *m, const Holds *holds) {
        const HoldInfo *h = holds_get(holds, 0);

        EngineEvent ev = {
                .type = ENGINE_EVENT_HOLDS,
                .holds = (unsigned) holds_count(holds),
                .has_reader = h != NULL,
                .hold_reason = h ? h->reason : NULL,
        };

        if (h)
                ev.reader = h->owner;
        (void) manager_feed(m, &ev, now_usec(CLOCK_MONOTONIC));
}
