/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "policy.h"

/* Reasons are compared by the manager: a changed reason is a Monitor update.
 * So steady-state reasons name thresholds and readers, never elapsed times or
 * the rate of the moment; only the reason of a switch carries the numbers. */

/* Appends to a reason; one cut at REASON_MAX is still worth showing. */
_printf_(3, 4)
static void buf_append(char *buf, size_t size, const char *fmt, ...) {
        size_t l = strnlen(buf, size);
        va_list ap;

        if (l + 1 >= size)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(buf + l, size - l, fmt, ap);
        va_end(ap);
}

#define reason_append(d, ...) buf_append((d)->reason, sizeof (d)->reason, __VA_ARGS__)

static usec_t usec_add(usec_t a, usec_t b) {
        /* Saturate: a linger of "infinity" must not wrap to the past. */
        return a > USEC_INFINITY - b ? USEC_INFINITY : a + b;
}

static usec_t usec_max(usec_t a, usec_t b) {
        return a > b ? a : b;
}

/* While not paused, paused_mode != UNKNOWN is an override to announce; an
 * unreadable mode found needs a value of its own for that. */
#define OVERRIDE_FOUND_UNKNOWN _KERNEL_MODE_MAX

static const char *mode_str(KernelMode m) {
        return kernel_mode_to_string(m) ?: "invalid";
}

/* Whether the kernel counts in mode m; patched auto counts once read, and a
 * reader is what the admin wants served. */
static bool mode_counts(KernelMode m, bool fallback) {
        switch (m) {
        case KERNEL_MODE_STRICT:
        case KERNEL_MODE_AUTO:
                return true;
        case KERNEL_MODE_COARSE:
                return false;
        default:
                return fallback;
        }
}

static const char *dur(char buf[static DURATION_MAX], usec_t u) {
        return format_duration(buf, DURATION_MAX, u) ?: "?";
}

void policy_init(PolicyState *s, usec_t now) {
        *s = (PolicyState) {
                .counting = true,
                .last_switch = now,
                /* The start counts as a read: a reader that polls less often
                 * than linger is not caught with counting off right away. */
                .last_counted_read = now,
                .paused_mode = KERNEL_MODE_UNKNOWN,
        };
}

void policy_on_counted_read(PolicyState *s, usec_t now, const char *desc) {
        s->last_counted_read = now;
        snprintf(s->last_reader, sizeof s->last_reader, "%s", desc ?: "");
}

void policy_on_rate(PolicyState *s, const PolicyConfig *c, usec_t now, double rate) {
        /* 0 means "not now" in above_since/below_since: never store it. */
        usec_t stamp = now > 0 ? now : 1;

        s->have_rate = true;
        s->rate = rate;

        /* Any sample on the other side restarts the clock: sustain must hold
         * continuously, which is what keeps a noisy rate from flapping. */
        if (rate > (double) c->coarse_above) {
                if (s->above_since == 0)
                        s->above_since = stamp;
        } else
                s->above_since = 0;

        if (rate < (double) c->strict_below) {
                if (s->below_since == 0)
                        s->below_since = stamp;
        } else
                s->below_since = 0;
}

void policy_on_external_change(PolicyState *s, const PolicyConfig *c, usec_t now, KernelMode found,
                               KernelMode expected) {
        if (c->on_external_change == EXTERNAL_CHANGE_FOLLOW) {
                s->paused = true;
                s->paused_mode = found;
                snprintf(s->paused_reason, sizeof s->paused_reason,
                         "vm mode changed to %s by someone else (expected %s): following the admin; "
                         "numastatctl set-policy or reload resumes",
                         mode_str(found), mode_str(expected));
                return;
        }

        /* Override: not paused, but paused_mode remembers what was found so
         * that the next evaluation says why it writes over it. That
         * evaluation consumes it. */
        s->paused = false;
        s->paused_mode = found == KERNEL_MODE_UNKNOWN ? OVERRIDE_FOUND_UNKNOWN : found;
        s->paused_reason[0] = '\0';
}

void policy_resume(PolicyState *s) {
        s->paused = false;
        s->paused_mode = KERNEL_MODE_UNKNOWN;
        s->paused_reason[0] = '\0';
}

