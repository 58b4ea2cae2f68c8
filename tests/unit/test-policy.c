/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "macro.h"
#include "policy.h"
#include "tap.h"

/* The policy on a fake clock: each scenario is a list of timed events, and
 * every evaluation says what it must decide. Times are seconds after the
 * start; the clock starts at T0, not 0, as CLOCK_MONOTONIC does. */

#define T0 (1000 * USEC_PER_SEC)
#define S(x) ((usec_t) (x) * USEC_PER_SEC)
#define BEFORE(x) (S(x) - 1)            /* the last µs before x seconds */
#define INF USEC_INFINITY

#define NUMASTAT "numastat (pid 4242, uid 1000, session-3.scope) read /sys/devices/system/node/node1/numastat"
#define CAT "cat (pid 1, uid 0, init.scope) read /proc/vmstat"
static const ReaderRef R_NUMASTAT = {
        .pid = 4242, .has_uid = true, .uid = 1000, .comm = "numastat", .unit = "session-3.scope",
        .path = "/sys/devices/system/node/node1/numastat",
};
static const ReaderRef R_CAT = {
        .pid = 1, .has_uid = true, .uid = 0, .comm = "cat", .unit = "init.scope", .path = "/proc/vmstat",
};

enum {
        STEP_END,
        STEP_READ,
        STEP_RATE,
        STEP_EXTERNAL,
        STEP_RESUME,
        STEP_SET_POLICY,
        STEP_EVAL,
        STEP_DEADLINE,
        STEP_RELOAD,
        STEP_ARMED,
        STEP_TRIGGERED,
        STEP_HOLDS,
        STEP_EXPECT,
        STEP_LINGER,
        STEP_HELD_READ,
};

typedef struct Step {
        int what;
        usec_t t;                       /* since the start */
        double rate;                    /* RATE: smoothed */
        double interval_rate;           /* RATE: over its interval, if split (else the same) */
        bool split;
        const char *text;               /* EVAL: the reason must contain it */
        const ReaderRef *reader;        /* READ: who read what */
        const char *lacks;              /* EVAL: the reason must not contain it */
        KernelMode found, expected;     /* EXTERNAL */
        Policy policy;                  /* SET_POLICY */
        KernelMode mode;                /* EVAL */
        bool counting, switched;        /* EVAL */
        bool same_reason;               /* EVAL: reason identical to the previous evaluation's */
        usec_t deadline;                /* DEADLINE: since the start, or INF */
        int cause;                      /* EVAL: the decision's cause, unless -1 */
        PolicyRule rule;                /* EVAL: the rule, if check_rule */
        bool check_rule;
        uint64_t coarse_above, strict_below;    /* RELOAD: new values, 0 keeps */
        usec_t sustain;                         /* RELOAD: new value, 0 keeps */
        unsigned holds;                         /* HOLDS: how many */
        usec_t until, period;                   /* EXPECT: since the start (0: nobody), period */
} Step;

