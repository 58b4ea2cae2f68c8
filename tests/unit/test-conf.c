/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf() */
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "macro.h"
#include "mode.h"
#include "strutil.h"
#include "tap.h"

/* ---- helpers ---- */

static char *write_temp(const char *text) {
        const char *dir = getenv("TMPDIR");
        char *path;
        int fd;

        if (asprintf(&path, "%s/test-conf-XXXXXX", isempty(dir) ? "/tmp" : dir) < 0)
                abort();
        fd = mkstemp(path);
        if (fd < 0) {
                perror("mkstemp");
                abort();
        }
        size_t n = strlen(text);
        if (write(fd, text, n) != (ssize_t) n) {
                perror("write");
                abort();
        }
        close(fd);
        return path;
}

static void remove_temp(char **path) {
        if (*path) {
                unlink(*path);
                free(*path);
        }
}
#define _cleanup_temp_ _cleanup_(remove_temp)

static bool rule_equal(const IgnoreRule *a, const IgnoreRule *b) {
        return streq_ptr(a->comm, b->comm) && streq_ptr(a->exe, b->exe) && streq_ptr(a->unit, b->unit) &&
               streq_ptr(a->path, b->path) && a->has_uid == b->has_uid && (!a->has_uid || a->uid == b->uid);
}

/* Deep comparison; prints the first difference as a TAP comment. */
static bool config_equal(const Config *a, const Config *b) {
#define DIFF(cond, what)                                        \
        if (!(cond)) {                                          \
                printf("#   configs differ in %s\n", what);     \
                return false;                                   \
        }
        DIFF(a->mode == b->mode, "mode");
        DIFF(a->dry_run == b->dry_run, "dry_run");
        DIFF(a->min_dwell == b->min_dwell, "min_dwell");
        DIFF(a->off_mode == b->off_mode, "off_mode");
        DIFF(a->exit_mode == b->exit_mode, "exit_mode");
        DIFF(a->on_external_change == b->on_external_change, "on_external_change");
        DIFF(a->interval == b->interval, "interval");
        DIFF(a->coarse_above == b->coarse_above, "coarse_above");
        DIFF(a->strict_below == b->strict_below, "strict_below");
        DIFF(a->sustain == b->sustain, "sustain");
        DIFF(a->armed_interval == b->armed_interval, "armed_interval");
        DIFF(a->linger == b->linger, "linger");
        DIFF(a->linger_max == b->linger_max, "linger_max");
        DIFF(a->exit_records == b->exit_records, "exit_records");
        DIFF(a->container_scan == b->container_scan, "container_scan");
        DIFF(streq_ptr(a->metrics_textfile, b->metrics_textfile), "metrics_textfile");
        DIFF(a->metrics_interval == b->metrics_interval, "metrics_interval");
        DIFF(strv_equal(a->watch, b->watch), "watch");
        DIFF(a->n_ignore == b->n_ignore, "n_ignore");
        for (size_t i = 0; i < a->n_ignore; i++)
                DIFF(rule_equal(&a->ignore[i], &b->ignore[i]), "an ignore rule");
        DIFF(streq_ptr(a->socket, b->socket), "socket");
        DIFF(a->insns_per_page == b->insns_per_page, "insns_per_page");
#undef DIFF
        return true;
}

/* Loads text into *c (which must be zeroed or live: it is reset first);
 * returns config_load()'s result. */
static int load_text(Config *c, const char *text, char **ret_error) {
        _cleanup_temp_ char *path = write_temp(text);
        if (ret_error) {
                free(*ret_error);
                *ret_error = NULL;
        }
        config_done(c);
        config_init(c);
        return config_load(c, path, true, ret_error);
}

/* A config far from the defaults, to tell "unchanged" from "reset". */
static const char baseline_text[] =
        "[policy]\n"
        "mode = strict\n"
        "dry_run = yes\n"
        "min_dwell = 1min\n"
        "[pressure]\n"
        "coarse_above = 500\n"
        "strict_below = 400\n"
        "[readers]\n"
        "linger = 1h\n"
        "watch = /baseline\n"
        "ignore = comm=baseline\n"
        "[varlink]\n"
        "socket = /run/baseline.sock\n";

static void load_baseline(Config *c) {
        _cleanup_free_ char *err = NULL;
        if (load_text(c, baseline_text, &err) < 0) {
                printf("# baseline does not load: %s\n", err ? err : "(no message)");
                abort();
        }
}

/* text must fail with -EINVAL, an error starting "PATH:LINE: " and
 * containing each of want1 and want2, and must leave the config alone. */
