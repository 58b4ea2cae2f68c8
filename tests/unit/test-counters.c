/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <math.h>
#include <stdint.h>

#include "counters.h"
#include "macro.h"
#include "tap.h"

#define SEC (1000 * UINT64_C(1000))
#define TAU (3 * SEC)

/* Pointers to temporary readings, for the functions taking const NumaCounters *. */
#define NC(...) (&(const NumaCounters) { .v = { __VA_ARGS__ } })
#define NCX(k) NC((k), 2 * (k), 3 * (k), 4 * (k), 5 * (k), 6 * (k))

static NumaCounters nc(uint64_t hit, uint64_t miss, uint64_t foreign, uint64_t interleave,
                       uint64_t local, uint64_t other) {
        return (NumaCounters) { .v = { hit, miss, foreign, interleave, local, other } };
}

/* k times (1, 2, 3, 4, 5, 6): readings whose fields differ, to catch mixed-up indices. */
static NumaCounters ncx(uint64_t k) {
        return nc(k, 2 * k, 3 * k, 4 * k, 5 * k, 6 * k);
}

static bool is_counters(const NumaCounters *got, NumaCounters expected, const char *name) {
        bool same = true;

        for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                if (got->v[i] != expected.v[i])
                        same = false;
        ok(same, "%s", name);
        if (!same)
                for (size_t i = 0; i < _NUMA_COUNTER_MAX; i++)
                        printf("#   [%zu] got %" PRIu64 ", expected %" PRIu64 "\n", i, got->v[i], expected.v[i]);
        return same;
}

static bool is_double(double got, double expected, double tolerance, const char *name) {
        bool r = ok(fabs(got - expected) <= tolerance, "%s", name);
        if (!r)
                printf("#   got %.17g, expected %.17g (±%g)\n", got, expected, tolerance);
        return r;
}

static void test_no_reset(void) {
        CounterTrack t = {};
        NumaCounters r;

        counter_track_start(&t, NC(10, 1, 2, 0, 8, 3));
        ok(t.started, "start: started");
        counter_track_total(&t, &r);
        is_counters(&r, nc(0, 0, 0, 0, 0, 0), "start: nothing counted yet");

        ok(!counter_track_update(&t, NC(20, 1, 5, 0, 16, 4)), "growing reading: no reset");
        ok(!counter_track_update(&t, NC(20, 1, 5, 0, 16, 4)), "unchanged reading: no reset");
        ok(!counter_track_update(&t, NC(35, 2, 5, 1, 30, 6)), "growing again: no reset");
        counter_track_total(&t, &r);
        is_counters(&r, nc(25, 1, 3, 1, 22, 3), "total = last - first reading");
        is_counters(&t.last, nc(35, 2, 5, 1, 30, 6), "last reading kept");

        /* An update before start behaves as start. */
        t = (CounterTrack) {};
        ok(!counter_track_update(&t, NCX(7)), "update before start: no reset");
        ok(t.started, "update before start: started");
        counter_track_total(&t, &r);
        is_counters(&r, ncx(0), "update before start: counts from that reading");
}

