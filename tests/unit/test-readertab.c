/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "readertab.h"
#include "tap.h"

/* A read at rt (realtime) and mono, judged as with counting off and no history. */
#define AT(rt, m) (&(ReadClock) { .realtime = (rt), .mono = (m) })
/* The verdict of an ignore rule r, or of a reader nobody knows (NULL). */
#define V(r) (&(ReaderVerdict) { .counts = (r) == NULL, .verdict = (r) ? READ_VERDICT_IGNORE_RULE : READ_VERDICT_UNKNOWN, \
                                 .rule = (r), .why = (r) })

static int add(ReaderTable *t, const char *comm, const char *exe, const char *unit, bool has_uid, uid_t uid,
               pid_t pid, const char *path, bool ignored, const char *rule, uint64_t now) {
        ReaderIdentity id = {
                .comm = comm, .exe = exe, .unit = unit, .has_uid = has_uid, .uid = uid, .path = path,
        };
        return readertab_add(t, &id, pid, false, V(ignored ? (rule ? rule : "") : NULL), AT(now, now));
}

#define SEC (1000 * 1000ULL)

/* reads: seconds since the start (monotonic), by one program. */
static ReaderEntry *read_at(ReaderTable *t, const char *comm, const double *at, size_t n, bool ignored) {
        for (size_t i = 0; i < n; i++) {
                ReaderIdentity id = { .comm = comm, .exe = "/usr/bin/x", .has_uid = true, .path = "/proc/vmstat" };
                uint64_t mono = 1000 * SEC + (uint64_t) (at[i] * SEC);
                readertab_add(t, &id, 42, false, V(ignored ? "" : NULL), AT(mono, mono));
        }
        for (size_t i = 0; i < t->n; i++)
                if (t->entries[i].comm && strcmp(t->entries[i].comm, comm) == 0)
                        return &t->entries[i];
        return NULL;
}

static void test_period(void) {
        ReaderTable t = {};
        ReaderEntry *e;
        uint64_t until = 0;
        size_t which = 99;

        /* collectd every 10 s, with jitter; a burst of reads is one visit */
        e = read_at(&t, "collectd", (const double[]) { 0, 0.01, 0.02, 10.3, 19.8, 30.1, 40.0, 49.7 }, 8, false);
        ok(e && e->period >= 9 * SEC && e->period <= 11 * SEC, "10 s with jitter: period %.1f s",
           e ? (double) e->period / SEC : -1.0);
        /* sadc every 600 s, one read missed (1200 s) */
        e = read_at(&t, "sadc", (const double[]) { 0, 600, 1200, 2400, 3000, 3600 }, 6, false);
        ok(e && e->period == 600 * SEC, "600 s, one read missed: period %.0f s", e ? (double) e->period / SEC : -1.0);
        /* someone who reads now and then: not periodic */
        e = read_at(&t, "human", (const double[]) { 0, 7, 300, 310, 2000 }, 5, false);
        ok(e && e->period == 0, "irregular reads: no period");
        e = read_at(&t, "twice", (const double[]) { 0, 60 }, 2, false);
        ok(e && e->period == 0, "two reads: not yet a period");
        e = read_at(&t, "ignored", (const double[]) { 0, 10, 20, 30, 40 }, 5, true);
        ok(e && e->period == 0, "an ignored reader's period is not learned");

        /* expected: sadc last read at 3600 (+600 twice, as it missed one, + 150 margin),
         * collectd at 49.7 (+10 +2.5) */
        is_int(readertab_expected(&t, 1000 * SEC + 3700 * SEC, 3600 * SEC, &until, &which) >= 0, 1,
               "a periodic reader is expected");
        is_u64(until, 1000 * SEC + (3600 + 1350) * SEC,
               "sadc, which missed a read, until its last read + twice 600 s + a quarter");
        ok(which < t.n && strcmp(t.entries[which].comm, "sadc") == 0, "and it is sadc");
        is_int(readertab_expected(&t, 1000 * SEC + 3700 * SEC, 300 * SEC, &until, &which) >= 0, 1,
               "capped by linger_max");
        is_u64(until, 1000 * SEC + (3600 + 300) * SEC, "at its last read + linger_max");
        is_int(readertab_expected(&t, 1000 * SEC + 6000 * SEC, 3600 * SEC, &until, &which), -1,
               "nobody expected once every expectation passed");
        is_int(readertab_expected(&t, 1000 * SEC + 3700 * SEC, 0, &until, &which), -1, "linger_max 0: none");
        ok(readertab_period((const uint64_t[]) { 10, 10, 10 }, 3) == 10, "period: three equal intervals");
        ok(readertab_period((const uint64_t[]) { 10, 10, 50, 90 }, 4) == 0, "period: mostly misfits");
        readertab_done(&t);
}

