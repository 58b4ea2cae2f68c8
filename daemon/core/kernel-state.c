/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "kernel-state.h"
#include "string-table.h"

static const char *const auto_state_table[_AUTO_STATE_MAX] = {
        [AUTO_STATE_NONE] = "none",
        [AUTO_STATE_ARMED] = "armed",
        [AUTO_STATE_TRIGGERED] = "triggered",
        [AUTO_STATE_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(auto_state, AutoState)

bool kernel_state_counting(const KernelState *k) {
        switch (k->mode) {
        case KERNEL_MODE_STRICT:
                return true;
        case KERNEL_MODE_AUTO:
                return k->auto_state != AUTO_STATE_ARMED;
        default:
                return false;
        }
}

char *kernel_state_format(const KernelState *k, char *buf, size_t size) {
        char who[READER_REF_TEXT_MAX];

        if (k->mode != KERNEL_MODE_AUTO || k->auto_state == AUTO_STATE_NONE) {
                snprintf(buf, size, "%s", kernel_mode_to_string(k->mode) ?: "unknown");
                return buf;
        }
        switch (k->auto_state) {
        case AUTO_STATE_ARMED:
                snprintf(buf, size, "auto (armed)");
                break;
        case AUTO_STATE_TRIGGERED:
                switch (k->trigger_cause) {
                case CAUSE_READ:
                case CAUSE_IGNORED_READ:
                        snprintf(buf, size, "auto (triggered by %s%s)",
                                 reader_ref_format(&k->triggered_by, who, sizeof who),
                                 k->trigger_cause == CAUSE_IGNORED_READ ? ", ignored" : "");
                        break;
                case CAUSE_ARMED_SAMPLE:
                        snprintf(buf, size, "auto (triggered by the daemon's own sample)");
                        break;
                default:
                        snprintf(buf, size, "auto (triggered by a read the daemon could not see)");
                }
                break;
        default:
                snprintf(buf, size, "auto (armed or triggered: unknown)");
        }
        return buf;
}

bool kernel_state_counting_for_sure(const KernelState *k) {
        return k->mode == KERNEL_MODE_STRICT ||
               (k->mode == KERNEL_MODE_AUTO && k->auto_state == AUTO_STATE_TRIGGERED && k->confirmed);
}

KernelState kernel_state_triggered(Cause cause, const ReaderRef *reader, bool confirmed) {
        return (KernelState) {
                .mode = KERNEL_MODE_AUTO,
                .auto_state = AUTO_STATE_TRIGGERED,
                .confirmed = confirmed,
                .trigger_cause = cause,
                .triggered_by = reader && cause_has_reader(cause) ? *reader : (ReaderRef) {},
        };
}

KernelAction kernel_state_action(const KernelState *k, KernelMode want, bool rearm) {
        switch (want) {
        case KERNEL_MODE_UNKNOWN:
                return KERNEL_ACTION_NONE;
        case KERNEL_MODE_STRICT:
                /* Counting already, or the kernel said so. */
                return kernel_state_counting_for_sure(k) ? KERNEL_ACTION_NONE : KERNEL_ACTION_WRITE;
        case KERNEL_MODE_AUTO:
                /* "auto" written over a counting kernel keeps counting: off
                 * is coarse first, then auto. */
                if (k->mode != KERNEL_MODE_AUTO)
                        return KERNEL_ACTION_ARM;
                if (k->auto_state == AUTO_STATE_ARMED)
                        return KERNEL_ACTION_NONE;
                return rearm ? KERNEL_ACTION_ARM : KERNEL_ACTION_NONE;
        default:
                return k->mode == want ? KERNEL_ACTION_NONE : KERNEL_ACTION_WRITE;
        }
}

KernelWrite kernel_state_write(const KernelState *k, KernelMode to) {
        return (KernelWrite) {
                .snapshot = to == KERNEL_MODE_COARSE && k->mode != KERNEL_MODE_COARSE && kernel_state_counting(k),
                .mode = to,
        };
}

KernelPlan kernel_state_plan(const KernelState *k, KernelMode want, bool rearm, bool reads_queued) {
        KernelPlan p = { .action = kernel_state_action(k, want, rearm) };

        if (p.action == KERNEL_ACTION_NONE)
                return p;
        if (reads_queued && (p.action == KERNEL_ACTION_ARM || want == KERNEL_MODE_COARSE)) {
                p.kind = KERNEL_PLAN_WAIT_READS;
                return p;
        }
        p.kind = KERNEL_PLAN_WRITES;
        if (p.action == KERNEL_ACTION_WRITE) {
                p.writes[p.n_writes++] = kernel_state_write(k, want);
                return p;
        }
        if (k->mode != KERNEL_MODE_COARSE)
                p.writes[p.n_writes++] = kernel_state_write(k, KERNEL_MODE_COARSE);
        p.writes[p.n_writes++] = (KernelWrite) { .mode = KERNEL_MODE_AUTO };
        return p;
}
