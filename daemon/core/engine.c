/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The engine: one event at a time, decisions and records as data. See
 * engine.h. */
#include "engine.h"
#include "own-trace.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "string-table.h"
#include "strutil.h"

/* A decision being carried out: planned at ENGINE_EVENT_DECIDE, written
 * (or not) by the executor, recorded when settled. */
typedef struct Step {
        bool active;
        KernelPlan plan;
        KernelState from, to;
        bool failed;            /* a write of the plan failed */
        bool record;            /* a transition to record */
        TransitionKind kind;    /* POLICY (written) or DRY_RUN (would have) */
} Step;

/* A read between ENGINE_EVENT_READ and ENGINE_EVENT_READER_NAMED: what it
 * found, and whether it had a decision made. The switch it caused is
 * recorded once its reader is named in full. */
typedef struct ReadInProgress {
        bool active;
        bool counts;
        bool triggered;         /* it turned an armed auto on */
        bool decided;
        KernelState armed;      /* the kernel before it */
} ReadInProgress;

struct Engine {
        EngineConfig config;
        Policy policy;                  /* in force: the configuration's, or SetPolicy's */
        Cause policy_source;            /* STARTUP, RELOAD, OPERATOR */
        bool dry_run;

        PolicyState state;
        Decision decision;              /* the last evaluation's */
        KernelState kernel;             /* as last read back, and an auto's armed/triggered */
        ReaderTable readers;
        History history;
        uint64_t realtime;              /* the event's being fed */

        Step step;
        ReadInProgress read;
        KernelState sample_armed;       /* the kernel before our armed sample */

        bool trigger_pending;           /* the log said "on read"; no read event has claimed it yet */
        bool have_deferred;             /* off waited for queued reads: */
        Decision deferred;              /* ...the decision that wanted it, for the record */
        EngineCounts counts;

        OnTime on_time;
        Ledger ledger;                  /* .counting: the state the next reading's pages go to */
        bool counting_touched;          /* this feed may have flipped counting */
        usec_t booked_until;            /* pressure is booked to the readers until here; 0: not started */
        OwnTrace *trace;                /* the last 24 hours, for the best possible */
};

