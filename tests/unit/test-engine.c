/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "engine.h"
#include "own-trace.h"
#include "macro.h"
#include "tap.h"

/* The engine on a fake clock, with a fake kernel: each scenario is a list of
 * timed events and of what they must have done. The harness does what the
 * manager does with the effects: carries out the writes on the fake sysctl
 * and feeds back each outcome, and takes a decision when one is asked for.
 * Times are seconds after the start; the clock starts at T0. */

#define T0 (1000 * USEC_PER_SEC)
#define S(x) ((usec_t) (x) * USEC_PER_SEC)
#define MS(x) ((usec_t) (x) * USEC_PER_MSEC)
#define INF USEC_INFINITY

static const ReaderRef R_NUMASTAT = {
        .pid = 4242, .has_uid = true, .uid = 1000, .comm = "numastat", .unit = "session-3.scope",
        .path = "/sys/devices/system/node/node1/numastat",
};
/* The same read as the rules first saw it: the process gone, no name yet. */
static const ReaderRef R_NUMASTAT_UNNAMED = {
        .pid = 4242, .path = "/sys/devices/system/node/node1/numastat",
};
static const ReaderRef R_TOP = {
        .pid = 77, .has_uid = true, .uid = 0, .comm = "top", .unit = "session-1.scope", .path = "/proc/vmstat",
};
/* numastatctl hold's command, and the hold's owner */
static const ReaderRef R_BENCH = {
        .pid = 501, .has_uid = true, .uid = 1000, .comm = "bench", .path = "/proc/vmstat",
};
static const ReaderRef R_HOLDER = { .pid = 500, .has_uid = true, .uid = 1000, .comm = "numastatctl" };

enum {
        STEP_END,
        STEP_READ,              /* a read judged and named (the same ReaderRef) */
        STEP_READ_NAMED_LATER,  /* a read judged unnamed; named after its switch */
        STEP_RATE,
        STEP_DECIDE,            /* a deadline */
        STEP_QUEUED,            /* read events are queued (or no longer) */
        STEP_SOMEONE_WRITES,    /* someone else writes the sysctl */
        STEP_FAIL_WRITES,       /* the sysctl refuses writes (or again takes them) */
        STEP_LOG_TRIGGER,       /* the kernel logs its auto's trigger */
        STEP_SETTLED,           /* ...and no read claimed it */
        STEP_ARMED_SAMPLE,      /* our own sample reads the armed auto */
        STEP_HOLDS,
        STEP_SET_POLICY,
        STEP_RELOAD,
        STEP_REJUDGE,           /* a reload's rules ignore reader n now */
        /* What the last event did, all told: */
        STEP_WROTE,             /* the writes, in order ("coarse auto"; "" none) */
        STEP_KERNEL,            /* the kernel as the engine knows it, formatted */
        STEP_RECORD,            /* a transition of kind and cause, its reason has text */
        STEP_NO_RECORD,
        STEP_DEFERRED,          /* a decision is due right after the queued reads */
        STEP_SETTLE,            /* the settle timer at t (since the start, or INF) */
        STEP_ARMED_AT,          /* the next armed sample at t */
        STEP_COUNTS,            /* arms, rearms, triggers, armed samples */
        STEP_REASON,            /* the decision's reason has text */
        STEP_TABLE,             /* the reader table: n entries, of which the first has this period (s) */
        STEP_HISTORY,           /* n transitions in the history, the last at t */
        STEP_LEDGER,            /* pages allocated with counting on and off (1000 a second, from T0) */
        STEP_ON_TIME,           /* seconds counting was on and off, up to the last event */
        STEP_COST,              /* seconds under pressure, of those counting on, and reader n's held_on */
        STEP_NEEDED,            /* the own trace's slot at t needed counting on (flag) */
};

typedef struct Step {
        int what;
        usec_t t;
        double rate;
        const ReaderRef *reader;
        bool counts, flag;
        unsigned n;
        KernelMode mode;
        Policy policy;
        TransitionKind kind;
        Cause cause;
        const char *text;
        uint64_t counters[4];
        uint64_t coarse_above;
} Step;

