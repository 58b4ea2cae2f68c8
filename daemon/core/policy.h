/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The policy engine: pure code, no I/O, no clock of its own. Time comes in
 * as a parameter (CLOCK_MONOTONIC µs), so it is tested on a fake clock.
 *
 * The manager feeds it events (a counted read, an allocation-rate sample,
 * the kernel mode changed by someone else) and asks it to evaluate; the
 * answer is a Decision: the kernel mode wanted, the cause as data (what
 * made counting what it is, and which reader), the rule that holds it, and
 * a reason a person can read, rendered from those. */

#include <stdbool.h>
#include <stdint.h>

#include "cause.h"
#include "hold-limits.h"
#include "mode.h"
#include "rate-history.h"
#include "strutil.h"

#define REASON_MAX 512

typedef struct PolicyConfig {
        Policy policy;
        Cause policy_source;            /* where the policy came from: STARTUP (config), RELOAD, OPERATOR */
        BackendKind backend;
        OffMode off_mode;               /* patched kernels: what "counting off" writes */
        ExternalChange on_external_change;
        usec_t min_dwell;               /* no two switches closer, except to counting on for a reader */
        usec_t linger;                  /* counting stays on this long after the last counted read */
        usec_t sustain;                 /* a rate must hold this long before it counts */
        uint64_t coarse_above;          /* pages/s */
        uint64_t strict_below;          /* pages/s */
        bool readers_unseen;            /* no reader detection: auto must not turn counting off */
        int64_t realtime_offset;        /* CLOCK_REALTIME - CLOCK_MONOTONIC, µs: for times in reasons */
} PolicyConfig;

typedef struct PolicyState {
        bool counting;                  /* the engine's current decision: counting on? */
        bool have_decision;             /* false until the first evaluation */
        usec_t last_switch;             /* when counting last flipped (or the start) */
        Cause switch_cause;             /* what made it flip then */
        ReaderRef switch_reader;        /* ...and who, for CAUSE_READ */

        usec_t last_counted_read;       /* the latest counted read: counting on for it if off */
        Cause read_cause;               /* STARTUP, READ, LOST_READS or HOLD */
        ReaderRef last_reader;          /* for CAUSE_READ */
        bool last_read_held;            /* ...by a hold's own command: it does not linger */

        /* Linger runs from the last counted read of a reader whose period
         * is not known (the reader table says which), or from what no
         * reader stands for: the start (which counts as a read: nothing
         * goes off before linger), lost reads. */
        usec_t linger_from;
        Cause linger_cause;
        ReaderRef linger_reader;
        usec_t linger_floor;            /* the latest of the start and lost reads */
        Cause floor_cause;
        ReaderRef floor_reader;

        RateHistory rates;              /* samples: above/below since, for any threshold */
        bool have_rate;
        double rate;                    /* pages/s, smoothed: the latest sample */
        double interval_rate;           /* pages/s over the latest sample's interval */

        /* A patched kernel's auto, which the engine asked for as "off": */
        bool triggered;                 /* a read turned counting on by itself since the last arm */
        Cause trigger_cause;            /* READ, IGNORED_READ, UNSEEN_READ, ARMED_SAMPLE */
        ReaderRef trigger_reader;
        usec_t last_arm;                /* when the daemon last armed it (coarse, then auto); 0: never */

        /* Holds (numastatctl hold): counting on for as long as one exists,
         * like a reader that never stops reading. */
        unsigned holds;
        ReaderRef holder;               /* the oldest hold's owner */
        char hold_reason[HOLD_REASON_MAX];      /* ...and what it said it is for (raw) */

        /* A periodic counted reader's next read, expected (the reader table
         * learns the periods): counting stays on until this time. */
        usec_t expected_until;          /* 0: nobody expected */
        ReaderRef expected_reader;
        usec_t expected_period;

        bool paused;                    /* following an external change */
        KernelMode paused_mode;         /* what the admin set */
        KernelMode paused_expected;     /* what we had set */
        bool override_pending;          /* with override: the next evaluation says it overrides */
        KernelMode override_found;
} PolicyState;