static void test_own_reset(void) {
        CounterTrack t = {};
        NumaCounters r;

        counter_track_start(&t, NC(100, 10, 10, 0, 90, 20));
        ok(!counter_track_update(&t, NC(150, 12, 11, 0, 140, 22)), "own reset: growing");
        /* Snapshot just before we switch; counted before = snapshot - start. */
        counter_track_reset(&t, NC(170, 13, 12, 1, 160, 23));
        counter_track_total(&t, &r);
        is_counters(&r, nc(70, 3, 2, 1, 70, 3), "own reset: what was counted before is kept");
        is_counters(&t.baseline, ncx(0), "own reset: baseline zero");
        is_counters(&t.last, ncx(0), "own reset: last zero");

        /* The kernel restarted from zero: small readings are not a reset. */
        ok(!counter_track_update(&t, NC(5, 1, 0, 0, 5, 0)), "after own reset: small reading is no reset");
        counter_track_total(&t, &r);
        is_counters(&r, nc(75, 4, 2, 1, 75, 3), "own reset: total = before (70,3,2,1,70,3) + after (5,1,0,0,5,0)");
        ok(!counter_track_update(&t, NC(30, 2, 1, 0, 28, 2)), "after own reset: growing");
        counter_track_total(&t, &r);
        is_counters(&r, nc(100, 5, 3, 1, 98, 5), "own reset: total = before + after (30,2,1,0,28,2)");

        /* The snapshot itself shows someone reset since our last reading:
         * 100→200 counted, then the counters restarted and reached 30. */
        counter_track_start(&t, NCX(100));
        ok(!counter_track_update(&t, NCX(200)), "snapshot reset: growing");
        counter_track_reset(&t, NCX(30));
        counter_track_total(&t, &r);
        is_counters(&r, ncx(130), "snapshot revealing an earlier reset: 100 + 30 kept");
        ok(!counter_track_update(&t, NCX(4)), "snapshot reset: small reading after is no reset");
        counter_track_total(&t, &r);
        is_counters(&r, ncx(134), "snapshot reset: 130 + 4");
}

static void test_external_reset(void) {
        CounterTrack t = {};
        NumaCounters r;

        counter_track_start(&t, NC(1000, 50, 50, 5, 950, 100));
        ok(!counter_track_update(&t, NC(1500, 60, 55, 5, 1440, 120)), "external: growing");
        ok(counter_track_update(&t, NC(40, 0, 0, 0, 40, 0)), "external: reading below last is a reset");
        counter_track_total(&t, &r);
        /* (1500,60,55,5,1440,120) - (1000,50,50,5,950,100) + (40,0,0,0,40,0) */
        is_counters(&r, nc(540, 10, 5, 0, 530, 20), "external: counted before kept, counting from zero after");
        is_counters(&t.baseline, ncx(0), "external: baseline zero");
        ok(!counter_track_update(&t, NC(60, 1, 2, 0, 59, 1)), "external: growing after");
        counter_track_total(&t, &r);
        is_counters(&r, nc(560, 11, 7, 0, 549, 21), "external: total after growing");

        /* One counter going back is enough, even when the others grew past
         * their old value since the reset. */
        counter_track_start(&t, NCX(100));
        ok(counter_track_update(&t, NC(200, 199, 300, 400, 500, 600)),
           "external: only numa_miss went back: reset");
        counter_track_total(&t, &r);
        is_counters(&r, nc(200, 199, 300, 400, 500, 600), "external: one counter back: nothing before, all after");

        counter_track_start(&t, NCX(100));
        ok(counter_track_update(&t, NC(100, 200, 300, 400, 500, 599)),
           "external: only other_node (the last field) went back: reset");
}

static void test_several_resets(void) {
        CounterTrack t = {};
        NumaCounters r;
        unsigned detected = 0;

        /* Segments: 10→20 (10), 0→5→15→25 ours (25), 0→7 (7), 0→3 (3): 45. */
        counter_track_start(&t, NCX(10));
        detected += counter_track_update(&t, NCX(20));
        detected += counter_track_update(&t, NCX(5));
        detected += counter_track_update(&t, NCX(15));
        counter_track_reset(&t, NCX(25));
        detected += counter_track_update(&t, NCX(7));
        detected += counter_track_update(&t, NCX(3));
        is_int(detected, 2, "several: two external resets detected");
        counter_track_total(&t, &r);
        is_counters(&r, ncx(45), "several: total 10 + 25 + 7 + 3");

        counter_track_reset(&t, NCX(3));
        counter_track_reset(&t, NCX(0));
        counter_track_reset(&t, NCX(2));
        counter_track_total(&t, &r);
        is_counters(&r, ncx(47), "several: back-to-back own resets add nothing twice");
        counter_track_continuous(&t, &r);
        is_counters(&r, ncx(57), "several: continuous = the first reading (10) + everything counted since (47)");
}

