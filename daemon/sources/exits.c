/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reads parked until an exit record names their reader. See exits.h. */
#include "exits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event-util.h"
#include "log.h"
#include "macro.h"
#include "parked.h"
#include "strutil.h"
#include "taskstats.h"
#include "time-util.h"

struct Exits {
        Taskstats *taskstats;           /* NULL: off, or unavailable */
        char *error;                    /* why unavailable, if it is */
        ParkedReads *parked;            /* reads waiting for their record */
        sd_event_source *timer;         /* when to look again */
        sd_event *event;
        ExitsReadFn on_read;
        void *userdata;
        uint64_t named, missed;
};

/* ev, named by its exit record e; comm is e's, or a copy that outlives
 * the ring entry. */
static void read_event_name_from(ReadEvent *ev, const TaskExit *e, const char *comm) {
        ev->comm = comm;
        ev->has_uid = true;
        ev->uid = e->uid;
        ev->exit_began = e->began;
        ev->has_exe_id = e->has_exe;
        ev->exe_dev = e->exe_dev;
        ev->exe_ino = e->exe_ino;
        ev->from_exit_record = true;
        ev->exit_ppid = e->ppid;
}

/* What a read taken at since (CLOCK_MONOTONIC µs) by pid knows of its
 * reader, to find its exit record by. */
static ExitQuery exit_query(pid_t pid, uint64_t since, const uid_t *uid) {
        uint64_t realtime = now_usec(CLOCK_REALTIME), monotonic = now_usec(CLOCK_MONOTONIC);
        uint64_t ago = monotonic > since ? monotonic - since : 0;

        return (ExitQuery) {
                .pid = pid,
                .not_before = exit_record_not_before(since),
                .read_by = (realtime > ago ? realtime - ago : 0) / USEC_PER_SEC,
                .has_uid = uid != NULL,
                .uid = uid ? *uid : 0,
        };
}

static const TaskExit *parked_read_record(Exits *x, const ParkedRead *p) {
        ExitQuery q = exit_query(p->pid, p->since, p->has_uid ? &p->uid : NULL);

        return taskstats_find_reader(x->taskstats, &q);
}

/* A parked read, handed back with what its exit record (or, without one,
 * /proc before it was gone) said. */
static void exits_unpark(Exits *x, ParkedRead *p) {
        const TaskExit *e = parked_read_record(x, p);
        char comm[TASKSTATS_COMM_MAX + 1];
        ReadEvent ev = {
                .pid = p->pid,
                .path = p->path,
                .comm = p->comm,
                .has_uid = p->has_uid,
                .uid = p->uid,
        };

        if (e) {
                /* A copy: handling the read may fetch more records into the ring. */
                memcpy(comm, e->comm, sizeof comm);
                read_event_name_from(&ev, e, comm);
                x->named++;
        } else
                x->missed++;
        x->on_read(x, &ev, x->userdata);
        parked_read_done(p);
}

static bool has_exit_record(const ParkedRead *p, void *userdata) {
        return parked_read_record(userdata, p) != NULL;
}

static bool reader_exiting(const ParkedRead *p, void *userdata) {
        return process_exiting(p->pid);
}

/* Hands back the parked reads that are due (their record came, or their
 * deadline passed), oldest first, and says when to look again. Never
 * nested: handling a read fetches exit records, but they are news to
 * on_task_exits only on the loop's next turn. */
static void exits_resolve(Exits *x) {
        ParkedLookup lookup = { .has_record = has_exit_record, .exiting = reader_exiting, .userdata = x };
        ParkedRead p;

        while (parked_reads_take_due(x->parked, now_usec(CLOCK_MONOTONIC), x->taskstats ? &lookup : NULL, &p))
                exits_unpark(x, &p);
        event_timer_at(x->timer, parked_reads_next(x->parked, now_usec(CLOCK_MONOTONIC)));
}

static int on_park_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Exits *x = userdata;

        taskstats_fetch(x->taskstats);
        exits_resolve(x);
        return 0;
}

static void on_task_exits(Taskstats *t, void *userdata) {
        Exits *x = userdata;

        if (parked_reads_count(x->parked) > 0)
                exits_resolve(x);
}

int exits_new(sd_event *event, ExitsReadFn on_read, void *userdata, Exits **ret) {
        _cleanup_(exits_freep) Exits *x = NULL;
        int r;

        x = calloc(1, sizeof *x);
        if (!x)
                return -ENOMEM;
        *x = (Exits) { .event = sd_event_ref(event), .on_read = on_read, .userdata = userdata };
        x->parked = parked_reads_new();
        if (!x->parked)
                return -ENOMEM;
        /* Accuracy 1 ms: records come within 20 ms, and a read waits. */
        r = sd_event_add_time(event, &x->timer, CLOCK_MONOTONIC, UINT64_MAX, USEC_PER_MSEC, on_park_timer, x);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(x->timer, "park");
        r = sd_event_source_set_exit_on_failure(x->timer, true);
        if (r >= 0)
                r = sd_event_source_set_enabled(x->timer, SD_EVENT_OFF);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(x);
        return 0;
}

