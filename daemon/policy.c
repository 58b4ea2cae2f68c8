/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "policy.h"

void policy_decide(const PolicyInput *in, Decision *d) {
        if (in->backend == BACKEND_NONE) {
                d->mode = KERNEL_MODE_UNKNOWN;
                snprintf(d->reason, sizeof d->reason,
                         "no kernel interface for NUMA statistics (no CONFIG_NUMA?): observing only");
                return;
        }

        switch (in->policy) {
        case POLICY_STRICT:
                d->mode = KERNEL_MODE_STRICT;
                snprintf(d->reason, sizeof d->reason, "policy strict: NUMA counters always kept");
                return;
        case POLICY_COARSE:
                d->mode = KERNEL_MODE_COARSE;
                snprintf(d->reason, sizeof d->reason,
                         "policy coarse: NUMA counters never kept (readers see them frozen at zero)");
                return;
        case POLICY_AUTO:
        default:
                /* Until a reader or allocation-pressure signal says otherwise,
                 * counting stays on: the safe side for every reader. */
                d->mode = KERNEL_MODE_STRICT;
                snprintf(d->reason, sizeof d->reason,
                         "policy auto: no allocation pressure seen, counting stays on");
                return;
        }
}

KernelMode policy_exit_mode(ExitMode exit_mode, BackendKind backend, KernelMode initial) {
        if (backend == BACKEND_NONE)
                return KERNEL_MODE_UNKNOWN;
        if (exit_mode == EXIT_MODE_PREVIOUS && initial != KERNEL_MODE_UNKNOWN &&
            backend_supports(backend, initial))
                return initial;
        return KERNEL_MODE_STRICT;
}
