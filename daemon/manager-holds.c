/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Holds, as the manager sees them: whether they may be taken, and the
 * engine told when they change. The service keeps them (holds.c). */
#include <errno.h>

#include "manager.h"
#include "manager-private.h"

static const char *refuse(int *ret_error, int error, const char *why) {
        *ret_error = error;
        return why;
}

const char *manager_hold_refused(const Manager *m, int *ret_error) {
        if (manager_backend(m) == BACKEND_NONE)
                return refuse(ret_error, -EOPNOTSUPP, "this kernel has no interface for NUMA statistics");
        if (m->dry_run)
                return refuse(ret_error, -EOPNOTSUPP, "the daemon runs in dry-run mode and writes nothing");
        if (policy_paused(&m->engine))
                return refuse(ret_error, -EBUSY,
                              "paused after someone else changed the mode: numastatctl set-policy resumes");
        if (m->policy_in_force == POLICY_COARSE)
                return refuse(ret_error, -EPERM,
                              "policy coarse: counting stays off (an administrator may set-policy auto)");
        return refuse(ret_error, 0, NULL);
}

void manager_holds_changed(Manager *m, const Holds *holds) {
        const HoldInfo *h = holds_get(holds, 0);

        policy_set_holds(&m->engine, (unsigned) holds_count(holds), h ? &h->owner : NULL, h ? h->reason : NULL);
        (void) manager_apply(m);
}