#define READ(t_, who) { .what = STEP_READ, .t = (t_), .reader = &R_##who }
/* The last read, named: by a hold's own command */
#define HELD_READ(t_, who) { .what = STEP_HELD_READ, .t = (t_), .reader = &R_##who }
#define RATE(t_, r) { .what = STEP_RATE, .t = (t_), .rate = (r) }
/* A sample whose smoothed rate (sm) lags the interval's own (iv). */
#define RATE_SPLIT(t_, sm, iv) { .what = STEP_RATE, .t = (t_), .rate = (sm), .interval_rate = (iv), .split = true }
#define EXTERNAL(t_, f, e) \
        { .what = STEP_EXTERNAL, .t = (t_), .found = KERNEL_MODE_##f, .expected = KERNEL_MODE_##e }
#define RESUME(t_) { .what = STEP_RESUME, .t = (t_) }
#define SET_POLICY(t_, p) { .what = STEP_SET_POLICY, .t = (t_), .policy = POLICY_##p }
#define EVAL(t_, m, on, sw, has)                                                        \
        { .what = STEP_EVAL, .t = (t_), .mode = KERNEL_MODE_##m, .counting = (on), .switched = (sw), \
          .text = (has), .cause = -1 }
#define EVAL_LACKS(t_, m, on, sw, has, not)                                             \
        { .what = STEP_EVAL, .t = (t_), .mode = KERNEL_MODE_##m, .counting = (on), .switched = (sw), \
          .text = (has), .lacks = (not), .cause = -1 }
/* The cause as data, and the rule that decided. */
#define EVAL_WHY(t_, m, on, sw, cause_, rule_)                                          \
        { .what = STEP_EVAL, .t = (t_), .mode = KERNEL_MODE_##m, .counting = (on), .switched = (sw), \
          .cause = CAUSE_##cause_, .rule = RULE_##rule_, .check_rule = true }
/* Nothing meaningful changed since the previous evaluation: same reason. */
#define EVAL_SAME(t_, m, on)                                                            \
        { .what = STEP_EVAL, .t = (t_), .mode = KERNEL_MODE_##m, .counting = (on), .same_reason = true, \
          .cause = -1 }
#define RELOAD(t_, ...) { .what = STEP_RELOAD, .t = (t_), __VA_ARGS__ }
#define ARMED(t_) { .what = STEP_ARMED, .t = (t_) }
/* A read turned the armed auto on: cause_ READ, IGNORED_READ, ... */
#define TRIGGERED(t_, cause_, who) { .what = STEP_TRIGGERED, .t = (t_), .cause = CAUSE_##cause_, .reader = (who) }
#define DEADLINE(t_, d) { .what = STEP_DEADLINE, .t = (t_), .deadline = (d) }
/* n holds now, the oldest by who for why (text) */
#define HOLDS(t_, n, who, why) { .what = STEP_HOLDS, .t = (t_), .holds = (n), .reader = (who), .text = (why) }
/* who, reading every period, is expected until (since the start; 0: nobody) */
#define EXPECT(t_, until_, who, period_) \
        { .what = STEP_EXPECT, .t = (t_), .until = (until_), .reader = (who), .period = (period_) }
/* The reader table: linger runs from a read at from (since the start; 0:
 * none) by who, the last reader of unknown pace */
#define LINGER(t_, from_, who) { .what = STEP_LINGER, .t = (t_), .until = (from_), .reader = (who) }
#define END { .what = STEP_END }

#define CONFIG(p, b, off, ext)                                                          \
        {                                                                               \
                .policy = POLICY_##p, .backend = BACKEND_##b, .off_mode = OFF_MODE_##off, \
                .on_external_change = EXTERNAL_CHANGE_##ext, .min_dwell = S(30), .linger = S(300), \
                .sustain = S(10), .coarse_above = 100000, .strict_below = 20000,        \
        }
#define AUTO_DEFAULTS CONFIG(AUTO, NUMA_STAT, AUTO, FOLLOW)

typedef struct Scenario {
        const char *name;
        PolicyConfig config;
        const Step *steps;
} Scenario;

/* Pressure from the start, nobody reads: counting goes off at 300s (linger). */
#define GO_OFF_AT_300_TO(m) RATE(0, 150000), EVAL(0, STRICT, true, false, "policy auto"), \
        EVAL(S(300), m, false, true, "counting off")
#define GO_OFF_AT_300 GO_OFF_AT_300_TO(COARSE)

static const Scenario scenarios[] = {
        {
                "start counts as a read; linger last to be satisfied", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "held on by a counted read within linger=5min "
                                                     "(last: start-up, which counts as one), sustain=10s not yet"),
                        DEADLINE(0, S(300)),
                        EVAL_SAME(S(5), STRICT, true),
                        /* sustain, then dwell reached: the reason changes once each, then holds */
                        EVAL_LACKS(S(20), STRICT, true, false, "min_dwell=30s since the last switch", "sustain"),
                        EVAL_LACKS(S(30), STRICT, true, false, "(last: start-up, which counts as one)", "min_dwell"),
                        RATE(S(100), 160000),
                        EVAL_SAME(S(100), STRICT, true),
                        DEADLINE(S(100), S(300)),
                        EVAL_SAME(BEFORE(300), STRICT, true),
                        EVAL(S(300), COARSE, false, true,
                             "allocation rate 160000 pages/s above coarse_above=100000 for 10s and no counted "
                             "read for 5min (last: none since start-up): counting off"),
                        DEADLINE(S(300), INF),
                        EVAL_LACKS(S(301), COARSE, false, false, "policy auto: counting off until a counted read",
                                   "ago"),
                        EVAL_SAME(S(5000), COARSE, false),
                        END,
                },
        },
        {
                "sustain last to be satisfied", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 50000),
                        EVAL(0, STRICT, true, false, "counting on, allocation rate not above coarse_above=100000"),
                        DEADLINE(0, INF),
                        EVAL_SAME(S(400), STRICT, true),
                        RATE(S(400), 150000),
                        DEADLINE(S(400), S(410)),
                        EVAL_LACKS(BEFORE(410), STRICT, true, false, "held on by sustain=10s not yet reached",
                                   "linger"),
                        EVAL(S(410), COARSE, false, true, "above coarse_above=100000 for 10s and no counted read"),
                        END,
                },
        },
        {
                "dwell last to be satisfied, both ways", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        RATE(S(301), 1000),
                        DEADLINE(S(301), S(330)),
                        EVAL(S(311), COARSE, false, false,
                             "below strict_below=20000 pages/s, last switch less than min_dwell=30s ago"),
                        EVAL_SAME(BEFORE(330), COARSE, false),
                        EVAL(S(330), STRICT, true, true,
                             "allocation rate 1000 pages/s below strict_below=20000 for 10s: nothing to gain, "
                             "counting on"),
                        RATE(S(331), 200000),
                        DEADLINE(S(331), S(360)),
                        EVAL(S(341), STRICT, true, false, "held on by min_dwell=30s since the last switch"),
                        EVAL_SAME(BEFORE(360), STRICT, true),
                        EVAL(S(360), COARSE, false, true, "allocation rate 200000 pages/s above coarse_above=100000"),
                        END,
                },
        },
        {
                "back on below strict_below only after sustain", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        RATE(S(400), 1000),
                        DEADLINE(S(400), S(410)),
                        EVAL(S(405), COARSE, false, false, "below strict_below=20000 pages/s, not yet for sustain=10s"),
                        EVAL_SAME(BEFORE(410), COARSE, false),
                        EVAL(S(410), STRICT, true, true, "nothing to gain, counting on"),
                        /* Low rate, counting on: nothing left to wait for. */
                        DEADLINE(S(410), INF),
                        END,
                },
        },
        {
                /* The load stops: the interval's rate falls at once, the
                 * smoothed one decays through coarse_above for a few
                 * samples. Sustain runs from the first quiet interval. */
                "a fall is judged on the interval's rate, a rise on the smoothed one", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        RATE_SPLIT(S(400), 140000, 1000),
                        EVAL(S(400), COARSE, false, false,
                             "below strict_below=20000 pages/s, not yet for sustain=10s"),
                        DEADLINE(S(400), S(410)),
                        RATE_SPLIT(S(401), 110000, 1000),
                        RATE_SPLIT(S(402), 60000, 1000),
                        RATE_SPLIT(S(403), 30000, 1000),
                        DEADLINE(S(403), S(410)),
                        EVAL(S(410), STRICT, true, true,
                             "allocation rate 1000 pages/s below strict_below=20000 for 10s: nothing to gain, "
                             "counting on"),
                        /* A burst: the interval is busy, the smoothed rate
                         * not yet above. Neither below nor above. */
                        RATE_SPLIT(S(500), 40000, 300000),
                        EVAL(S(500), STRICT, true, false, "counting on, allocation rate not above coarse_above"),
                        DEADLINE(S(500), INF),
                        RATE_SPLIT(S(501), 120000, 300000),
                        DEADLINE(S(501), S(511)),
                        RATE_SPLIT(S(505), 120000, 10000),      /* a quiet interval within the rise */
                        /* Below wins while it lasts: nothing to wait for. */
                        DEADLINE(S(505), INF),
                        EVAL(S(505), STRICT, true, false, "not above coarse_above"),
                        /* Busy again: the smoothed rate never fell, the
                         * rise still dates from 501. */
                        RATE_SPLIT(S(506), 130000, 200000),
                        DEADLINE(S(506), S(511)),
                        EVAL(S(511), COARSE, false, true, "above coarse_above=100000 for 10s"),
                        END,
                },
        },
        {
                "a reader turns counting on at once, 1s after a switch off", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        READ(S(301), NUMASTAT),
                        DEADLINE(S(301), S(301)),       /* due now */
                        EVAL(S(301), STRICT, true, true, NUMASTAT ": counting on"),
                        /* the read restarts linger: 301 + 5min */
                        DEADLINE(S(301), S(601)),
                        EVAL(S(302), STRICT, true, false, "within linger=5min (last: " NUMASTAT "), min_dwell"),
                        EVAL_LACKS(S(331), STRICT, true, false, "within linger=5min (last: " NUMASTAT ")",
                                   "min_dwell"),
                        EVAL_SAME(BEFORE(601), STRICT, true),
                        EVAL(S(601), COARSE, false, true, "no counted read for 5min (last: " NUMASTAT ")"),
                        END,
                },
        },
        {
                "each counted read restarts linger", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "start-up"),
                        READ(S(100), CAT),
                        DEADLINE(S(100), S(400)),
                        EVAL(S(300), STRICT, true, false, CAT),     /* would be off without the read */
                        READ(S(399), CAT),
                        DEADLINE(S(399), S(699)),
                        EVAL_SAME(S(400), STRICT, true),
                        EVAL_SAME(BEFORE(699), STRICT, true),
                        EVAL(S(699), COARSE, false, true, "(last: " CAT ")"),
                        END,
                },
        },
        {
                "hysteresis band while on", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 50000),
                        EVAL(0, STRICT, true, false, "not above coarse_above"),
                        EVAL_SAME(S(1000), STRICT, true),
                        RATE(S(1000), 100000),          /* at coarse_above is not above */
                        DEADLINE(S(1000), INF),
                        EVAL_SAME(S(2000), STRICT, true),
                        END,
                },
        },
        {
                "hysteresis band while off", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        RATE(S(301), 50000),
                        DEADLINE(S(301), INF),
                        EVAL(S(301), COARSE, false, false,
                             "allocation rate between strict_below=20000 and coarse_above=100000"),
                        EVAL_SAME(S(5000), COARSE, false),
                        RATE(S(5000), 20000),           /* at strict_below is not below */
                        DEADLINE(S(5000), INF),
                        EVAL_SAME(S(6000), COARSE, false),
                        END,
                },
        },
        {
                "no rate yet: stays on", AUTO_DEFAULTS,
                (const Step[]) {
                        EVAL(0, STRICT, true, false, "no allocation rate measured yet"),
                        DEADLINE(0, INF),
                        EVAL_SAME(S(10000), STRICT, true),
                        END,
                },
        },
        {
                "the first evaluation is never a switch",
                {
                        .policy = POLICY_AUTO, .backend = BACKEND_NUMA_STAT, .min_dwell = 0, .linger = 0,
                        .sustain = 0, .coarse_above = 100000, .strict_below = 20000,
                },
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, COARSE, false, false, "counting off"),
                        READ(S(1), CAT),
                        EVAL(S(1), STRICT, true, true, CAT ": counting on"),
                        END,
                },
        },
        {
                "off on numa_stats_mode with off_mode=auto", CONFIG(AUTO, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        GO_OFF_AT_300_TO(AUTO),
                        EVAL(S(301), AUTO, false, false, "counting off until a counted read"),
                        END,
                },
        },
        {
                "off on numa_stats_mode with off_mode=coarse", CONFIG(AUTO, NUMA_STATS_MODE, COARSE, FOLLOW),
                (const Step[]) { RATE(0, 150000), EVAL(S(300), COARSE, false, false, "counting off"), END },
        },
        {
                "off on vmstat_mode with off_mode=auto", CONFIG(AUTO, VMSTAT_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "policy auto"),
                        EVAL(S(300), AUTO, false, true, "counting off"),
                        READ(S(301), CAT),
                        EVAL(S(301), STRICT, true, true, CAT),
                        END,
                },
        },
        {
                "off on vmstat_mode with off_mode=coarse", CONFIG(AUTO, VMSTAT_MODE, COARSE, FOLLOW),
                (const Step[]) { RATE(0, 150000), EVAL(S(300), COARSE, false, false, "counting off"), END },
        },
        {
                "strict and coarse switch without dwell", CONFIG(COARSE, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        EVAL(0, COARSE, false, false, "policy coarse: NUMA counters never kept"),
                        SET_POLICY(S(1), STRICT),
                        EVAL(S(1), STRICT, true, true, "policy strict: NUMA counters always kept"),
                        SET_POLICY(S(2), COARSE),
                        EVAL(S(2), COARSE, false, true, "policy coarse"),
                        DEADLINE(S(2), INF),
                        /* Auto after coarse: a read since is a reason to count. */
                        READ(S(3), CAT),
                        SET_POLICY(S(4), AUTO),
                        EVAL(S(4), STRICT, true, true, CAT ": counting on"),
                        END,
                },
        },
        {
                "external change followed, then resumed", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "policy auto"),
                        EXTERNAL(S(50), COARSE, STRICT),
                        DEADLINE(S(50), INF),
                        /* counting: the engine's own state, which waits while paused */
                        EVAL(S(50), UNKNOWN, true, false,
                             "the kernel's mode was changed from strict to coarse by someone else: following the admin; "
                             "numastatctl set-policy or reload resumes"),
                        EVAL_WHY(S(50), UNKNOWN, true, false, EXTERNAL, PAUSED),
                        /* past linger: would go off, but the admin has the kernel */
                        EVAL_SAME(S(400), UNKNOWN, true),
                        READ(S(401), CAT),
                        EVAL_SAME(S(401), UNKNOWN, true),
                        RESUME(S(500)),
                        DEADLINE(S(500), S(701)),
                        EVAL(S(500), STRICT, true, false, CAT),
                        EVAL(S(701), COARSE, false, true, "counting off"),
                        EXTERNAL(S(702), AUTO, COARSE),
                        EVAL(S(702), UNKNOWN, false, false, "changed from coarse to auto by someone else"),
                        RESUME(S(703)),
                        EVAL_LACKS(S(703), COARSE, false, false, "counting off", "someone else"),
                        END,
                },
        },
        {
                "external change followed under policy strict", CONFIG(STRICT, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        EVAL(0, STRICT, true, false, "policy strict"),
                        EXTERNAL(S(10), COARSE, STRICT),
                        EVAL(S(10), UNKNOWN, true, false, "following the admin"),
                        RESUME(S(20)),
                        EVAL(S(20), STRICT, true, false, "policy strict"),
                        END,
                },
        },
        {
                "external change overridden", CONFIG(AUTO, NUMA_STAT, AUTO, OVERRIDE),
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "policy auto"),
                        EXTERNAL(S(50), COARSE, STRICT),
                        DEADLINE(S(50), S(300)),        /* not paused */
                        EVAL(S(50), STRICT, true, false, "overriding an external change to coarse: policy auto: counting on"),
                        EVAL_LACKS(S(51), STRICT, true, false, "policy auto: counting on", "overriding"),
                        EVAL(S(300), COARSE, false, true, "counting off"),
                        EXTERNAL(S(310), STRICT, COARSE),
                        EVAL(S(310), COARSE, false, false,
                             "overriding an external change to strict: policy auto: counting off"),
                        EVAL_LACKS(S(311), COARSE, false, false, "counting off", "overriding"),
                        END,
                },
        },
        {
                "causes as data, through switches both ways and the operator", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL_WHY(0, STRICT, true, false, STARTUP, ON_HELD),
                        EVAL_WHY(S(300), COARSE, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        EVAL_WHY(S(301), COARSE, false, false, PRESSURE_ABOVE, OFF_WAITING),
                        READ(S(302), CAT),
                        EVAL_WHY(S(302), STRICT, true, true, READ, ON_FOR_READ),
                        /* Still the cat's doing while nothing else switches. */
                        EVAL_WHY(S(303), STRICT, true, false, READ, ON_HELD),
                        RATE(S(400), 1000),
                        EVAL_WHY(S(400), STRICT, true, false, READ, ON_NOT_ABOVE),
                        RATE(S(700), 150000),
                        EVAL_WHY(S(710), COARSE, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        RATE(S(711), 1000),
                        EVAL_WHY(S(721), COARSE, false, false, PRESSURE_ABOVE, OFF_WAITING),
                        EVAL_WHY(S(740), STRICT, true, true, PRESSURE_BELOW, ON_FOR_LOW_RATE),
                        SET_POLICY(S(750), COARSE),
                        EVAL_WHY(S(750), COARSE, false, true, OPERATOR, COARSE),
                        END,
                },
        },
        {
                "a reload that raises coarse_above re-judges at once",
                {
                        .policy = POLICY_AUTO, .backend = BACKEND_NUMA_STAT, .min_dwell = 0, .linger = 0,
                        .sustain = S(10), .coarse_above = 100000, .strict_below = 20000,
                },
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "sustain=10s not yet reached"),
                        RATE(S(5), 150000),
                        RELOAD(S(6), .coarse_above = 200000),
                        /* No sample since the reload: judged with the samples' own
                         * times under the new threshold, not with a since-time set
                         * under the old one. */
                        DEADLINE(S(6), INF),
                        EVAL_LACKS(S(10), STRICT, true, false, "not above coarse_above=200000", "counting off"),
                        EVAL_WHY(S(10), STRICT, true, false, STARTUP, ON_NOT_ABOVE),
                        RATE(S(11), 210000),
                        DEADLINE(S(11), S(21)),
                        EVAL(S(20), STRICT, true, false, "sustain=10s not yet reached"),
                        EVAL(S(21), COARSE, false, true, "allocation rate 210000 pages/s above coarse_above=200000"),
                        END,
                },
        },
        {
                "a reload that lowers coarse_above counts the samples from when they were above",
                {
                        .policy = POLICY_AUTO, .backend = BACKEND_NUMA_STAT, .min_dwell = 0, .linger = 0,
                        .sustain = S(10), .coarse_above = 200000, .strict_below = 20000,
                },
                (const Step[]) {
                        RATE(0, 150000),
                        RATE(S(5), 150000),
                        RATE(S(10), 150000),
                        EVAL_WHY(S(10), STRICT, true, false, STARTUP, ON_NOT_ABOVE),
                        RELOAD(S(12), .coarse_above = 100000),
                        /* above since 0, sustained since 10: due already */
                        DEADLINE(S(12), S(10)),
                        EVAL_WHY(S(12), COARSE, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        END,
                },
        },
        {
                "a reload that raises strict_below re-judges the rate while off",
                {
                        .policy = POLICY_AUTO, .backend = BACKEND_NUMA_STAT, .min_dwell = 0, .linger = 0,
                        .sustain = S(10), .coarse_above = 100000, .strict_below = 20000,
                },
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "sustain=10s not yet reached"),
                        EVAL_WHY(S(10), COARSE, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        RATE(S(11), 30000),
                        RATE(S(20), 30000),
                        RATE(S(25), 30000),
                        EVAL(S(25), COARSE, false, false, "allocation rate between strict_below=20000"),
                        DEADLINE(S(25), INF),
                        RELOAD(S(26), .strict_below = 40000),
                        DEADLINE(S(26), S(21)),
                        EVAL_WHY(S(26), STRICT, true, true, PRESSURE_BELOW, ON_FOR_LOW_RATE),
                        END,
                },
        },
        {
                "a reload that shortens sustain takes effect at once",
                {
                        .policy = POLICY_AUTO, .backend = BACKEND_NUMA_STAT, .min_dwell = 0, .linger = 0,
                        .sustain = S(60), .coarse_above = 100000, .strict_below = 20000,
                },
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(S(20), STRICT, true, false, "sustain=1min not yet reached"),
                        RELOAD(S(21), .sustain = S(10)),
                        EVAL_WHY(S(21), COARSE, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        END,
                },
        },
        {
                "patched auto: an ignored reader's trigger is re-armed after min_dwell",
                CONFIG(AUTO, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        GO_OFF_AT_300_TO(AUTO),
                        ARMED(S(300)),
                        EVAL(S(301), AUTO, false, false, "counting off until a counted read"),
                        TRIGGERED(S(310), IGNORED_READ, &R_CAT),
                        EVAL_WHY(S(310), AUTO, false, false, PRESSURE_ABOVE, REARM_HELD),
                        EVAL(S(311), AUTO, false, false, "re-arm held back until"),
                        EVAL_SAME(S(320), AUTO, false),
                        DEADLINE(S(320), S(330)),       /* the last arm + min_dwell */
                        EVAL_WHY(S(330), AUTO, false, false, REARM, REARM),
                        EVAL(S(330), AUTO, false, false, CAT " (an ignored reader) turned the kernel's auto on; re-arming"),
                        ARMED(S(330)),
                        EVAL_WHY(S(331), AUTO, false, false, PRESSURE_ABOVE, OFF_WAITING),
                        DEADLINE(S(331), INF),
                        END,
                },
        },
        {
                "patched auto: a trigger long after the arm is re-armed at once",
                CONFIG(AUTO, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        GO_OFF_AT_300_TO(AUTO),
                        ARMED(S(300)),
                        TRIGGERED(S(400), UNSEEN_READ, NULL),
                        EVAL_WHY(S(400), AUTO, false, false, REARM, REARM),
                        EVAL(S(400), AUTO, false, false, "a read no watch saw"),
                        END,
                },
        },
        {
                "patched auto: the daemon's own armed sample is re-armed without dwell",
                CONFIG(AUTO, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        GO_OFF_AT_300_TO(AUTO),
                        ARMED(S(300)),
                        TRIGGERED(S(301), ARMED_SAMPLE, NULL),
                        DEADLINE(S(301), S(300)),       /* due: at once */
                        EVAL_WHY(S(301), AUTO, false, false, REARM, REARM),
                        END,
                },
        },
        {
                "patched auto: a counted read while armed turns counting on, for linger",
                CONFIG(AUTO, NUMA_STATS_MODE, AUTO, FOLLOW),
                (const Step[]) {
                        GO_OFF_AT_300_TO(AUTO),
                        ARMED(S(300)),
                        TRIGGERED(S(350), READ, &R_NUMASTAT),
                        READ(S(350), NUMASTAT),
                        EVAL_WHY(S(350), STRICT, true, true, READ, ON_FOR_READ),
                        EVAL(BEFORE(650), STRICT, true, false, "held on by a counted read within linger"),
                        /* linger passed, pressure still: off again, which arms */
                        EVAL_WHY(S(650), AUTO, false, true, PRESSURE_ABOVE, OFF_FOR_PRESSURE),
                        END,
                },
        },
        {
                "off_mode=coarse: a trigger means nothing (coarse does not trigger)",
                CONFIG(AUTO, NUMA_STATS_MODE, COARSE, FOLLOW),
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "policy auto"),
                        EVAL(S(300), COARSE, false, true, "counting off"),
                        TRIGGERED(S(310), IGNORED_READ, &R_CAT),
                        EVAL_WHY(S(311), COARSE, false, false, PRESSURE_ABOVE, OFF_WAITING),
                        END,
                },
        },
        {
                "a hold keeps counting on under pressure past linger; its release does not linger", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        HOLDS(S(100), 1, &R_NUMASTAT, "bench\nrun"),
                        EVAL(S(300), STRICT, true, false,
                             "held on by a hold by numastat (pid 4242, uid 1000, session-3.scope) for \"bench\\nrun\""),
                        DEADLINE(S(300), INF),
                        EVAL(S(5000), STRICT, true, false, "a hold by numastat"),
                        HOLDS(S(5000), 0, NULL, NULL),
                        DEADLINE(S(5000), S(300)),      /* past: due at once */
                        EVAL(S(5000), COARSE, false, true, "no counted read for 5min (last: none since start-up)"),
                        END,
                },
        },
        {
                "a hold turns counting on at once, whatever the dwell", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        HOLDS(S(301), 1, &R_CAT, ""),
                        DEADLINE(S(301), S(300)),
                        EVAL_WHY(S(301), STRICT, true, true, HOLD, ON_FOR_HOLD),
                        EVAL_LACKS(S(302), STRICT, true, false, "a hold by cat (pid 1, uid 0, init.scope)", " for "),
                        END,
                },
        },
        {
                "a periodic reader expected again holds counting on past linger, until its time", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        READ(S(100), NUMASTAT),
                        EXPECT(S(100), S(860), &R_NUMASTAT, S(600)),
                        EVAL(S(400), STRICT, true, false, NUMASTAT ", which reads every 10min, expected again by"),
                        DEADLINE(S(400), S(860)),
                        EVAL(BEFORE(860), STRICT, true, false, "which reads every 10min"),
                        EVAL(S(860), COARSE, false, true, "counting off"),
                        END,
                },
        },
        {
                "a reader with a learned period holds counting on until its missed read, not for linger",
                AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        READ(S(400), NUMASTAT),
                        EVAL_WHY(S(400), STRICT, true, true, READ, ON_FOR_READ),
                        READ(S(410), NUMASTAT),
                        READ(S(420), NUMASTAT),
                        READ(S(430), NUMASTAT),
                        /* Learned: none of its reads lingers; the start's is long past. */
                        LINGER(S(430), 0, NULL),
                        EXPECT(S(430), S(442), &R_NUMASTAT, S(10)),
                        DEADLINE(S(430), S(442)),
                        EVAL(S(435), STRICT, true, false, NUMASTAT ", which reads every 10s, expected again by"),
                        EVAL(BEFORE(442), STRICT, true, false, "which reads every 10s"),
                        EXPECT(S(442), 0, NULL, 0),
                        EVAL(S(442), COARSE, false, true,
                             "(last: none since start-up); since, only reads by readers with a learned period, none due (last: "
                             NUMASTAT ")"),
                        /* Its next read, late, turns counting on again. */
                        READ(S(450), NUMASTAT),
                        EVAL_WHY(S(450), STRICT, true, true, READ, ON_FOR_READ),
                        END,
                },
        },
        {
                "a hold's command's last read needs no linger, and the switch off says so, not a learned period",
                AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        HOLDS(S(400), 1, &R_CAT, "bench"),
                        EVAL_WHY(S(400), STRICT, true, true, HOLD, ON_FOR_HOLD),
                        READ(S(410), NUMASTAT),
                        HELD_READ(S(410), NUMASTAT),
                        /* The reader table: its reads do not linger. */
                        LINGER(S(410), 0, NULL),
                        HOLDS(S(440), 0, NULL, NULL),
                        EVAL_LACKS(S(440), COARSE, false, true,
                                   "; since, only reads that need no linger, the last by a hold's own command (last: "
                                   NUMASTAT ")",
                                   "learned period"),
                        /* A later read by anyone else is not the hold's. */
                        READ(S(450), NUMASTAT),
                        EVAL_WHY(S(450), STRICT, true, true, READ, ON_FOR_READ),
                        LINGER(S(450), 0, NULL),
                        EXPECT(S(450), S(460), &R_NUMASTAT, S(10)),
                        EXPECT(S(460), 0, NULL, 0),
                        EVAL_LACKS(S(490), COARSE, false, true, "learned period, none due (last: " NUMASTAT ")",
                                   "a hold's own command"),
                        END,
                },
        },
        {
                "the reader table cannot withdraw the start's linger", AUTO_DEFAULTS,
                (const Step[]) {
                        RATE(0, 150000),
                        EVAL(0, STRICT, true, false, "policy auto"),
                        READ(S(10), NUMASTAT),
                        LINGER(S(10), 0, NULL),
                        DEADLINE(S(10), S(300)),
                        EVAL(BEFORE(300), STRICT, true, false, "start-up, which counts as one"),
                        EVAL(S(300), COARSE, false, true, "counting off"),
                        END,
                },
        },
        {
                "a reader of unknown pace lingers, though a periodic one read after it", AUTO_DEFAULTS,
                (const Step[]) {
                        GO_OFF_AT_300,
                        READ(S(400), CAT),
                        EVAL_WHY(S(400), STRICT, true, true, READ, ON_FOR_READ),
                        READ(S(450), NUMASTAT),
                        LINGER(S(450), S(400), &R_CAT),
                        EVAL(BEFORE(700), STRICT, true, false, "(last: " CAT ")"),
                        EVAL(S(700), COARSE, false, true, "(last: " CAT ")"),
                        END,
                },
        },
};

