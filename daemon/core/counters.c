/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <string.h>

#include "counters.h"
#include "macro.h"

/* Counters only grow; a total that would wrap is pinned at the maximum,
 * a wrong but obviously huge figure rather than a small plausible one. */
static uint64_t add_sat(uint64_t a, uint64_t b) {
        uint64_t s;

        return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static uint64_t sub_floor(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}

/* accumulated += last - baseline, field by field. */
static void fold(NumaCounters *acc, const NumaCounters *last, const NumaCounters *baseline) {
        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                acc->v[i] = add_sat(acc->v[i], sub_floor(last->v[i], baseline->v[i]));
}

void counter_track_start(CounterTrack *t, const NumaCounters *reading) {
        *t = (CounterTrack) {
                .initial = *reading,
                .baseline = *reading,
                .last = *reading,
                .started = true,
        };
}

void counter_track_resume(CounterTrack *t, const NumaCounters *reading, const NumaCounters *continuous,
                          const NumaCounters *last) {
        bool reset = false;

        counter_track_start(t, reading);
        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                reset = reset || reading->v[i] < last->v[i];
        /* The continuous value is initial + what was counted since the
         * start: initial takes what the earlier daemon had, and the gap. */
        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                t->initial.v[i] = add_sat(continuous->v[i], reset ? reading->v[i] : reading->v[i] - last->v[i]);
}

bool counter_track_update(CounterTrack *t, const NumaCounters *reading) {
        bool reset = false;

        if (!t->started) {
                counter_track_start(t, reading);
                return false;
        }

        /* The kernel zeroes all six together, so one counter going back is
         * enough; the others may already have grown past their old value. */
        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                if (reading->v[i] < t->last.v[i]) {
                        reset = true;
                        break;
                }

        if (reset) {
                /* Keep what was seen up to the last reading; whatever was
                 * counted between it and the reset is lost. The new reading
                 * counts from zero. */
                fold(&t->accumulated, &t->last, &t->baseline);
                memset(&t->baseline, 0, sizeof t->baseline);
        }
        t->last = *reading;
        return reset;
}

void counter_track_reset(CounterTrack *t, const NumaCounters *snapshot_before) {
        /* The snapshot may itself show that someone reset the counters since
         * the last reading: account for that first, then for the snapshot. */
        (void) counter_track_update(t, snapshot_before);
        fold(&t->accumulated, &t->last, &t->baseline);
        memset(&t->baseline, 0, sizeof t->baseline);
        memset(&t->last, 0, sizeof t->last);
}

void counter_track_total(const CounterTrack *t, NumaCounters *ret) {
        *ret = t->accumulated;
        fold(ret, &t->last, &t->baseline);
}

void counter_track_continuous(const CounterTrack *t, NumaCounters *ret) {
        NumaCounters since;

        counter_track_total(t, &since);
        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                ret->v[i] = add_sat(t->initial.v[i], since.v[i]);
}

static void on_time_fold(OnTime *o, uint64_t now) {
        uint64_t elapsed = sub_floor(now, o->since);

        o->total_usec = add_sat(o->total_usec, elapsed);
        if (o->on)
                o->on_usec = add_sat(o->on_usec, elapsed);
        if (now > o->since)
                o->since = now;
}

void on_time_start(OnTime *o, uint64_t now, bool on) {
        *o = (OnTime) {
                .since = now,
                .started = now,
                .on_since = now,
                .on = on,
        };
}

void on_time_set(OnTime *o, uint64_t now, bool on) {
        on_time_fold(o, now);
        if (on && !o->on)
                o->on_since = now;
        o->on = on;
}

void on_time_totals(const OnTime *o, uint64_t now, uint64_t *ret_on, uint64_t *ret_off) {
        OnTime c = *o;

        on_time_fold(&c, now);
        *ret_on = c.on_usec;
        *ret_off = c.total_usec - c.on_usec;
}

double on_time_share(const OnTime *o, uint64_t now) {
        OnTime c = *o;

        on_time_fold(&c, now);
        if (c.total_usec == 0)
                /* No time has passed yet: the current state is all there is. */
                return c.on ? 1.0 : 0.0;
        return (double) c.on_usec / (double) c.total_usec;
}

bool rate_meter_sample(RateMeter *m, uint64_t now, uint64_t value, uint64_t tau_usec, uint64_t window_usec) {
        double dt, instant;

        if (!m->have_sample || value < m->last_value || now < m->last_time) {
                /* First sample, or a restart (the total or the clock went
                 * backwards, or the caller cleared have_sample because it
                 * missed samples). This sample only becomes the new origin.
                 * A previous smoothed rate is kept, still the best estimate,
                 * and the next interval blends into it; but this sample
                 * produced no rate, so it returns false. */
                m->have_sample = true;
                m->last_time = m->window_time = now;
                m->last_value = m->window_value = value;
                m->have_window = false;
                return false;
        }

        if (now == m->last_time)
                /* No time passed: no rate can be computed, wait for the next. */
                return false;

        dt = (double) (now - m->last_time) / (double) USEC_PER_SEC;
        instant = (double) (value - m->last_value) / dt;

        m->instant = instant;
        if (!m->have_rate || tau_usec == 0)
                m->rate = instant;
        else
                /* 1 - exp(-dt/tau) via expm1: exact for intervals much shorter than tau. */
                m->rate += (instant - m->rate) * -expm1(-(double) (now - m->last_time) / (double) tau_usec);
        m->have_rate = true;
        m->last_time = now;
        m->last_value = value;

        if (now - m->window_time >= window_usec / 2) {
                m->interval_rate = (double) (value - m->window_value) /
                                   ((double) (now - m->window_time) / (double) USEC_PER_SEC);
                m->have_window = true;
                m->window_time = now;
                m->window_value = value;
        } else if (!m->have_window)
                m->interval_rate = m->rate;
        return true;
}

void ledger_start(Ledger *l, uint64_t pgalloc, bool counting) {
        *l = (Ledger){ .have_last = true, .counting = counting, .last = pgalloc };
}

void ledger_sample(Ledger *l, uint64_t pgalloc) {
        if (!l->have_last || pgalloc < l->last) {
                /* First reading, or a total that went backwards (a tree):
                 * what was booked stays, counting restarts from here. */
                l->have_last = true;
                l->last = pgalloc;
                return;
        }
        if (l->counting)
                l->pages_on += pgalloc - l->last;
        else
                l->pages_off += pgalloc - l->last;
        l->last = pgalloc;
}

void ledger_set_counting(Ledger *l, uint64_t pgalloc, bool counting) {
        ledger_sample(l, pgalloc);
        l->counting = counting;
}

double ledger_share_off(const Ledger *l) {
        uint64_t total = l->pages_on + l->pages_off;
        return total ? (double) l->pages_off / (double) total : 0.0;
}