static void load_fails(const char *name, const char *text, unsigned line, const char *want1, const char *want2) {
        _cleanup_temp_ char *path = write_temp(text);
        _cleanup_free_ char *err = NULL, *prefix = NULL;
        _cleanup_(config_done) Config c = {}, snapshot = {};
        int r;

        load_baseline(&c);
        load_baseline(&snapshot);

        r = config_load(&c, path, true, &err);
        is_int(r, -EINVAL, name);
        if (asprintf(&prefix, "%s:%u: ", path, line) < 0)
                abort();
        if (!ok(err && startswith(err, prefix), "  error starts with \"FILE:%u: \"", line) ||
            !ok(err && strstr(err, want1), "  error mentions \"%s\"", want1) ||
            (want2 && !ok(err && strstr(err, want2), "  error mentions \"%s\"", want2)))
                printf("#   error was: %s\n", err ? err : "(null)");
        ok(config_equal(&c, &snapshot), "  config left unchanged");
}

/* ---- tests ---- */

static void test_mode_strings(void) {
        static const char *const policies[] = { "strict", "coarse", "auto" };
        for (int i = 0; i < _POLICY_MAX; i++) {
                is_str(policy_to_string(i), policies[i], "policy_to_string");
                is_int(policy_from_string(policies[i]), i, "policy_from_string round trip");
        }
        static const char *const kmodes[] = { "unknown", "strict", "coarse", "auto" };
        for (int i = 0; i < _KERNEL_MODE_MAX; i++)
                is_str(kernel_mode_to_string(i), kmodes[i], "kernel_mode_to_string");
        for (int i = KERNEL_MODE_STRICT; i < _KERNEL_MODE_MAX; i++)
                is_int(kernel_mode_from_string(kmodes[i]), i, "kernel_mode_from_string round trip");
        is_int(kernel_mode_from_string("unknown"), _KERNEL_MODE_INVALID, "kernel_mode_from_string(\"unknown\") is invalid");
        is_str(off_mode_to_string(OFF_MODE_AUTO), "auto", "off_mode auto");
        is_str(off_mode_to_string(OFF_MODE_COARSE), "coarse", "off_mode coarse");
        is_int(off_mode_from_string("coarse"), OFF_MODE_COARSE, "off_mode_from_string coarse");
        is_int(off_mode_from_string("strict"), _OFF_MODE_INVALID, "off_mode_from_string strict is invalid");
        is_str(exit_mode_to_string(EXIT_MODE_STRICT), "strict", "exit_mode strict");
        is_str(exit_mode_to_string(EXIT_MODE_PREVIOUS), "previous", "exit_mode previous");
        is_int(exit_mode_from_string("previous"), EXIT_MODE_PREVIOUS, "exit_mode_from_string previous");
        is_str(external_change_to_string(EXTERNAL_CHANGE_FOLLOW), "follow", "external_change follow");
        is_str(external_change_to_string(EXTERNAL_CHANGE_OVERRIDE), "override", "external_change override");
        is_int(external_change_from_string("override"), EXTERNAL_CHANGE_OVERRIDE, "external_change_from_string override");

        is_int(policy_from_string("Strict"), _POLICY_INVALID, "from_string is case-sensitive");
        is_int(policy_from_string(" auto"), _POLICY_INVALID, "from_string is exact");
        is_int(policy_from_string(""), _POLICY_INVALID, "from_string empty");
        is_int(policy_from_string(NULL), _POLICY_INVALID, "from_string NULL");
        is_int(exit_mode_from_string(NULL), _EXIT_MODE_INVALID, "exit_mode_from_string NULL");
        is_int(external_change_from_string("Follow"), _EXTERNAL_CHANGE_INVALID, "external_change_from_string Follow");
        ok(!policy_to_string(_POLICY_MAX), "policy_to_string out of range");
        ok(!policy_to_string(_POLICY_INVALID), "policy_to_string invalid");
        ok(!kernel_mode_to_string(_KERNEL_MODE_MAX), "kernel_mode_to_string out of range");
        ok(!off_mode_to_string(_OFF_MODE_MAX), "off_mode_to_string out of range");
        ok(!exit_mode_to_string(-1), "exit_mode_to_string -1");
        ok(!external_change_to_string(_EXTERNAL_CHANGE_MAX), "external_change_to_string out of range");
}