static void run_scenario(const Scenario *sc) {
        PolicyConfig c = sc->config;
        char prev[REASON_MAX] = "";
        PolicyState s;

        policy_init(&s, T0);

        for (const Step *st = sc->steps; st->what != STEP_END; st++) {
                usec_t now = T0 + st->t;
                char at[256], name[512];
                Decision d;

                snprintf(at, sizeof at, "%s, t=%.6fs", sc->name, (double) st->t / USEC_PER_SEC);

                switch (st->what) {
                case STEP_READ:
                        policy_on_counted_read(&s, now, st->reader);
                        break;
                case STEP_RATE:
                        policy_on_rate(&s, now, st->rate, st->split ? st->interval_rate : st->rate);
                        break;
                case STEP_ARMED:
                        policy_on_armed(&s, now);
                        break;
                case STEP_TRIGGERED:
                        policy_on_triggered(&s, st->cause, st->reader);
                        break;
                case STEP_HOLDS:
                        policy_set_holds(&s, st->holds, st->reader, st->text);
                        break;
                case STEP_EXPECT:
                        policy_set_expected(&s, st->until ? T0 + st->until : 0, st->reader, st->period);
                        break;
                case STEP_LINGER:
                        policy_set_linger_from(&s, st->until ? T0 + st->until : 0, st->reader);
                        break;
                case STEP_HELD_READ:
                        policy_on_held_read(&s, st->reader);
                        break;
                case STEP_RELOAD:
                        if (st->coarse_above)
                                c.coarse_above = st->coarse_above;
                        if (st->strict_below)
                                c.strict_below = st->strict_below;
                        if (st->sustain)
                                c.sustain = st->sustain;
                        c.policy_source = CAUSE_RELOAD;
                        policy_resume(&s);
                        break;
                case STEP_EXTERNAL:
                        policy_on_external_change(&s, &c, now, st->found, st->expected);
                        break;
                case STEP_RESUME:
                        policy_resume(&s);
                        break;
                case STEP_SET_POLICY:
                        c.policy = st->policy;
                        c.policy_source = CAUSE_OPERATOR;
                        break;
                case STEP_DEADLINE:
                        snprintf(name, sizeof name, "%s: next deadline", at);
                        is_u64(policy_next_deadline(&s, &c), st->deadline == INF ? INF : T0 + st->deadline, name);
                        break;
                case STEP_EVAL: {
                        bool before = s.counting, had = s.have_decision;

                        policy_evaluate(&s, &c, now, &d);
                        snprintf(name, sizeof name, "%s: mode %s", at, kernel_mode_to_string(st->mode));
                        is_int(d.mode, st->mode, name);
                        snprintf(name, sizeof name, "%s: counting %s", at, st->counting ? "on" : "off");
                        is_int(s.counting, st->counting, name);
                        /* The first evaluation sets the kernel from an unknown past: not a switch. */
                        snprintf(name, sizeof name, "%s: %s", at, st->switched ? "switched" : "no switch");
                        is_int(had && before != s.counting, st->switched, name);
                        if (st->cause >= 0) {
                                snprintf(name, sizeof name, "%s: cause %s", at, cause_to_string(st->cause));
                                is_str(cause_to_string(d.cause), cause_to_string(st->cause), name);
                        }
                        if (st->check_rule) {
                                snprintf(name, sizeof name, "%s: rule %s", at, policy_rule_to_string(st->rule));
                                is_str(policy_rule_to_string(d.rule), policy_rule_to_string(st->rule), name);
                        }
                        if (st->text)
                                ok(strstr(d.reason, st->text), "%s: reason has \"%s\"%s%s", at, st->text,
                                   strstr(d.reason, st->text) ? "" : "; got: ", strstr(d.reason, st->text) ? "" : d.reason);
                        if (st->lacks)
                                ok(!strstr(d.reason, st->lacks), "%s: reason lacks \"%s\": %s", at, st->lacks, d.reason);
                        if (st->same_reason) {
                                snprintf(name, sizeof name, "%s: reason unchanged", at);
                                is_str(d.reason, prev, name);
                        }
                        memcpy(prev, d.reason, sizeof prev);
                        break;
                }
                default:
                        ok(false, "%s: bad step %d", at, st->what);
                }
        }
}