KernelMode policy_off_mode(const PolicyConfig *c) {
        switch (c->backend) {
        case BACKEND_NUMA_STATS_MODE:
        case BACKEND_VMSTAT_MODE:
                /* Patched "auto" turns counting back on by itself at the next
                 * read, before we could: no reader ever sees a frozen counter. */
                return c->off_mode == OFF_MODE_COARSE ? KERNEL_MODE_COARSE : KERNEL_MODE_AUTO;
        case BACKEND_NUMA_STAT:
                return KERNEL_MODE_COARSE;
        default:
                return KERNEL_MODE_UNKNOWN;
        }
}

KernelMode policy_on_mode(const PolicyConfig *c) {
        return c->backend == BACKEND_NONE ? KERNEL_MODE_UNKNOWN : KERNEL_MODE_STRICT;
}

static bool read_within_linger(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return now < usec_add(s->last_counted_read, c->linger);
}

/* While counting is off: a counted read arrived since it went off. Going
 * off needs linger without a read, so any read after the switch is new; one
 * stamped with the switch's own time (same event-loop turn, same µs) counts
 * too: the safe side. */
static bool read_pending(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return s->last_counted_read >= s->last_switch || read_within_linger(s, c, now);
}

static bool above_sustained(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return s->above_since != 0 && now >= usec_add(s->above_since, c->sustain);
}

static bool below_sustained(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return s->below_since != 0 && now >= usec_add(s->below_since, c->sustain);
}

static bool dwell_over(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return now >= usec_add(s->last_switch, c->min_dwell);
}

static const char *last_reader_or(const PolicyState *s, const char *fallback) {
        return isempty(s->last_reader) ? fallback : s->last_reader;
}

/* Returns whether counting is wanted, and says why in d->reason. */
static bool evaluate_auto(const PolicyState *s, const PolicyConfig *c, usec_t now, Decision *d) {
        char a[DURATION_MAX], b[DURATION_MAX];
        const char *sep;

        if (!s->counting) {
                /* Towards counting on for a reader: at once, whatever the
                 * dwell. The reader already saw a stale value; the next one
                 * must not. */
                if (read_pending(s, c, now)) {
                        if (isempty(s->last_reader))
                                reason_append(d, "policy auto: start-up counts as a counted read "
                                              "(linger %s): counting on", dur(a, c->linger));
                        else
                                reason_append(d, "%s: counting on", s->last_reader);
                        return true;
                }

                if (below_sustained(s, c, now) && dwell_over(s, c, now)) {
                        reason_append(d, "allocation rate %.0f pages/s below strict_below=%" PRIu64
                                      " for %s: nothing to gain, counting on",
                                      s->rate, c->strict_below, dur(a, c->sustain));
                        return true;
                }

                reason_append(d, "policy auto: counting off until a counted read (last: %s); ",
                              last_reader_or(s, "none since start-up"));
                if (!s->have_rate)
                        reason_append(d, "no allocation rate measured yet");
                else if (s->below_since != 0) {
                        reason_append(d, "allocation rate below strict_below=%" PRIu64 " pages/s, ",
                                      c->strict_below);
                        if (!below_sustained(s, c, now))
                                reason_append(d, "not yet for sustain=%s", dur(a, c->sustain));
                        else
                                reason_append(d, "last switch less than min_dwell=%s ago",
                                              dur(a, c->min_dwell));
                } else if (s->above_since != 0)
                        reason_append(d, "allocation rate above coarse_above=%" PRIu64 " pages/s",
                                      c->coarse_above);
                else
                        reason_append(d, "allocation rate between strict_below=%" PRIu64
                                      " and coarse_above=%" PRIu64 " pages/s",
                                      c->strict_below, c->coarse_above);
                return false;
        }

        /* Towards counting off: only when all three hold. */
        if (!read_within_linger(s, c, now) && above_sustained(s, c, now) && dwell_over(s, c, now)) {
                reason_append(d, "allocation rate %.0f pages/s above coarse_above=%" PRIu64
                              " for %s and no counted read for %s (last: %s): counting off",
                              s->rate, c->coarse_above, dur(a, c->sustain), dur(b, c->linger),
                              last_reader_or(s, "none since start-up"));
                return false;
        }

        if (!s->have_rate) {
                reason_append(d, "policy auto: counting on, no allocation rate measured yet");
                return true;
        }
        if (s->above_since == 0) {
                reason_append(d, "policy auto: counting on, allocation rate not above coarse_above=%" PRIu64
                              " pages/s", c->coarse_above);
                return true;
        }

        /* Pressure, but something holds counting on: name what. */
        reason_append(d, "policy auto: counting on, allocation rate above coarse_above=%" PRIu64
                      " pages/s; held on by", c->coarse_above);
        sep = " ";
        if (read_within_linger(s, c, now)) {
                reason_append(d, "%sa counted read within linger=%s (last: %s)", sep, dur(a, c->linger),
                              last_reader_or(s, "start-up, which counts as one"));
                sep = ", ";
        }
        if (!above_sustained(s, c, now)) {
                reason_append(d, "%ssustain=%s not yet reached", sep, dur(a, c->sustain));
                sep = ", ";
        }
        if (!dwell_over(s, c, now))
                reason_append(d, "%smin_dwell=%s since the last switch", sep, dur(a, c->min_dwell));
        return true;
}