/* Which rule decided: the reason's template. */
typedef enum PolicyRule {
        RULE_NO_BACKEND,        /* nothing to switch: observing only */
        RULE_PAUSED,            /* following an external change */
        RULE_STRICT,            /* policy strict */
        RULE_COARSE,            /* policy coarse */
        RULE_READERS_UNSEEN,    /* auto without reader detection: on */
        RULE_ON_FOR_READ,       /* auto, off -> on: a counted read (or the start) */
        RULE_ON_FOR_LOW_RATE,   /* auto, off -> on: below strict_below for sustain */
        RULE_OFF_FOR_PRESSURE,  /* auto, on -> off: above coarse_above, no read within linger */
        RULE_OFF_WAITING,       /* auto, stays off until a counted read */
        RULE_ON_NO_RATE,        /* auto, stays on: no rate measured yet */
        RULE_ON_NOT_ABOVE,      /* auto, stays on: the rate is not above coarse_above */
        RULE_ON_HELD,           /* auto, stays on under pressure: linger, sustain or dwell holds it */
        RULE_REARM,             /* auto, off, but a read triggered the kernel's auto: arm it again */
        RULE_REARM_HELD,        /* ...not yet: min_dwell since the last arm */
        RULE_ON_FOR_HOLD,       /* auto, off -> on: a hold */
        _POLICY_RULE_MAX,
} PolicyRule;

const char *policy_rule_to_string(PolicyRule r);

typedef enum PressureLevel {
        PRESSURE_UNKNOWN,       /* no rate yet */
        PRESSURE_BELOW,         /* < strict_below */
        PRESSURE_BETWEEN,
        PRESSURE_ABOVE,         /* > coarse_above */
} PressureLevel;

typedef struct Decision {
        /* KERNEL_MODE_UNKNOWN: leave the kernel alone (no backend, or paused
         * and following whatever the admin set). */
        KernelMode mode;
        Cause cause;            /* what made counting what it is (this evaluation's switch, or the last) */
        ReaderRef reader;       /* cause == CAUSE_READ: who read what */
        PolicyRule rule;
        Cause last_read_cause;  /* the read linger runs from: STARTUP (none since), READ, LOST_READS, HOLD */
        ReaderRef last_reader;  /* ...its reader, for CAUSE_READ */
        bool periodic_since;    /* counted reads since, all by readers whose period is learned, */
        bool held_since;        /* ...or by a hold's own command (the last one was) */
        ReaderRef periodic_reader;      /* ...the last of them */

        /* The facts the rule looked at, for the reason. */
        PressureLevel pressure;
        double rate;            /* pages/s, when pressure != UNKNOWN: the interval's when BELOW, else smoothed */
        bool sustained;         /* the pressure level has held for sustain */
        bool within_linger;     /* a counted read (or the start) within linger */
        bool held;              /* a hold exists */
        ReaderRef holder;       /* ...its owner, and why */
        char hold_reason[HOLD_REASON_MAX];
        bool reader_expected;   /* a periodic reader is expected to read again */
        ReaderRef expected_reader;
        usec_t expected_period, expected_until;
        bool dwell_over;        /* min_dwell passed since the last switch */
        bool overriding;        /* writing over an external change */
        bool rearm;             /* RULE_REARM: arm the triggered auto again now */
        usec_t rearm_at;        /* RULE_REARM_HELD: not before (CLOCK_MONOTONIC) */
        Cause trigger_cause;    /* RULE_REARM*: what triggered it */
        ReaderRef trigger_reader;
        KernelMode found, expected;     /* RULE_PAUSED, or overriding: what someone else set */

        char reason[REASON_MAX];        /* rendered from the above: decision_format_reason() */
} Decision;

/* Starts the engine at time now, counting on (the safe side). */
void policy_init(PolicyState *s, usec_t now);