#define READ(t_, who) { .what = STEP_READ, .t = (t_), .reader = &R_##who, .counts = true }
#define IGNORED_READ(t_, who) { .what = STEP_READ, .t = (t_), .reader = &R_##who, .counts = false }
#define HELD_READ(t_, who) { .what = STEP_READ, .t = (t_), .reader = &R_##who, .counts = true, .flag = true }
#define READ_NAMED_LATER(t_) { .what = STEP_READ_NAMED_LATER, .t = (t_), .counts = true }
#define RATE(t_, r) { .what = STEP_RATE, .t = (t_), .rate = (r) }
#define DECIDE(t_) { .what = STEP_DECIDE, .t = (t_) }
#define QUEUED(on) { .what = STEP_QUEUED, .flag = (on) }
#define SOMEONE_WRITES(m) { .what = STEP_SOMEONE_WRITES, .mode = KERNEL_MODE_##m }
#define FAIL_WRITES(on) { .what = STEP_FAIL_WRITES, .flag = (on) }
#define LOG_TRIGGER(t_) { .what = STEP_LOG_TRIGGER, .t = (t_) }
#define SETTLED(t_) { .what = STEP_SETTLED, .t = (t_) }
#define ARMED_SAMPLE(t_, confirmed) { .what = STEP_ARMED_SAMPLE, .t = (t_), .flag = (confirmed) }
#define HOLDS(t_, n_, who) { .what = STEP_HOLDS, .t = (t_), .n = (n_), .reader = (who) }
#define SET_POLICY(t_, p) { .what = STEP_SET_POLICY, .t = (t_), .policy = POLICY_##p }
#define RELOAD(t_, above) { .what = STEP_RELOAD, .t = (t_), .coarse_above = (above) }
#define REJUDGE_IGNORED(t_, i) { .what = STEP_REJUDGE, .t = (t_), .n = (i) }
#define WROTE(w) { .what = STEP_WROTE, .text = (w) }
#define KERNEL(k) { .what = STEP_KERNEL, .text = (k) }
#define RECORD(k, c, has) { .what = STEP_RECORD, .kind = TRANSITION_##k, .cause = CAUSE_##c, .text = (has) }
#define NO_RECORD { .what = STEP_NO_RECORD }
#define DEFERRED { .what = STEP_DEFERRED }
#define SETTLE(t_) { .what = STEP_SETTLE, .t = (t_) }
#define ARMED_AT(t_) { .what = STEP_ARMED_AT, .t = (t_) }
#define COUNTS(a, ra, tr, sa) { .what = STEP_COUNTS, .counters = { (a), (ra), (tr), (sa) } }
#define REASON(has) { .what = STEP_REASON, .text = (has) }
#define HISTORY(n_, t_) { .what = STEP_HISTORY, .n = (n_), .t = (t_) }
#define TABLE(n_, period_s) { .what = STEP_TABLE, .n = (n_), .t = S(period_s) }
#define LEDGER(on, off) { .what = STEP_LEDGER, .counters = { (on), (off) } }
#define ON_TIME(on, off) { .what = STEP_ON_TIME, .counters = { (on), (off) } }
#define NEEDED(t_, yes) { .what = STEP_NEEDED, .t = (t_), .flag = (yes) }
#define NO_READER 999
#define COST(p, on, i, held) { .what = STEP_COST, .n = (i), .counters = { (p), (on), (held) } }
#define END { .what = STEP_END }

#define CONFIG(b, ext, log)                                                             \
        {                                                                               \
                .backend = BACKEND_##b, .sysctl_path = "/proc/sys/vm/numa_stats_mode",  \
                .off_mode = OFF_MODE_AUTO, .on_external_change = EXTERNAL_CHANGE_##ext, \
                .min_dwell = S(30), .linger = S(300), .sustain = S(10), .coarse_above = 100000, \
                .strict_below = 20000, .armed_interval = S(60), .linger_max = S(3600), \
                .kernel_log = (log), \
        }

typedef struct Scenario {
        const char *name;
        EngineConfig config;
        KernelMode found;       /* the sysctl at start-up */
        const Step *steps;
} Scenario;

/* The fake kernel and what the last event did. */
typedef struct World {
        Engine *engine;
        EngineConfig config;
        KernelMode sysctl;
        bool fail, queued;
        char wrote[128];
        const Transition *records[8];   /* in the engine's history */
        size_t n_records;
        bool deferred, settle_set, armed_set;
        usec_t settle_at, armed_at;
        usec_t now;                     /* the last event's */
} World;

/* The fake kernel allocates 1000 pages a second. */
static uint64_t pgalloc_at(usec_t now) {
        return (now - T0) / USEC_PER_MSEC;
}

