/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the kernel is doing, not just what its sysctl says. Pure.
 *
 * A patched kernel's "auto" has two states the sysctl file cannot show:
 * armed (counting off until the first read of a statistics file) and
 * triggered (a read turned counting on, for good). The daemon tracks them
 * from what it can observe: its own arming (coarse, then auto), every read
 * event while armed, and the kernel's log line when it is readable. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cause.h"
#include "mode.h"

typedef enum AutoState {
        AUTO_STATE_NONE,        /* not in auto */
        AUTO_STATE_ARMED,       /* counting off; the next read turns it on */
        AUTO_STATE_TRIGGERED,   /* counting on since a read */
        AUTO_STATE_UNKNOWN,     /* found in auto (start-up, someone else): armed or triggered */
        _AUTO_STATE_MAX,
} AutoState;

const char *auto_state_to_string(AutoState s);

typedef struct KernelState {
        KernelMode mode;        /* as last read back */
        AutoState auto_state;   /* mode == KERNEL_MODE_AUTO on a patched backend */
        /* AUTO_STATE_TRIGGERED: */
        bool confirmed;         /* the kernel's log said so (else: a read event while armed) */
        Cause trigger_cause;    /* READ, IGNORED_READ, UNSEEN_READ or ARMED_SAMPLE */
        ReaderRef triggered_by; /* READ or IGNORED_READ */
} KernelState;

/* Whether the kernel counts now. An auto kernel whose state is unknown is
 * taken as counting: no saving is claimed that may not be there. */
bool kernel_state_counting(const KernelState *k);
/* Whether it counts for certain: strict, or an auto whose trigger the
 * kernel's log confirmed (an inferred trigger is not trusted to count). */
bool kernel_state_counting_for_sure(const KernelState *k);
/* An auto that a read (or our sample) turned on: cause, and the reader
 * where the cause has one. */
KernelState kernel_state_triggered(Cause cause, const ReaderRef *reader, bool confirmed);

/* "strict", "coarse", "auto (armed)", "auto (triggered by cat (pid 42, ...)
 * read /proc/vmstat)", "auto (triggered by a read the daemon could not
 * see)", "auto (armed or triggered: unknown)". Escaped. Returns buf. */
char *kernel_state_format(const KernelState *k, char *buf, size_t size);

/* How to bring the kernel to what a decision wants. */
typedef enum KernelAction {
        KERNEL_ACTION_NONE,     /* it is there already (or it is to be left alone) */
        KERNEL_ACTION_WRITE,    /* write the mode */
        KERNEL_ACTION_ARM,      /* coarse, then auto: counting off until the next read */
} KernelAction;

/* want: the decision's mode (UNKNOWN: leave alone); rearm: the policy
 * allows re-arming a triggered auto now. Counting on is satisfied by strict
 * and by an auto whose trigger the kernel's log confirmed; an unconfirmed
 * trigger is not trusted to count, so strict is written: a read in the
 * moment of arming resolves towards counting on. */
KernelAction kernel_state_action(const KernelState *k, KernelMode want, bool rearm);

/* One write of the mode. Entering coarse from a counting kernel zeroes the
 * counters: snapshot them first, so that they stay continuous. */
typedef struct KernelWrite {
        bool snapshot;
        KernelMode mode;
} KernelWrite;

KernelWrite kernel_state_write(const KernelState *k, KernelMode to);

typedef enum KernelPlanKind {
        KERNEL_PLAN_NONE,       /* nothing to write */
        KERNEL_PLAN_WAIT_READS, /* counting off waits until the queued read events are handled */
        KERNEL_PLAN_WRITES,     /* writes[0 .. n_writes), in order */
} KernelPlanKind;

/* How a decision is carried out, as data: the executor writes (and reads
 * back) each in order and stops at the first that fails. */
typedef struct KernelPlan {
        KernelPlanKind kind;
        KernelAction action;
        size_t n_writes;
        KernelWrite writes[2];
} KernelPlan;

/* The plan for kernel_state_action(k, want, rearm). Counting off (coarse,
 * or arming) never goes ahead while read events are queued: a counted one
 * among them wants counting on, and its reader would have found it off.
 * Arming over anything but coarse is coarse (snapshot first when counting),
 * then auto: "auto" written over a counting kernel keeps counting. */
KernelPlan kernel_state_plan(const KernelState *k, KernelMode want, bool rearm, bool reads_queued);