static void test_defaults(void) {
        _cleanup_(config_done) Config c = {};

        config_init(&c);
        is_int(c.mode, POLICY_AUTO, "default mode auto");
        ok(!c.dry_run, "default dry_run no");
        is_u64(c.min_dwell, 30 * USEC_PER_SEC, "default min_dwell 30s");
        is_int(c.off_mode, OFF_MODE_COARSE, "default off_mode coarse (measured)");
        is_int(c.exit_mode, EXIT_MODE_STRICT, "default exit_mode strict");
        is_int(c.on_external_change, EXTERNAL_CHANGE_FOLLOW, "default on_external_change follow");
        is_u64(c.interval, USEC_PER_SEC, "default interval 1s");
        is_u64(c.coarse_above, 100000, "default coarse_above");
        is_u64(c.strict_below, 20000, "default strict_below");
        is_u64(c.sustain, 10 * USEC_PER_SEC, "default sustain 10s");
        is_u64(c.armed_interval, 30 * USEC_PER_SEC, "default armed_interval 30s");
        ok(c.insns_per_page == 0, "default [ledger] insns_per_page unset");
        is_u64(c.linger, 300 * USEC_PER_SEC, "default linger 5min");
        is_int(strv_length(c.watch), 4, "default watch has 4 entries");
        if (strv_length(c.watch) == 4) {
                is_str(c.watch[0], "/proc/vmstat", "  watch[0]");
                is_str(c.watch[1], "/proc/zoneinfo", "  watch[1]");
                is_str(c.watch[2], "/sys/devices/system/node/node*/numastat", "  watch[2]");
                is_str(c.watch[3], "/sys/devices/system/node/node*/vmstat", "  watch[3]");
        } else
                ok(false, "  watch entries (wrong count)");
        is_int(c.n_ignore, 0, "default: no ignore rules");
        is_str(c.socket, DEFAULT_SOCKET_PATH, "default socket");

        config_done(&c);
        ok(!c.watch && !c.socket && !c.ignore && c.n_ignore == 0, "config_done clears pointers");
        config_done(&c);        /* twice is harmless (and the cleanup makes it thrice) */
}

static void test_full(void) {
        _cleanup_(config_done) Config c = {};
        _cleanup_free_ char *err = NULL;

        int r = load_text(&c,
                          "; every key, none at its default\n"
                          "[policy]\n"
                          "mode = coarse\n"
                          "dry_run = true\n"
                          "min_dwell = 1min 30s\n"
                          "off_mode = auto\n"
                          "exit_mode = previous\n"
                          "on_external_change = override\n"
                          "\n"
                          "[pressure]\n"
                          "interval = 250ms\n"
                          "coarse_above = 300000\n"
                          "strict_below = 300000\n"
                          "sustain = 2.5s\n"
                          "armed_interval = 2min\n"
                          "[readers]\n"
                          "linger = infinity\n"
                          "watch = /a /b/*\n"
                          "ignore = comm=node_exporter path=/proc/vmstat\n"
                          "ignore = uid=0   unit=foo.service\n"
                          "ignore = exe=/usr/bin/x\n"
                          "[varlink]\n"
                          "socket = /tmp/x.sock\n"
                          "[ledger]\n"
                          "insns_per_page = 42.5\n",
                          &err);
        if (!is_int(r, 0, "full config loads"))
                printf("#   error: %s\n", err ? err : "(null)");
        ok(!err, "  no error string on success");
        is_int(c.mode, POLICY_COARSE, "  mode");
        ok(c.dry_run, "  dry_run");
        is_u64(c.min_dwell, 90 * USEC_PER_SEC, "  min_dwell");
        is_int(c.off_mode, OFF_MODE_AUTO, "  off_mode");
        is_int(c.exit_mode, EXIT_MODE_PREVIOUS, "  exit_mode");
        is_int(c.on_external_change, EXTERNAL_CHANGE_OVERRIDE, "  on_external_change");
        is_u64(c.interval, 250 * USEC_PER_MSEC, "  interval");
        is_u64(c.coarse_above, 300000, "  coarse_above");
        is_u64(c.strict_below, 300000, "  strict_below (equal to coarse_above is fine)");
        is_u64(c.sustain, 2500 * USEC_PER_MSEC, "  sustain");
        is_u64(c.armed_interval, 120 * USEC_PER_SEC, "  armed_interval");
        ok(c.insns_per_page == 42.5, "  insns_per_page 42.5");
        is_u64(c.linger, USEC_INFINITY, "  linger infinity");
        ok(strv_length(c.watch) == 2 && streq_ptr(c.watch[0], "/a") && streq_ptr(c.watch[1], "/b/*"), "  watch");
        is_int(c.n_ignore, 3, "  three ignore rules");
        if (c.n_ignore == 3) {
                is_str(c.ignore[0].comm, "node_exporter", "  rule 0 comm");
                is_str(c.ignore[0].path, "/proc/vmstat", "  rule 0 path");
                ok(!c.ignore[0].exe && !c.ignore[0].unit && !c.ignore[0].has_uid, "  rule 0 has nothing else");
                ok(c.ignore[1].has_uid && c.ignore[1].uid == 0, "  rule 1 uid=0");
                is_str(c.ignore[1].unit, "foo.service", "  rule 1 unit");
                ok(!c.ignore[1].comm && !c.ignore[1].path, "  rule 1 has nothing else");
                is_str(c.ignore[2].exe, "/usr/bin/x", "  rule 2 exe");
        } else
                ok(false, "  rules (wrong count)");
        is_str(c.socket, "/tmp/x.sock", "  socket");
}