static void feed(World *w, const EngineEvent *ev, usec_t now);

/* What the manager does with the effects (manager-apply.c). */
static void carry_out(World *w, EngineEffects *fx, usec_t now) {
        for (size_t i = 0; i < fx->n_records && w->n_records < ELEMENTSOF(w->records); i++)
                w->records[w->n_records++] = fx->records[i];
        w->deferred |= fx->deadline_now;
        if (fx->set_settle) {
                w->settle_set = true;
                w->settle_at = fx->settle_at;
        }
        if (fx->set_armed_sample) {
                w->armed_set = true;
                w->armed_at = fx->armed_sample_at;
        }
        if (fx->plan.kind == KERNEL_PLAN_WRITES) {
                for (size_t i = 0; i < fx->plan.n_writes; i++) {
                        KernelMode mode = fx->plan.writes[i].mode;

                        if (w->fail) {
                                feed(w, &(EngineEvent) { .type = ENGINE_EVENT_WRITE_FAILED, .mode = w->sysctl }, now);
                                break;
                        }
                        w->sysctl = mode;
                        snprintf(w->wrote + strlen(w->wrote), sizeof w->wrote - strlen(w->wrote), "%s%s",
                                 w->wrote[0] ? " " : "", kernel_mode_to_string(mode));
                        feed(w, &(EngineEvent) { .type = ENGINE_EVENT_WRITTEN, .mode = mode }, now);
                }
                feed(w, &(EngineEvent) { .type = ENGINE_EVENT_PLAN_DONE }, now);
        }
        if (fx->allocated_wanted)
                /* Not while an armed auto would take our read for a reader's. */
                feed(w,
                     &(EngineEvent) { .type = ENGINE_EVENT_ALLOCATED,
                                      .has_pgalloc = engine_may_read_stats(w->engine),
                                      .pgalloc = pgalloc_at(now) },
                     now);
        if (fx->decide)
                feed(w, &(EngineEvent) { .type = ENGINE_EVENT_DECIDE, .found = w->sysctl, .reads_queued = w->queued },
                     now);
}

static void feed(World *w, const EngineEvent *ev, usec_t now) {
        EngineEvent stamped = *ev;
        EngineEffects fx;

        stamped.realtime = now;         /* the wall clock, as fake as the other */
        w->now = now;
        engine_feed(w->engine, &stamped, now, &fx);
        carry_out(w, &fx, now);
}

/* A read named in full, as the manager tells it: its identity, its
 * verdict (no rule: it counts; else an ignore rule), and when it came. */
static void name(World *w, const ReaderRef *r, bool counts, bool by_holder, usec_t now) {
        ReaderIdentity id = {
                .comm = r->comm[0] ? r->comm : NULL,
                .unit = r->unit[0] ? r->unit : NULL,
                .has_uid = r->has_uid,
                .uid = r->uid,
                .path = r->path,
        };
        ReaderVerdict v = {
                .counts = counts,
                .verdict = counts ? READ_VERDICT_UNKNOWN : READ_VERDICT_IGNORE_RULE,
                .rule = counts ? NULL : "comm=top",
        };

        feed(w,
             &(EngineEvent) { .type = ENGINE_EVENT_READER_NAMED,
                              .reader = *r,
                              .identity = &id,
                              .pid = r->pid,
                              .verdict = &v,
                              .clock = { .mono = now, .realtime = now, .counting = engine_counting(w->engine),
                                         .by_holder = by_holder } },
             now);
}

static void forget(World *w) {
        w->wrote[0] = '\0';
        w->n_records = 0;
        w->deferred = w->settle_set = w->armed_set = false;
}

static const char *kind_name(TransitionKind k) {
        return transition_kind_to_string(k);
}