Exits *exits_free(Exits *x) {
        if (!x)
                return NULL;
        sd_event_source_disable_unref(x->timer);
        parked_reads_free(x->parked);
        taskstats_free(x->taskstats);
        free(x->error);
        sd_event_unref(x->event);
        free(x);
        return NULL;
}

int exits_enable(Exits *x, bool on) {
        int r;

        if (!on) {
                x->taskstats = taskstats_free(x->taskstats);
                x->error = mfree(x->error);
                /* The parked reads go back unnamed, from the timer: never
                 * inside the caller's own handling. */
                event_timer_at(x->timer, now_usec(CLOCK_MONOTONIC));
                return 0;
        }
        x->error = mfree(x->error);
        if (x->taskstats)
                return 0;
        r = taskstats_new(x->event, on_task_exits, x, &x->taskstats);
        if (r < 0) {
                set_source_error(&x->error, r, "taskstats unavailable: %m%s",
                                 r == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
                log_info_errno(r, "Exit records unavailable (taskstats: %m): readers gone before they are "
                                  "looked at stay unnamed.");
        }
        return r;
}

bool exits_enabled(const Exits *x) {
        return x && x->taskstats;
}

const char *exits_error(const Exits *x) {
        return x ? x->error : NULL;
}

ExitsStats exits_stats(const Exits *x) {
        if (!x)
                return (ExitsStats) {};
        return (ExitsStats) {
                .named = x->named,
                .missed = x->missed,
                .version = taskstats_stats(x->taskstats).version,
        };
}

/* While a patched kernel's auto is armed too: the read has already turned
 * counting on in the kernel, and whether it re-arms must wait until the
 * rules can judge who read (an ignored one-off reader judged unnamed would
 * count, and keep counting on). */
bool exits_park(Exits *x, ReadEvent *ev) {
        ParkedRead evicted;
        int r;

        if (!x || !x->taskstats || ev->overflow || ev->pid <= 0 || !read_event_exited(ev))
                return false;
        /* Full: this one is handled now, unnamed, by the caller; nothing
         * parked is handed back inside the caller's handling. */
        if (parked_reads_count(x->parked) >= PARKED_MAX)
                return false;
        r = parked_reads_add(x->parked, ev->pid, now_usec(CLOCK_MONOTONIC), ev->path, ev->comm,
                             ev->has_uid ? &ev->uid : NULL, &evicted);
        if (r < 0)
                return false;   /* handled now, unnamed */
        if (r > 0)              /* not while below PARKED_MAX */
                parked_read_done(&evicted);
        /* Its record may be queued already: the timer looks on the loop's
         * next turn, not inside this read's handling. */
        event_timer_at(x->timer, now_usec(CLOCK_MONOTONIC));
        return true;
}

void exits_name(Exits *x, ReadEvent *ev) {
        const TaskExit *e;

        if ((ev->comm && ev->has_exe_id) || ev->from_exit_record || !x || !x->taskstats || ev->pid <= 0)
                return;
        /* Its comm read, but gone before its binary could be: without the
         * binary from its record it would start a line of its own, apart
         * from its program's. Alive (a kernel thread, no ptrace access):
         * no record to look for. */
        if (ev->comm && !read_event_exited(ev))
                return;
        taskstats_fetch(x->taskstats);
        ExitQuery q = exit_query(ev->pid, now_usec(CLOCK_MONOTONIC), ev->has_uid ? &ev->uid : NULL);
        e = taskstats_find_reader(x->taskstats, &q);
        /* The same process goes by the same name: a record under another
         * is of a pid used again. */
        if (!e || (ev->comm && !streq(ev->comm, e->comm)))
                return;
        read_event_name_from(ev, e, ev->comm ?: e->comm);
        x->named++;
}

static const TaskExit *record_of(Exits *x, pid_t pid) {
        if (!x || !x->taskstats)
                return NULL;
        taskstats_fetch(x->taskstats);    /* its record may be queued still */
        return taskstats_find(x->taskstats, pid, 0);
}

int exits_parent(Exits *x, pid_t pid, pid_t *ret) {
        const TaskExit *e = record_of(x, pid);

        if (!e || e->ppid <= 0)
                return -ESRCH;
        *ret = e->ppid;
        return 0;
}

int exits_binary(Exits *x, pid_t pid, uid_t *ret_uid, uint64_t *ret_exe_dev, uint64_t *ret_exe_ino) {
        const TaskExit *e = record_of(x, pid);

        if (!e || !e->has_exe)
                return -ESRCH;
        *ret_uid = e->uid;
        *ret_exe_dev = e->exe_dev;
        *ret_exe_ino = e->exe_ino;
        return 0;
}

size_t exits_parked(const Exits *x) {
        return x ? parked_reads_count(x->parked) : 0;
}

int exits_park_unlooked(Exits *x, pid_t pid, uint64_t since, const char *path, const uid_t *uid) {
        ParkedRead evicted;
        int r;

        if (parked_reads_count(x->parked) >= PARKED_MAX)
                return -ENOSPC;         /* as exits_park(): nothing handed back inside a call */
        r = parked_reads_add(x->parked, pid, since, path, NULL, uid, &evicted);
        if (r > 0)              /* not while below PARKED_MAX */
                parked_read_done(&evicted);
        return r < 0 ? r : 0;
}