/* sadc runs as a new process each time: seen alive (its path, its unit)
 * or gone before the daemon looked (its exit record: the binary's device
 * and inode). One program, one entry, one period. */
static void test_exit_records_join(void) {
        ReaderTable t = {};
        ReaderIdentity alive = {
                .comm = "sadc", .exe = "/usr/lib/sysstat/sadc", .unit = "sysstat-collect.service",
                .has_uid = true, .uid = 0, .path = "/proc/vmstat", .has_exe_id = true, .exe_dev = 8, .exe_ino = 77,
        };
        ReaderIdentity exited = {
                .comm = "sadc", .has_uid = true, .uid = 0, .path = "/proc/vmstat",
                .has_exe_id = true, .exe_dev = 8, .exe_ino = 77,
        };
        ReaderIdentity other_binary = exited, other_uid = exited, no_id = exited;

        other_binary.exe_ino = 78;
        other_uid.uid = 1000;
        no_id.has_exe_id = false;

        /* Exit records first: an entry without a path, then filled in. */
        is_int(readertab_add(&t, &exited, 10, false, V(NULL), AT(1 * SEC, 1 * SEC)), 1, "an exit record makes an entry");
        is_int(readertab_add(&t, &exited, 11, false, V(NULL), AT(11 * SEC, 11 * SEC)), 0, "  the next one joins it");
        is_int(readertab_add(&t, &alive, 12, false, V(NULL), AT(21 * SEC, 21 * SEC)), 0,
               "a read seen alive, same binary: the same entry");
        is_int(t.n, 1, "  one entry");
        is_str(t.entries[0].exe, "/usr/lib/sysstat/sadc", "  which now has the path");
        is_str(t.entries[0].unit, "sysstat-collect.service", "  and the unit");
        is_int(readertab_add(&t, &exited, 13, false, V(NULL), AT(31 * SEC, 31 * SEC)), 0,
               "an exit record after that: the same entry");
        is_int(t.n, 1, "  still one entry");
        is_u64(t.entries[0].count, 4, "  four reads");
        is_u64(t.entries[0].period, 10 * SEC, "  one period, learned across both kinds of name");

        is_int(readertab_add(&t, &other_binary, 14, false, V(NULL), AT(32 * SEC, 32 * SEC)), 1,
               "another binary with the same comm: its own entry");
        is_int(readertab_add(&t, &other_uid, 15, false, V(NULL), AT(33 * SEC, 33 * SEC)), 1, "another uid: its own entry");
        is_int(readertab_add(&t, &no_id, 16, false, V(NULL), AT(34 * SEC, 34 * SEC)), 1,
               "no device and inode: nothing to join by");
        /* A second live entry, another unit: an exit record joins the most recent. */
        alive.unit = "cron.service";
        is_int(readertab_add(&t, &alive, 18, false, V(NULL), AT(40 * SEC, 40 * SEC)), 1, "run from another unit: an entry");
        is_int(readertab_add(&t, &exited, 19, false, V(NULL), AT(41 * SEC, 41 * SEC)), 0, "an exit record joins");
        is_u64(t.entries[t.n - 1].count, 2, "  the most recently seen of them");
        is_str(t.entries[t.n - 1].unit, "cron.service", "  (cron.service)");
        readertab_done(&t);

        /* Judged otherwise: a unit= rule ignores it alive, its exit record
         * (no unit) counts. Folded together, the entry's verdict would
         * flip read by read. */
        alive.unit = "sysstat-collect.service";
        is_int(readertab_add(&t, &alive, 20, false, V("unit=sysstat-collect.service"), AT(50 * SEC, 50 * SEC)), 1,
               "ignored alive: an entry");
        is_int(readertab_add(&t, &exited, 21, false, V(NULL), AT(51 * SEC, 51 * SEC)), 1,
               "counted from its exit record: not folded into the ignored entry");
        is_int(readertab_add(&t, &exited, 22, false, V(NULL), AT(61 * SEC, 61 * SEC)), 0, "  and the next joins that one");
        readertab_done(&t);

        /* Counted both ways, for another reason only: a look refused
         * because the reader was gone says so, its exit record does not.
         * One line, its why the latest read's. */
        ReaderVerdict gone = { .counts = true, .verdict = READ_VERDICT_UNKNOWN, .why = "counts: it is gone" };
        alive.unit = NULL;
        is_int(readertab_add(&t, &alive, 23, false, &gone, AT(70 * SEC, 70 * SEC)), 1, "counted alive, its look refused: an entry");
        is_int(readertab_add(&t, &exited, 24, false, V(NULL), AT(71 * SEC, 71 * SEC)), 0,
               "counted from its exit record, no why: the same entry");
        ok(t.n == 1 && t.entries[0].why == NULL, "  one entry, with the latest read's why");
        readertab_done(&t);
}