static void check(World *w, const Step *st, const char *at) {
        char name[512], buf[256];
        EngineCounts c;

        switch (st->what) {
        case STEP_WROTE:
                snprintf(name, sizeof name, "%s: wrote \"%s\"", at, st->text);
                is_str(w->wrote, st->text, name);
                break;
        case STEP_KERNEL:
                kernel_state_format(engine_kernel(w->engine), buf, sizeof buf);
                snprintf(name, sizeof name, "%s: kernel %s", at, st->text);
                is_str(buf, st->text, name);
                break;
        case STEP_RECORD: {
                bool found = false;

                for (size_t i = 0; i < w->n_records; i++) {
                        const Transition *r = w->records[i];

                        found |= r->kind == st->kind && r->cause == st->cause && r->reason &&
                                 strstr(r->reason, st->text);
                }
                ok(found, "%s: recorded %s, cause %s, \"%s\"", at, kind_name(st->kind), cause_to_string(st->cause),
                   st->text);
                for (size_t i = 0; !found && i < w->n_records; i++)
                        printf("#   got %s, cause %s: %s\n", kind_name(w->records[i]->kind),
                               cause_to_string(w->records[i]->cause), strnull(w->records[i]->reason));
                break;
        }
        case STEP_NO_RECORD:
                snprintf(name, sizeof name, "%s: nothing recorded", at);
                is_int(w->n_records, 0, name);
                break;
        case STEP_DEFERRED:
                ok(w->deferred, "%s: decided again right after the queued reads", at);
                break;
        case STEP_SETTLE:
                ok(w->settle_set && w->settle_at == (st->t == INF ? INF : T0 + st->t), "%s: settle timer at %s", at,
                   st->t == INF ? "never" : "t");
                break;
        case STEP_ARMED_AT:
                ok(w->armed_set && w->armed_at == (st->t == INF ? INF : T0 + st->t), "%s: next armed sample", at);
                break;
        case STEP_COUNTS:
                c = engine_counts(w->engine);
                snprintf(name, sizeof name, "%s: arms, re-arms, triggers, armed samples", at);
                snprintf(buf, sizeof buf, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, c.arms, c.rearms, c.triggers,
                         c.armed_samples);
                {
                        char want[128];

                        snprintf(want, sizeof want, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, st->counters[0],
                                 st->counters[1], st->counters[2], st->counters[3]);
                        is_str(buf, want, name);
                }
                break;
        case STEP_REASON: {
                const char *reason = engine_decision(w->engine)->reason;

                ok(strstr(reason, st->text), "%s: reason has \"%s\"%s%s", at, st->text,
                   strstr(reason, st->text) ? "" : "; got: ", strstr(reason, st->text) ? "" : reason);
                break;
        }
        case STEP_HISTORY: {
                const History *h = engine_history(w->engine);

                snprintf(name, sizeof name, "%s: %u transition(s) in the history", at, st->n);
                is_u64(h->total, st->n, name);
                snprintf(name, sizeof name, "%s: the last one at its event's wall-clock time", at);
                is_u64(h->n > 0 ? history_at(h, h->n - 1)->time : 0, T0 + st->t, name);
                break;
        }
        case STEP_TABLE: {
                const ReaderTable *t = engine_readers(w->engine);

                snprintf(name, sizeof name, "%s: %u reader(s) in the table", at, st->n);
                is_int(t->n, st->n, name);
                snprintf(name, sizeof name, "%s: the first one's period", at);
                is_u64(t->n > 0 ? t->entries[0].period : 0, st->t, name);
                break;
        }
        case STEP_LEDGER: {
                const Ledger *l = engine_ledger(w->engine);

                snprintf(name, sizeof name, "%s: pages allocated with counting on", at);
                is_u64(l->pages_on, st->counters[0], name);
                snprintf(name, sizeof name, "%s: ...and off", at);
                is_u64(l->pages_off, st->counters[1], name);
                break;
        }
        case STEP_ON_TIME: {
                uint64_t on, off;

                on_time_totals(engine_on_time(w->engine), w->now, &on, &off);
                snprintf(name, sizeof name, "%s: time counting was on (s)", at);
                is_u64(on, S(st->counters[0]), name);
                snprintf(name, sizeof name, "%s: ...and off (s)", at);
                is_u64(off, S(st->counters[1]), name);
                break;
        }
        case STEP_COST: {
                const ReaderTable *t = engine_readers(w->engine);

                snprintf(name, sizeof name, "%s: time under pressure (s)", at);
                is_u64(t->pressured, S(st->counters[0]), name);
                snprintf(name, sizeof name, "%s: ...of which counting on (s)", at);
                is_u64(t->pressured_on, S(st->counters[1]), name);
                snprintf(name, sizeof name, "%s: reader %u held counting on (s)", at, st->n);
                if (st->n != NO_READER)
                        is_u64(st->n < t->n ? t->entries[st->n].held_on : UINT64_MAX, S(st->counters[2]), name);
                else
                        ok(t->n == 0, "%s: no reader yet", at);
                break;
        }
        case STEP_NEEDED: {
                const OwnTrace *t = engine_own_trace(w->engine);

                ok(own_trace_needed_at(t, T0 + st->t) == st->flag,
                   "%s: the own trace's slot at %.0fs %s", at, (double) st->t / USEC_PER_SEC,
                   st->flag ? "needed counting on" : "did not need counting on");
                break;
        }
        default:
                ok(false, "%s: bad step %d", at, st->what);
        }
}

