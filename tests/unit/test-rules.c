/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "macro.h"
#include "rules.h"
#include "tap.h"

/* A fully attributed reader: node_exporter under its unit, reading a node file. */
static ReaderIdentity identity(void) {
        return (ReaderIdentity) {
                .comm = "node_exporter",
                .exe = "/usr/bin/prometheus-node-exporter",
                .unit = "prometheus-node-exporter.service",
                .has_uid = true,
                .uid = 112,
                .path = "/sys/devices/system/node/node1/numastat",
        };
}

static int match1(IgnoreRule rule, ReaderIdentity id) {
        return rules_match(&rule, 1, &id);
}

static void test_fields(void) {
        ReaderIdentity id = identity();

        /* comm: exact */
        is_int(match1((IgnoreRule) { .comm = "node_exporter" }, id), 0, "comm exact match");
        is_int(match1((IgnoreRule) { .comm = "node_export" }, id), -1, "comm prefix does not match");
        is_int(match1((IgnoreRule) { .comm = "node_*" }, id), -1, "comm is not a glob");
        is_int(match1((IgnoreRule) { .comm = "Node_exporter" }, id), -1, "comm is case-sensitive");

        /* exe: exact */
        is_int(match1((IgnoreRule) { .exe = "/usr/bin/prometheus-node-exporter" }, id), 0, "exe exact match");
        is_int(match1((IgnoreRule) { .exe = "/usr/bin/*" }, id), -1, "exe is not a glob");
        is_int(match1((IgnoreRule) { .exe = "/usr/sbin/prometheus-node-exporter" }, id), -1, "exe other path");

        /* unit: glob */
        is_int(match1((IgnoreRule) { .unit = "prometheus-node-exporter.service" }, id), 0, "unit exact match");
        is_int(match1((IgnoreRule) { .unit = "prometheus-*.service" }, id), 0, "unit glob match");
        is_int(match1((IgnoreRule) { .unit = "*.timer" }, id), -1, "unit glob mismatch");
        is_int(match1((IgnoreRule) { .unit = "prometheus" }, id), -1, "unit must match whole name");

        /* path: glob, "*" does not cross "/" */
        is_int(match1((IgnoreRule) { .path = "/sys/devices/system/node/node1/numastat" }, id), 0, "path exact match");
        is_int(match1((IgnoreRule) { .path = "/sys/devices/system/node/node*/numastat" }, id), 0, "path glob match");
        is_int(match1((IgnoreRule) { .path = "/sys/devices/system/node/node[02]/numastat" }, id), -1,
               "path bracket glob mismatch");
        is_int(match1((IgnoreRule) { .path = "/proc/vmstat" }, id), -1, "path other file");
        is_int(match1((IgnoreRule) { .path = "/sys/*/numastat" }, id), -1, "path '*' does not span '/'");
        is_int(match1((IgnoreRule) { .path = "/sys/*/*/*/*/numastat" }, id), 0, "path '*' per component");

        /* uid: exact number */
        is_int(match1((IgnoreRule) { .has_uid = true, .uid = 112 }, id), 0, "uid match");
        is_int(match1((IgnoreRule) { .has_uid = true, .uid = 0 }, id), -1, "uid 0 does not match uid 112");
        id.uid = 0;
        is_int(match1((IgnoreRule) { .has_uid = true, .uid = 0 }, id), 0, "uid 0 matches root");
        is_int(match1((IgnoreRule) { .has_uid = false, .uid = 0, .comm = "node_exporter" }, id), 0,
               "uid not set in rule is not compared");
}

static void test_all_fields(void) {
        ReaderIdentity id = identity();
        IgnoreRule all = {
                .comm = "node_exporter",
                .exe = "/usr/bin/prometheus-node-exporter",
                .unit = "prometheus-*",
                .path = "/sys/devices/system/node/node*/numastat",
                .has_uid = true,
                .uid = 112,
        };
        IgnoreRule r;

        is_int(match1(all, id), 0, "every field set and matching");

        r = all, r.comm = "cat";
        is_int(match1(r, id), -1, "all fields: comm differs");
        r = all, r.exe = "/bin/cat";
        is_int(match1(r, id), -1, "all fields: exe differs");
        r = all, r.unit = "cron.service";
        is_int(match1(r, id), -1, "all fields: unit differs");
        r = all, r.path = "/proc/vmstat";
        is_int(match1(r, id), -1, "all fields: path differs");
        r = all, r.uid = 0;
        is_int(match1(r, id), -1, "all fields: uid differs");

        is_int(match1((IgnoreRule) { .comm = "node_exporter", .path = "/proc/vmstat" }, id), -1,
               "two fields: comm matches, path does not");
        is_int(match1((IgnoreRule) { .comm = "cat", .path = "/sys/devices/system/node/node1/numastat" }, id), -1,
               "two fields: path matches, comm does not");
}