static const ReaderEntry *find(const ReaderTable *t, const char *comm) {
        for (size_t i = 0; i < t->n; i++)
                if (t->entries[i].comm && strcmp(t->entries[i].comm, comm) == 0)
                        return &t->entries[i];
        return NULL;
}

/* A flood of one-off names (a user running processes named at random)
 * does not push out what was there before it. */
static void test_churn(void) {
        ReaderTable t = {};
        const ReaderEntry *e;
        char comm[32];
        size_t flood = 500;

        read_at(&t, "collectd", (const double[]) { 0, 10, 20, 30, 40, 50, 60, 70 }, 8, false);
        read_at(&t, "watch", (const double[]) { 75, 77 }, 2, false);
        read_at(&t, "admin", (const double[]) { 100 }, 1, false);
        for (size_t i = 0; i < flood; i++) {
                snprintf(comm, sizeof comm, "x%zu", i);
                read_at(&t, comm, (const double[]) { 200 + i * 0.001 }, 1, false);
        }
        is_int(t.n, READERTAB_MAX, "a flood of 500 one-off names: the table stays at its cap");
        e = find(&t, "collectd");
        ok(e && e->period == 10 * SEC, "  the periodic collector keeps its entry and its period");
        ok(find(&t, "watch") != NULL, "  a repeat reader from before keeps its entry");
        ok(find(&t, "admin") != NULL, "  a one-off reader from before the flood keeps its entry");
        snprintf(comm, sizeof comm, "x%zu", flood - 1);
        ok(find(&t, comm) != NULL, "  the latest name is listed");
        is_u64(t.evicted, 3 + flood - READERTAB_MAX, "  the flood replaced only its own entries");
        /* Older than READERTAB_KEEP_USEC, a one-off entry ages out first. */
        read_at(&t, "late", (const double[]) { 100 + READERTAB_KEEP_USEC / SEC + 1 }, 1, false);
        ok(find(&t, "late") && !find(&t, "admin"), "  ten minutes on, the oldest one-off makes room");
        ok(find(&t, "collectd") && find(&t, "watch"), "  the others stay");
        readertab_done(&t);
}

/* Linger runs from the last counted read of a reader whose period is not
 * learned: a periodic reader's reads stop holding counting on for linger
 * once its period is known, an ignored reader's never did, and a reader
 * the table lets go keeps its linger. */