static void run_scenario(const Scenario *sc) {
        World w = { .config = sc->config, .sysctl = sc->found };
        int r;

        r = engine_new(&w.config, POLICY_AUTO, false, T0, &w.engine);
        if (!ok(r >= 0, "%s: engine_new", sc->name))
                return;
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_KERNEL_MODE, .mode = sc->found }, T0);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_START }, T0);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_DECIDE, .found = w.sysctl }, T0);

        for (const Step *st = sc->steps; st->what != STEP_END; st++) {
                usec_t now = T0 + st->t;
                char at[256];

                if (st->what >= STEP_WROTE) {
                        check(&w, st, at);
                        continue;
                }
                snprintf(at, sizeof at, "%s, step %zu at %.3fs", sc->name, (size_t) (st - sc->steps),
                         (double) st->t / USEC_PER_SEC);
                forget(&w);
                switch (st->what) {
                case STEP_READ:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_READ, .reader = *st->reader, .counts = st->counts },
                             now);
                        name(&w, st->reader, st->counts, st->flag, now);
                        break;
                case STEP_READ_NAMED_LATER:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_READ, .reader = R_NUMASTAT_UNNAMED, .counts = true },
                             now);
                                ok(strstr(engine_decision(w.engine)->reason, "pid 4242 (exited before"),
                           "%s: the switch is decided before the reader is named: %s", at, engine_decision(w.engine)->reason);
                        name(&w, &R_NUMASTAT, true, false, now);
                        break;
                case STEP_RATE:
                        /* A sample: the pages allocated so far, then the rate (manager_hear_sample()). */
                        if (engine_may_read_stats(w.engine))
                                feed(&w,
                                     &(EngineEvent) { .type = ENGINE_EVENT_ALLOCATED,
                                                      .has_pgalloc = true,
                                                      .pgalloc = pgalloc_at(now) },
                                     now);
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_RATE, .rate = st->rate, .interval_rate = st->rate },
                             now);
                        break;
                case STEP_DECIDE:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_DECIDE, .found = w.sysctl, .reads_queued = w.queued },
                             now);
                        break;
                case STEP_QUEUED:
                        w.queued = st->flag;
                        break;
                case STEP_SOMEONE_WRITES:
                        w.sysctl = st->mode;
                        break;
                case STEP_FAIL_WRITES:
                        w.fail = st->flag;
                        break;
                case STEP_LOG_TRIGGER:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_KERNEL_LOG_TRIGGER }, now);
                        break;
                case STEP_SETTLED:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_TRIGGER_SETTLED }, now);
                        break;
                case STEP_ARMED_SAMPLE:
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_ARMED_SAMPLE }, now);
                        ok(engine_may_read_stats(w.engine), "%s: our sample may read", at);
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_ARMED_SAMPLE_DONE, .confirmed = st->flag }, now);
                        break;
                case STEP_HOLDS:
                        feed(&w,
                             &(EngineEvent) { .type = ENGINE_EVENT_HOLDS,
                                              .holds = st->n,
                                              .has_reader = st->reader != NULL,
                                              .reader = st->reader ? *st->reader : (ReaderRef) {},
                                              .hold_reason = st->reader ? "a benchmark" : NULL },
                             now);
                        break;
                case STEP_SET_POLICY:
                        feed(&w,
                             &(EngineEvent) { .type = ENGINE_EVENT_SET_POLICY,
                                              .policy = st->policy,
                                              .policy_source = CAUSE_OPERATOR },
                             now);
                        break;
                case STEP_RELOAD:
                        w.config.coarse_above = st->coarse_above;
                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_CONFIGURE, .config = &w.config }, now);
                        feed(&w,
                             &(EngineEvent) { .type = ENGINE_EVENT_SET_POLICY,
                                              .policy = engine_policy(w.engine),
                                              .policy_source = CAUSE_RELOAD },
                             now);
                        break;
                case STEP_REJUDGE: {
                        ReaderVerdict v = { .verdict = READ_VERDICT_IGNORE_RULE, .rule = "comm=top" };

                        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_REJUDGE, .index = st->n, .verdict = &v }, now);
                        break;
                }
                default:
                        ok(false, "%s: bad step %d", at, st->what);
                }
        }
        engine_free(w.engine);
}

