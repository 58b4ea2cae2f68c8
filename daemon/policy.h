/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy engine: pure code, no I/O. It takes what is known and returns
 * the kernel mode wanted and a reason a person can read. The auto policy's
 * signals (readers, allocation pressure) plug in here. */

#include "backend.h"
#include "mode.h"

#define REASON_MAX 512

typedef struct PolicyInput {
        Policy policy;
        BackendKind backend;
} PolicyInput;

typedef struct Decision {
        /* KERNEL_MODE_UNKNOWN: leave the kernel alone (nothing to drive). */
        KernelMode mode;
        char reason[REASON_MAX];
} Decision;

void policy_decide(const PolicyInput *in, Decision *ret);

/* What a stopping daemon leaves behind: strict (counting on), or what it
 * found at start-up. KERNEL_MODE_UNKNOWN: leave the kernel alone. */
KernelMode policy_exit_mode(ExitMode exit_mode, BackendKind backend, KernelMode initial);
