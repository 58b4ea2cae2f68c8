/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading events: a read, the kernel's trigger it may have caused, and reads
 * parked until an exit record names a reader gone before we looked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "owner.h"
#include "manager.h"
#include "manager-internal.h"
#include "time-util.h"
#include "verdict.h"

static ReaderIdentity read_event_identity(const ReadEvent *ev) {
        return (ReaderIdentity) {
                .comm = ev->comm,
                .exe = ev->exe,
                .unit = ev->unit,
                .has_uid = ev->has_uid,
                .uid = ev->uid,
                .path = ev->path,
                .has_exe_id = ev->has_exe_id,
                .exe_dev = ev->exe_dev,
                .exe_ino = ev->exe_ino,
        };
}

static ReaderRef read_event_ref(const ReadEvent *ev) {
        ReaderRef ref;

        reader_ref_set(&ref, ev->pid, ev->pid_verified, ev->has_uid, ev->uid, ev->comm, ev->unit ?: ev->session,
                       ev->path);
        return ref;
}

/* Before a read is handled, what the kernel logged before it (its trigger,
 * if it caused one): events in the order the kernel produced them. Only
 * while a trigger is possible: otherwise the log can wait for its own
 * source, and a read costs no extra system call. */
static void take_kernel_log_before_read(Manager *m) {
        if (!engine_may_read_stats(manager_engine(m)))
                take_kernel_log(m);
}

/* Whether a counted read is by a hold's own command: a process of the
 * holder's uid that descends from the holder (numastatctl hold runs the
 * command as its child), while the hold lasts. Such reads need counting
 * only while the hold lasts, and it keeps counting on: they do not linger
 * past it. The uid bounds what a holder can mark so to its own processes.
 * The command's last reads are judged before its hold ends: a released
 * hold stays in force until the loop has taken what was queued before
 * (holds_release()). */
static bool is_holder(const Manager *m, pid_t pid, uid_t uid) {
        const Holds *holds = service_holds(manager_service(m));

        for (size_t i = 0; i < holds_count(holds); i++) {
                const ReaderRef *o = &holds_get(holds, i)->owner;

                if (o->pid == pid && o->has_uid && o->uid == uid)
                        return true;
        }
        return false;
}

/* pid's parent: from /proc while it runs, from its exit record once gone
 * (a held command's shell may exit before its last read is handled). */
static int parent_of(Manager *m, pid_t pid, pid_t *ret) {
        if (process_parent(pid, ret) >= 0)
                return 0;
        return exits_parent(manager_exits(m), pid, ret);
}

/* The ancestry of a reader whose binary a catalogue entry names as its
 * child= (a shell, awk): the processes above it, nearest first, as /proc
 * shows them while they run, or their exit records. Nothing is asked of
 * their files: the binaries' cached attributes only. */
static size_t reader_ancestry(Manager *m, const ReadEvent *ev, const ReaderIdentity *id, KnownAncestor *ret) {
        const Config *c = manager_config(m);
        pid_t pid = ev->pid;
        size_t n = 0;

        if (!c->known || !id->has_exe_id || !known_is_child(&c->known_readers, id->exe_dev, id->exe_ino))
                return 0;
        if (ev->from_exit_record)
                pid = ev->exit_ppid;
        else if (parent_of(m, pid, &pid) < 0)
                return 0;
        while (n < KNOWN_ANCESTRY_MAX && pid > 1) {
                KnownAncestor *a = &ret[n];

                *a = (KnownAncestor) { .pid = pid };
                if (process_binary(pid, &a->uid, &a->exe_dev, &a->exe_ino) >= 0)
                        a->alive = a->has_uid = a->has_exe_id = true;
                else if (exits_binary(manager_exits(m), pid, &a->uid, &a->exe_dev, &a->exe_ino) >= 0)
                        a->has_uid = a->has_exe_id = true;
                log_debug("Reader " PID_FMT "'s ancestor " PID_FMT ": %s, binary %s.", ev->pid, pid,
                          a->alive ? "running" : "gone", a->has_exe_id ? "known" : "not known");
                n++;
                if (parent_of(m, pid, &pid) < 0)
                        break;
        }
        return n;
}