/* Pressure from the start, nobody reads: counting goes off at 300 s. */
#define PRESSURE RATE(0, 150000), RATE(S(20), 150000)

static const Scenario scenarios[] = {
        {
                "the own trace marks what readers and holds needed on", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        /* A first read needs nothing: no policy could serve it. */
                        READ(S(100), NUMASTAT), NEEDED(S(100), false),
                        /* The second needs on from the first to it: slots 10 to 16. */
                        READ(S(165), NUMASTAT), NEEDED(S(95), false), NEEDED(S(100), true), NEEDED(S(130), true),
                        NEEDED(S(165), true), NEEDED(S(175), false),
                        /* An ignored reader needs nothing. */
                        IGNORED_READ(S(180), TOP), IGNORED_READ(S(195), TOP), NEEDED(S(185), false),
                        /* A hold from 200 s to 240 s (booked at each event). */
                        HOLDS(S(200), 1, &R_HOLDER), RATE(S(230), 1000), HOLDS(S(240), 0, NULL), RATE(S(300), 1000),
                        NEEDED(S(200), true), NEEDED(S(235), true), NEEDED(S(255), false),
                        END,
                },
        },
        {
                "each reader pays for the time its reads kept counting on under pressure",
                CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        /* Sustained from 10 s (sustain=10s): start-up's linger (no reader) keeps
                         * counting on until 300 s. */
                        PRESSURE, DECIDE(S(300)), WROTE("coarse"), COST(290, 290, NO_READER, 0),
                        /* Off until numastat reads: nobody pays for that. */
                        READ(S(400), NUMASTAT), WROTE("strict"), COST(390, 290, 0, 0),
                        RATE(S(410), 150000), COST(400, 300, 0, 10),
                        /* Two readers that each keep it on both pay. */
                        READ(S(420), TOP), RATE(S(500), 150000), COST(490, 390, 0, 100), COST(490, 390, 1, 80),
                        /* numastat's linger ends at 700 s, top's at 720 s: off then. */
                        RATE(S(710), 150000), COST(700, 600, 0, 300), DECIDE(S(720)), WROTE("coarse"), COST(710, 610, 0, 300), COST(710, 610, 1, 300),
                        RATE(S(800), 150000), COST(790, 610, 0, 300),
                        /* Below coarse_above from the sample at 810 s: nothing more booked. */
                        RATE(S(810), 1000), RATE(S(900), 1000), COST(800, 610, 1, 300),
                        END,
                },
        },
        {
                "the ledger books pages to the state they were allocated in", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        /* The first reading is the origin: nothing booked. */
                        PRESSURE, LEDGER(20000, 0),
                        /* Off at 300 s: the reading at the switch books 20..300 s to on. */
                        DECIDE(S(300)), WROTE("coarse"), LEDGER(300000, 0), ON_TIME(300, 0),
                        RATE(S(310), 150000), LEDGER(300000, 10000), ON_TIME(300, 10),
                        /* A read turns it on at 400 s: 310..400 s were off. */
                        READ(S(400), NUMASTAT), WROTE("strict"), LEDGER(300000, 100000), ON_TIME(300, 100),
                        RATE(S(410), 150000), LEDGER(310000, 100000), ON_TIME(310, 100),
                        END,
                },
        },
        {
                "off waits while reads are queued", CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        QUEUED(true),
                        DECIDE(S(300)), WROTE(""), NO_RECORD, DEFERRED, KERNEL("strict"),
                        /* The queued read was an ignored one: off, with the reason decided. */
                        IGNORED_READ(S(300) + 5, TOP), WROTE(""), NO_RECORD,
                        QUEUED(false),
                        DECIDE(S(300) + 10), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        KERNEL("coarse"),
                        END,
                },
        },
        {
                "off waits while reads are queued, and a counted one keeps counting on",
                CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        QUEUED(true),
                        DECIDE(S(300)), WROTE(""), DEFERRED,
                        READ(S(300) + 5, TOP), WROTE(""), NO_RECORD,
                        QUEUED(false),
                        DECIDE(S(300) + 10), WROTE(""), NO_RECORD, KERNEL("strict"),
                        DECIDE(S(605)), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "(last: top (pid 77"),
                        END,
                },
        },
        {
                "a kernel trigger no read claims", CONFIG(NUMA_STATS_MODE, FOLLOW, true), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse auto"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        KERNEL("auto (armed)"), ARMED_AT(S(360)), COUNTS(1, 0, 0, 0),
                        LOG_TRIGGER(S(310)), SETTLE(S(310) + MS(50)), NO_RECORD, KERNEL("auto (armed)"),
                        /* A read event in time claims it; none comes. */
                        SETTLED(S(310) + MS(50)), SETTLE(INF),
                        RECORD(KERNEL, UNSEEN_READ, "no watched file saw it"), COUNTS(1, 0, 1, 0),
                        HISTORY(2, S(310) + MS(50)),
                        /* Re-armed only min_dwell after the last arm. */
                        WROTE(""), REASON("re-arm"),
                        DECIDE(S(330)), WROTE("coarse auto"), KERNEL("auto (armed)"), COUNTS(2, 1, 1, 0),
                        END,
                },
        },
        {
                "a log trigger a read claims in time", CONFIG(NUMA_STATS_MODE, FOLLOW, true), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse auto"),
                        LOG_TRIGGER(S(310)), SETTLE(S(310) + MS(50)),
                        IGNORED_READ(S(310) + 10, TOP), SETTLE(INF),
                        RECORD(KERNEL, IGNORED_READ, "top (pid 77"), RECORD(KERNEL, IGNORED_READ, "log says so"),
                        SETTLED(S(310) + MS(50)), NO_RECORD, COUNTS(1, 0, 1, 0),
                        END,
                },
        },
        {
                "a read whose reader is named after its switch", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse"),
                        READ_NAMED_LATER(S(400)), WROTE("strict"),
                        RECORD(POLICY, READ, "numastat (pid 4242, uid 1000, session-3.scope) read"),
                        REASON("numastat (pid 4242"),
                        END,
                },
        },
        {
                "a hold released after its command's last read", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse"),
                        HOLDS(S(400), 1, &R_HOLDER), WROTE("strict"), RECORD(POLICY, HOLD, "a benchmark"),
                        HELD_READ(S(410), BENCH), WROTE(""),
                        HOLDS(S(420), 0, NULL), WROTE(""),
                        /* The command's reads do not linger past the hold. */
                        DECIDE(S(440)), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "a hold's own command"),
                        END,
                },
        },
        {
                "a reload that raises coarse_above turns counting back on", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse"),
                        RELOAD(S(400), 1000000), WROTE(""), REASON("counting off until a counted read"),
                        REASON("between strict_below=20000 and coarse_above=1000000"),
                        RATE(S(401), 15000), RATE(S(412), 15000),
                        DECIDE(S(412)), WROTE("strict"), RECORD(POLICY, PRESSURE_BELOW, "below strict_below"),
                        END,
                },
        },
        {
                "a reload whose rules ignore a reader it lingered for", CONFIG(NUMA_STAT, FOLLOW, false),
                KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        READ(S(100), TOP),
                        DECIDE(S(300)), WROTE(""), REASON("top (pid 77"),
                        /* Its read lingered until 400; ignored now, it holds nothing. */
                        REJUDGE_IGNORED(S(310), 0), WROTE(""),
                        DECIDE(S(320)), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        END,
                },
        },
        {
                "an external change under follow", CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse"),
                        SOMEONE_WRITES(STRICT),
                        DECIDE(S(310)), WROTE(""), RECORD(EXTERNAL, EXTERNAL, "changed from coarse to strict"),
                        REASON("following the admin"), KERNEL("strict"),
                        DECIDE(S(900)), WROTE(""), NO_RECORD,
                        SET_POLICY(S(901), AUTO), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        END,
                },
        },
        {
                "an external change under override", CONFIG(NUMA_STAT, OVERRIDE, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse"),
                        SOMEONE_WRITES(STRICT),
                        DECIDE(S(310)), RECORD(EXTERNAL, EXTERNAL, "changed from coarse to strict"),
                        WROTE("coarse"), RECORD(POLICY, EXTERNAL, "overrid"), KERNEL("coarse"),
                        END,
                },
        },
        {
                "armed sampling and its re-arm", CONFIG(NUMA_STATS_MODE, FOLLOW, true), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse auto"), ARMED_AT(S(360)),
                        /* Our sample triggers it, the pressure holds: re-armed at once, not recorded. */
                        ARMED_SAMPLE(S(360), true), WROTE("coarse auto"), NO_RECORD, ARMED_AT(S(420)),
                        KERNEL("auto (armed)"), COUNTS(2, 1, 0, 1),
                        /* The pressure gone: the sample finds it, and the triggered
                         * auto counts on, as the policy now wants. */
                        RATE(S(370), 100), RATE(S(381), 100),
                        ARMED_SAMPLE(S(420), true), WROTE(""), REASON("below strict_below"),
                        KERNEL("auto (triggered by the daemon's own sample)"), COUNTS(2, 1, 0, 2),
                        END,
                },
        },
        {
                "an ignored read triggers the armed auto, without the kernel's log",
                CONFIG(NUMA_STATS_MODE, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        DECIDE(S(300)), WROTE("coarse auto"),
                        IGNORED_READ(S(340), TOP), RECORD(KERNEL, IGNORED_READ, "top (pid 77"),
                        WROTE("coarse auto"), COUNTS(2, 1, 1, 0),
                        END,
                },
        },
        {
                "a periodic reader keeps counting on until its missed read, not for linger",
                CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        READ(S(290), NUMASTAT), READ(S(300), NUMASTAT), READ(S(310), NUMASTAT),
                        READ(S(320), NUMASTAT), TABLE(1, 10),
                        DECIDE(S(325)), WROTE(""), REASON("numastat"),
                        /* Off a margin past its missed read at 330, not linger
                         * (5 min) after its last. */
                        DECIDE(S(345)), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        END,
                },
        },
        {
                "a write that fails", CONFIG(NUMA_STAT, FOLLOW, false), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        FAIL_WRITES(true),
                        DECIDE(S(300)), WROTE(""), NO_RECORD, KERNEL("strict"),
                        FAIL_WRITES(false),
                        DECIDE(S(301)), WROTE("coarse"), RECORD(POLICY, PRESSURE_ABOVE, "counting off"),
                        END,
                },
        },
        {
                "arming that fails half-way", CONFIG(NUMA_STATS_MODE, FOLLOW, true), KERNEL_MODE_STRICT,
                (const Step[]) {
                        PRESSURE,
                        FAIL_WRITES(true),
                        DECIDE(S(300)), WROTE(""), NO_RECORD, COUNTS(0, 0, 0, 0),
                        FAIL_WRITES(false),
                        DECIDE(S(301)), WROTE("coarse auto"), COUNTS(1, 0, 0, 0), ARMED_AT(S(361)),
                        END,
                },
        },
};