void policy_evaluate(PolicyState *s, const PolicyConfig *c, usec_t now, Decision *ret) {
        bool want, flipped;

        *ret = (Decision) {};

        if (c->backend == BACKEND_NONE) {
                ret->mode = KERNEL_MODE_UNKNOWN;
                ret->counting = s->counting;
                reason_append(ret, "no kernel interface for NUMA statistics (no CONFIG_NUMA?): observing only");
                return;
        }

        if (s->paused) {
                /* Following the admin: leave the kernel alone, and report what
                 * the found mode means; the engine's own state waits. */
                ret->mode = KERNEL_MODE_UNKNOWN;
                ret->counting = mode_counts(s->paused_mode, s->counting);
                reason_append(ret, "%s", s->paused_reason);
                return;
        }

        if (s->paused_mode != KERNEL_MODE_UNKNOWN) {
                /* An override pending from policy_on_external_change(). */
                reason_append(ret, "overriding an external change to %s: ",
                              s->paused_mode == OVERRIDE_FOUND_UNKNOWN ? "unknown" : mode_str(s->paused_mode));
                s->paused_mode = KERNEL_MODE_UNKNOWN;
        }

        switch (c->policy) {
        case POLICY_STRICT:
                /* No dwell for strict or coarse: the operator asked. */
                want = true;
                reason_append(ret, "policy strict: NUMA counters always kept");
                break;
        case POLICY_COARSE:
                want = false;
                reason_append(ret, "policy coarse: NUMA counters never kept (readers see them frozen at zero)");
                break;
        case POLICY_AUTO:
        default:
                if (c->readers_blind) {
                        /* Nobody would see a reader come: off could starve one. */
                        want = true;
                        reason_append(ret, "policy auto: reader detection unavailable, counting stays on");
                        break;
                }
                want = evaluate_auto(s, c, now, ret);
                break;
        }

        flipped = want != s->counting;
        if (flipped) {
                s->counting = want;
                s->last_switch = now;
        }
        /* The first evaluation sets the kernel from an unknown past: not a switch. */
        ret->switched = flipped && s->have_decision;
        s->have_decision = true;

        ret->counting = want;
        if (c->policy == POLICY_COARSE)
                /* Coarse means coarse, even where off_mode would say auto. */
                ret->mode = KERNEL_MODE_COARSE;
        else
                ret->mode = want ? policy_on_mode(c) : policy_off_mode(c);
}

usec_t policy_next_deadline(const PolicyState *s, const PolicyConfig *c) {
        if (c->backend == BACKEND_NONE || c->policy != POLICY_AUTO || s->paused || c->readers_blind)
                return USEC_INFINITY;

        if (s->counting) {
                if (s->above_since == 0)
                        return USEC_INFINITY;
                return usec_max(usec_add(s->last_counted_read, c->linger),
                                usec_max(usec_add(s->above_since, c->sustain),
                                         usec_add(s->last_switch, c->min_dwell)));
        }

        /* A read already in while off: due now (a past deadline fires at once). */
        if (s->last_counted_read >= s->last_switch)
                return s->last_counted_read;
        if (s->below_since == 0)
                return USEC_INFINITY;
        return usec_max(usec_add(s->below_since, c->sustain), usec_add(s->last_switch, c->min_dwell));
}

KernelMode policy_exit_mode(ExitMode exit_mode, BackendKind backend, KernelMode initial) {
        if (backend == BACKEND_NONE)
                return KERNEL_MODE_UNKNOWN;
        if (exit_mode == EXIT_MODE_PREVIOUS && initial != KERNEL_MODE_UNKNOWN &&
            backend_supports(backend, initial))
                return initial;
        return KERNEL_MODE_STRICT;
}
