/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The status snapshot's fingerprint, both directions: every change a
 * person would call one moves it (Monitor sends an update), and numbers
 * that merely tick do not (Monitor stays quiet). Also the STATUS= line and
 * the JSON of untrusted names. */

#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "status.h"
#include "tap.h"

typedef struct Fixture {
        KernelState kernel;
        Decision decision;
        ErrorRecord error;
        Topology topology;
        NumaNode nodes[2];
        ReaderTable readers;
        History history;
        NodeTrack tracks[2];
        char *watched[3];
        Status status;
} Fixture;

static void contains_str(const char *hay, const char *needle, const char *name) {
        if (!ok(hay && strstr(hay, needle), "%s", name))
                printf("#   \"%s\" not in \"%s\"\n", needle, hay ? hay : "(null)");
}

static void fixture_init(Fixture *f) {
        *f = (Fixture) {
                .kernel = { .mode = KERNEL_MODE_COARSE },
                .decision = { .mode = KERNEL_MODE_COARSE, .cause = CAUSE_PRESSURE_ABOVE,
                              .rule = RULE_OFF_WAITING },
                .nodes = { { .id = 0 }, { .id = 1 } },
                .tracks = { { .id = 0 }, { .id = 1 } },
                .watched = { (char *) "/proc/vmstat", (char *) "/proc/zoneinfo", NULL },
        };
        snprintf(f->decision.reason, sizeof f->decision.reason, "policy auto: counting off until a counted read");
        f->topology = (Topology) { .nodes = f->nodes, .n_nodes = 2 };
        f->readers.n = 1;
        f->readers.entries[0] = (ReaderEntry) {
                .comm = (char *) "cat", .path = (char *) "/proc/vmstat", .has_uid = true, .count = 1,
                .last_pid = 42,
        };
        f->status = (Status) {
                .version = "test",
                .pid = 1,
                .root = "/",
                .config_file = "/etc/numastatd.conf",
                .backend = BACKEND_NUMA_STAT,
                .kernel = &f->kernel,
                .target_mode = KERNEL_MODE_COARSE,
                .policy = POLICY_AUTO,
                .decision = &f->decision,
                .have_rate = true,
                .rate = 150000,
                .last_error = &f->error,
                .topology = &f->topology,
                .readers = &f->readers,
                .sources = { .readers = true, .watched = f->watched, .uevents = true },
                .counters = { .nodes = f->tracks, .n_nodes = 2, .counting_share = 0.5 },
                .history = &f->history,
        };
}

static void test_changes_move_it(void) {
        static const char *const what[] = {
                "kernel mode", "target mode", "counting", "policy", "policy source", "dry run", "paused",
                "cause", "rule", "reason", "config error", "last error", "a new reader", "a reader's name",
                "a reader now ignored", "reader detection lost", "a watched file", "rate error", "uevents lost",
                "topology reloaded", "a node more", "a transition", "auto armed -> triggered",
                "triggered by another reader",
        };

        for (size_t i = 0; i < ELEMENTSOF(what); i++) {
                Fixture f;
                uint64_t before;

                fixture_init(&f);
                before = status_fingerprint(&f.status);
                switch (i) {
                case 0: f.kernel.mode = KERNEL_MODE_STRICT; break;
                case 1: f.status.target_mode = KERNEL_MODE_STRICT; break;
                case 2: f.status.counting = true; break;
                case 3: f.status.policy = POLICY_STRICT; break;
                case 4: f.status.policy_source = CAUSE_OPERATOR; break;
                case 5: f.status.dry_run = true; break;
                case 6: f.status.paused = true; break;
                case 7: f.decision.cause = CAUSE_READ; break;
                case 8: f.decision.rule = RULE_ON_HELD; break;
                case 9: strcat(f.decision.reason, "!"); break;
                case 10: f.status.config_error = "bad"; break;
                case 11: f.error = (ErrorRecord) { .time = 5, .error = EIO, .message = (char *) "cannot write" }; break;
                case 12:
                        f.readers.entries[f.readers.n++] = (ReaderEntry) { .comm = (char *) "numastat",
                                                                           .path = (char *) "/proc/vmstat" };
                        break;
                case 13: f.readers.entries[0].comm = (char *) "dog"; break;
                case 14: f.readers.entries[0].ignored = true; break;
                case 15: f.status.sources.readers = false; break;
                case 16: f.watched[1] = NULL; break;
                case 17: f.status.sources.rate_error = "no pgalloc"; break;
                case 18: f.status.sources.uevents = false; break;
                case 19: f.status.sources.topology_reloads = 1; break;
                case 20: f.topology.n_nodes = 1; break;
                case 21: f.history.total = 1; break;
                case 22:
                        f.kernel = (KernelState) { .mode = KERNEL_MODE_AUTO, .auto_state = AUTO_STATE_ARMED };
                        before = status_fingerprint(&f.status);
                        f.kernel.auto_state = AUTO_STATE_TRIGGERED;
                        break;
                case 23:
                        f.kernel = (KernelState) { .mode = KERNEL_MODE_AUTO, .auto_state = AUTO_STATE_TRIGGERED,
                                                   .trigger_cause = CAUSE_IGNORED_READ, .triggered_by.pid = 1 };
                        before = status_fingerprint(&f.status);
                        f.kernel.triggered_by.pid = 2;
                        break;
                }
                ok(status_fingerprint(&f.status) != before, "a change moves the fingerprint: %s", what[i]);
        }
}

