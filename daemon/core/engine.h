/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The engine: everything that decides, fed one typed event at a time.
 * Pure: no I/O and no clock; time comes with each event (CLOCK_MONOTONIC
 * µs), so every behaviour plays out on a fake clock (tests/unit/test-engine.c).
 *
 * It owns the policy's state, the kernel's state as last known (with a
 * patched kernel's armed or triggered auto), the decision, the policy in
 * force, the armed-auto bookkeeping, the reader table (whose periods
 * tell the policy how long each reader's reads keep counting on), and the
 * history of transitions. What it wants done comes back as
 * data (EngineEffects): the writes in order, the transitions to record,
 * the timers to set, and whether the status changed. The manager carries
 * the writes out (effects/executor.c) and feeds each outcome back. */

#include <stdbool.h>
#include <stdint.h>

#include "cause.h"
#include "counters.h"
#include "macro.h"
#include "history.h"
#include "kernel-state.h"
#include "mode.h"
#include "policy.h"
#include "readertab.h"
#include "rules.h"

typedef struct Engine Engine;

/* A trigger the kernel logged waits this long for the read event that
 * names its reader, before it is put down to a reader no watch saw. */
#define ENGINE_TRIGGER_SETTLE_USEC (50 * USEC_PER_MSEC)

/* What the engine is told of the daemon's setting: the configuration's
 * figures and what the sources can see. Set at start, at each reload, and
 * when reader detection or the kernel's log comes or goes. */
typedef struct EngineConfig {
        BackendKind backend;
        const char *sysctl_path;        /* the backend's, for reasons (static) */
        OffMode off_mode;
        ExternalChange on_external_change;
        usec_t min_dwell, linger, sustain;
        uint64_t coarse_above, strict_below;
        usec_t armed_interval;          /* a patched kernel's armed auto is sampled this often */
        usec_t sample_interval;         /* the allocation rate is sampled this often: the own trace's slots */
        usec_t linger_max;              /* a periodic reader keeps counting on at most this long */
        ExitMode exit_mode;             /* for the reason of the exit's transition */
        int64_t realtime_offset;        /* CLOCK_REALTIME - CLOCK_MONOTONIC, µs: times in reasons */
        bool readers_unseen;            /* no reader detection */
        bool kernel_log;                /* the kernel's log tells each trigger of its auto */
} EngineConfig;

typedef enum EngineEventType {
        ENGINE_EVENT_CONFIGURE,         /* .config */
        ENGINE_EVENT_START,             /* deciding starts: the start counts as a read (no off before linger) */
        ENGINE_EVENT_SET_POLICY,        /* .policy, .policy_source, .dry_run: leaves a pause */
        ENGINE_EVENT_KERNEL_MODE,       /* the sysctl as read, taken as it is (start-up, exit): .mode */
        ENGINE_EVENT_DECIDE,            /* a deadline or news: .found (UNKNOWN: not read), .reads_queued */
        ENGINE_EVENT_WRITTEN,           /* one write of the plan done: .mode */
        ENGINE_EVENT_WRITE_FAILED,      /* ...failed; the sysctl now says .mode */
        ENGINE_EVENT_PLAN_DONE,         /* every write of the plan done (or one failed, said above) */
        ENGINE_EVENT_READ,              /* a read judged: .reader (as far as named), .counts */
        ENGINE_EVENT_READER_NAMED,      /* that read's reader in full: .reader, .identity, .pid, .pid_verified,
                                         * .verdict, .clock (.clock.by_holder: a hold's own command's) */
        ENGINE_EVENT_LOST_READS,        /* the fanotify queue overflowed */
        ENGINE_EVENT_KERNEL_LOG_TRIGGER,/* the kernel logged its auto's trigger */
        ENGINE_EVENT_TRIGGER_SETTLED,   /* ...and no read event claimed it in time */
        ENGINE_EVENT_ARMED_SAMPLE,      /* our own sample is about to read an armed auto */
        ENGINE_EVENT_ARMED_SAMPLE_DONE, /* ...and read it: .confirmed (the log said it triggered) */
        ENGINE_EVENT_RATE,              /* an allocation-rate sample measured at now: .rate, .interval_rate */
        ENGINE_EVENT_HOLDS,             /* the holds now: .holds, .reader (the oldest's owner), .hold_reason */
        ENGINE_EVENT_REJUDGE,           /* a reload judged reader .index again: .verdict */
        ENGINE_EVENT_RESTORED,          /* the daemon stopping wrote exit_mode over .from (the kernel before) */
        ENGINE_EVENT_ALLOCATED,         /* a reading of the pages allocated so far: .pgalloc (if .has_pgalloc) */
        _ENGINE_EVENT_MAX,
} EngineEventType;

typedef struct EngineEvent {
        EngineEventType type;
        uint64_t realtime;              /* CLOCK_REALTIME µs when it came: the time a transition is recorded at */
        const EngineConfig *config;
        Policy policy;
        Cause policy_source;
        bool dry_run;
        KernelMode mode, found;
        bool reads_queued;
        ReaderRef reader;
        bool has_reader;
        bool counts, confirmed;
        double rate, interval_rate;
        bool has_pgalloc;
        uint64_t pgalloc;               /* the pgalloc_* total, which no mode affects */
        unsigned holds;
        const char *hold_reason;
        const ReaderIdentity *identity;
        pid_t pid;
        bool pid_verified;
        const ReaderVerdict *verdict;
        ReadClock clock;
        size_t index;
        KernelState from;
} EngineEvent;

/* Room for a transition's reason: a decision's, or a reader's name and a
 * sentence. */
#define ENGINE_RECORD_REASON_MAX (REASON_MAX + READER_REF_TEXT_MAX + 128)

#define ENGINE_RECORDS_MAX 3

typedef struct EngineEffects {
        KernelPlan plan;                /* KERNEL_PLAN_WRITES: carry these out, feed back each outcome */
        bool decide;                    /* read the kernel back and feed ENGINE_EVENT_DECIDE now */
        bool clear_error;               /* the kernel is where the decision wants it */
        bool allocated_wanted;          /* counting flipped: feed ENGINE_EVENT_ALLOCATED read now (the pages
                                         * allocated until now go to the state before; .has_pgalloc false:
                                         * to the state after, if no reading can be taken) */
        bool committed;                 /* a decision was settled: the deadline moves */
        bool deadline_now;              /* off waits for queued reads: decide again right after them */
        bool set_settle;                /* the kernel log's trigger waits for a read until settle_at */
        usec_t settle_at;               /* USEC_INFINITY: no more */
        bool set_armed_sample;          /* the next armed sample at armed_sample_at */
        usec_t armed_sample_at;         /* USEC_INFINITY: none */
        bool changed;                   /* the status may have changed */
        bool new_reader;                /* the read made a new entry in the reader table */
        bool no_memory;                 /* ...or could not be kept */
        size_t n_records;               /* transitions recorded in the history, for the journal: */
        const Transition *records[ENGINE_RECORDS_MAX];  /* ...valid until the next feed */
} EngineEffects;

int engine_new(const EngineConfig *config, Policy policy, bool dry_run, usec_t now, Engine **ret);
Engine *engine_free(Engine *e);

/* Takes one event at now. *fx is reset first; read it before the next
 * feed. */
void engine_feed(Engine *e, const EngineEvent *ev, usec_t now, EngineEffects *fx);

/* Read-only views. */
const KernelState *engine_kernel(const Engine *e);
const Decision *engine_decision(const Engine *e);
const PolicyState *engine_policy_state(const Engine *e);
/* Who read the statistics files, and the periods learned. */
const ReaderTable *engine_readers(const Engine *e);
/* Every switch, the kernel's own and someone else's, with its cause. */
const History *engine_history(const Engine *e);
void engine_policy_config(const Engine *e, PolicyConfig *ret);
Policy engine_policy(const Engine *e);
Cause engine_policy_source(const Engine *e);
bool engine_dry_run(const Engine *e);
bool engine_paused(const Engine *e);
/* Whether the kernel counts (an auto whose state is unknown: yes). */
bool engine_counting(const Engine *e);
/* Whether reading a statistics file is harmless now: not a patched
 * kernel's auto that a read would turn on. */
bool engine_may_read_stats(const Engine *e);
/* Whether a read now turned (turns) the kernel's auto on: armed or unknown,
 * and the kernel's log said so (or, without it, armed). */
bool engine_read_triggers(const Engine *e);
/* Whether a patched kernel's auto is armed: counting off until a read. */
bool engine_armed(const Engine *e);
/* When a decision could next differ with no new event; USEC_INFINITY: never. */
usec_t engine_next_deadline(const Engine *e);

typedef struct EngineCounts {
        uint64_t arms;                  /* every arm (coarse, then auto) */
        uint64_t rearms;                /* arms of a triggered auto */
        uint64_t armed_samples;
        uint64_t triggers;              /* reads that turned an armed auto on (not our samples) */
} EngineCounts;

EngineCounts engine_counts(const Engine *e);
/* The time counting was on, and the pages allocated with counting on and
 * off (the benefit ledger), since START. */
const OnTime *engine_on_time(const Engine *e);
/* The last 24 hours' trace: what the best schedule would have kept off
 * (own_trace_best()). */
typedef struct OwnTrace OwnTrace;
const OwnTrace *engine_own_trace(const Engine *e);
const Ledger *engine_ledger(const Engine *e);

const char *engine_event_type_to_string(EngineEventType t);