static void test_linger_from(void) {
        ReaderTable t = {};
        const ReaderEntry *e;
        char comm[32];
        int k = 99;

        is_u64(readertab_linger_from(&t, 3600 * SEC, &k), 0, "linger from: nothing read yet");
        is_int(k, -1, "  and no entry");
        read_at(&t, "admin", (const double[]) { 5 }, 1, false);
        read_at(&t, "delta", (const double[]) { 10, 20, 30 }, 3, false);
        is_u64(readertab_linger_from(&t, 3600 * SEC, &k), 1030 * SEC, "three reads, no period yet: the last lingers");
        ok(k >= 0 && strcmp(t.entries[k].comm, "delta") == 0, "  and it is the delta reader");
        is_u64(readertab_holds_until(&t.entries[k], 300 * SEC, 3600 * SEC), 1330 * SEC,
               "  which holds counting on for linger after its read");
        e = read_at(&t, "delta", (const double[]) { 40 }, 1, false);
        ok(e && e->period == 10 * SEC, "the fourth read: its period is learned");
        is_u64(readertab_linger_from(&t, 3600 * SEC, &k), 1005 * SEC, "  now linger runs from the reader of unknown pace");
        ok(k >= 0 && strcmp(t.entries[k].comm, "admin") == 0, "  admin");
        is_u64(readertab_holds_until(e, 300 * SEC, 3600 * SEC), 1052 * SEC + SEC / 2,
               "  and the delta reader holds it on only until a margin past its next read");
        is_u64(readertab_linger_from(&t, 0, &k), 1040 * SEC, "linger_max 0 (no periods): its reads linger again");
        read_at(&t, "collector", (const double[]) { 50 }, 1, true);
        is_u64(readertab_linger_from(&t, 3600 * SEC, &k), 1005 * SEC, "an ignored reader's read does not linger");
        /* A flood evicts admin; its read still lingers. */
        for (size_t i = 0; i < 2 * READERTAB_MAX; i++) {
                snprintf(comm, sizeof comm, "x%zu", i);
                read_at(&t, comm, (const double[]) { 1 }, 1, true);
        }
        ok(!find(&t, "admin"), "a flood of ignored one-off names evicts admin");
        is_u64(readertab_linger_from(&t, 3600 * SEC, &k), 1005 * SEC, "  its read lingers still");
        is_int(k, -1, "  by no entry");
        readertab_done(&t);
}

/* Cost: the time each reader's counted reads held counting on under
 * pressure; the pressured time, and of it, with counting on. */
static void test_cost(void) {
        ReaderTable t = {};
        size_t order[READERTAB_MAX];
        const ReaderEntry *a, *b;
        char comm[32];

        /* a reads at 0 s (lingers until 300 s), b at 100 s (until 400 s), c is ignored. */
        read_at(&t, "a", (const double[]) { 0 }, 1, false);
        read_at(&t, "b", (const double[]) { 100 }, 1, false);
        read_at(&t, "c", (const double[]) { 100 }, 1, true);
        a = find(&t, "a");
        b = find(&t, "b");
        ok(readertab_held_on_share(&t, a) < 0, "no pressure yet: no share");
        readertab_book_pressure(&t, 1000 * SEC, 1050 * SEC, false, 300 * SEC, 3600 * SEC);
        is_u64(t.pressured, 50 * SEC, "pressure with counting off is pressured time");
        is_u64(t.pressured_on + a->held_on + b->held_on, 0, "  that nobody held on");
        readertab_book_pressure(&t, 1250 * SEC, 1350 * SEC, true, 300 * SEC, 3600 * SEC);
        is_u64(a->held_on, 50 * SEC, "a held counting on until its linger ended");
        is_u64(b->held_on, 100 * SEC, "b, whose linger lasted the whole stretch, held it all");
        is_u64(find(&t, "c")->held_on, 0, "an ignored reader holds nothing on");
        is_u64(t.pressured, 150 * SEC, "pressured time");
        is_u64(t.pressured_on, 100 * SEC, "  with counting on");
        ok(fabs(readertab_held_on_share(&t, b) - 100.0 / 150.0) < 1e-9, "b's share of the pressured time");
        readertab_book_pressure(&t, 1350 * SEC, 1350 * SEC, true, 300 * SEC, 3600 * SEC);
        is_u64(t.pressured, 150 * SEC, "an empty stretch books nothing");
        readertab_book_pressure(&t, 1350 * SEC, 1360 * SEC, true, 300 * SEC, 3600 * SEC);
        is_u64(a->held_on, 50 * SEC, "a's linger over: it pays no more");
        is_u64(b->held_on, 110 * SEC, "  b's goes on");
        readertab_by_cost(&t, order);
        ok(t.entries[order[0]].held_on == 110 * SEC && t.entries[order[1]].held_on == 50 * SEC,
           "by cost: b, then a");
        /* An evicted reader's cost stays in the table's total. */
        for (size_t i = 0; i < 2 * READERTAB_MAX; i++) {
                snprintf(comm, sizeof comm, "x%zu", i);
                read_at(&t, comm, (const double[]) { 2000 }, 1, true);   /* a and b are old by then */
        }
        ok(!find(&t, "a") && !find(&t, "b"), "a flood of one-off names evicts a and b");
        is_u64(t.evicted_held_on, 160 * SEC, "  their cost is kept as evicted");
        readertab_done(&t);
}