static void test_scenarios(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++)
                run_scenario(&scenarios[i]);
}

/* Strict, coarse and no backend: what the operator (or the kernel) says,
 * under pressure and without readers, whenever asked. */
static void test_fixed_policies(void) {
        static const Policy policies[] = { POLICY_STRICT, POLICY_COARSE, POLICY_AUTO };

        for (BackendKind b = 0; b < _BACKEND_MAX; b++)
                for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                        PolicyConfig c = AUTO_DEFAULTS;
                        KernelMode want;
                        const char *has;
                        bool counting;
                        PolicyState s;
                        char name[256];

                        c.backend = b;
                        c.policy = policies[i];
                        if (b == BACKEND_NONE)
                                want = KERNEL_MODE_UNKNOWN, counting = true, has = "observing only";
                        else if (c.policy == POLICY_STRICT)
                                want = KERNEL_MODE_STRICT, counting = true, has = "policy strict: NUMA counters always kept";
                        else if (c.policy == POLICY_COARSE)
                                want = KERNEL_MODE_COARSE, counting = false, has = "policy coarse: NUMA counters never kept";
                        else
                                continue;       /* auto: the scenarios */

                        policy_init(&s, T0);
                        policy_on_rate(&s, T0, 500000, 500000);
                        for (usec_t t = 0; t <= S(1000); t += S(500)) {
                                Decision d;

                                policy_evaluate(&s, &c, T0 + t, &d);
                                snprintf(name, sizeof name, "policy %s on %s at %" PRIu64 "s → %s",
                                         policy_to_string(c.policy), backend_kind_to_string(b),
                                         t / USEC_PER_SEC, kernel_mode_to_string(want));
                                is_int(d.mode, want, name);
                                is_int(s.counting, counting, "  counting");
                                ok(s.last_switch == T0, "  no switch");
                                ok(strstr(d.reason, has), "  reason: %s", d.reason);
                                is_u64(policy_next_deadline(&s, &c), INF, "  no deadline");
                        }
                }
}