static void test_overflow(void) {
        CounterTrack t = {};
        NumaCounters r;

        counter_track_start(&t, NC(0, 0, 0, 0, 0, 0));
        counter_track_reset(&t, NC(UINT64_MAX - 10, 1, 2, 3, 4, UINT64_MAX));
        counter_track_total(&t, &r);
        is_counters(&r, nc(UINT64_MAX - 10, 1, 2, 3, 4, UINT64_MAX), "overflow: near the maximum");
        ok(!counter_track_update(&t, NC(100, 1, 1, 1, 1, 1)), "overflow: growing after reset");
        counter_track_total(&t, &r);
        is_counters(&r, nc(UINT64_MAX, 2, 3, 4, 5, UINT64_MAX), "overflow: total saturates, no wrap");
        counter_track_reset(&t, NC(200, 1, 1, 1, 1, 1));
        is_counters(&t.accumulated, nc(UINT64_MAX, 2, 3, 4, 5, UINT64_MAX), "overflow: accumulated saturates");

        /* A single reading span larger than anything accumulated. */
        counter_track_start(&t, NCX(0));
        ok(!counter_track_update(&t, NC(UINT64_MAX, 0, 0, 0, 0, 0)), "overflow: max reading");
        counter_track_total(&t, &r);
        is_u64(r.v[NUMA_HIT], UINT64_MAX, "overflow: max reading counted in full");
}

static void test_on_time(void) {
        OnTime o;

        on_time_start(&o, 1000, false);
        is_double(on_time_share(&o, 1000), 0.0, 0, "on-time: no time passed, off: 0");
        on_time_start(&o, 1000, true);
        is_double(on_time_share(&o, 1000), 1.0, 0, "on-time: no time passed, on: 1");
        is_double(on_time_share(&o, 4000), 1.0, 0, "on-time: always on: 1");

        on_time_start(&o, 1000, false);
        on_time_set(&o, 2000, true);    /* off 1000 */
        on_time_set(&o, 5000, false);   /* on 3000 */
        is_double(on_time_share(&o, 6000), 3000.0 / 5000.0, 0, "on-time: 3000 of 5000");
        on_time_set(&o, 6000, true);    /* off 1000 */
        is_double(on_time_share(&o, 8000), 5000.0 / 7000.0, 0, "on-time: 5000 of 7000, current on-state counted");
        is_u64(o.on_since, 6000, "on-time: on since it came on");
        on_time_set(&o, 7000, true);    /* same state again: no double counting */
        is_double(on_time_share(&o, 8000), 5000.0 / 7000.0, 0, "on-time: repeated set changes nothing");
        is_u64(o.on_since, 6000, "on-time: still on since it came on, not since the last set");
        is_u64(o.started, 1000, "on-time: started when started");
        is_u64(o.on_usec, 4000, "on-time: on_usec folded up to the last set");
        is_u64(o.total_usec, 6000, "on-time: total_usec folded up to the last set");
        on_time_set(&o, 10000, false);  /* on 3000 */
        is_double(on_time_share(&o, 12000), 7000.0 / 11000.0, 0, "on-time: off period lowers the share");
}