/* Service: a counted visit found counting on since the reader's previous
 * read, or not; a first read that found it off is counted apart. */
static void test_service(void) {
        ReaderTable t = {};
        ReaderIdentity collectd = { .comm = "collectd", .has_uid = true, .path = "/proc/vmstat" },
                       sadc = { .comm = "sadc", .has_uid = true, .path = "/proc/vmstat" };
        ReadClock c;

#define CLOCK(mono_s, on, since_s, first_s) ((ReadClock) { .realtime = (mono_s) * SEC, .mono = (mono_s) * SEC, \
                                                        .counting = (on), .on_since = (since_s) * SEC, \
                                                        .first_since = (first_s) * SEC })
        c = CLOCK(10, false, 0, 0);
        is_int(readertab_service(&c, 0), READ_FIRST_OFF, "a first read that found counting off");
        is_int(readertab_service(&c, 5 * SEC), READ_UNSERVED, "a later one: unserved");
        c = CLOCK(20, true, 5, 0);
        is_int(readertab_service(&c, 10 * SEC), READ_SERVED, "on since before the previous read: served");
        c = CLOCK(20, true, 10, 0);
        is_int(readertab_service(&c, 10 * SEC), READ_SERVED, "on since the previous read itself: served");
        c = CLOCK(20, true, 11, 0);
        is_int(readertab_service(&c, 10 * SEC), READ_UNSERVED, "on only after the previous read: unserved");
        c = CLOCK(20, true, 7, 5);
        is_int(readertab_service(&c, 0), READ_UNSERVED, "a first read, on for less than the window: unserved");
        c = CLOCK(20, true, 5, 5);
        is_int(readertab_service(&c, 0), READ_SERVED, "a first read, on for all the window: served");

        c = CLOCK(10, false, 0, 0);
        readertab_add(&t, &collectd, 1, false, V(NULL), &c);
        c = CLOCK(10, true, 10, 0);     /* the same visit, after the read turned counting on */
        c.mono += READERTAB_VISIT_GAP_USEC / 2;
        readertab_add(&t, &collectd, 1, false, V(NULL), &c);
        is_int(t.entries[0].first_off, 1, "collectd's first read found counting off");
        is_int(t.entries[0].served + t.entries[0].unserved, 0, "  its second read() is the same visit");
        c = CLOCK(20, true, 10, 0);
        readertab_add(&t, &collectd, 1, false, V(NULL), &c);
        is_int(t.entries[0].served, 1, "on since its previous read: served");
        c = CLOCK(30, true, 25, 0);
        readertab_add(&t, &collectd, 1, false, V(NULL), &c);
        is_int(t.entries[0].unserved, 1, "off for a while since: unserved");
        c = CLOCK(40, false, 0, 0);
        readertab_add(&t, &collectd, 1, false, V(NULL), &c);
        is_int(t.entries[0].unserved, 2, "off at the read: unserved");
        readertab_add(&t, &sadc, 2, false, V("comm=sadc"), &c);
        is_int(t.entries[1].served + t.entries[1].unserved + t.entries[1].first_off, 0,
               "an ignored reader's reads are not judged");
        ok(t.served == 1 && t.unserved == 2 && t.first_off == 1, "the totals are the entries'");
        readertab_done(&t);
#undef CLOCK
}

