/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The oracle on small traces whose answers are worked out by hand: ten
 * intervals of 1 s, 30000 pages/s unless said, coarse_above 20000,
 * strict_below 5000. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "oracle.h"
#include "tap.h"

#define is_double(a, b, eps, name)                                                         \
        do {                                                                               \
                double a_ = (a), b_ = (b);                                                 \
                ok(fabs(a_ - b_) <= (eps), "%s (%g, expected %g)", name, a_, b_);          \
        } while (0)

#define SEC 1000000ULL
#define N 10

static double busy[N] = { 30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000 };

/* The schedule as a string, "1" for off: "0011111111". */
static const char *schedule(const bool *off, char *buf) {
        for (size_t i = 0; i < N; i++)
                buf[i] = off[i] ? '1' : '0';
        buf[N] = '\0';
        return buf;
}

static bool start_free, no_foresight;

static void check(const char *what, const double *rate, const OracleRead *reads, size_t n_reads, uint64_t sustain,
                  uint64_t min_dwell, const char *want, double want_off, unsigned want_switches) {
        OracleTrace t = { .interval = SEC, .rate = rate, .n = N, .reads = reads, .n_reads = n_reads,
                          .start_free = start_free };
        OracleLimits l = { .coarse_above = 20000, .strict_below = 5000, .sustain = sustain, .min_dwell = min_dwell,
                          .no_foresight = no_foresight };
        OracleResult r;
        bool off[N];
        char buf[N + 1];

        is_int(oracle_schedule(&t, &l, off, &r), 0, what);
        is_str(schedule(off, buf), want, "  schedule");
        is_double(r.pages_off, want_off, 1e-6, "  pages off");
        is_int(r.switches, want_switches, "  switches");
        is_int(r.served, r.servable, "  every servable read served");

        /* The same, told which intervals must be on instead of the reads
         * (the daemon's own record), and keeping no schedule. */
        if (!no_foresight) {
                bool needed[N] = {};
                OracleTrace tn = t;
                double total = 0;

                for (size_t a = 0; a < n_reads; a++)
                        for (size_t b = 0; b < n_reads; b++) {
                                bool next = reads[b].reader == reads[a].reader && reads[b].at > reads[a].at;

                                for (size_t c = 0; next && c < n_reads; c++)
                                        next = !(reads[c].reader == reads[a].reader && reads[c].at > reads[a].at &&
                                                 reads[c].at < reads[b].at);
                                for (size_t i = reads[a].at / SEC; next && i <= reads[b].at / SEC && i < N; i++)
                                        needed[i] = true;
                        }
                tn.reads = NULL;
                tn.n_reads = 0;
                tn.needed = needed;
                is_int(oracle_schedule(&tn, &l, NULL, &r), 0, "  told the intervals that must be on");
                is_double(r.pages_off, want_off, 1e-6, "    the same pages off");
                is_int(r.switches, want_switches, "    the same switches");
                for (size_t i = 0; i < N; i++)
                        total += rate[i];
                is_double(r.pages_total, total, 1e-6, "    and the pages allocated in all");
        }
}

