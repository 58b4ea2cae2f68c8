/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy engine: pure code, no I/O, no clock of its own. Time comes in
 * as a parameter (CLOCK_MONOTONIC µs), so it is tested on a fake clock.
 *
 * The manager feeds it events (a counted read, an allocation-rate sample,
 * the kernel mode changed by someone else) and asks it to evaluate; the
 * answer is the kernel mode wanted and a reason a person can read. */

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "mode.h"
#include "strutil.h"

#define REASON_MAX 512

typedef struct PolicyConfig {
        Policy policy;
        BackendKind backend;
        OffMode off_mode;               /* patched kernels: what "counting off" writes */
        ExternalChange on_external_change;
        usec_t min_dwell;               /* no two switches closer, except to counting on for a reader */
        usec_t linger;                  /* counting stays on this long after the last counted read */
        usec_t sustain;                 /* a rate must hold this long before it counts */
        uint64_t coarse_above;          /* pages/s */
        uint64_t strict_below;          /* pages/s */
        bool readers_blind;             /* no reader detection: auto must not turn counting off */
} PolicyConfig;

typedef struct PolicyState {
        bool counting;                  /* the engine's current decision: counting on? */
        bool have_decision;             /* false until the first evaluation */
        usec_t last_switch;             /* when counting last flipped (or the start) */

        usec_t last_counted_read;       /* the start counts as a read: nothing goes off before linger */
        char last_reader[REASON_MAX];   /* "cat (pid 42, uid 0, session-3.scope) read /proc/vmstat" */

        bool have_rate;
        double rate;                    /* pages/s, smoothed */
        usec_t above_since;             /* 0: not above coarse_above now */
        usec_t below_since;             /* 0: not below strict_below now */

        bool paused;                    /* following an external change */
        KernelMode paused_mode;
        char paused_reason[REASON_MAX];
} PolicyState;

typedef struct Decision {
        /* KERNEL_MODE_UNKNOWN: leave the kernel alone (no backend, or paused
         * and following whatever the admin set). */
        KernelMode mode;
        bool counting;
        bool switched;                  /* this evaluation flipped counting */
        char reason[REASON_MAX];
} Decision;

/* Starts the engine at time now, counting on (the safe side). */
void policy_init(PolicyState *s, usec_t now);

/* A read that needs NUMA counters (not ignored). desc names who and what. */
void policy_on_counted_read(PolicyState *s, usec_t now, const char *desc);

/* An allocation-rate sample (pages/s, already smoothed). */
void policy_on_rate(PolicyState *s, const PolicyConfig *c, usec_t now, double rate);

/* Someone else wrote the kernel mode (found != what we last wrote). With
 * on_external_change=follow the engine pauses and leaves the kernel as
 * found; with override the next evaluation writes its own mode again. */
void policy_on_external_change(PolicyState *s, const PolicyConfig *c, usec_t now, KernelMode found,
                               KernelMode expected);

/* The operator spoke (SetPolicy, Reload): leave a pause, keep the rest. */
void policy_resume(PolicyState *s);

/* Decides at time now. Updates s (counting, last_switch) when it flips. */
void policy_evaluate(PolicyState *s, const PolicyConfig *c, usec_t now, Decision *ret);

/* When an evaluation could next give a different answer without any new
 * event (linger expiring, sustain reached, dwell over); USEC_INFINITY if
 * never. The manager arms one timer for it. */
usec_t policy_next_deadline(const PolicyState *s, const PolicyConfig *c);

/* The kernel mode that means "counting off" / "counting on" on a backend. */
KernelMode policy_off_mode(const PolicyConfig *c);
KernelMode policy_on_mode(const PolicyConfig *c);

/* What a stopping daemon leaves behind: strict (counting on), or what it
 * found at start-up. KERNEL_MODE_UNKNOWN: leave the kernel alone. */
KernelMode policy_exit_mode(ExitMode exit_mode, BackendKind backend, KernelMode initial);