static void test_scenarios(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++)
                run_scenario(&scenarios[i]);
}

/* Dry run: one record per would-be switch, the kernel untouched. */
static void test_dry_run(void) {
        EngineConfig c = CONFIG(NUMA_STAT, FOLLOW, false);
        World w = { .config = c, .sysctl = KERNEL_MODE_STRICT };

        if (!ok(engine_new(&w.config, POLICY_AUTO, true, T0, &w.engine) >= 0, "dry run: engine_new"))
                return;
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_KERNEL_MODE, .mode = KERNEL_MODE_STRICT }, T0);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_RATE, .rate = 150000, .interval_rate = 150000 }, T0);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_RATE, .rate = 150000, .interval_rate = 150000 }, T0 + S(20));
        forget(&w);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_DECIDE, .found = w.sysctl }, T0 + S(300));
        is_str(w.wrote, "", "dry run: nothing written");
        ok(w.n_records == 1 && w.records[0]->kind == TRANSITION_DRY_RUN, "dry run: the would-be switch recorded");
        forget(&w);
        feed(&w, &(EngineEvent) { .type = ENGINE_EVENT_DECIDE, .found = w.sysctl }, T0 + S(301));
        is_int(w.n_records, 0, "dry run: once per would-be switch");
        engine_free(w.engine);
}

static void test_names(void) {
        for (int t = 0; t < _ENGINE_EVENT_MAX; t++)
                ok(engine_event_type_to_string(t), "event %d has a name", t);
}

int main(void) {
        test_scenarios();
        test_dry_run();
        test_names();
        return tap_done();
}