static void test_design_example(void) {
        _cleanup_(config_done) Config c = {}, d = {};
        _cleanup_free_ char *err = NULL;

        /* Verbatim from DESIGN.md, inline comments and the indented comment line included. */
        int r = load_text(&c,
                "[policy]\n"
                "mode = auto                  ; strict | coarse | auto\n"
                "dry_run = no\n"
                "min_dwell = 30s              ; no two switches closer than this, except to counting-on for a reader\n"
                "off_mode = auto              ; patched kernels: what \"counting off\" writes, auto | coarse\n"
                "exit_mode = strict           ; what the kernel is left in when the daemon stops: strict | previous\n"
                "on_external_change = follow  ; follow | override\n"
                "\n"
                "[pressure]\n"
                "interval = 1s                ; allocation-rate sampling period\n"
                "coarse_above = 100000        ; pages/s above which counting may go off\n"
                "strict_below = 20000         ; pages/s below which counting comes back on\n"
                "sustain = 10s                ; how long a rate must hold before it counts\n"
                "\n"
                "[readers]\n"
                "linger = 5min                ; counting stays on this long after the last counted read\n"
                "watch = /proc/vmstat /proc/zoneinfo /sys/devices/system/node/node*/numastat /sys/devices/system/node/node*/vmstat\n"
                "ignore = comm=node_exporter path=/proc/vmstat   ; one rule per ignore line: all field=value\n"
                "                                                ; matchers (comm, exe, unit, uid, path glob) must match\n"
                "\n"
                "[varlink]\n"
                "socket = /run/numastatd/io.numastatd\n",
                &err);
        if (!is_int(r, 0, "DESIGN.md example loads"))
                printf("#   error: %s\n", err ? err : "(null)");
        is_int(c.n_ignore, 1, "  one ignore rule (the indented comment is not a continuation)");
        if (c.n_ignore == 1) {
                is_str(c.ignore[0].comm, "node_exporter", "  rule comm");
                is_str(c.ignore[0].path, "/proc/vmstat", "  rule path, comment stripped");
                ignore_rule_done(&c.ignore[0]);
                free(c.ignore);
                c.ignore = NULL;
                c.n_ignore = 0;
        } else
                ok(false, "  rule fields (wrong count)");
        config_init(&d);
        /* DESIGN.md leaves off_mode's default to measurement: coarse won
         * (tests/vm/guest/scenarios/patched.sh, README). */
        is_int(c.off_mode, OFF_MODE_AUTO, "  the example says off_mode = auto");
        is_int(d.off_mode, OFF_MODE_COARSE, "  the measured default is off_mode = coarse");
        c.off_mode = d.off_mode;
        ok(config_equal(&c, &d), "  otherwise equals the defaults");
}

static void test_syntax_details(void) {
        _cleanup_free_ char *err = NULL;
        Config c = {};
        int r;

        r = load_text(&c, "[policy]\nmode = strict # hash comment\ndry_run = on\t;tab then semicolon\n", &err);
        is_int(r, 0, "'#' and ';' inline comments");
        is_int(c.mode, POLICY_STRICT, "  mode, '#' comment stripped");
        ok(c.dry_run, "  dry_run, ';' after a tab stripped");
        config_done(&c);

        r = load_text(&c, "[readers]\nignore = comm=a#b path=/x;y\n", &err);
        is_int(r, 0, "'#' and ';' inside a word are not comments");
        ok(c.n_ignore == 1 && streq_ptr(c.ignore[0].comm, "a#b") && streq_ptr(c.ignore[0].path, "/x;y"),
           "  comm=a#b path=/x;y kept");
        config_done(&c);

        r = load_text(&c, "[policy]\nmode = strict#x\n", &err);
        is_int(r, -EINVAL, "'#' without white space before it is part of the value");
        ok(err && strstr(err, "'strict#x'"), "  and is reported as such");
        free(err);
        err = NULL;
        config_done(&c);

        r = load_text(&c, "# comment\n; comment\n   # indented comment\n[policy] # after a section\n\n"
                          "dry_run = yes\n   mode = coarse\n", &err);
        is_int(r, 0, "comments everywhere, indented key");
        ok(c.dry_run, "  dry_run set");
        is_int(c.mode, POLICY_COARSE, "  indented 'mode = coarse' is a key, not a continuation of dry_run");
        config_done(&c);

        r = load_text(&c, "\xEF\xBB\xBF[policy]\r\nmode = coarse\r\nmode=strict\r\n[readers]\r\nwatch = /x\r\nwatch =\r\n"
                          "[pressure]\r\ncoarse_above: 7\r\nstrict_below=7", &err);
        if (!is_int(r, 0, "BOM, CRLF, duplicate keys, 'key: value', no final newline"))
                printf("#   error: %s\n", err ? err : "(null)");
        is_int(c.mode, POLICY_STRICT, "  later mode= wins");
        ok(c.watch && strv_length(c.watch) == 0, "  later empty watch= replaces the earlier one");
        is_u64(c.coarse_above, 7, "  'key: value' accepted");
        is_u64(c.strict_below, 7, "  last line without newline");
        config_done(&c);

        r = load_text(&c, "", &err);
        is_int(r, 0, "empty file");
        Config d;
        config_init(&d);
        ok(config_equal(&c, &d), "  gives the defaults");
        config_done(&d);
        config_done(&c);

        /* 199 characters fit inih's line buffer; comments don't count. */
        char line[512];
        snprintf(line, sizeof line, "[varlink]\nsocket=/%0*d   ; %0250d\n", 199 - 8, 0, 0);
        r = load_text(&c, line, &err);
        is_int(r, -EINVAL, "a 199-character line loads as far as inih is concerned");
        ok(err && strstr(err, "[varlink] socket: socket path"), "  (then fails on the socket length, not the line)");
        free(err);
        err = NULL;
        config_done(&c);
}