static void test_ticks_leave_it(void) {
        static const char *const what[] = {
                "the rate", "a rate appears", "counting share", "counters", "a reader's count and pid",
                "a reader's last read", "reads total", "a uevent not yet reloaded", "resets compensated",
        };

        for (size_t i = 0; i < ELEMENTSOF(what); i++) {
                Fixture f;
                uint64_t before;

                fixture_init(&f);
                before = status_fingerprint(&f.status);
                switch (i) {
                case 0: f.status.rate = 160001; break;
                case 1: f.status.have_rate = false; break;
                case 2: f.status.counters.counting_share = 0.25; break;
                case 3: f.status.counters.total.v[NUMA_HIT] = 12345; break;
                case 4: f.readers.entries[0].count = 99, f.readers.entries[0].last_pid = 43; break;
                case 5: f.readers.entries[0].last_seen = 1000; break;
                case 6: f.readers.total_reads = f.readers.counted_reads = 1000; break;
                case 7: f.status.sources.topology_changes = 3; break;
                case 8: f.status.counters.resets_compensated = 7; break;
                }
                ok(status_fingerprint(&f.status) == before, "a number that ticks leaves it: %s", what[i]);
        }
}

static void test_outputs(void) {
        Fixture f;
        char line[1024];
        json_object *j, *readers, *r0;
        const char *text;

        fixture_init(&f);
        status_format_notify(&f.status, line, sizeof line);
        contains_str(line, "NUMA statistics coarse (policy auto): policy auto: counting off until a counted read",
                     "STATUS= line");

        /* STATUS= is shown to every user: a hold's owner and purpose, and a
         * reader's pid and uid, are redacted there; root's JSON keeps them. */
        f.decision.rule = RULE_ON_FOR_HOLD;
        f.decision.cause = CAUSE_HOLD;
        f.decision.held = true;
        reader_ref_set(&f.decision.holder, 28994, true, true, 2001, "numastatctl", "", "");
        snprintf(f.decision.hold_reason, sizeof f.decision.hold_reason, "payroll-batch for ACME");
        f.kernel = (KernelState) { .mode = KERNEL_MODE_AUTO, .auto_state = AUTO_STATE_TRIGGERED,
                                   .trigger_cause = CAUSE_READ };
        reader_ref_set(&f.kernel.triggered_by, 4242, true, true, 2001, "payrollcalc", "payroll.service",
                       "/proc/vmstat");
        decision_format_reason(&f.decision, &f.status.policy_config, f.decision.reason, sizeof f.decision.reason);
        contains_str(f.decision.reason, "payroll-batch for ACME", "  (the reason itself names the hold's purpose)");
        status_format_notify(&f.status, line, sizeof line);
        ok(!strstr(line, "payroll-batch") && !strstr(line, "28994") && !strstr(line, "2001") && !strstr(line, "4242") &&
                   !strstr(line, "payroll.service"),
           "STATUS= names no hold purpose, pid, uid or unit of another user: %s", line);
        contains_str(line, "numastatctl (another user's process)", "  but says a hold holds counting on");
        contains_str(line, "payrollcalc (another user's process) read /proc/vmstat", "  and what triggered auto, by comm");
        j = status_to_json(&f.status, &STATUS_VIEWER_ALL);
        contains_str(json_object_get_string(json_object_object_get(j, "reason")), "payroll-batch for ACME",
                     "  root's GetStatus still has it all");
        json_object_put(j);
        fixture_init(&f);

        /* Names another process chose stay valid UTF-8 and inert in JSON. */
        f.readers.entries[0].comm = (char *) "x\n<0>forged";
        f.readers.entries[0].exe = (char *) "/tmp/\x1b[31mred\xff";
        j = status_to_json(&f.status, &STATUS_VIEWER_ALL);
        ok(j != NULL, "status JSON");
        json_object_object_get_ex(j, "readers", &readers);
        r0 = json_object_array_get_idx(readers, 0);
        is_str(json_object_get_string(json_object_object_get(r0, "comm")), "x\\n<0>forged",
               "a comm with a newline is C-escaped");
        is_str(json_object_get_string(json_object_object_get(r0, "exe")), "/tmp/\\x1b[31mred\\xff",
               "an exe with an escape sequence and invalid UTF-8 is C-escaped");
        text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
        ok(!strpbrk(text, "\n\x1b\xff"), "the JSON text holds no raw control byte or invalid UTF-8");
        is_str(json_object_get_string(json_object_object_get(j, "cause")), "pressure-above", "cause as a string");
        is_str(json_object_get_string(json_object_object_get(j, "rule")), "off-waiting", "rule as a string");
        json_object_put(j);
}