int main(void) {
        ReaderTable t = {};
        size_t order[READERTAB_MAX];
        char comm[16];

        is_int(add(&t, "cat", "/usr/bin/cat", "session-1.scope", true, 0, 100, "/proc/vmstat", false,
                             NULL, 1000),
               1, "first read makes an entry");
        is_int(add(&t, "cat", "/usr/bin/cat", "session-1.scope", true, 0, 101, "/proc/vmstat", false,
                             NULL, 2000),
               0, "same program, same file, new pid: same entry");
        is_int(t.n, 1, "one entry");
        is_u64(t.entries[0].count, 2, "counted twice");
        is_int(t.entries[0].last_pid, 101, "last pid kept");
        is_u64(t.entries[0].first_seen, 1000, "first seen kept");
        is_u64(t.entries[0].last_seen, 2000, "last seen updated");

        is_int(add(&t, "cat", "/usr/bin/cat", "session-1.scope", true, 0, 102,
                             "/sys/devices/system/node/node0/numastat", false, NULL, 3000),
               1, "another file: another entry");
        is_int(add(&t, "cat", "/usr/bin/cat", "session-1.scope", true, 1000, 103, "/proc/vmstat", false,
                             NULL, 3000),
               1, "another uid: another entry");
        is_int(add(&t, NULL, NULL, NULL, false, 0, 104, "/proc/vmstat", false, NULL, 3000), 1,
               "an unattributed reader has its own entry");
        is_int(add(&t, NULL, NULL, NULL, false, 0, 105, "/proc/vmstat", false, NULL, 3100), 0,
               "and unattributed reads share it");

        is_int(add(&t, "node_exporter", NULL, "node_exporter.service", true, 65534, 200, "/proc/vmstat",
                             true, "comm=node_exporter path=/proc/vmstat", 4000),
               1, "ignored read recorded");
        ok(t.entries[t.n - 1].ignored, "marked ignored");
        is_str(t.entries[t.n - 1].rule, "comm=node_exporter path=/proc/vmstat", "with its rule");
        /* A reload dropped the rule: the same program now counts. */
        is_int(add(&t, "node_exporter", NULL, "node_exporter.service", true, 65534, 200, "/proc/vmstat",
                             false, NULL, 5000),
               0, "same entry after a rule change");
        ok(!t.entries[t.n - 1].ignored && t.entries[t.n - 1].rule == NULL, "no longer ignored");
        is_u64(t.total_reads, 8, "total reads");
        is_u64(t.ignored_reads, 1, "ignored reads");
        is_u64(t.counted_reads, 7, "counted reads");

        readertab_by_cost(&t, order);     /* nobody cost anything: by count */
        is_u64(t.entries[order[0]].count, 2, "most frequent first");
        ok(t.entries[order[1]].count <= t.entries[order[0]].count &&
                   t.entries[order[t.n - 1]].count <= t.entries[order[1]].count,
           "sorted by count");

        /* Bounded: with only repeat readers, the least recently seen makes room. */
        readertab_done(&t);
        for (int i = 0; i < READERTAB_MAX; i++) {
                snprintf(comm, sizeof comm, "r%d", i);
                add(&t, comm, NULL, NULL, true, 0, i, "/proc/vmstat", false, NULL, 10000 + i);
                add(&t, comm, NULL, NULL, true, 0, i, "/proc/vmstat", false, NULL, 20000 + i);
        }
        is_int(t.n, READERTAB_MAX, "table full");
        add(&t, "r0", NULL, NULL, true, 0, 0, "/proc/vmstat", false, NULL, 30000); /* r0 is fresh again */
        is_int(add(&t, "newcomer", NULL, NULL, true, 0, 999, "/proc/vmstat", false, NULL, 30001), 1,
               "a newcomer when full");
        is_int(t.n, READERTAB_MAX, "still full, not more");
        bool has_r0 = false, has_r1 = false, has_new = false;
        for (size_t i = 0; i < t.n; i++) {
                has_r0 |= strcmp(t.entries[i].comm, "r0") == 0;
                has_r1 |= strcmp(t.entries[i].comm, "r1") == 0;
                has_new |= strcmp(t.entries[i].comm, "newcomer") == 0;
        }
        ok(has_new && has_r0 && !has_r1, "r1, the least recently seen, made room; r0 stayed");
        readertab_done(&t);
        is_int(t.n, 0, "done empties");
        test_period();
        test_exit_records_join();
        test_churn();
        test_linger_from();
        test_cost();
        test_service();
        return tap_done();
}