static bool read_by_holder(Manager *m, const ReadEvent *ev) {
        pid_t pid = ev->from_exit_record ? ev->exit_ppid : ev->pid;

        if (holds_count(service_holds(manager_service(m))) == 0 || !ev->has_uid)
                return false;
        for (unsigned depth = 0; depth < 32 && pid > 1; depth++) {
                if (is_holder(m, pid, ev->uid))
                        return true;
                if (parent_of(m, pid, &pid) < 0)
                        return false;
        }
        return false;
}

/* A reader the table had not seen, in the log. Names another process
 * chose: escaped. */
static void log_new_reader(const ReadEvent *ev, const ReadJudgement *j) {
        _cleanup_free_ char *comm = cescape(ev->comm ?: "(gone)"), *unit = cescape(ev->unit ?: ""),
                            *path = cescape(ev->path), *why = cescape(j->v.why ?: "");

        log_info("New reader: %s (pid " PID_FMT ", uid %d%s%s%s) read %s%s%s.", strnull(comm), ev->pid,
                 ev->has_uid ? (int) ev->uid : -1, ev->unit ? ", " : "", strnull(unit),
                 ev->from_exit_record ? ", named from its exit record" : "", strnull(path), j->v.why ? ": " : "",
                 strnull(why));
}

/* What counting had been doing until a read handled at now, which
 * triggered an armed auto or not (then it found counting off). A switch
 * a read causes is dated now: the reader's next read finds counting on
 * since this one. A hold's start counts as a first read's previous one:
 * a benchmark under numastatctl hold reads at its start what it will
 * subtract at its end. */
static ReadClock read_clock(const Manager *m, usec_t now, bool triggered) {
        const OnTime *o = engine_on_time(manager_engine(m));
        PolicyConfig pc;
        usec_t linger, since;

        engine_policy_config(manager_engine(m), &pc);
        linger = pc.linger;

        since = linger == USEC_INFINITY || now < o->started + linger ? o->started : now - linger;
        since = MAX(since, holds_held_since(service_holds(manager_service(m))));       /* 0 without holds */
        return (ReadClock) {
                .realtime = now_usec(CLOCK_REALTIME),
                .mono = now,
                .counting = o->on && engine_counting(manager_engine(m)) && !triggered,
                .on_since = o->on_since,
                .first_since = since,
        };
}

/* ---- reads that wait for a look into their process ---- */

/* A read whose verdict needs a look inside its process (its root, its
 * command line, a file it names): that is done off the loop, as the
 * process (inspector.h). The read waits for it up to READ_LOOK_PATIENCE_USEC,
 * as a read of a process already gone waits for its exit record, and is
 * then judged by what it found; past that it counts, and the look goes on
 * (until READ_LOOK_DEADLINE_USEC) for the process's next reads. */
struct InspectedRead {
        ReadEvent ev;           /* its strings are the copies below */
        char *comm, *exe, *unit, *session, *path;
        KnownAsk ask;
        InspectOutcome outcome;
        KnownAnswer answer;
        bool read_handled;      /* past its patience, it counted: the answer is only kept */
};

void inspected_read_free(void *p) {
        InspectedRead *r = p;

        if (!r)
                return;
        free(r->comm);
        free(r->exe);
        free(r->unit);
        free(r->session);
        free(r->path);
        free(r);
}

static bool dup_field(char **copy, const char **field) {
        if (!*field)
                return true;
        *copy = strdup(*field);
        *field = *copy;
        return *copy != NULL;
}

/* A copy of ev, attributed in full now: its process's /proc and its
 * source's fds are not there to ask later. */
static InspectedRead *inspected_read_new(ReadEvent *ev, const KnownAsk *ask) {
        InspectedRead *r = calloc(1, sizeof *r);

        if (!r)
                return NULL;
        r->ev = *ev;
        r->ev.attribution = NULL;
        r->ev.own_fd = NULL;
        r->ev.inspected = true;
        r->ask = *ask;
        if (!dup_field(&r->comm, &r->ev.comm) || !dup_field(&r->exe, &r->ev.exe) ||
            !dup_field(&r->unit, &r->ev.unit) || !dup_field(&r->session, &r->ev.session) ||
            !dup_field(&r->path, &r->ev.path)) {
                inspected_read_free(r);
                return NULL;
        }
        return r;
}