static char *render(const Status *s, const StatusViewer *v) {
        json_object *j = status_to_json(s, v);
        char *text = j ? strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN)) : NULL;

        json_object_put(j);
        return text;
}

/* GetStatus keeps one rendering per kind of viewer: root, a uid the status
 * names, everyone else. A uid named anywhere (a reader, what triggered
 * auto, the decision, a transition) gets its own, which shows it more than
 * anyone's; a uid named nowhere gets anyone's, and that is exactly what a
 * rendering for it would be. */
static void test_viewer_kinds(void) {
        static const struct {
                uid_t uid;
                const char *where;
        } named[] = {
                { 1000, "a reader" }, { 4000, "what triggered auto" }, { 5000, "the decision's holder" },
                { 6000, "a transition's reader" },
        };
        Transition t = { .from = KERNEL_MODE_COARSE, .to = KERNEL_MODE_STRICT, .kind = TRANSITION_POLICY,
                         .cause = CAUSE_READ, .reason = (char *) "a read" };
        _cleanup_free_ char *anyone = NULL, *mine = NULL;
        StatusViewer root = STATUS_VIEWER_ALL, k;
        Fixture f;

        fixture_init(&f);
        f.readers.entries[0].uid = 1000;
        f.kernel = (KernelState) { .mode = KERNEL_MODE_AUTO, .auto_state = AUTO_STATE_TRIGGERED,
                                   .trigger_cause = CAUSE_READ };
        reader_ref_set(&f.kernel.triggered_by, 4242, true, true, 4000, "trigger", "t.service", "/proc/vmstat");
        f.decision.rule = RULE_ON_FOR_HOLD;
        f.decision.cause = CAUSE_HOLD;
        f.decision.held = true;
        reader_ref_set(&f.decision.holder, 5050, true, true, 5000, "numastatctl", "h.service", "");
        reader_ref_set(&t.reader, 6060, true, true, 6000, "reader", "r.service", "/proc/vmstat");
        (void) history_add(&f.history, &t);

        k = status_viewer_kind(&f.status, &root);
        ok(k.all, "root's kind: root's");
        anyone = render(&f.status, &STATUS_VIEWER_ANYONE);
        for (size_t i = 0; i < ELEMENTSOF(named); i++) {
                StatusViewer v = { .uid = named[i].uid };
                _cleanup_free_ char *text = render(&f.status, &v);

                k = status_viewer_kind(&f.status, &v);
                ok(!k.all && k.uid == named[i].uid, "uid %u, named by %s: a kind of its own", (unsigned) named[i].uid,
                   named[i].where);
                ok(text && anyone && !streq(text, anyone), "  which shows it more than anyone's");
        }
        k = status_viewer_kind(&f.status, &(StatusViewer) { .uid = 2000 });
        ok(!k.all && k.uid == STATUS_VIEWER_ANYONE.uid, "uid 2000, named nowhere: anyone's kind");
        mine = render(&f.status, &(StatusViewer) { .uid = 2000 });
        ok(mine && anyone && streq(mine, anyone), "  its own rendering is anyone's, byte for byte");
        history_done(&f.history);
}

int main(void) {
        test_changes_move_it();
        test_ticks_leave_it();
        test_outputs();
        test_viewer_kinds();
        return tap_done();
}