static void test_reload_semantics(void) {
        _cleanup_free_ char *err = NULL;
        _cleanup_temp_ char *path = write_temp("[policy]\n");
        _cleanup_(config_done) Config c = {}, d = {};

        load_baseline(&c);
        is_int(config_load(&c, path, true, &err), 0, "reload with keys removed");
        config_init(&d);
        ok(config_equal(&c, &d), "  removed keys revert to defaults, ignore rules don't pile up");

        if (access(DEFAULT_CONFIG_PATH, F_OK) == 0)
                tap_skip(DEFAULT_CONFIG_PATH " exists here");
        else {
                is_int(config_load(&c, NULL, true, &err), -ENOENT, "NULL path means " DEFAULT_CONFIG_PATH);
                ok(err && startswith(err, DEFAULT_CONFIG_PATH ": "), "  and the message names it");
                free(err);
                err = NULL;
        }

        is_int(config_load(&c, path, true, NULL), 0, "ret_error may be NULL on success");
        _cleanup_temp_ char *bad = write_temp("[policy]\nmode = x\n");
        is_int(config_load(&c, bad, true, NULL), -EINVAL, "ret_error may be NULL on failure");
}

static void test_errors(void) {
        load_fails("unknown section", "[policy]\nmode = auto\n[bogus]\n", 3, "[bogus]: unknown section", NULL);
        load_fails("section header with garbage", "[policy] x\n", 1, "syntax error", NULL);
        load_fails("unterminated section header", "[policy\nmode = auto\n", 1, "syntax error", NULL);
        load_fails("key outside a section", "\nmode = auto\n", 2, "mode: key outside of any section", NULL);
        load_fails("unknown key", "[policy]\n\n# comment\nfoo = 1\n", 4, "[policy] foo: unknown key", NULL);
        load_fails("key in the wrong section", "[pressure]\nmode = auto\n", 2, "[pressure] mode: unknown key", NULL);
        load_fails("line without '='", "[policy]\nmode auto\n", 2, "syntax error", NULL);

        char longline[512];
        snprintf(longline, sizeof longline, "[readers]\nwatch = /%0191d ; short\n", 0);
        load_fails("200-character line: too long for inih", longline, 2,
                   "watch: line too long (200 characters, at most 199 without comments)", NULL);

        load_fails("bad duration", "[policy]\nmin_dwell = abc\n", 2, "[policy] min_dwell: invalid duration 'abc'", NULL);
        load_fails("negative duration", "[pressure]\nsustain = -1s\n", 2, "[pressure] sustain: invalid duration '-1s'", NULL);
        load_fails("duration overflow", "[readers]\nlinger = 300000000d\n", 2, "[readers] linger: duration '300000000d' is too large", NULL);
        load_fails("infinity where it makes no sense", "[pressure]\nsustain = infinity\n", 2, "[pressure] sustain: 'infinity' is not allowed", NULL);
        load_fails("interval of 0", "[pressure]\ninterval = 0\n", 2, "[pressure] interval: must be at least 10ms (got 0)", NULL);
        load_fails("interval below 1us", "[pressure]\ninterval = 0.1us\n", 2, "[pressure] interval: must be at least 10ms", NULL);
        load_fails("interval below 10ms", "[pressure]\ninterval = 9ms\n", 2, "[pressure] interval: must be at least 10ms (got 9ms)", NULL);
        load_fails("interval above 1h", "[pressure]\ninterval = 61min\n", 2, "[pressure] interval: must be at most 1h (got 1h 1min)", NULL);
        load_fails("sustain above 1d", "[pressure]\nsustain = 25h\n", 2, "[pressure] sustain: must be at most 1d", NULL);
        load_fails("min_dwell above 1d", "[policy]\nmin_dwell = 2d\n", 2, "[policy] min_dwell: must be at most 1d", NULL);
        load_fails("linger above 30d", "[readers]\nlinger = 31d\n", 2, "[readers] linger: must be at most 30d", NULL);
        load_fails("insns_per_page 0", "[ledger]\ninsns_per_page = 0\n", 2,
                   "[ledger] insns_per_page: '0' is not a number of instructions per page", NULL);
        load_fails("insns_per_page negative", "[ledger]\ninsns_per_page = -3\n", 2,
                   "[ledger] insns_per_page: '-3' is not", NULL);
        load_fails("insns_per_page not a number", "[ledger]\ninsns_per_page = 42/page\n", 2,
                   "[ledger] insns_per_page: '42/page' is not", NULL);
        load_fails("armed_interval below 1s", "[pressure]\narmed_interval = 500ms\n", 2,
                   "[pressure] armed_interval: must be at least 1s (got 500ms)", NULL);
        load_fails("armed_interval above 1h", "[pressure]\narmed_interval = 2h\n", 2,
                   "[pressure] armed_interval: must be at most 1h", NULL);
        load_fails("interval infinity", "[pressure]\ninterval = infinity\n", 2, "[pressure] interval: 'infinity' is not allowed", NULL);
        load_fails("bad number", "[pressure]\ncoarse_above = 12x\n", 2, "[pressure] coarse_above: invalid number '12x'", NULL);
        load_fails("negative number", "[pressure]\nstrict_below = -1\n", 2, "[pressure] strict_below: invalid number '-1'", NULL);
        load_fails("number overflow", "[pressure]\ncoarse_above = 18446744073709551616\n", 2, "[pressure] coarse_above: number", "out of range");
        load_fails("bad mode", "[policy]\nmode = Strict\n", 2, "[policy] mode: invalid value 'Strict'", "strict, coarse or auto");
        load_fails("empty mode", "[policy]\nmode =\n", 2, "[policy] mode: invalid value ''", NULL);
        load_fails("bad boolean", "[policy]\ndry_run = maybe\n", 2, "[policy] dry_run: invalid boolean 'maybe'", NULL);
        load_fails("bad off_mode", "[policy]\noff_mode = strict\n", 2, "[policy] off_mode: invalid value 'strict'", NULL);
        load_fails("bad exit_mode", "[policy]\nexit_mode = auto\n", 2, "[policy] exit_mode: invalid value 'auto'", NULL);
        load_fails("bad on_external_change", "[policy]\non_external_change = ignore\n", 2,
                   "[policy] on_external_change: invalid value 'ignore'", NULL);

        load_fails("strict_below > coarse_above, strict_below later",
                   "[pressure]\ncoarse_above = 100\n\nstrict_below = 200\n", 4,
                   "[pressure] strict_below: 200 is above coarse_above", "line 2");
        load_fails("strict_below > coarse_above, coarse_above later",
                   "[pressure]\nstrict_below = 200\ncoarse_above = 100\n", 3,
                   "[pressure] coarse_above: 100 is below strict_below", "line 2");
        load_fails("strict_below above the default coarse_above",
                   "[pressure]\nstrict_below = 100001\n", 2,
                   "[pressure] strict_below: 100001 is above coarse_above", "default");

        load_fails("relative socket", "[varlink]\nsocket = run/x.sock\n", 2, "[varlink] socket: socket path 'run/x.sock' is not absolute", NULL);
        load_fails("empty socket", "[varlink]\nsocket =\n", 2, "[varlink] socket:", "not absolute");
        char longsock[256];
        snprintf(longsock, sizeof longsock, "[varlink]\nsocket = /%0120d\n", 0);
        load_fails("socket path too long for sun_path", longsock, 2, "[varlink] socket:", "longer than 107");

        load_fails("relative watch path", "[readers]\nwatch = /proc/vmstat proc/zoneinfo\n", 2,
                   "[readers] watch: path 'proc/zoneinfo' is not absolute", NULL);

        load_fails("ignore: unknown field", "[readers]\nignore = comm=a\nignore = pid=1\n", 3, "[readers] ignore: unknown field 'pid'", NULL);
        load_fails("ignore: missing '='", "[readers]\nignore = comm\n", 2, "[readers] ignore: 'comm': expected field=value", NULL);
        load_fails("ignore: empty value", "[readers]\nignore = comm=\n", 2, "[readers] ignore: 'comm=': empty value", NULL);
        load_fails("ignore: duplicate field", "[readers]\nignore = comm=a comm=b\n", 2, "[readers] ignore: duplicate field 'comm'", NULL);
        load_fails("ignore: uid by name", "[readers]\nignore = uid=root\n", 2, "[readers] ignore: uid 'root' is not a number", NULL);
        load_fails("ignore: relative path", "[readers]\nignore = path=proc/*\n", 2, "[readers] ignore: path 'proc/*' is not an absolute path", NULL);
        load_fails("ignore: empty rule", "[readers]\nignore =\n", 2, "[readers] ignore: empty rule", NULL);

        load_fails("first error wins", "[policy]\nmode = x\ndry_run = y\n[bogus]\n", 2, "[policy] mode:", NULL);
        load_fails("line numbers count comments and CRLF lines",
                   "# a\r\n; b\r\n\r\n[policy]\r\n  # c\r\nmin_dwell = abc\r\n", 6, "[policy] min_dwell: invalid duration 'abc'", NULL);

        /* The exact shape from the brief. */
        {
                _cleanup_temp_ char *path = write_temp("[policy]\nmode = auto\ndry_run = no\n\n# comment\n\nmin_dwell = abc\n");
                _cleanup_free_ char *err = NULL, *want = NULL;
                _cleanup_(config_done) Config c = {};

                config_init(&c);
                is_int(config_load(&c, path, false, &err), -EINVAL, "exact error message");
                if (asprintf(&want, "%s:7: [policy] min_dwell: invalid duration 'abc'", path) < 0)
                        abort();
                is_str(err, want, "  is \"FILE:7: [policy] min_dwell: invalid duration 'abc'\"");
        }
}