static void test_on_off_modes(void) {
        static const struct {
                BackendKind backend;
                OffMode off_mode;
                KernelMode off, on;
        } cases[] = {
                { BACKEND_NUMA_STATS_MODE, OFF_MODE_AUTO, KERNEL_MODE_AUTO, KERNEL_MODE_STRICT },
                { BACKEND_NUMA_STATS_MODE, OFF_MODE_COARSE, KERNEL_MODE_COARSE, KERNEL_MODE_STRICT },
                { BACKEND_VMSTAT_MODE, OFF_MODE_AUTO, KERNEL_MODE_AUTO, KERNEL_MODE_STRICT },
                { BACKEND_VMSTAT_MODE, OFF_MODE_COARSE, KERNEL_MODE_COARSE, KERNEL_MODE_STRICT },
                /* mainline has no auto: off_mode does not apply */
                { BACKEND_NUMA_STAT, OFF_MODE_AUTO, KERNEL_MODE_COARSE, KERNEL_MODE_STRICT },
                { BACKEND_NUMA_STAT, OFF_MODE_COARSE, KERNEL_MODE_COARSE, KERNEL_MODE_STRICT },
                { BACKEND_NONE, OFF_MODE_AUTO, KERNEL_MODE_UNKNOWN, KERNEL_MODE_UNKNOWN },
                { BACKEND_NONE, OFF_MODE_COARSE, KERNEL_MODE_UNKNOWN, KERNEL_MODE_UNKNOWN },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                PolicyConfig c = { .policy = POLICY_AUTO, .backend = cases[i].backend, .off_mode = cases[i].off_mode };
                char name[128];

                snprintf(name, sizeof name, "off mode on %s with off_mode=%s: %s",
                         backend_kind_to_string(cases[i].backend), off_mode_to_string(cases[i].off_mode),
                         kernel_mode_to_string(cases[i].off));
                is_int(policy_off_mode(&c), cases[i].off, name);
                snprintf(name, sizeof name, "on mode on %s: %s", backend_kind_to_string(cases[i].backend),
                         kernel_mode_to_string(cases[i].on));
                is_int(policy_on_mode(&c), cases[i].on, name);
        }
}

