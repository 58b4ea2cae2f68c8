/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "readertab.h"
#include "tap.h"

/* The old positional form, kept for the tables below. */
static int add(ReaderTable *t, const char *comm, const char *exe, const char *unit, bool has_uid, uid_t uid,
               pid_t pid, const char *path, bool ignored, const char *rule, uint64_t now) {
        ReaderIdentity id = {
                .comm = comm, .exe = exe, .unit = unit, .has_uid = has_uid, .uid = uid, .path = path,
        };
        return readertab_add(t, &id, pid, false, ignored ? (rule ? rule : "") : NULL, now);
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

        readertab_by_count(&t, order);
        is_u64(t.entries[order[0]].count, 2, "most frequent first");
        ok(t.entries[order[1]].count <= t.entries[order[0]].count &&
                   t.entries[order[t.n - 1]].count <= t.entries[order[1]].count,
           "sorted by count");

        /* Bounded: the least recently seen entry makes room. */
        readertab_done(&t);
        for (int i = 0; i < READERTAB_MAX; i++) {
                snprintf(comm, sizeof comm, "r%d", i);
                add(&t, comm, NULL, NULL, true, 0, i, "/proc/vmstat", false, NULL, 10000 + i);
        }
        is_int(t.n, READERTAB_MAX, "table full");
        add(&t, "r0", NULL, NULL, true, 0, 0, "/proc/vmstat", false, NULL, 20000); /* r0 is fresh again */
        is_int(add(&t, "newcomer", NULL, NULL, true, 0, 999, "/proc/vmstat", false, NULL, 20001), 1,
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
        return tap_done();
}