static bool load_is_eacces(void *path) {
        Config c;
        char *e = NULL;
        int r;

        config_init(&c);
        r = config_load(&c, path, false, &e);
        return r == -EACCES && e && strstr(e, "Permission denied");
}

static void test_open_errors(void) {
        _cleanup_(config_done) Config c = {}, snapshot = {}, d = {};
        _cleanup_free_ char *err = NULL, *want = NULL;
        char dir[] = "/tmp/test-conf-dir-XXXXXX";
        char missing[64];
        int r;

        ok(mkdtemp(dir), "mkdtemp");
        snprintf(missing, sizeof missing, "%s/missing.conf", dir);

        load_baseline(&c);
        load_baseline(&snapshot);
        r = config_load(&c, missing, true, &err);
        is_int(r, -ENOENT, "missing file, must_exist → -ENOENT");
        if (asprintf(&want, "%s: No such file or directory", missing) < 0)
                abort();
        is_str(err, want, "  \"PATH: No such file or directory\"");
        ok(config_equal(&c, &snapshot), "  config left unchanged");
        free(err);
        err = NULL;

        r = config_load(&c, missing, false, &err);
        is_int(r, 0, "missing file, !must_exist → 0");
        ok(!err, "  no error string");
        config_init(&d);
        ok(config_equal(&c, &d), "  defaults apply");

        load_baseline(&c);
        r = config_load(&c, dir, false, &err);
        is_int(r, -EISDIR, "a directory → -EISDIR");
        ok(err && startswith(err, dir) && strstr(err, "Is a directory"), "  message names the path and the error");
        ok(config_equal(&c, &snapshot), "  config left unchanged");
        free(err);
        err = NULL;

        {
                _cleanup_temp_ char *path = write_temp("[policy]\n");
                chmod(path, 0);
                if (geteuid() == 0)
                        /* root reads anything: check as an unprivileged user. */
                        ok(as_nobody(load_is_eacces, path),
                           "unreadable file → -EACCES even if !must_exist, message says why (as uid 65534)");
                else {
                        r = config_load(&c, path, false, &err);
                        is_int(r, -EACCES, "unreadable file → -EACCES even if !must_exist");
                        ok(err && strstr(err, "Permission denied"), "  message says why");
                }
        }

        rmdir(dir);
}