/* A read that needs NUMA counters (not ignored), by reader. */
void policy_on_counted_read(PolicyState *s, usec_t now, const ReaderRef *reader);
/* More of a counted reader became known (its identity is read in phases,
 * the slow parts after the switch): the engine's record of it, and so the
 * reasons rendered from now on, name it in full. */
void policy_on_reader_named(PolicyState *s, const ReaderRef *reader);
/* The last counted read, reader's, was by a hold's own command (known once
 * it is named): it needs counting only while the hold lasts, which the
 * reader table already says; the reasons say so too. */
void policy_on_held_read(PolicyState *s, const ReaderRef *reader);
/* Reads that nobody could attribute (the fanotify queue overflowed): they
 * count, with no reader to name. */
void policy_on_lost_reads(PolicyState *s, usec_t now);
/* The reader table's word on linger: the last counted read of a reader
 * whose period is not learned was at from (0: none), by who. A reader
 * with a learned period keeps counting on until its next expected read
 * (policy_set_expected()), not for linger: once it stops, counting may go
 * off a margin past its missed read. Until told, every counted read
 * lingers. */
void policy_set_linger_from(PolicyState *s, usec_t from, const ReaderRef *who);

/* The holds now: n, the oldest one's owner and its reason (raw, may be
 * NULL). A release does not linger: reads by the held command are the
 * hold's (see manager), and every other reader's lingers on its own. */
void policy_set_holds(PolicyState *s, unsigned n, const ReaderRef *holder, const char *reason);

/* What the engine decided last: whether it has decided at all (false
 * until the first evaluation), whether counting is on, and whether it is
 * paused after an external change. */
bool policy_have_decision(const PolicyState *s);
bool policy_counting(const PolicyState *s);
bool policy_paused(const PolicyState *s);
/* Until when a periodic counted reader is expected to read again (its
 * learned period and a margin, capped; see readertab_expected()), who, and
 * its period. until 0: nobody. */
void policy_set_expected(PolicyState *s, usec_t until, const ReaderRef *reader, usec_t period);

/* The daemon armed a patched kernel's auto (coarse, then auto). */
void policy_on_armed(PolicyState *s, usec_t now);
/* A read triggered the armed auto: counting is on in the kernel. cause:
 * READ, IGNORED_READ (with reader), UNSEEN_READ, ARMED_SAMPLE. */
void policy_on_triggered(PolicyState *s, Cause cause, const ReaderRef *reader);

/* An allocation-rate sample (pages/s: smoothed, and over the interval
 * that ended now), stamped with the time it was measured. Rises are judged
 * on the first, falls on the second (rate-history.h). */
void policy_on_rate(PolicyState *s, usec_t now, double rate, double interval_rate);

/* Someone else wrote the kernel mode (found != what we last wrote). With
 * on_external_change=follow the engine pauses and leaves the kernel as
 * found; with override the next evaluation writes its own mode again. */
void policy_on_external_change(PolicyState *s, const PolicyConfig *c, usec_t now, KernelMode found,
                               KernelMode expected);

/* The operator spoke (SetPolicy, Reload): leave a pause, keep the rest. */
void policy_resume(PolicyState *s);

/* From when the pressure that auto turns counting off for has held: the
 * rate above coarse_above for sustain, policy auto, not paused; when, but
 * for readers and holds, counting would be off. USEC_INFINITY: not under
 * pressure (as of the last rate sample). */
usec_t policy_pressured_from(const PolicyState *s, const PolicyConfig *c);

/* Decides at time now. Updates s (counting, last_switch) when it flips. */
void policy_evaluate(PolicyState *s, const PolicyConfig *c, usec_t now, Decision *ret);

/* Replaces every reader d names (the switch's, the last read's, the
 * trigger's, the holder, the expected one) by view(reader): a caller who
 * may not see them all gets a reason rendered from what view leaves. */
void decision_map_readers(Decision *d, ReaderRef (*view)(const ReaderRef *r, const void *userdata),
                          const void *userdata);

/* Renders d's reason from its data. Pure; policy_evaluate() calls it. */
void decision_format_reason(const Decision *d, const PolicyConfig *c, char *buf, size_t size);

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
