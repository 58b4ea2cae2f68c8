/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "policy.h"
#include "string-table.h"

/* Reasons are compared by the manager: a changed reason is a Monitor update.
 * So steady-state reasons name thresholds and readers, never elapsed times or
 * the rate of the moment; only the reason of a switch carries the numbers. */

static const char *const policy_rule_table[_POLICY_RULE_MAX] = {
        [RULE_NO_BACKEND] = "no-backend",
        [RULE_PAUSED] = "paused",
        [RULE_STRICT] = "strict",
        [RULE_COARSE] = "coarse",
        [RULE_READERS_UNSEEN] = "readers-unseen",
        [RULE_ON_FOR_READ] = "on-for-read",
        [RULE_ON_FOR_LOW_RATE] = "on-for-low-rate",
        [RULE_OFF_FOR_PRESSURE] = "off-for-pressure",
        [RULE_OFF_WAITING] = "off-waiting",
        [RULE_ON_NO_RATE] = "on-no-rate",
        [RULE_ON_NOT_ABOVE] = "on-not-above",
        [RULE_ON_HELD] = "on-held",
        [RULE_ON_FOR_HOLD] = "on-for-hold",
        [RULE_REARM] = "rearm",
        [RULE_REARM_HELD] = "rearm-held",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(policy_rule, PolicyRule)

static usec_t usec_add(usec_t a, usec_t b) {
        /* Saturate: a linger of "infinity" must not wrap to the past. */
        return a > USEC_INFINITY - b ? USEC_INFINITY : a + b;
}

static usec_t usec_max(usec_t a, usec_t b) {
        return a > b ? a : b;
}

static const char *mode_str(KernelMode m) {
        return kernel_mode_to_string(m) ?: "invalid";
}

void policy_init(PolicyState *s, usec_t now) {
        *s = (PolicyState) {
                .counting = true,
                .last_switch = now,
                .switch_cause = CAUSE_STARTUP,
                /* The start counts as a read: a reader that polls less often
                 * than linger is not caught with counting off right away. */
                .last_counted_read = now,
                .read_cause = CAUSE_STARTUP,
                .linger_from = now,
                .linger_cause = CAUSE_STARTUP,
                .linger_floor = now,
                .floor_cause = CAUSE_STARTUP,
                .paused_mode = KERNEL_MODE_UNKNOWN,
                .paused_expected = KERNEL_MODE_UNKNOWN,
                .override_found = KERNEL_MODE_UNKNOWN,
        };
        rate_history_reset(&s->rates);
}

void policy_on_counted_read(PolicyState *s, usec_t now, const ReaderRef *reader) {
        s->last_counted_read = now;
        s->read_cause = CAUSE_READ;
        s->last_reader = *reader;
        s->last_read_held = false;
        s->linger_from = now;
        s->linger_cause = CAUSE_READ;
        s->linger_reader = *reader;
}

/* A read no reader stands for: linger runs from it, whatever the table says. */
static void linger_floor_at(PolicyState *s, usec_t now, Cause cause, const ReaderRef *who) {
        s->last_counted_read = s->linger_from = s->linger_floor = now;
        s->read_cause = s->linger_cause = s->floor_cause = cause;
        s->last_reader = s->linger_reader = s->floor_reader = who ? *who : (ReaderRef) {};
}

void policy_set_linger_from(PolicyState *s, usec_t from, const ReaderRef *who) {
        if (from > s->linger_floor) {
                s->linger_from = from;
                s->linger_cause = CAUSE_READ;
                s->linger_reader = who ? *who : (ReaderRef) {};
        } else {
                s->linger_from = s->linger_floor;
                s->linger_cause = s->floor_cause;
                s->linger_reader = s->floor_reader;
        }
}

static bool same_read(const ReaderRef *a, const ReaderRef *b) {
        return a->pid == b->pid && streq_ptr(a->path, b->path);
}

void policy_on_held_read(PolicyState *s, const ReaderRef *reader) {
        if (s->read_cause == CAUSE_READ && same_read(&s->last_reader, reader))
                s->last_read_held = true;
}

void policy_on_reader_named(PolicyState *s, const ReaderRef *reader) {
        if (s->read_cause == CAUSE_READ && same_read(&s->last_reader, reader))
                s->last_reader = *reader;
        if (s->linger_cause == CAUSE_READ && same_read(&s->linger_reader, reader))
                s->linger_reader = *reader;
        if (s->switch_cause == CAUSE_READ && same_read(&s->switch_reader, reader))
                s->switch_reader = *reader;
}

void policy_on_lost_reads(PolicyState *s, usec_t now) {
        linger_floor_at(s, now, CAUSE_LOST_READS, NULL);
}

bool policy_have_decision(const PolicyState *s) {
        return s->have_decision;
}

bool policy_counting(const PolicyState *s) {
        return s->counting;
}

bool policy_paused(const PolicyState *s) {
        return s->paused;
}

void policy_set_holds(PolicyState *s, unsigned n, const ReaderRef *holder, const char *reason) {
        s->holds = n;
        s->holder = n > 0 && holder ? *holder : (ReaderRef) {};
        snprintf(s->hold_reason, sizeof s->hold_reason, "%s", n > 0 && reason ? reason : "");
}

void policy_set_expected(PolicyState *s, usec_t until, const ReaderRef *reader, usec_t period) {
        s->expected_until = until;
        s->expected_reader = until && reader ? *reader : (ReaderRef) {};
        s->expected_period = until ? period : 0;
}

void policy_on_armed(PolicyState *s, usec_t now) {
        s->triggered = false;
        s->trigger_reader = (ReaderRef) {};
        s->last_arm = now > 0 ? now : 1;
}

void policy_on_triggered(PolicyState *s, Cause cause, const ReaderRef *reader) {
        s->triggered = true;
        s->trigger_cause = cause;
        s->trigger_reader = reader && cause_has_reader(cause) ? *reader : (ReaderRef) {};
}

void policy_on_rate(PolicyState *s, usec_t now, double rate, double interval_rate) {
        /* 0 means "not now" in the since-times: never store it. */
        rate_history_add(&s->rates, now > 0 ? now : 1, rate, interval_rate);
        s->have_rate = true;
        s->rate = rate;
        s->interval_rate = interval_rate;
}

void policy_on_external_change(PolicyState *s, const PolicyConfig *c, usec_t now, KernelMode found,
                               KernelMode expected) {
        if (c->on_external_change == EXTERNAL_CHANGE_FOLLOW) {
                s->paused = true;
                s->paused_mode = found;
                s->paused_expected = expected;
                return;
        }
        /* Override: not paused; the next evaluation says why it writes over
         * what was found, and consumes the note. */
        s->paused = false;
        s->override_pending = true;
        s->override_found = found;
}

void policy_resume(PolicyState *s) {
        s->paused = false;
        s->paused_mode = s->paused_expected = KERNEL_MODE_UNKNOWN;
        s->override_pending = false;
        s->override_found = KERNEL_MODE_UNKNOWN;
}

KernelMode policy_off_mode(const PolicyConfig *c) {
        switch (c->backend) {
        case BACKEND_NUMA_STATS_MODE:
        case BACKEND_VMSTAT_MODE:
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
        return now < usec_add(s->linger_from, c->linger);
}

/* While counting is off: a counted read arrived since it went off. One
 * stamped with the switch's own time (same event-loop turn, same µs)
 * counts too: the safe side. */
static bool read_pending(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return s->last_counted_read >= s->last_switch || read_within_linger(s, c, now);
}

/* The pressure now, under c's thresholds, and since when it has held.
 * Below first: the last interval quiet means the load is gone, even while
 * the smoothed rate still decays through coarse_above. */
static PressureLevel pressure_since(const PolicyState *s, const PolicyConfig *c, usec_t *ret_since) {
        usec_t since;

        *ret_since = 0;
        if (!s->have_rate)
                return PRESSURE_UNKNOWN;
        since = rate_history_below_since(&s->rates, (double) c->strict_below);
        if (since != 0) {
                *ret_since = since;
                return PRESSURE_BELOW;
        }
        since = rate_history_above_since(&s->rates, (double) c->coarse_above);
        if (since != 0) {
                *ret_since = since;
                return PRESSURE_ABOVE;
        }
        return PRESSURE_BETWEEN;
}

usec_t policy_pressured_from(const PolicyState *s, const PolicyConfig *c) {
        usec_t since;

        if (c->policy != POLICY_AUTO || c->backend == BACKEND_NONE || c->readers_unseen || s->paused ||
            pressure_since(s, c, &since) != PRESSURE_ABOVE)
                return USEC_INFINITY;
        return usec_add(since, c->sustain);
}

static bool dwell_over(const PolicyState *s, const PolicyConfig *c, usec_t now) {
        return now >= usec_add(s->last_switch, c->min_dwell);
}

/* The facts every auto rule looks at, judged under c's thresholds now: a
 * reload that changed them is judged with the samples' own times. */
static void gather_facts(const PolicyState *s, const PolicyConfig *c, usec_t now, Decision *d) {
        usec_t since;

        d->pressure = pressure_since(s, c, &since);
        /* A fall is judged on the interval's rate: show that one. */
        d->rate = d->pressure == PRESSURE_BELOW ? s->interval_rate : s->rate;
        d->sustained = since != 0 && now >= usec_add(since, c->sustain);
        d->within_linger = read_within_linger(s, c, now);
        d->held = s->holds > 0;
        if (d->held) {
                d->holder = s->holder;
                snprintf(d->hold_reason, sizeof d->hold_reason, "%s", s->hold_reason);
        }
        d->reader_expected = now < s->expected_until;
        if (d->reader_expected) {
                d->expected_reader = s->expected_reader;
                d->expected_period = s->expected_period;
                d->expected_until = s->expected_until;
        }
        d->dwell_over = dwell_over(s, c, now);
        d->last_read_cause = s->linger_cause;
        d->last_reader = s->linger_reader;
        d->periodic_since = s->last_counted_read > s->linger_from && s->read_cause == CAUSE_READ;
        if (d->periodic_since) {
                d->periodic_reader = s->last_reader;
                d->held_since = s->last_read_held;
        }
}

/* Returns whether counting is wanted; sets d's rule and, on a flip, cause. */
static bool evaluate_auto(const PolicyState *s, const PolicyConfig *c, usec_t now, Decision *d) {
        if (!s->counting) {
                /* Towards counting on for a reader: at once, whatever the
                 * dwell. The reader already saw a stale value; the next one
                 * must not. */
                if (d->held) {
                        d->rule = RULE_ON_FOR_HOLD;
                        d->cause = CAUSE_HOLD;
                        d->reader = s->holder;
                        return true;
                }
                if (read_pending(s, c, now)) {
                        d->rule = RULE_ON_FOR_READ;
                        d->cause = s->read_cause;
                        d->reader = s->last_reader;
                        return true;
                }
                if (d->pressure == PRESSURE_BELOW && d->sustained && d->dwell_over) {
                        d->rule = RULE_ON_FOR_LOW_RATE;
                        d->cause = CAUSE_PRESSURE_BELOW;
                        return true;
                }
                d->rule = RULE_OFF_WAITING;
                if (s->triggered && policy_off_mode(c) == KERNEL_MODE_AUTO) {
                        /* Off is wanted, but a read (an ignored one, one we
                         * cannot see, our own sample) turned the kernel's
                         * auto on. Each arm zeroes the counters: not more
                         * often than min_dwell, except after our own sample. */
                        usec_t at = s->trigger_cause == CAUSE_ARMED_SAMPLE ? 0 : usec_add(s->last_arm, c->min_dwell);

                        d->trigger_cause = s->trigger_cause;
                        d->trigger_reader = s->trigger_reader;
                        if (now >= at) {
                                d->rule = RULE_REARM;
                                d->rearm = true;
                                d->cause = CAUSE_REARM;
                        } else {
                                d->rule = RULE_REARM_HELD;
                                d->rearm_at = at;
                        }
                }
                return false;
        }

        /* Towards counting off: only when all three hold, and no hold or
         * expected reader keeps it on. */
        if (!d->within_linger && !d->held && !d->reader_expected && d->pressure == PRESSURE_ABOVE && d->sustained &&
            d->dwell_over) {
                d->rule = RULE_OFF_FOR_PRESSURE;
                d->cause = CAUSE_PRESSURE_ABOVE;
                return false;
        }
        d->rule = d->pressure == PRESSURE_UNKNOWN  ? RULE_ON_NO_RATE
                  : d->pressure != PRESSURE_ABOVE ? RULE_ON_NOT_ABOVE
                                                  : RULE_ON_HELD;
        return true;
}

void policy_evaluate(PolicyState *s, const PolicyConfig *c, usec_t now, Decision *ret) {
        bool want;

        *ret = (Decision) {
                .cause = s->switch_cause,
                .reader = s->switch_reader,
                .found = KERNEL_MODE_UNKNOWN,
                .expected = KERNEL_MODE_UNKNOWN,
        };
        gather_facts(s, c, now, ret);

        if (c->backend == BACKEND_NONE) {
                ret->mode = KERNEL_MODE_UNKNOWN;
                ret->rule = RULE_NO_BACKEND;
                goto render;
        }

        if (s->paused) {
                /* Following the admin: leave the kernel alone; the engine's
                 * own state waits. */
                ret->mode = KERNEL_MODE_UNKNOWN;
                ret->rule = RULE_PAUSED;
                ret->cause = CAUSE_EXTERNAL;
                ret->found = s->paused_mode;
                ret->expected = s->paused_expected;
                goto render;
        }

        switch (c->policy) {
        case POLICY_STRICT:
                /* No dwell for strict or coarse: the operator asked. */
                want = true;
                ret->rule = RULE_STRICT;
                ret->cause = c->policy_source;
                break;
        case POLICY_COARSE:
                want = false;
                ret->rule = RULE_COARSE;
                ret->cause = c->policy_source;
                break;
        case POLICY_AUTO:
        default:
                if (c->readers_unseen) {
                        /* Nobody would see a reader come: off could starve one. */
                        want = true;
                        ret->rule = RULE_READERS_UNSEEN;
                        if (!s->counting)
                                ret->cause = CAUSE_READERS_UNSEEN;
                        break;
                }
                want = evaluate_auto(s, c, now, ret);
                break;
        }

        if (s->override_pending) {
                /* An override pending from policy_on_external_change(). */
                ret->overriding = true;
                ret->cause = CAUSE_EXTERNAL;
                ret->found = s->override_found;
                s->override_pending = false;
                s->override_found = KERNEL_MODE_UNKNOWN;
        }

        if (want != s->counting) {
                s->counting = want;
                s->last_switch = now;
                s->switch_cause = ret->cause;
                s->switch_reader = cause_has_reader(ret->cause) ? ret->reader : (ReaderRef) {};
        }
        if (!cause_has_reader(ret->cause))
                ret->reader = (ReaderRef) {};

        if (c->policy == POLICY_COARSE)
                /* Coarse means coarse, even where off_mode would say auto. */
                ret->mode = KERNEL_MODE_COARSE;
        else
                ret->mode = want ? policy_on_mode(c) : policy_off_mode(c);
render:
        s->have_decision = true;
        decision_format_reason(ret, c, ret->reason, sizeof ret->reason);
}

usec_t policy_next_deadline(const PolicyState *s, const PolicyConfig *c) {
        usec_t since, when = USEC_INFINITY;
        PressureLevel pressure;

        if (c->backend == BACKEND_NONE || c->policy != POLICY_AUTO || s->paused || c->readers_unseen)
                return USEC_INFINITY;

        pressure = pressure_since(s, c, &since);
        if (s->counting) {
                /* Not above: a sample brings the next evaluation, as a
                 * release does for a hold. */
                if (pressure != PRESSURE_ABOVE || s->holds > 0)
                        return USEC_INFINITY;
                return usec_max(usec_max(usec_add(s->linger_from, c->linger), s->expected_until),
                                usec_max(usec_add(since, c->sustain), usec_add(s->last_switch, c->min_dwell)));
        }

        /* A hold, or a read already in while off: due now (a past deadline
         * fires at once). */
        if (s->holds > 0)
                return s->last_switch;
        if (s->last_counted_read >= s->last_switch)
                return s->last_counted_read;
        if (pressure == PRESSURE_BELOW)
                when = usec_max(usec_add(since, c->sustain), usec_add(s->last_switch, c->min_dwell));
        if (s->triggered && policy_off_mode(c) == KERNEL_MODE_AUTO)
                when = MIN(when, s->trigger_cause == CAUSE_ARMED_SAMPLE ? s->last_arm
                                                                        : usec_add(s->last_arm, c->min_dwell));
        return when;
}

KernelMode policy_exit_mode(ExitMode exit_mode, BackendKind backend, KernelMode initial) {
        if (backend == BACKEND_NONE)
                return KERNEL_MODE_UNKNOWN;
        if (exit_mode == EXIT_MODE_PREVIOUS && initial != KERNEL_MODE_UNKNOWN &&
            backend_supports(backend, initial))
                return initial;
        return KERNEL_MODE_STRICT;
}

void decision_map_readers(Decision *d, ReaderRef (*view)(const ReaderRef *r, const void *userdata),
                          const void *userdata) {
        d->reader = view(&d->reader, userdata);
        d->last_reader = view(&d->last_reader, userdata);
        d->periodic_reader = view(&d->periodic_reader, userdata);
        d->trigger_reader = view(&d->trigger_reader, userdata);
        d->holder = view(&d->holder, userdata);
        d->expected_reader = view(&d->expected_reader, userdata);
}

/* ---- the reason, rendered from the decision's data ---- */

/* Appends to a reason; one cut at the buffer's end is still worth showing. */
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

static const char *dur(char buf[static DURATION_MAX], usec_t u) {
        return format_duration(buf, DURATION_MAX, u) ?: "?";
}

/* A learned period is measured: its microseconds are jitter. */
static const char *period_str(char buf[static DURATION_MAX], usec_t u) {
        return format_duration_approx(buf, DURATION_MAX, u, PERIOD_ACCURACY) ?: "?";
}

/* The last counted read, for "(last: ...)". */
static const char *last_read_str(const Decision *d, const char *none, char *buf, size_t size) {
        switch (d->last_read_cause) {
        case CAUSE_READ:
                return reader_ref_format(&d->last_reader, buf, size);
        case CAUSE_LOST_READS:
                return "reads lost in a fanotify queue overflow";
        default:
                return none;
        }
}

/* What triggered an armed auto, for the reason. */
static const char *trigger_str(const Decision *d, char *buf, size_t size) {
        char who[READER_REF_TEXT_MAX];

        switch (d->trigger_cause) {
        case CAUSE_READ:
        case CAUSE_IGNORED_READ:
                snprintf(buf, size, "%s%s", reader_ref_format(&d->trigger_reader, who, sizeof who),
                         d->trigger_cause == CAUSE_IGNORED_READ ? " (an ignored reader)" : "");
                return buf;
        case CAUSE_ARMED_SAMPLE:
                return "the daemon's own rate sample";
        default:
                return "a read no watch saw (the kernel's log says so)";
        }
}

/* "numastatctl (pid 42, uid 1000) holds counting on (for \"bench\")". */
static const char *hold_str(const Decision *d, char *buf, size_t size) {
        char who[READER_REF_TEXT_MAX], why[HOLD_REASON_MAX * 4];

        reader_ref_format_who(&d->holder, who, sizeof who);
        cescape_buf(d->hold_reason, why, sizeof why);
        buf[0] = '\0';
        buf_append(buf, size, "a hold by %s", who);
        /* What a hold is for is its owner's business, like its pid. */
        if (!d->holder.redacted && *why)
                buf_append(buf, size, " for \"%s\"", why);
        return buf;
}

/* A CLOCK_MONOTONIC time as the wall clock's HH:MM:SS. */
static const char *clock_str(const PolicyConfig *c, usec_t t, char *buf, size_t size) {
        time_t secs = (time_t) (((int64_t) t + c->realtime_offset) / (int64_t) USEC_PER_SEC);
        struct tm tm;

        if (!localtime_r(&secs, &tm) || strftime(buf, size, "%H:%M:%S", &tm) == 0)
                snprintf(buf, size, "?");
        return buf;
}

/* Why counting waits off: what the pressure is, and what it still lacks. */
static void format_waiting(const Decision *d, const PolicyConfig *c, char *buf, size_t size) {
        char a[DURATION_MAX];

        switch (d->pressure) {
        case PRESSURE_UNKNOWN:
                buf_append(buf, size, "no allocation rate measured yet");
                break;
        case PRESSURE_BELOW:
                buf_append(buf, size, "allocation rate below strict_below=%" PRIu64 " pages/s, ", c->strict_below);
                if (!d->sustained)
                        buf_append(buf, size, "not yet for sustain=%s", dur(a, c->sustain));
                else
                        buf_append(buf, size, "last switch less than min_dwell=%s ago", dur(a, c->min_dwell));
                break;
        case PRESSURE_ABOVE:
                buf_append(buf, size, "allocation rate above coarse_above=%" PRIu64 " pages/s", c->coarse_above);
                break;
        case PRESSURE_BETWEEN:
                buf_append(buf, size, "allocation rate between strict_below=%" PRIu64 " and coarse_above=%" PRIu64
                           " pages/s", c->strict_below, c->coarse_above);
                break;
        }
}

/* Everything that holds counting on under pressure, in one list. */
static void format_held_by(const Decision *d, const PolicyConfig *c, char *buf, size_t size) {
        char a[DURATION_MAX], who[REASON_MAX];
        const char *sep = " ";

        if (d->held) {
                buf_append(buf, size, "%s%s", sep, hold_str(d, who, sizeof who));
                sep = ", ";
        }
        if (d->reader_expected) {
                char when[16], who2[READER_REF_TEXT_MAX];
                buf_append(buf, size, "%s%s, which reads every %s, expected again by %s", sep,
                           reader_ref_format(&d->expected_reader, who2, sizeof who2),
                           period_str(a, d->expected_period), clock_str(c, d->expected_until, when, sizeof when));
                sep = ", ";
        }
        if (d->within_linger) {
                buf_append(buf, size, "%sa counted read within linger=%s (last: %s)", sep, dur(a, c->linger),
                           last_read_str(d, "start-up, which counts as one", who, sizeof who));
                sep = ", ";
        }
        if (!d->sustained) {
                buf_append(buf, size, "%ssustain=%s not yet reached", sep, dur(a, c->sustain));
                sep = ", ";
        }
        if (!d->dwell_over)
                buf_append(buf, size, "%smin_dwell=%s since the last switch", sep, dur(a, c->min_dwell));
}

/* One sentence per rule: the switch is the table. */
void decision_format_reason(const Decision *d, const PolicyConfig *c, char *buf, size_t size) {
        char a[DURATION_MAX], b[DURATION_MAX], who[REASON_MAX], who2[READER_REF_TEXT_MAX];

        if (size == 0)
                return;
        buf[0] = '\0';
#define add(...) buf_append(buf, size, __VA_ARGS__)

        if (d->overriding)
                add("overriding an external change to %s: ",
                    d->found == KERNEL_MODE_UNKNOWN ? "unknown" : mode_str(d->found));

        switch (d->rule) {
        case RULE_NO_BACKEND:
                add("no kernel interface for NUMA statistics (no CONFIG_NUMA?): observing only");
                break;
        case RULE_PAUSED:
                /* Worded as the history's external transition is. */
                add("the kernel's mode was changed from %s to %s by someone else: following the admin; "
                    "numastatctl set-policy or reload resumes",
                    mode_str(d->expected), mode_str(d->found));
                break;
        case RULE_STRICT:
                add("policy strict: NUMA counters always kept");
                break;
        case RULE_COARSE:
                add("policy coarse: NUMA counters never kept (readers see them frozen at zero)");
                break;
        case RULE_READERS_UNSEEN:
                add("policy auto: reader detection unavailable, counting stays on");
                break;
        case RULE_ON_FOR_READ:
                if (d->cause == CAUSE_READ)
                        add("%s: counting on", reader_ref_format(&d->reader, who, sizeof who));
                else if (d->cause == CAUSE_LOST_READS)
                        add("the fanotify queue overflowed (reads were lost): counting on to be safe");
                else
                        add("policy auto: start-up counts as a counted read (linger %s): counting on",
                            dur(a, c->linger));
                break;
        case RULE_ON_FOR_HOLD:
                add("%s: counting on", hold_str(d, who, sizeof who));
                break;
        case RULE_ON_FOR_LOW_RATE:
                add("allocation rate %.0f pages/s below strict_below=%" PRIu64 " for %s: nothing to gain, counting on",
                    d->rate, c->strict_below, dur(a, c->sustain));
                break;
        case RULE_OFF_FOR_PRESSURE:
                add("allocation rate %.0f pages/s above coarse_above=%" PRIu64
                    " for %s and no counted read for %s (last: %s)%s%s%s: counting off",
                    d->rate, c->coarse_above, dur(a, c->sustain), dur(b, c->linger),
                    last_read_str(d, "none since start-up", who, sizeof who),
                    !d->periodic_since ? ""
                    : d->held_since    ? "; since, only reads that need no linger, the last by a hold's own command (last: "
                                       : "; since, only reads by readers with a learned period, none due (last: ",
                    d->periodic_since ? reader_ref_format(&d->periodic_reader, who2, sizeof who2) : "",
                    d->periodic_since ? ")" : "");
                break;
        case RULE_OFF_WAITING:
                add("policy auto: counting off until a counted read (last: %s); ",
                    last_read_str(d, "none since start-up", who, sizeof who));
                format_waiting(d, c, buf, size);
                break;
        case RULE_REARM:
        case RULE_REARM_HELD:
                add("policy auto: counting off until a counted read, but %s turned the kernel's auto on; ",
                    trigger_str(d, who, sizeof who));
                if (d->rule == RULE_REARM)
                        add("re-arming it (coarse, then auto)");
                else
                        add("re-arm held back until %s (min_dwell=%s after the last arm: each arm zeroes the counters)",
                            clock_str(c, d->rearm_at, b, sizeof b), dur(a, c->min_dwell));
                break;
        case RULE_ON_NO_RATE:
                add("policy auto: counting on, no allocation rate measured yet");
                break;
        case RULE_ON_NOT_ABOVE:
                add("policy auto: counting on, allocation rate not above coarse_above=%" PRIu64 " pages/s",
                    c->coarse_above);
                break;
        case RULE_ON_HELD:
                /* Pressure, but something holds counting on: name what. */
                add("policy auto: counting on, allocation rate above coarse_above=%" PRIu64 " pages/s; held on by",
                    c->coarse_above);
                format_held_by(d, c, buf, size);
                break;
        default:
                add("(unknown rule)");
        }
#undef add
}