static void test_ignore_rule_parse(void) {
        _cleanup_free_ char *err = NULL;
        IgnoreRule r = {};

        is_int(ignore_rule_parse("  comm=node_exporter\texe=/usr/bin/ne unit=ne.service uid=4294967294 path=/proc/*stat  ",
                                 &r, &err), 0, "rule with all five fields");
        is_str(r.comm, "node_exporter", "  comm");
        is_str(r.exe, "/usr/bin/ne", "  exe");
        is_str(r.unit, "ne.service", "  unit");
        ok(r.has_uid && r.uid == 4294967294u, "  uid (largest valid)");
        is_str(r.path, "/proc/*stat", "  path");
        ok(!err, "  no error");
        ignore_rule_done(&r);
        ok(!r.comm && !r.exe && !r.unit && !r.path && !r.has_uid, "ignore_rule_done clears");

        is_int(ignore_rule_parse("unit=a=b", &r, NULL), 0, "value may contain '=' (error pointer may be NULL)");
        is_str(r.unit, "a=b", "  unit=a=b");
        ignore_rule_done(&r);

        static const struct {
                const char *rule, *why;
        } bad[] = {
                { "",                           "empty rule" },
                { "   ",                        "empty rule" },
                { "comm",                       "'comm': expected field=value" },
                { "comm=",                      "'comm=': empty value" },
                { "=x",                         "unknown field ''" },
                { "name=x",                     "unknown field 'name'" },
                { "COMM=x",                     "unknown field 'COMM'" },
                { "uid=1 uid=2",                "duplicate field 'uid'" },
                { "path=/a path=/b",            "duplicate field 'path'" },
                { "exe=/a exe=/b",              "duplicate field 'exe'" },
                { "unit=a unit=a",              "duplicate field 'unit'" },
                { "uid=root",                   "user names are not accepted" },
                { "uid=-1",                     "uid '-1' is not a number" },
                { "uid=4294967295",             "uid '4294967295' is out of range" },
                { "uid=99999999999999999999",   "out of range" },
                { "path=proc/vmstat",           "path 'proc/vmstat' is not an absolute path" },
                { "exe=node_exporter",          "exe 'node_exporter' is not an absolute path" },
                { "comm=0123456789abcdef",      "longer than 15 characters" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                IgnoreRule marker = { .comm = (char *) "marker" };

                is_int(ignore_rule_parse(bad[i].rule, &marker, &err), -EINVAL, bad[i].rule);
                if (!ok(err && strstr(err, bad[i].why), "  says \"%s\"", bad[i].why))
                        printf("#   error was: %s\n", err ? err : "(null)");
                ok(streq_ptr(marker.comm, "marker") && !marker.path, "  output untouched");
                free(err);
                err = NULL;
        }
        is_int(ignore_rule_parse("comm=0123456789abcde", &r, NULL), 0, "comm of exactly 15 characters");
        ignore_rule_done(&r);
        is_int(ignore_rule_parse(NULL, &r, NULL), -EINVAL, "NULL rule");
}

static const char *const all_keys[] = {
        "mode", "dry_run", "min_dwell", "off_mode", "exit_mode", "on_external_change",
        "interval", "coarse_above", "strict_below", "sustain",
        "linger", "linger_max", "exit_records", "watch", "socket", "armed_interval",
};

static void test_shipped_conf(void) {
        _cleanup_(config_done) Config c = {}, d = {};
        _cleanup_free_ char *err = NULL, *path = NULL, *uncommented = NULL;
        const char *dir = getenv("TEST_CONF_DIR");
        size_t size = 0;
        int r;

        if (asprintf(&path, "%s/numastatd.conf", isempty(dir) ? "conf" : dir) < 0)
                abort();

        config_init(&c);
        r = config_load(&c, path, true, &err);
        if (!is_int(r, 0, "shipped numastatd.conf loads"))
                printf("#   %s\n", err ? err : "(null)");
        config_init(&d);
        ok(config_equal(&c, &d), "  and equals the defaults");

        /* Uncomment every "#key=value" line (and the ignore example): the
         * documented defaults must then load and still be the defaults. */
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        FILE *out = open_memstream(&uncommented, &size);
        if (!f || !out)
                abort();
        char *line = NULL;
        size_t n = 0;
        bool seen[ELEMENTSOF(all_keys)] = {};
        bool seen_ignore = false;
        while (getline(&line, &n, f) >= 0) {
                const char *s = line;
                if (line[0] == '#' && line[1] != ' ') {
                        for (size_t i = 0; i < ELEMENTSOF(all_keys); i++) {
                                const char *k = startswith(line + 1, all_keys[i]);
                                if (k && *k == '=') {
                                        seen[i] = true;
                                        s = line + 1;
                                }
                        }
                } else if (startswith(line, "#   ignore = ")) {
                        seen_ignore = true;
                        s = line + 1;
                }
                fputs(s, out);
        }
        free(line);
        fclose(out);

        for (size_t i = 0; i < ELEMENTSOF(all_keys); i++)
                ok(seen[i], "  documents \"#%s=\"", all_keys[i]);
        ok(seen_ignore, "  documents an ignore example");

        config_done(&c);
        r = load_text(&c, uncommented, &err);
        if (!is_int(r, 0, "shipped conf with every default uncommented loads"))
                printf("#   %s\n", err ? err : "(null)");
        is_int(c.n_ignore, 1, "  the ignore example is a valid rule");
        if (c.n_ignore == 1) {
                ignore_rule_done(&c.ignore[0]);
                free(c.ignore);
                c.ignore = NULL;
                c.n_ignore = 0;
        }
        ok(config_equal(&c, &d), "  the uncommented values are the real defaults");
}

int main(void) {
        test_mode_strings();
        test_defaults();
        test_full();
        test_design_example();
        test_syntax_details();
        test_reload_semantics();
        test_errors();
        test_open_errors();
        test_ignore_rule_parse();
        test_shipped_conf();
        return tap_done();
}