int main(void) {
        OracleRead pair[] = { { 4500000, 1 }, { 6200000, 1 } };
        OracleRead two[] = { { 5100000, 2 }, { 2500000, 1 }, { 5500000, 2 }, { 2600000, 1 } };   /* any order */
        OracleRead firsts[] = { { 1500000, 1 }, { 3500000, 2 }, { 7500000, 3 } };
        double falling[N] = { 30000, 30000, 30000, 30000, 10000, 3000, 3000, 3000, 30000, 30000 };
        double low[N] = { 30000, 30000, 30000, 30000, 3000, 3000, 3000, 3000, 3000, 3000 };

        check("busy, no reader, no sustain or dwell: off throughout", busy, NULL, 0, 0, 0, "1111111111", 300000, 1);
        /* Above since sample 0: sustained at sample 2. */
        check("sustain 2s: off from the third interval", busy, NULL, 0, 2 * SEC, 0, "0011111111", 240000, 1);
        /* The start counts as a switch: three intervals on first. */
        check("min_dwell 3s: off from the fourth", busy, NULL, 0, 0, 3 * SEC, "0001111111", 210000, 1);
        /* The reader's two reads (4.5 s, 6.2 s) need intervals 4 to 6 on. */
        check("a reader's pair of reads: on from one to the next", busy, pair, 2, 0, 0, "1111000111", 210000, 3);
        /* Dwell 2 s: two intervals on before the first off; after the
         * reads' three intervals on, off again at once. */
        check("  with min_dwell 2s", busy, pair, 2, 0, 2 * SEC, "0011000111", 150000, 3);
        /* Reader 1 needs interval 2, reader 2 interval 5; dwell 2 s: off
         * at 3 (on since 0), on at 5, off again only at 7. */
        check("two readers, dwell between them", busy, two, 4, 0, 2 * SEC, "0001100111", 150000, 3);
        check("first reads need nothing", busy, firsts, 3, 0, 0, "1111111111", 300000, 1);
        /* Sustain 1 s: above sustained at 1-3 and 9; below sustained at 6
         * and 7 (its second sample): off 1-5 (4 is between, 5 below but not
         * yet sustained), on 6-8 (8 above, not yet sustained), off 9. */
        check("pressure: sustained above to go off, sustained below to come on", falling, NULL, 0, SEC, 0,
              "0111110001", 133000, 3);
        /* Dwell 3 s, the rate low from interval 4: off at 3 (on since the
         * start), low for sustain (1 s) at 5, but the dwell after going off
         * holds counting off until 6. */
        check("the rate low: counting on only once the dwell passed", low, NULL, 0, SEC, 3 * SEC, "0001110000",
              36000, 2);

        /* A free start (a trace cut from a longer run): off from the
         * first interval, no switch to get there, whatever sustain and
         * dwell; the rate low for sustain still brings counting on. */
        start_free = true;
        check("a free start, sustain 2s and min_dwell 3s: off throughout", busy, NULL, 0, 2 * SEC, 3 * SEC,
              "1111111111", 300000, 0);
        check("  a reader's pair of reads, min_dwell 2s", busy, pair, 2, 0, 2 * SEC, "1111000111", 210000, 2);
        check("  the rate low from 4: on once low for sustain", low, NULL, 0, SEC, 3 * SEC, "1111100000", 123000, 1);
        start_free = false;

        /* Without foresight: after a reader's last read, one more at
         * its last pace is served too. */
        no_foresight = true;
        {
                OracleRead late[] = { { 7500000, 1 }, { 9500000, 1 } };

                /* 4.5 s and 6.2 s: 1.7 s apart, so on to 7.9 s. */
                check("no foresight: a pair of reads, and one more at their pace", busy, pair, 2, 0, 0, "1111000011",
                      180000, 3);
                check("  first reads: still nothing", busy, firsts, 3, 0, 0, "1111111111", 300000, 1);
                /* 7.5 s and 9.5 s: the next one due past the end. */
                check("  the next read due past the trace's end: on to the end", busy, late, 2, 0, 0, "1111111000",
                      210000, 2);
        }
        no_foresight = false;

        /* The judge: any schedule's service and pages. */
        {
                OracleTrace t = { .interval = SEC, .rate = busy, .n = N, .reads = pair, .n_reads = 2 };
                bool off[N] = { [5] = true };
                OracleResult r;

                is_int(oracle_judge(&t, off, &r), 0, "judge a schedule off in interval 5 only");
                is_int(r.servable, 1, "  one servable read");
                is_int(r.served, 0, "  not served: off between the reads");
                is_double(r.pages_off, 30000, 1e-6, "  30000 pages off");
                is_double(r.pages_total, 300000, 1e-6, "  of 300000");
                is_int(r.switches, 2, "  two switches");
        }
        {
                OracleTrace t = { .interval = 0, .rate = busy, .n = N };
                OracleTrace big = { .interval = 1, .rate = busy, .n = N };
                OracleLimits l = { .min_dwell = ORACLE_MAX_STATES };
                OracleResult r;

                is_int(oracle_schedule(&t, &l, NULL, &r), -EINVAL, "a zero interval: -EINVAL");
                is_int(oracle_schedule(&big, &l, NULL, &r), -E2BIG, "too many states to plan: -E2BIG");
        }
        return tap_done();
}