void inspected_read_answered(InspectedRead *r, InspectOutcome outcome, const void *answer) {
        r->outcome = outcome;
        if (outcome == INSPECT_ANSWERED) {
                memcpy(&r->answer, answer, sizeof r->answer);
                r->answer.why[sizeof r->answer.why - 1] = '\0';
                return;
        }
        /* Nothing found in time: kept as the process's verdict, so that its
         * next reads do not ask again. */
        r->answer = (KnownAnswer) { .reader = r->ask.reader, .file = r->ask.file, .counts = true, .failed = true };
        snprintf(r->answer.why, sizeof r->answer.why, "counts: %s",
                 outcome == INSPECT_TIMED_OUT ? "looking into its process took too long"
                 : outcome == INSPECT_CHANGED ? "it ran another program, or took other ids, while it was looked into"
                                              : "its process could not be looked into");
}

/* The process a look is for, as it is now: its ids, settled, read between
 * two sightings of the binary its verdict is about (an execution changes
 * the binary before the ids: what was read between is that binary's), and
 * whose share the look takes. The child takes these ids, not whatever the
 * process has by the time it runs. */
static int look_target(const KnownAsk *a, InspectTarget *ret) {
        uint64_t dev, ino;
        uid_t uid, owner;
        ProcIds ids;
        int r;

        r = process_ids(a->pid, &ids);
        if (r < 0)
                return r;
        if (!proc_ids_settled(&ids))
                return -EPERM;
        r = process_binary(a->pid, &uid, &dev, &ino);
        if (r < 0)
                return r;
        if (dev != a->exe_dev || ino != a->exe_ino)
                return -ESTALE;
        r = process_owner(a->pid, ids.uid[0], &owner);
        if (r < 0)
                return r;
        *ret = (InspectTarget) { .pid = a->pid, .start = a->start, .owner = owner, .ids = ids, .has_exe_id = true,
                                 .exe_dev = dev, .exe_ino = ino, .mntns = process_ns(a->pid, "mnt") };
        return 0;
}

static const char *refused_why(int error) {
        switch (error) {
        case -EPERM:
                return "its ids are not one uid and one gid (a set-user-ID program under way)";
        case -ESTALE:
                return "it ran another program since its read";
        case -ETIMEDOUT:
                return "looking into its user's processes took too long lately";
        case -EINPROGRESS:
                return "its process is being looked into";
        case -EDQUOT:
                return "its user's looks into processes are at their limit";
        case -ESRCH:
        case -ENOENT:
                return "it is gone";
        default:
                return "too many looks into processes under way";
        }
}

/* Asks for the look; false if none can be had now (the read then counts,
 * with why in j). */
static bool wait_for_inspection(Manager *m, ReadEvent *ev, ReadJudgement *j) {
        InspectTarget t;
        InspectedRead *r;
        int k;

        read_event_attribute(ev);
        if (!ev->has_uid || !ev->comm) {
                if (j->known.ask.pid == ev->pid)
                        return false;   /* gone meanwhile */
        }
        /* The reader, or the ancestor that ran it (its ask names it). */
        k = look_target(&j->known.ask, &t);
        if (k >= 0) {
                r = inspected_read_new(ev, &j->known.ask);
                if (!r) {
                        log_oom();
                        return false;
                }
                k = inspector_ask(manager_inspector(m), &t, known_inspect, &r->ask, sizeof r->ask, r);
                if (k >= 0)
                        return true;
                inspected_read_free(r);
        }
        snprintf(j->known.why, sizeof j->known.why, "counts: %s", refused_why(k));
        /* A reader whose entry its root was to tell has no verdict of the
         * catalogue's yet: the refusal is its why. */
        if (!j->v.why)
                j->v.why = j->known.why;
        log_debug("No look into process " PID_FMT " for reader " PID_FMT ": %s.", j->known.ask.pid, ev->pid,
                  j->known.why);
        return false;
}

void manager_handle_inspected(Manager *m, InspectedRead *r, bool pending) {
        if (pending) {
                if (!r->read_handled)
                        manager_handle_read(m, &r->ev, true);   /* counts: not looked into yet */
                r->read_handled = true;
                return;
        }
        log_debug("The look into process " PID_FMT " (for reader " PID_FMT ") found %s%s.", r->ask.pid, r->ev.pid,
                  r->answer.reader == SIZE_MAX ? "no entry" : "an entry", r->answer.failed ? ", failing" : "");
        known_cache_store(manager_known_cache(m), &r->ask, &r->answer);
        if (!r->read_handled)
                manager_handle_read(m, &r->ev, true);
        inspected_read_free(r);
}

