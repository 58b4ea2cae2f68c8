/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The transition history: the last HISTORY_MAX kernel mode switches, each
 * with its cause as data. A ring, oldest first. Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cause.h"
#include "kernel-state.h"
#include "mode.h"

#define HISTORY_MAX 64

typedef enum TransitionKind {
        TRANSITION_POLICY,      /* we switched */
        TRANSITION_DRY_RUN,     /* we would have switched */
        TRANSITION_EXTERNAL,    /* someone else switched */
        TRANSITION_EXIT,        /* we restored exit_mode on the way out */
        TRANSITION_KERNEL,      /* the kernel switched itself: a read triggered its auto */
        _TRANSITION_KIND_MAX,
} TransitionKind;

const char *transition_kind_to_string(TransitionKind k);

typedef struct Transition {
        uint64_t time;          /* CLOCK_REALTIME, µs */
        KernelMode from, to;
        AutoState from_auto, to_auto;   /* of an auto kernel: armed, triggered, unknown */
        Policy policy;
        TransitionKind kind;
        Cause cause;
        ReaderRef reader;       /* cause == CAUSE_READ */
        char *reason;           /* rendered when it happened */
        char *reason_redacted;  /* the same with every reader redacted; NULL: no reader in it */
} Transition;

typedef struct History {
        Transition ring[HISTORY_MAX];
        size_t first, n;
        uint64_t total;         /* every transition ever, not only those kept */
        uint64_t by_cause[_CAUSE_MAX];  /* ...by cause (metrics) */
} History;

/* Appends a copy of t (the reasons are duplicated; on OOM the entry is kept
 * with a NULL reason). Returns the stored entry. */
const Transition *history_add(History *h, const Transition *t);
/* "strict", "auto (armed)", "auto (triggered by cat (pid 42, ...) read
 * /proc/vmstat)": the state before (to=false) or after; redact: its reader
 * as reader_ref_redact() shows it. Returns buf. */
char *transition_format_state(const Transition *t, bool to, bool redact, char *buf, size_t size);

/* The i-th kept transition, oldest first; i < h->n. */
const Transition *history_at(const History *h, size_t i);
void history_done(History *h);