/* Counts switches over a rate pattern, sampled and evaluated every second. */
static unsigned count_switches(bool start_off, double (*rate)(unsigned t), usec_t *ret_first, bool *ret_counting) {
        PolicyConfig c = AUTO_DEFAULTS;
        PolicyState s;
        unsigned n = 0;
        usec_t base = T0;
        Decision d;

        *ret_first = INF;
        *ret_counting = !start_off;
        policy_init(&s, T0);
        if (start_off) {
                /* Go off under steady pressure first, then play the pattern. */
                policy_on_rate(&s, T0, 150000, 150000);
                policy_evaluate(&s, &c, T0, &d);
                policy_evaluate(&s, &c, T0 + S(300), &d);
                if (s.counting)
                        return UINT32_MAX;
                base = T0 + S(300);
        }
        for (unsigned t = 1; t <= 1200; t++) {
                bool before = s.counting;

                policy_on_rate(&s, base + S(t), rate(t), rate(t));
                policy_evaluate(&s, &c, base + S(t), &d);
                if (before != s.counting && n++ == 0)
                        *ret_first = S(t);
        }
        *ret_counting = s.counting;
        return n;
}

static double rate_alternating_coarse(unsigned t) {
        return t % 2 ? 105000 : 95000;
}
static double rate_dip_every_10s(unsigned t) {
        return t % 10 == 9 ? 99000 : 150000;
}
static double rate_steady_high(unsigned t) {
        return 150000;
}
static double rate_alternating_strict(unsigned t) {
        return t % 2 ? 19000 : 21000;
}
static double rate_dip_below_every_10s(unsigned t) {
        return t % 10 == 9 ? 20500 : 1000;
}
static double rate_steady_low(unsigned t) {
        return 1000;
}