static void test_rate_meter(void) {
        RateMeter m = {};
        uint64_t t = 10 * SEC, v = 5000;
        double prev;

        ok(!rate_meter_sample(&m, t, v, TAU, SEC), "rate: first sample gives no rate");
        ok(m.have_sample && !m.have_rate, "rate: first sample stored, no rate yet");

        t += SEC, v += 1000;
        ok(rate_meter_sample(&m, t, v, TAU, SEC), "rate: second sample gives a rate");
        is_double(m.rate, 1000.0, 0, "rate: first rate is the instant rate");
        is_double(m.instant, 1000.0, 0, "rate: instant 1000 pages/s");

        for (int i = 0; i < 10; i++) {
                t += SEC, v += 1000;
                (void) rate_meter_sample(&m, t, v, TAU, SEC);
        }
        is_double(m.rate, 1000.0, 0, "rate: constant rate stays exactly");

        /* Step to 2000 pages/s: moves by 1 - exp(-1/3) of the gap. */
        t += SEC, v += 2000;
        ok(rate_meter_sample(&m, t, v, TAU, SEC), "rate: step sample");
        is_double(m.instant, 2000.0, 0, "rate: step instant 2000");
        is_double(m.rate, 1283.4686894262109, 1e-9, "rate: 1000 + 1000 * (1 - exp(-1/3))");

        /* 59 more seconds at 2000: the gap shrinks by exp(-1/3) per step. */
        for (int i = 0; i < 59; i++) {
                t += SEC, v += 2000;
                (void) rate_meter_sample(&m, t, v, TAU, SEC);
        }
        is_double(m.rate, 1999.9999979388465, 1e-8, "rate: converges, 2000 - 1000 * exp(-20)");

        /* Zero interval: ignored, nothing changes. */
        prev = m.rate;
        ok(!rate_meter_sample(&m, t, v + 777, TAU, SEC), "rate: dt 0 gives no rate");
        is_u64(m.last_value, v, "rate: dt 0 keeps the last value");
        is_u64(m.last_time, t, "rate: dt 0 keeps the last time");
        is_double(m.rate, prev, 0, "rate: dt 0 keeps the rate");

        /* Interval other than a second: 5000 pages in 2.5 s. */
        m = (RateMeter) {};
        ok(!rate_meter_sample(&m, 0, 0, 0, SEC), "rate tau 0: first sample");
        ok(rate_meter_sample(&m, 2500 * 1000, 5000, 0, SEC), "rate tau 0: second sample");
        is_double(m.rate, 2000.0, 0, "rate tau 0: 5000 pages in 2.5 s");
        ok(rate_meter_sample(&m, 3500 * 1000, 5300, 0, SEC), "rate tau 0: third sample");
        is_double(m.rate, 300.0, 0, "rate tau 0: no smoothing, rate = instant");

        /* Backwards total: restart from this sample, keep the smoothed rate. */
        m = (RateMeter) {};
        (void) rate_meter_sample(&m, 0, 10000, TAU, SEC);
        (void) rate_meter_sample(&m, SEC, 11000, TAU, SEC);
        is_double(m.rate, 1000.0, 0, "rate backwards: rate before");
        ok(!rate_meter_sample(&m, 2 * SEC, 400, TAU, SEC), "rate backwards: that sample gives no rate");
        ok(m.have_rate, "rate backwards: the previous rate is kept");
        is_double(m.rate, 1000.0, 0, "rate backwards: rate unchanged");
        is_u64(m.last_value, 400, "rate backwards: new origin value");
        is_u64(m.last_time, 2 * SEC, "rate backwards: new origin time");
        ok(rate_meter_sample(&m, 3 * SEC, 900, TAU, SEC), "rate backwards: next sample gives a rate");
        is_double(m.instant, 500.0, 0, "rate backwards: instant from the new origin");
        is_double(m.rate, 858.26565528689455, 1e-9, "rate backwards: 1000 - 500 * (1 - exp(-1/3))");

        /* The caller clearing have_sample restarts the same way. */
        m.have_sample = false;
        ok(!rate_meter_sample(&m, 10 * SEC, 100000, TAU, SEC), "rate cleared: restart gives no rate");
        ok(rate_meter_sample(&m, 11 * SEC, 100000, TAU, SEC), "rate cleared: next sample gives a rate");
        is_double(m.instant, 0.0, 0, "rate cleared: no growth, instant 0");
}

/* The interval rate: over the sampling window, not over the milliseconds
 * between a scheduled sample and one a caller asked for. */