static const char *const engine_event_type_table[_ENGINE_EVENT_MAX] = {
        [ENGINE_EVENT_CONFIGURE] = "configure",
        [ENGINE_EVENT_START] = "start",
        [ENGINE_EVENT_SET_POLICY] = "set-policy",
        [ENGINE_EVENT_KERNEL_MODE] = "kernel-mode",
        [ENGINE_EVENT_DECIDE] = "decide",
        [ENGINE_EVENT_WRITTEN] = "written",
        [ENGINE_EVENT_WRITE_FAILED] = "write-failed",
        [ENGINE_EVENT_PLAN_DONE] = "plan-done",
        [ENGINE_EVENT_READ] = "read",
        [ENGINE_EVENT_READER_NAMED] = "reader-named",
        [ENGINE_EVENT_LOST_READS] = "lost-reads",
        [ENGINE_EVENT_KERNEL_LOG_TRIGGER] = "kernel-log-trigger",
        [ENGINE_EVENT_TRIGGER_SETTLED] = "trigger-settled",
        [ENGINE_EVENT_ARMED_SAMPLE] = "armed-sample",
        [ENGINE_EVENT_ALLOCATED] = "allocated",
        [ENGINE_EVENT_ARMED_SAMPLE_DONE] = "armed-sample-done",
        [ENGINE_EVENT_RATE] = "rate",
        [ENGINE_EVENT_HOLDS] = "holds",
        [ENGINE_EVENT_REJUDGE] = "rejudge",
        [ENGINE_EVENT_RESTORED] = "restored",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(engine_event_type, EngineEventType);

int engine_new(const EngineConfig *config, Policy policy, bool dry_run, usec_t now, Engine **ret) {
        Engine *e = calloc(1, sizeof *e);

        if (!e)
                return -ENOMEM;
        if (own_trace_new(&e->trace) < 0) {
                free(e);
                return -ENOMEM;
        }
        e->config = *config;
        e->policy = policy;
        e->policy_source = CAUSE_STARTUP;
        e->dry_run = dry_run;
        e->kernel = (KernelState) { .mode = KERNEL_MODE_UNKNOWN };
        policy_init(&e->state, now);
        *ret = e;
        return 0;
}

Engine *engine_free(Engine *e) {
        if (!e)
                return NULL;
        readertab_done(&e->readers);
        history_done(&e->history);
        own_trace_free(e->trace);
        free(e);
        return NULL;
}

void engine_policy_config(const Engine *e, PolicyConfig *ret) {
        const EngineConfig *c = &e->config;

        *ret = (PolicyConfig) {
                .policy = e->policy,
                .policy_source = e->policy_source,
                .backend = c->backend,
                .off_mode = c->off_mode,
                .on_external_change = c->on_external_change,
                .min_dwell = c->min_dwell,
                .linger = c->linger,
                .sustain = c->sustain,
                .coarse_above = c->coarse_above,
                .strict_below = c->strict_below,
                .readers_unseen = c->readers_unseen,
                .realtime_offset = c->realtime_offset,
        };
}

/* ---- views ---- */

const KernelState *engine_kernel(const Engine *e) {
        return &e->kernel;
}

const Decision *engine_decision(const Engine *e) {
        return &e->decision;
}

const PolicyState *engine_policy_state(const Engine *e) {
        return &e->state;
}

const ReaderTable *engine_readers(const Engine *e) {
        return &e->readers;
}

const History *engine_history(const Engine *e) {
        return &e->history;
}

Policy engine_policy(const Engine *e) {
        return e->policy;
}

Cause engine_policy_source(const Engine *e) {
        return e->policy_source;
}

bool engine_dry_run(const Engine *e) {
        return e->dry_run;
}

bool engine_paused(const Engine *e) {
        return policy_paused(&e->state);
}

bool engine_counting(const Engine *e) {
        return kernel_state_counting(&e->kernel);
}

bool engine_may_read_stats(const Engine *e) {
        /* Any read of a statistics file turns an armed auto on; one that
         * is on already, nothing more can. */
        return !(backend_is_patched(e->config.backend) && e->kernel.mode == KERNEL_MODE_AUTO &&
                 e->kernel.auto_state != AUTO_STATE_TRIGGERED);
}

bool engine_armed(const Engine *e) {
        return e->kernel.mode == KERNEL_MODE_AUTO && e->kernel.auto_state == AUTO_STATE_ARMED;
}

/* Whether a read now could turn the kernel's auto on: armed, or in a
 * state we do not know. */
static bool may_trigger(const Engine *e) {
        return e->kernel.mode == KERNEL_MODE_AUTO &&
               (e->kernel.auto_state == AUTO_STATE_ARMED || e->kernel.auto_state == AUTO_STATE_UNKNOWN);
}

/* The kernel logs the trigger inside the read, before the read's event is
 * queued, and the log is taken before each read: it answers exactly.
 * Without it, any read while armed is taken to have triggered it (reads
 * queued at arming were handled first). */
bool engine_read_triggers(const Engine *e) {
        if (!may_trigger(e))
                return false;
        if (!e->config.kernel_log)
                return e->kernel.auto_state == AUTO_STATE_ARMED;
        return e->trigger_pending;
}

usec_t engine_next_deadline(const Engine *e) {
        PolicyConfig pc;

        engine_policy_config(e, &pc);
        return policy_next_deadline(&e->state, &pc);
}

EngineCounts engine_counts(const Engine *e) {
        return e->counts;
}

const OnTime *engine_on_time(const Engine *e) {
        return &e->on_time;
}

const OwnTrace *engine_own_trace(const Engine *e) {
        return e->trace;
}

const Ledger *engine_ledger(const Engine *e) {
        return &e->ledger;
}

/* ---- records ---- */

/* A transition, into the history and the effects (for the journal).
 * reason_redacted: the reason with its readers redacted; NULL when it
 * names none. */
static void record(Engine *e, EngineEffects *fx, const KernelState *from, const KernelState *to, TransitionKind kind,
                   Cause cause, const ReaderRef *reader, const char *reason, const char *reason_redacted) {
        Transition t = {
                .time = e->realtime,
                .from = from->mode,
                .to = to->mode,
                .from_auto = from->mode == KERNEL_MODE_AUTO ? from->auto_state : AUTO_STATE_NONE,
                .to_auto = to->mode == KERNEL_MODE_AUTO ? to->auto_state : AUTO_STATE_NONE,
                .policy = e->policy,
                .kind = kind,
                .cause = cause,
                .reason = (char *) reason,
                .reason_redacted = reason_redacted && !streq(reason_redacted, reason) ? (char *) reason_redacted : NULL,
        };
        const Transition *stored;

        if (reader && cause_has_reader(cause))
                t.reader = *reader;
        stored = history_add(&e->history, &t);
        /* At most two per event (someone else's change and the decision's;
         * a trigger and the switch its read caused): never full. */
        if (fx->n_records < ENGINE_RECORDS_MAX)
                fx->records[fx->n_records++] = stored;
}

/* The sysctl as read, when no judgement comes with it: in "auto",
 * whether armed or triggered is not in the file. */
static void set_mode(Engine *e, KernelMode mode) {
        if (mode == e->kernel.mode && mode == KERNEL_MODE_AUTO)
                return;
        e->kernel = (KernelState) {
                .mode = mode,
                .auto_state = mode == KERNEL_MODE_AUTO && backend_is_patched(e->config.backend) ? AUTO_STATE_UNKNOWN
                                                                                                : AUTO_STATE_NONE,
        };
}

static ReaderRef redact_ref(const ReaderRef *r, const void *userdata) {
        return reader_ref_redact(r);
}

/* ---- deciding ---- */

/* A decision settled: its record, and the deadline and status it moved. */
static void commit(Engine *e, EngineEffects *fx) {
        if (e->step.record) {
                char redacted[REASON_MAX];
                Decision d = e->decision;
                PolicyConfig pc;

                decision_map_readers(&d, redact_ref, NULL);
                engine_policy_config(e, &pc);
                decision_format_reason(&d, &pc, redacted, sizeof redacted);
                record(e, fx, &e->step.from, &e->step.to, e->step.kind, e->decision.cause, &e->decision.reader,
                       e->decision.reason, redacted);
        }
        e->step.active = false;
        e->counting_touched = true;
        fx->committed = fx->changed = true;
}

/* Settled now, or with the read's naming when a read asked. */
static void settle(Engine *e, EngineEffects *fx) {
        if (!e->read.active)
                commit(e, fx);
}

/* Someone else changed the sysctl since we last looked. */
static void check_kernel(Engine *e, KernelMode found, usec_t now, EngineEffects *fx) {
        char reason[ENGINE_RECORD_REASON_MAX];
        KernelState before;
        PolicyConfig pc;

        if (e->config.backend == BACKEND_NONE || found == KERNEL_MODE_UNKNOWN)
                return;
        if (!policy_have_decision(&e->state) || e->kernel.mode == KERNEL_MODE_UNKNOWN || found == e->kernel.mode) {
                set_mode(e, found);
                return;
        }
        before = e->kernel;
        set_mode(e, found);
        /* A mainline 1→0 zeroed the counters behind our back: the next
         * reading finds them lower and the tracks keep what was counted. */
        snprintf(reason, sizeof reason, "%s was changed from %s to %s by someone else (on_external_change=%s)",
                 strempty(e->config.sysctl_path), kernel_mode_to_string(before.mode), kernel_mode_to_string(found),
                 external_change_to_string(e->config.on_external_change));
        record(e, fx, &before, &e->kernel, TRANSITION_EXTERNAL, CAUSE_EXTERNAL, NULL, reason, NULL);
        engine_policy_config(e, &pc);
        policy_on_external_change(&e->state, &pc, now, found, before.mode);
        fx->changed = true;
}

static void decide(Engine *e, KernelMode found, bool reads_queued, usec_t now, EngineEffects *fx) {
        bool decided_before = policy_have_decision(&e->state), mode_changed;
        PolicyConfig pc;
        Decision d;

        e->step = (Step) { .active = true };
        check_kernel(e, found, now, fx);
        engine_policy_config(e, &pc);
        policy_evaluate(&e->state, &pc, now, &d);
        mode_changed = !decided_before || d.mode != e->decision.mode;
        e->decision = d;
        e->step.from = e->kernel;
        e->step.plan = kernel_state_plan(&e->kernel, d.mode, d.rearm, reads_queued);

        switch (e->step.plan.kind) {
        case KERNEL_PLAN_NONE:
                fx->clear_error = d.mode != KERNEL_MODE_UNKNOWN;
                /* A switch that waited for queued reads and is no longer
                 * wanted (a counted one among them): its reason is not the
                 * next switch's. */
                e->have_deferred = false;
                break;
        case KERNEL_PLAN_WAIT_READS:
        case KERNEL_PLAN_WRITES:
                if (e->dry_run) {
                        /* Once per would-be switch: the kernel never moves, so
                         * each later decision for the same mode (its reason
                         * reworded from "switch" to "stay") would look like
                         * another. */
                        e->step.record = mode_changed;
                        e->step.kind = TRANSITION_DRY_RUN;
                        e->step.to = (KernelState) {
                                .mode = d.mode,
                                .auto_state = e->step.plan.action == KERNEL_ACTION_ARM ? AUTO_STATE_ARMED
                                                                                       : AUTO_STATE_NONE,
                        };
                        e->step.plan = (KernelPlan) {};
                        break;
                }
                if (e->step.plan.kind == KERNEL_PLAN_WAIT_READS) {
                        /* Off (or arming) waits for the queued read events:
                         * right after them. The switch's reason is this
                         * decision's, kept for the record. */
                        fx->deadline_now = true;
                        if (!e->have_deferred)
                                e->deferred = d;
                        e->have_deferred = true;
                        break;
                }
                if (e->step.plan.action == KERNEL_ACTION_ARM)
                        e->trigger_pending = false;     /* logged before now: this arming supersedes it */
                fx->plan = e->step.plan;
                return;                                 /* settled at ENGINE_EVENT_PLAN_DONE */
        default:
                break;
        }
        settle(e, fx);
}

static void written(Engine *e, KernelMode mode) {
        /* auto over coarse: armed, counting off until the next read. */
        e->kernel = (KernelState) {
                .mode = mode,
                .auto_state = mode == KERNEL_MODE_AUTO && e->kernel.mode == KERNEL_MODE_COARSE ? AUTO_STATE_ARMED
                              : mode == KERNEL_MODE_AUTO                                      ? AUTO_STATE_UNKNOWN
                                                                                              : AUTO_STATE_NONE,
        };
}

/* The plan carried out, up to its first failed write. Arming leaves a
 * patched kernel's auto counting off until the next read of a statistics
 * file, and has it sampled now and then. A switch that waited for queued
 * reads is recorded with the reason it was decided for. */
static void plan_done(Engine *e, usec_t now, EngineEffects *fx) {
        Step *s = &e->step;

        if (!s->active)
                return;
        if (!s->failed && s->plan.action == KERNEL_ACTION_ARM) {
                e->counts.arms++;
                policy_on_armed(&e->state, now);
                fx->set_armed_sample = true;
                fx->armed_sample_at = e->config.armed_interval == USEC_INFINITY || e->policy != POLICY_AUTO
                                              ? USEC_INFINITY
                                              : now + e->config.armed_interval;
        }
        if (e->have_deferred && e->decision.mode == e->deferred.mode) {
                e->decision.cause = e->deferred.cause;
                memcpy(e->decision.reason, e->deferred.reason, sizeof e->decision.reason);
        }
        e->have_deferred = false;
        if (!s->failed) {
                fx->clear_error = true;
                if (s->plan.action == KERNEL_ACTION_ARM && s->from.mode == KERNEL_MODE_AUTO)
                        e->counts.rearms++;
                s->to = e->kernel;
                /* Re-arming after our own sample is routine: counted in
                 * status, not a transition in the history. */
                s->record = !(e->decision.rearm && e->decision.trigger_cause == CAUSE_ARMED_SAMPLE);
                s->kind = TRANSITION_POLICY;
        }
        settle(e, fx);
}

/* ---- the kernel's auto ---- */

/* The kernel's auto turned counting on by itself: from (armed, or
 * unknown) to triggered. Recorded once, as the kernel's own transition,
 * with what triggered it; the policy learns it. The kernel's state follows
 * unless a write has moved it on meanwhile. */
static void triggered(Engine *e, const KernelState *from, Cause cause, const ReaderRef *reader, bool confirmed,
                      EngineEffects *fx) {
        KernelState to = kernel_state_triggered(cause, reader, confirmed);
        char who[READER_REF_TEXT_MAX], who_redacted[READER_REF_TEXT_MAX], reason[ENGINE_RECORD_REASON_MAX],
                redacted[ENGINE_RECORD_REASON_MAX];

        if (e->kernel.mode == KERNEL_MODE_AUTO)
                e->kernel = to;
        e->trigger_pending = false;
        fx->set_settle = true;
        fx->settle_at = USEC_INFINITY;
        policy_on_triggered(&e->state, cause, reader);
        e->counting_touched = true;
        fx->changed = true;
        if (cause == CAUSE_ARMED_SAMPLE)
                return;         /* our own sample: counted in status, not a transition */
        e->counts.triggers++;
        if (cause == CAUSE_READ || cause == CAUSE_IGNORED_READ) {
                const char *ignored = cause == CAUSE_IGNORED_READ ? " (ignored)" : "",
                           *said = confirmed ? " (the kernel's log says so)" : "";
                ReaderRef r = reader_ref_redact(reader);

                reader_ref_format(reader, who, sizeof who);
                reader_ref_format(&r, who_redacted, sizeof who_redacted);
                snprintf(reason, sizeof reason, "%s%s: the kernel's auto turned counting on%s", who, ignored, said);
                snprintf(redacted, sizeof redacted, "%s%s: the kernel's auto turned counting on%s", who_redacted,
                         ignored, said);
                record(e, fx, from, &to, TRANSITION_KERNEL, cause, reader, reason, redacted);
        } else
                record(e, fx, from, &to, TRANSITION_KERNEL, cause, reader,
                       "the kernel's log says a read turned counting on, and no watched file saw it "
                       "(a reader in another mount namespace?)",
                       NULL);
}

static void kernel_log_trigger(Engine *e, usec_t now, EngineEffects *fx) {
        if (e->kernel.mode != KERNEL_MODE_AUTO || e->kernel.auto_state == AUTO_STATE_TRIGGERED)
                return;
        /* Most likely a watched read whose event is on its way: give it a
         * moment to claim the trigger, then call it unseen. */
        e->trigger_pending = true;
        fx->set_settle = true;
        fx->settle_at = now + ENGINE_TRIGGER_SETTLE_USEC;
}

static void trigger_settled(Engine *e, EngineEffects *fx) {
        KernelState armed = e->kernel;

        if (!e->trigger_pending || !engine_read_triggers(e))
                return;
        triggered(e, &armed, CAUSE_UNSEEN_READ, NULL, true, fx);
        fx->decide = true;
}

static void armed_sample(Engine *e) {
        e->sample_armed = e->kernel;
        e->kernel.auto_state = AUTO_STATE_TRIGGERED;    /* by the sample's read */
}

static void armed_sample_done(Engine *e, bool confirmed, EngineEffects *fx) {
        e->counts.armed_samples++;
        triggered(e, &e->sample_armed, CAUSE_ARMED_SAMPLE, NULL, e->config.kernel_log && confirmed, fx);
        fx->decide = true;
}

/* ---- reads ---- */

static ReaderRef entry_ref(const ReaderEntry *r) {
        ReaderRef ref;

        reader_ref_set(&ref, r->last_pid, r->pid_verified, r->has_uid, r->uid, r->comm, r->unit, r->path);
        return ref;
}

/* What the reader table (which learns the periods) tells the policy: the
 * periodic counted reader expected last, counting on until its next read;
 * and the last read of a reader of unknown pace, which linger runs from. */
static void update_expected(Engine *e, usec_t now) {
        uint64_t until, from;
        ReaderRef r;
        size_t i;
        int k;

        from = readertab_linger_from(&e->readers, e->config.linger_max, &k);
        if (k >= 0)
                r = entry_ref(&e->readers.entries[k]);
        policy_set_linger_from(&e->state, from, k >= 0 ? &r : NULL);
        if (readertab_expected(&e->readers, now, e->config.linger_max, &until, &i) < 0) {
                policy_set_expected(&e->state, 0, NULL, 0);
                return;
        }
        r = entry_ref(&e->readers.entries[i]);
        policy_set_expected(&e->state, until, &r, e->readers.entries[i].period);
}

/* A read judged, named as far as the rules needed. A switch it needs
 * comes first (ENGINE_EVENT_DECIDE, asked for in fx); naming it in full
 * and the record come after (ENGINE_EVENT_READER_NAMED). */
static void read_judged(Engine *e, const ReaderRef *ref, bool counts, usec_t now, EngineEffects *fx) {
        e->read = (ReadInProgress) {
                .active = true,
                .counts = counts,
                .triggered = engine_read_triggers(e),
                .armed = e->kernel,
        };
        if (e->read.triggered) {
                /* Counting is on in the kernel now, whoever read: since this read. */
                e->kernel = kernel_state_triggered(counts ? CAUSE_READ : CAUSE_IGNORED_READ, ref,
                                                   e->config.kernel_log);
                e->counting_touched = true;
        }
        if (!counts)
                return;
        policy_on_counted_read(&e->state, now, ref);
        /* A trigger the kernel's log did not confirm is not trusted to
         * count: the decision writes strict then. */
        if (policy_counting(&e->state) && policy_have_decision(&e->state) && kernel_state_counting_for_sure(&e->kernel))
                return;
        e->read.decided = fx->decide = true;
}

static void reader_named(Engine *e, const EngineEvent *ev, usec_t now, EngineEffects *fx) {
        const ReaderRef *ref = &ev->reader;
        bool by_holder = ev->clock.by_holder;
        ReadInProgress rd = e->read;
        int r;

        if (!rd.active)
                return;
        e->read.active = false;
        if (rd.triggered) {
                triggered(e, &rd.armed, rd.counts ? CAUSE_READ : CAUSE_IGNORED_READ, ref, e->config.kernel_log, fx);
                e->step.from.triggered_by = *ref;
        }
        if (rd.counts) {
                policy_on_reader_named(&e->state, ref);
                if (by_holder)
                        policy_on_held_read(&e->state, ref);
                if (e->decision.cause == CAUSE_READ && e->decision.reader.pid == ref->pid) {
                        PolicyConfig pc;

                        e->decision.reader = *ref;
                        engine_policy_config(e, &pc);
                        decision_format_reason(&e->decision, &pc, e->decision.reason, sizeof e->decision.reason);
                }
                if (rd.decided && e->step.active)
                        commit(e, fx);
        }
        if (ev->identity && ev->verdict) {
                r = readertab_add(&e->readers, ev->identity, ev->pid, ev->pid_verified, ev->verdict, &ev->clock);
                /* It needed counting on since its previous counted read. */
                if (e->readers.added_after != 0)
                        own_trace_need(e->trace, e->readers.added_after, ev->clock.mono);
                fx->new_reader = r > 0;
                fx->no_memory = r < 0;
        }
        if (rd.counts) {
                /* Linger moved; and its period may now be known: wait for
                 * its next read, not for linger. */
                update_expected(e, now);
                fx->committed = true;
        }
        /* An ignored reader turned the kernel's auto on: re-arm, or say when. */
        if (rd.triggered && !rd.counts)
                fx->decide = true;
        fx->changed = true;
}

static void lost_reads(Engine *e, usec_t now, EngineEffects *fx) {
        KernelState armed = e->kernel;

        e->readers.overflows++;
        if (engine_read_triggers(e))
                triggered(e, &armed, CAUSE_UNSEEN_READ, NULL, e->config.kernel_log, fx);
        policy_on_lost_reads(&e->state, now);
        fx->decide = true;
}

/* ---- time shares and the ledger ---- */

/* Counting may have flipped: the time shares start a new stretch at once;
 * the ledger asks for a reading, which books the pages allocated until
 * now to the state before. */
static void counting_may_have_changed(Engine *e, usec_t now, EngineEffects *fx) {
        bool counting = engine_counting(e);

        on_time_set(&e->on_time, now, counting);
        fx->allocated_wanted = counting != e->ledger.counting;
}

/* A reading books the pages since the last one to the ledger's state,
 * which then follows counting: a reading at a flip books to the state
 * before. Without one the pages wait for the next reading, booked to the
 * state after. */
static void allocated(Engine *e, const EngineEvent *ev, usec_t now) {
        uint64_t on = e->ledger.pages_on, off = e->ledger.pages_off;

        if (ev->has_pgalloc)
                ledger_set_counting(&e->ledger, ev->pgalloc, engine_counting(e));
        else
                e->ledger.counting = engine_counting(e);
        own_trace_pages(e->trace, now, e->ledger.pages_on - on, false);
        own_trace_pages(e->trace, now, e->ledger.pages_off - off, true);
}

/* The time since the last event, under the rate samples until then: each
 * reader's cost (readertab_book_pressure()). */
static void book_pressure(Engine *e, usec_t now) {
        PolicyConfig pc;
        usec_t from;

        if (e->booked_until != 0 && now > e->booked_until) {
                /* A hold needs counting on as a reader does. */
                if (e->state.holds > 0)
                        own_trace_need(e->trace, e->booked_until, now);
                engine_policy_config(e, &pc);
                from = MAX(e->booked_until, policy_pressured_from(&e->state, &pc));
                if (from < now)
                        readertab_book_pressure(&e->readers, from, now, engine_counting(e), e->config.linger,
                                                e->config.linger_max);
        }
        if (now > e->booked_until)
                e->booked_until = now;
}

void engine_feed(Engine *e, const EngineEvent *ev, usec_t now, EngineEffects *fx) {
        /* The records are written as they are added: clear the rest only
         * (a tick feeds two events; the records are most of the struct). */
        memset(fx, 0, offsetof(EngineEffects, records));
        e->realtime = ev->realtime;
        if (ev->type != ENGINE_EVENT_START)
                book_pressure(e, now);

        switch (ev->type) {
        case ENGINE_EVENT_CONFIGURE:
                /* Slots of another length: the trace starts again. */
                if (e->booked_until != 0 && MAX(ev->config->sample_interval, OWN_TRACE_MIN_SLOT_USEC) !=
                                                    own_trace_slot_usec(e->trace))
                        own_trace_start(e->trace, now, ev->config->sample_interval);
                e->config = *ev->config;
                update_expected(e, now);        /* linger_max may have changed */
                break;
        case ENGINE_EVENT_START:
                policy_init(&e->state, now);
                e->booked_until = now;
                own_trace_start(e->trace, now, e->config.sample_interval);
                on_time_start(&e->on_time, now, engine_counting(e));
                e->ledger.counting = engine_counting(e);        /* from the first reading */
                break;
        case ENGINE_EVENT_SET_POLICY:
                e->policy = ev->policy;
                e->policy_source = ev->policy_source;
                e->dry_run = ev->dry_run;
                policy_resume(&e->state);
                fx->decide = true;
                break;
        case ENGINE_EVENT_KERNEL_MODE:
                set_mode(e, ev->mode);
                break;
        case ENGINE_EVENT_DECIDE:
                decide(e, ev->found, ev->reads_queued, now, fx);
                break;
        case ENGINE_EVENT_WRITTEN:
                written(e, ev->mode);
                break;
        case ENGINE_EVENT_WRITE_FAILED:
                set_mode(e, ev->mode);
                e->step.failed = true;
                break;
        case ENGINE_EVENT_PLAN_DONE:
                plan_done(e, now, fx);
                break;
        case ENGINE_EVENT_READ:
                read_judged(e, &ev->reader, ev->counts, now, fx);
                break;
        case ENGINE_EVENT_READER_NAMED:
                reader_named(e, ev, now, fx);
                break;
        case ENGINE_EVENT_LOST_READS:
                lost_reads(e, now, fx);
                break;
        case ENGINE_EVENT_KERNEL_LOG_TRIGGER:
                kernel_log_trigger(e, now, fx);
                break;
        case ENGINE_EVENT_TRIGGER_SETTLED:
                trigger_settled(e, fx);
                break;
        case ENGINE_EVENT_ARMED_SAMPLE:
                armed_sample(e);
                break;
        case ENGINE_EVENT_ARMED_SAMPLE_DONE:
                armed_sample_done(e, ev->confirmed, fx);
                break;
        case ENGINE_EVENT_RATE:
                policy_on_rate(&e->state, now, ev->rate, ev->interval_rate);
                break;
        case ENGINE_EVENT_HOLDS:
                policy_set_holds(&e->state, ev->holds, ev->has_reader ? &ev->reader : NULL, ev->hold_reason);
                fx->decide = true;
                break;
        case ENGINE_EVENT_RESTORED: {
                char reason[128];

                snprintf(reason, sizeof reason, "daemon stopping (exit_mode=%s)",
                         exit_mode_to_string(e->config.exit_mode));
                record(e, fx, &ev->from, &e->kernel, TRANSITION_EXIT, CAUSE_EXIT, NULL, reason, NULL);
                break;
        }
        case ENGINE_EVENT_ALLOCATED:
                allocated(e, ev, now);
                break;
        case ENGINE_EVENT_REJUDGE:
                if (ev->index < e->readers.n && ev->verdict) {
                        (void) readertab_rejudge(&e->readers, ev->index, ev->verdict);
                        update_expected(e, now);
                        fx->changed = true;
                }
                break;
        default:
                break;
        }
        if (e->counting_touched) {
                e->counting_touched = false;
                counting_may_have_changed(e, now, fx);
        }
}