static void test_noisy_rate(void) {
        usec_t first;
        bool counting;

        is_int(count_switches(false, rate_alternating_coarse, &first, &counting), 0,
               "rate alternating around coarse_above every second: never off");
        is_int(counting, true, "  still counting");
        is_int(count_switches(false, rate_dip_every_10s, &first, &counting), 0,
               "rate above for 9s, dipping 1s, for 20min: sustain never holds, never off");
        is_int(counting, true, "  still counting");
        /* The control: without the dips it does go off, at linger. */
        is_int(count_switches(false, rate_steady_high, &first, &counting), 1, "steady high rate: one switch");
        is_u64(first, S(300), "  at linger");
        is_int(counting, false, "  counting off");

        is_int(count_switches(true, rate_alternating_strict, &first, &counting), 0,
               "rate alternating around strict_below while off: never on");
        is_int(counting, false, "  still off");
        is_int(count_switches(true, rate_dip_below_every_10s, &first, &counting), 0,
               "rate below for 9s, back up 1s, while off: never on");
        is_int(counting, false, "  still off");
        is_int(count_switches(true, rate_steady_low, &first, &counting), 1, "steady low rate while off: one switch");
        is_u64(first, S(30), "  after min_dwell (sustain was 10s)");
        is_int(counting, true, "  counting on");
}