static void test_rate_meter_window(void) {
        RateMeter m = {};
        uint64_t t = 10 * SEC, v = 0;

        (void) rate_meter_sample(&m, t, v, TAU, SEC);
        ok(rate_meter_sample(&m, t + 10 * 1000, v, TAU, SEC), "window: a sample 10 ms later gives a rate");
        is_double(m.instant, 0.0, 0, "window:   its instant rate is 0 (the total had not moved)");
        ok(!m.have_window, "window:   no window closed yet");
        is_double(m.interval_rate, m.rate, 0, "window:   the interval rate is the smoothed one until one closes");
        t += SEC, v += 50000;
        (void) rate_meter_sample(&m, t, v, TAU, SEC);
        is_double(m.interval_rate, 50000.0, 0, "window: a scheduled sample closes it: 50000 pages/s");
        /* A caller's sample 2 ms later, the total unmoved: no new window. */
        (void) rate_meter_sample(&m, t + 2000, v, TAU, SEC);
        is_double(m.instant, 0.0, 0, "window: a caller's sample 2 ms later: instant 0");
        is_double(m.interval_rate, 50000.0, 0, "window:   the interval rate stays 50000");
        /* The next scheduled one, a little early (jitter): closes the window
         * begun at the last closed one, over its whole length. */
        t += SEC - 100 * 1000, v += 1000;
        (void) rate_meter_sample(&m, t, v, TAU, SEC);
        is_double(m.interval_rate, 1000.0 / 0.9, 1e-9, "window: 900 ms later (over half a window): 1000 pages in 0.9 s");
        /* Long armed stretch without samples: one window over all of it. */
        t += 30 * SEC, v += 30000;
        (void) rate_meter_sample(&m, t, v, TAU, SEC);
        is_double(m.interval_rate, 1000.0, 0, "window: 30 s without a sample: the rate over the 30 s");
        /* A restart opens a new window and forgets the closed one. */
        m.have_sample = false;
        (void) rate_meter_sample(&m, t + SEC, v, TAU, SEC);
        ok(!m.have_window, "window: a restart: no window closed");
        (void) rate_meter_sample(&m, t + SEC + 1000, v + 5, TAU, SEC);
        is_double(m.interval_rate, m.rate, 0, "window:   the smoothed rate until one closes");
}

static void test_ledger(void) {
        Ledger l = {};

        ledger_sample(&l, 500);
        is_u64(l.pages_on + l.pages_off, 0, "ledger: the first reading books nothing");
        ledger_start(&l, 1000, true);
        ledger_sample(&l, 1500);
        is_u64(l.pages_on, 500, "ledger: pages while counting go on");
        ledger_set_counting(&l, 1600, false);
        is_u64(l.pages_on, 600, "ledger: the reading at the switch closes the counting stretch");
        ledger_sample(&l, 2600);
        ledger_sample(&l, 3600);
        is_u64(l.pages_off, 2000, "ledger: pages while not counting go off");
        ok(fabs(ledger_share_off(&l) - 2000.0 / 2600.0) < 1e-9, "ledger: share off is off / all (%.3f)",
           ledger_share_off(&l));
        ledger_sample(&l, 100);
        is_u64(l.pages_off, 2000, "ledger: a total that went backwards books nothing");
        ledger_sample(&l, 400);
        is_u64(l.pages_off, 2300, "ledger: and counting goes on from it");
        ledger_set_counting(&l, 400, true);
        ledger_sample(&l, 450);
        is_u64(l.pages_on, 650, "ledger: back on");
        ok(ledger_share_off(&(Ledger){}) == 0.0, "ledger: share 0 before anything was allocated");
}

int main(void) {
        test_no_reset();
        test_own_reset();
        test_external_reset();
        test_several_resets();
        test_overflow();
        test_on_time();
        test_rate_meter();
        test_rate_meter_window();
        test_ledger();
        return tap_done();
}