static void test_unknown(void) {
        ReaderIdentity gone = { .path = "/proc/vmstat" };       /* reader exited: nothing known */
        ReaderIdentity id;

        is_int(match1((IgnoreRule) { .comm = "cat" }, gone), -1, "unknown comm never matches");
        is_int(match1((IgnoreRule) { .exe = "/usr/bin/cat" }, gone), -1, "unknown exe never matches");
        is_int(match1((IgnoreRule) { .unit = "*" }, gone), -1, "unknown unit never matches, even '*'");
        is_int(match1((IgnoreRule) { .has_uid = true, .uid = 0 }, gone), -1, "unknown uid never matches uid=0");
        is_int(match1((IgnoreRule) { .path = "/proc/*" }, gone), 0, "known path still matches a path-only rule");

        id = identity();
        id.exe = NULL;  /* no ptrace access */
        is_int(match1((IgnoreRule) { .comm = "node_exporter", .exe = "/usr/bin/prometheus-node-exporter" }, id), -1,
               "comm known, exe unknown: rule with both does not match");
        is_int(match1((IgnoreRule) { .comm = "node_exporter" }, id), 0, "unknown exe irrelevant to comm-only rule");

        id = identity();
        id.path = NULL;
        is_int(match1((IgnoreRule) { .path = "*" }, id), -1, "unknown path never matches");

        is_int(match1((IgnoreRule) {}, identity()), -1, "an empty rule matches nothing");
        is_int(rules_match((IgnoreRule[]) { { .comm = "x" } }, 1, NULL), -1, "NULL identity matches nothing");
}

static void test_first(void) {
        ReaderIdentity id = identity();
        IgnoreRule rules[] = {
                { .comm = "cat" },
                { .path = "/proc/vmstat" },
                { .unit = "prometheus-*.service" },
                { .comm = "node_exporter" },
                { .has_uid = true, .uid = 112 },
        };

        is_int(rules_match(rules, ELEMENTSOF(rules), &id), 2, "first matching rule wins (2, not 3 or 4)");
        is_int(rules_match(rules + 3, 2, &id), 0, "index is relative to the array passed");
        is_int(rules_match(rules, 2, &id), -1, "no rule of the first two matches");
        is_int(rules_match(rules, 0, &id), -1, "empty rule list matches nothing");
        is_int(rules_match(NULL, 0, &id), -1, "NULL rule list matches nothing");

        id.comm = "cat";
        is_int(rules_match(rules, ELEMENTSOF(rules), &id), 0, "rule 0 matches comm=cat");
}

static void test_to_string(void) {
        struct {
                IgnoreRule rule;
                const char *expected;
        } t[] = {
                { { .comm = "node_exporter", .path = "/proc/vmstat" }, "comm=node_exporter path=/proc/vmstat" },
                { { .path = "/sys/devices/system/node/node*/numastat" }, "path=/sys/devices/system/node/node*/numastat" },
                { { .has_uid = true, .uid = 0 }, "uid=0" },
                { { .unit = "foo@*.service", .has_uid = true, .uid = 4294967294u }, "unit=foo@*.service uid=4294967294" },
                { { .comm = "a", .exe = "/b", .unit = "c.service", .path = "/d", .has_uid = true, .uid = 7 },
                  "comm=a exe=/b unit=c.service uid=7 path=/d" },
                { { .uid = 5 }, "" },   /* uid without has_uid is not shown */
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *s = rule_to_string(&t[i].rule);
                is_str(s, t[i].expected, "rule_to_string");
        }
        ok(rule_to_string(NULL) == NULL, "rule_to_string(NULL) is NULL");
}

/* exe by the binary's device and inode: a reader known only by its exit
 * record (no path), and one run through another path to the same file. */
static void test_exe_id(void) {
        IgnoreRule rule = { .exe = "/bin/cat", .has_exe_id = true, .exe_dev = 0x803, .exe_ino = 77 };
        ReaderIdentity gone = { .comm = "cat", .path = "/proc/vmstat", .has_exe_id = true, .exe_dev = 0x803, .exe_ino = 77 };
        ReaderIdentity other_path = gone;

        is_int(match1(rule, gone), 0, "exe rule, reader known by its exit record: device and inode match");
        gone.exe_ino = 78;
        is_int(match1(rule, gone), -1, "  another inode: no match");
        gone.exe_ino = 77;
        gone.exe_dev = 0x804;
        is_int(match1(rule, gone), -1, "  another device: no match");
        gone.has_exe_id = false;
        is_int(match1(rule, gone), -1, "  nothing known of its binary: no match");
        rule.has_exe_id = false;
        gone = (ReaderIdentity) { .comm = "cat", .path = "/proc/vmstat", .has_exe_id = true, .exe_dev = 0x803, .exe_ino = 77 };
        is_int(match1(rule, gone), -1, "  a rule whose binary could not be stat()ed matches by path only");

        rule.has_exe_id = true;
        other_path.exe = "/usr/bin/cat";
        is_int(match1(rule, other_path), 0, "exe=/bin/cat matches /usr/bin/cat, the same file");
        other_path.exe_ino = 99;
        is_int(match1(rule, other_path), -1, "  but not another file there");
}

int main(void) {
        test_fields();
        test_exe_id();
        test_all_fields();
        test_unknown();
        test_first();
        test_to_string();
        return tap_done();
}