/* CLOCK_MONOTONIC could start at 0 in a test; 0 must not read as "not above". */
static void test_rate_at_time_zero(void) {
        PolicyConfig c = AUTO_DEFAULTS;
        PolicyState s;
        Decision d;

        policy_init(&s, 0);
        policy_on_rate(&s, 0, 150000, 150000);
        ok(rate_history_above_since(&s.rates, (double) c.coarse_above) != 0, "a rate above at time 0 is remembered as above");
        is_u64(policy_next_deadline(&s, &c), S(300), "deadline from time 0: linger");
        policy_evaluate(&s, &c, S(300), &d);
        is_int(d.mode, KERNEL_MODE_COARSE, "off at linger from time 0");
}

/* Without reader detection nobody would see a reader come: never off. */
static void test_readers_blind(void) {
        PolicyConfig c = AUTO_DEFAULTS;
        PolicyState s;
        Decision d;

        c.readers_unseen = true;
        policy_init(&s, T0);
        policy_on_rate(&s, T0 + S(1), 500000, 500000);
        policy_evaluate(&s, &c, T0 + S(3600), &d);
        is_int(d.mode, KERNEL_MODE_STRICT, "blind: an hour of pressure and no read, still strict");
        ok(strstr(d.reason, "reader detection unavailable"), "  reason says why: %s", d.reason);
        is_u64(policy_next_deadline(&s, &c), INF, "  no deadline to wait for");
        c.readers_unseen = false;
        policy_evaluate(&s, &c, T0 + S(3601), &d);
        is_int(d.mode, KERNEL_MODE_COARSE, "control: the same with reader detection goes off");
}

/* A read stamped with the very time of the switch off (one event-loop turn,
 * one µs) still turns counting back on: the safe side. */
static void test_read_at_switch_time(void) {
        PolicyConfig c = AUTO_DEFAULTS;
        PolicyState s;
        Decision d;

        c.linger = 0;
        c.min_dwell = 0;
        c.sustain = S(1);
        policy_init(&s, T0);
        policy_on_rate(&s, T0, 500000, 500000);
        policy_evaluate(&s, &c, T0 + S(1), &d);
        is_int(d.mode, KERNEL_MODE_COARSE, "off after sustain with linger 0");
        policy_on_counted_read(&s, T0 + S(1), &R_CAT);
        is_u64(policy_next_deadline(&s, &c), T0 + S(1), "  a read at the switch's time is due at once");
        policy_evaluate(&s, &c, T0 + S(1), &d);
        is_int(d.mode, KERNEL_MODE_STRICT, "  and turns counting back on");
        ok(s.last_switch == T0 + S(1) && s.counting, "  as a switch");
        is_str(cause_to_string(d.cause), "read", "  caused by a read");
        is_str(d.reader.comm, "cat", "  by the reader as data");
}

static void test_exit_mode(void) {
        is_int(policy_exit_mode(EXIT_MODE_STRICT, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE), KERNEL_MODE_STRICT,
               "exit strict leaves counting on even if it was off at start");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STAT, KERNEL_MODE_COARSE), KERNEL_MODE_COARSE,
               "exit previous restores what was found");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STATS_MODE, KERNEL_MODE_AUTO), KERNEL_MODE_AUTO,
               "exit previous restores patched auto");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STAT, KERNEL_MODE_AUTO), KERNEL_MODE_STRICT,
               "exit previous: mainline cannot be auto, falls back to strict");
        is_int(policy_exit_mode(EXIT_MODE_PREVIOUS, BACKEND_NUMA_STAT, KERNEL_MODE_UNKNOWN), KERNEL_MODE_STRICT,
               "previous unknown falls back to strict");
        is_int(policy_exit_mode(EXIT_MODE_STRICT, BACKEND_NONE, KERNEL_MODE_UNKNOWN), KERNEL_MODE_UNKNOWN,
               "nothing to restore without a backend");
}

int main(void) {
        test_scenarios();
        test_fixed_policies();
        test_on_off_modes();
        test_noisy_rate();
        test_rate_at_time_zero();
        test_readers_blind();
        test_read_at_switch_time();
        test_exit_mode();
        return tap_done();
}
