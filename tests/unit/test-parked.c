/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reads waiting for their reader's exit record: due when the record comes
 * or at the deadline, oldest first, one at a time; bounded, the oldest
 * making room; and when to look again. */

#include <stdlib.h>
#include <string.h>

#include "parked.h"
#include "tap.h"

/* What the lookup sees: records "received" at time 0 for some pids, and
 * some pids still exiting. */
typedef struct Seen {
        const pid_t *records, *exiting;
} Seen;

static bool listed(const pid_t *pids, pid_t pid) {
        for (; pids && *pids; pids++)
                if (*pids == pid)
                        return true;
        return false;
}

static bool has_record(const ParkedRead *r, void *userdata) {
        const Seen *seen = userdata;

        return listed(seen->records, r->pid) && exit_record_not_before(r->since) == 0;
}

static bool exiting(const ParkedRead *r, void *userdata) {
        const Seen *seen = userdata;

        return listed(seen->exiting, r->pid);
}

static const ParkedLookup *lookup(const Seen *seen) {
        static ParkedLookup l;

        l = (ParkedLookup) { .has_record = has_record, .exiting = exiting, .userdata = (void *) seen };
        return &l;
}

static void test_due(void) {
        ParkedReads *p = parked_reads_new();
        pid_t second_pid[] = { 20, 0 };
        Seen none = {}, second = { .records = second_pid };
        uid_t uid = 1000;
        ParkedRead r;

        if (!p)
                abort();
        is_int(parked_reads_add(p, 10, 1000, "/proc/vmstat", "zombie", &uid, &r), 0, "parked one");
        is_int(parked_reads_add(p, 20, 1500, "/proc/zoneinfo", NULL, NULL, &r), 0, "parked another");
        is_int(parked_reads_count(p), 2, "  two wait");
        is_int(parked_reads_next(p, 1600), 1600 + PARKED_POLL_USEC, "look again at the next poll");
        ok(!parked_reads_take_due(p, 1600, lookup(&none), &r), "no record, no deadline: none is due");

        ok(parked_reads_take_due(p, 1600, lookup(&second), &r), "the second's record came: it is due");
        ok(r.pid == 20 && strcmp(r.path, "/proc/zoneinfo") == 0 && !r.comm && !r.has_uid,
           "  with what was parked");
        parked_read_done(&r);
        ok(!parked_reads_take_due(p, 1600, lookup(&second), &r), "  one at a time: the first still waits");

        is_int(parked_reads_next(p, 1000 + PARKED_DEADLINE_USEC - 1), 1000 + PARKED_DEADLINE_USEC,
               "a deadline sooner than the poll: look again then");
        ok(parked_reads_take_due(p, 1000 + PARKED_DEADLINE_USEC, lookup(&none), &r), "at its deadline, due unnamed");
        ok(r.pid == 10 && strcmp(r.comm, "zombie") == 0 && r.has_uid && r.uid == 1000, "  with its comm and uid");
        parked_read_done(&r);
        is_int(parked_reads_count(p), 0, "none left");
        ok(parked_reads_next(p, 5000) == UINT64_MAX, "  and nothing to look for");
        parked_reads_free(p);
}

/* A reader still exiting at the deadline has not sent its record yet:
 * its read waits on, up to PARKED_EXITING_MAX_USEC. */
static void test_exiting(void) {
        ParkedReads *p = parked_reads_new();
        pid_t exiting_pid[] = { 40, 0 }, record_pid[] = { 40, 0 };
        Seen still = { .exiting = exiting_pid }, came = { .records = record_pid, .exiting = exiting_pid }, done = {};
        uint64_t deadline = 1000 + PARKED_DEADLINE_USEC, end = 1000 + PARKED_EXITING_MAX_USEC;
        ParkedRead r;

        if (!p)
                abort();
        (void) parked_reads_add(p, 40, 1000, "/proc/vmstat", NULL, NULL, &r);
        ok(!parked_reads_take_due(p, deadline, lookup(&still), &r), "at its deadline, its reader still exiting: it waits");
        is_int(parked_reads_next(p, deadline), deadline + PARKED_POLL_USEC, "  looked at again at the next poll");
        is_int(parked_reads_next(p, end - 1), end, "  and at the end of the wait if sooner");
        ok(!parked_reads_take_due(p, end - 1, lookup(&still), &r), "  still waiting just before the end");
        ok(parked_reads_take_due(p, deadline + 1, lookup(&came), &r) && r.pid == 40, "its record came: due");
        parked_read_done(&r);

        (void) parked_reads_add(p, 40, 1000, "/proc/vmstat", NULL, NULL, &r);
        ok(parked_reads_take_due(p, end, lookup(&still), &r), "exiting for PARKED_EXITING_MAX_USEC: due unnamed");
        parked_read_done(&r);
        (void) parked_reads_add(p, 40, 1000, "/proc/vmstat", NULL, NULL, &r);
        ok(parked_reads_take_due(p, deadline, lookup(&done), &r), "exited, no record at the deadline: due unnamed");
        parked_read_done(&r);
        parked_reads_free(p);
}

static void test_records_off(void) {
        ParkedReads *p = parked_reads_new();
        ParkedRead r;

        if (!p)
                abort();
        (void) parked_reads_add(p, 30, 1000, "/proc/vmstat", NULL, NULL, &r);
        (void) parked_reads_add(p, 31, 1000, "/proc/vmstat", NULL, NULL, &r);
        ok(parked_reads_take_due(p, 1000, NULL, &r) && r.pid == 30, "records turned off: every read is due, oldest first");
        parked_read_done(&r);
        ok(parked_reads_take_due(p, 1000, NULL, &r) && r.pid == 31, "  then the next");
        parked_read_done(&r);
        parked_reads_free(p);
}

static void test_bounded(void) {
        ParkedReads *p = parked_reads_new();
        ParkedRead evicted = {};
        int r = 0;

        if (!p)
                abort();
        for (int i = 0; i < PARKED_MAX; i++)
                r |= parked_reads_add(p, 100 + i, 1000 + i, "/proc/vmstat", NULL, NULL, &evicted);
        is_int(r, 0, "PARKED_MAX reads park without eviction");
        is_int(parked_reads_add(p, 999, 5000, "/proc/vmstat", NULL, NULL, &evicted), 1, "one more evicts");
        is_int(evicted.pid, 100, "  the oldest, for the caller to handle now");
        parked_read_done(&evicted);
        is_int(parked_reads_count(p), PARKED_MAX, "  the count stays bounded");
        parked_reads_free(p);   /* frees what is left (the sanitizer build checks) */
}

static void test_lookback(void) {
        is_int(exit_record_not_before(10), 0, "in the first second after boot, any record");
        is_int(exit_record_not_before(5 * PARKED_LOOKBACK_USEC), 4 * PARKED_LOOKBACK_USEC, "later, a second back at most");
}

int main(void) {
        test_due();
        test_exiting();
        test_records_off();
        test_bounded();
        test_lookback();
        return tap_done();
}