static void handle_read(Manager *m, ReadEvent *ev) {
        usec_t now = now_usec(CLOCK_MONOTONIC);
        _cleanup_(read_judgement_done) ReadJudgement j = {};
        KnownAncestor ancestors[KNOWN_ANCESTRY_MAX];
        size_t n_ancestors;
        EngineEffects fx;
        ReaderIdentity id;
        ReadClock clock;
        bool counts;

        if (ev->overflow) {
                /* Late ones come every 100 ms while a flood lasts: status counts them. */
                if (ev->late)
                        log_debug("Read events stayed queued too long: taken as lost; counting on to be safe.");
                else
                        log_warning("fanotify queue overflowed: reads were lost; counting on to be safe.");
                (void) manager_feed(m, &(EngineEvent) { .type = ENGINE_EVENT_LOST_READS }, now);
                return;
        }

        /* The reader is why we exist. With what the rules need (and no
         * more) it is judged, and if it needs counting on, the kernel is
         * switched; naming it in full, the record and the log come after. */
        id = read_event_identity(ev);
        n_ancestors = reader_ancestry(m, ev, &id, ancestors);
        read_judge_in(manager_config(m), manager_known_cache(m), &id, ev->pid, !ev->from_exit_record, ev->exit_began,
                      ancestors, n_ancestors, &j);
        if (j.known.pending && !ev->inspected && wait_for_inspection(m, ev, &j))
                return;
        counts = j.v.counts;
        clock = read_clock(m, now, engine_read_triggers(manager_engine(m)));
        (void) manager_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_READ,
                                             .reader = read_event_ref(ev),
                                             .counts = counts },
                            now);

        read_event_attribute(ev);
        exits_name(manager_exits(m), ev);
        clock.by_holder = counts && read_by_holder(m, ev);
        id = read_event_identity(ev);
        manager_engine_feed(m,
                            &(EngineEvent) { .type = ENGINE_EVENT_READER_NAMED,
                                             .reader = read_event_ref(ev),
                                             .identity = &id,
                                             .pid = ev->pid,
                                             .pid_verified = ev->pid_verified,
                                             .verdict = &j.v,
                                             .clock = clock },
                            now, &fx);
        if (fx.no_memory)
                log_oom();
        else if (fx.new_reader)
                log_new_reader(ev, &j);
        (void) manager_effects(m, &fx, now);
}

/* A reload changed the rules: each reader is judged again by what it was
 * seen as, so that none shows (or keeps counting on by) a rule that is
 * gone. Without probing its process, which may be gone: a verdict the
 * catalogue reached from a process's facts stays until its next read,
 * unless the catalogue is off now. */
static bool verdict_by_rule(const char *verdict) {
        return streq_ptr(verdict, READ_VERDICT_COUNT_RULE) || streq_ptr(verdict, READ_VERDICT_IGNORE_RULE);
}

void manager_rejudge_readers(Manager *m) {
        const ReaderTable *t = engine_readers(manager_engine(m));
        const Config *c = manager_config(m);

        for (size_t i = 0; i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];
                ReaderIdentity id = readertab_identity(e);
                bool by_catalogue = streq_ptr(e->verdict, READ_VERDICT_KNOWN) || streq_ptr(e->verdict, READ_VERDICT_KNOWN_COUNTS);
                ReadJudgement j;

                read_judge(c, manager_known_cache(m), &id, 0, false, 0, &j);
                if (verdict_by_rule(e->verdict) || verdict_by_rule(j.v.verdict) || (by_catalogue && !c->known))
                        (void) manager_feed(m,
                                            &(EngineEvent) {
                                                    .type = ENGINE_EVENT_REJUDGE, .index = i, .verdict = &j.v },
                                            now_usec(CLOCK_MONOTONIC));
                read_judgement_done(&j);
        }
}

/* A read, or one an exit record named (or whose record did not come in
 * time): parked, not again. NULL: a read that could not wait, lost. */
void manager_handle_read(Manager *m, ReadEvent *ev, bool parked) {
        ReadEvent lost = { .overflow = true };

        if (!ev) {
                handle_read(m, &lost);
                return;
        }
        take_kernel_log_before_read(m);
        if (parked || !exits_park(manager_exits(m), ev))
                handle_read(m, ev);
}
