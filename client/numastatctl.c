/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* numastatctl: asks numastatd over varlink and shows the answer. */

#include <errno.h>
#include <fnmatch.h>
#include <sys/syscall.h>
#include <poll.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hold-limits.h"
#include "macro.h"
#include "missing.h"
#include "strutil.h"
#include "varlink-client.h"

#define DEFAULT_SOCKET_PATH "/run/numastatd/io.numastatd"

/* Exit codes, documented in --help and the README. */
enum {
        EXIT_OK = 0,
        EXIT_DAEMON_ERROR = 1,  /* the daemon answered with an error */
        EXIT_USAGE = 2,
        EXIT_UNREACHABLE = 3,   /* no daemon on the socket, or it did not answer */
        EXIT_DENIED = 4,        /* the call needs root */
        EXIT_NOT_SEEN = 5,      /* known-readers --explain: no such reader seen */
};

typedef enum JsonFormat { JSON_OFF, JSON_PRETTY, JSON_SHORT } JsonFormat;

typedef struct Args {
        const char *socket;
        JsonFormat json;
        int dry_run;            /* set-policy: 1, 0, or -1 (unset) */
        const char *reason;     /* hold */
        usec_t timeout;         /* hold */
        char **command;         /* hold: what follows "--" */
        char **argv;            /* the verb's own arguments */
        int argc;
        const char *explain;    /* known-readers: the pid or name to explain */
} Args;

static void help(void) {
        printf("Usage: numastatctl [OPTION...] [COMMAND]\n"
               "Shows and steers numastatd, the NUMA statistics policy daemon.\n\n"
               "Commands:\n"
               "  status               the daemon's state and why (default)\n"
               "  monitor              the state now, then every change, until interrupted\n"
               "  readers              who read the statistics files\n"
               "  history              the kernel mode switches, oldest first\n"
               "  counters             the per-node NUMA counters like numastat, never reset\n"
               "  metrics              the state in Prometheus text format\n"
               "  known-readers        the catalogue of readers that need no counting, with evidence\n"
               "  hold [-- COMMAND...] keep counting on while COMMAND runs (or for --timeout)\n"
               "  set-policy POLICY    strict | coarse | auto, until the next reload (root)\n"
               "  reload               re-read the configuration file (root)\n\n"
               "Options:\n"
               "  -s --socket=PATH     daemon socket (default " DEFAULT_SOCKET_PATH ")\n"
               "  -j --json[=FORMAT]   print JSON: pretty (default) or short\n"
               "     --dry-run         with set-policy: decide and report only\n"
               "     --no-dry-run      with set-policy: turn dry run off\n"
               "     --reason=TEXT     with hold: what it is for (shown to root and to you)\n"
               "     --timeout=TIME    with hold: end it after TIME (\"90s\", \"2h\"; at most 7d) at the latest\n"
               "     --explain=PID|NAME  with known-readers: how that reader, seen reading, is judged\n"
               "  -h --help            show this help\n"
               "  -V --version         show the version\n\n"
               "Exit status: 0 success, 1 the daemon reported an error, 2 bad usage,\n"
               "3 the daemon is not reachable, 4 permission denied, 5 no reader seen to explain.\n");
}

/* Text safe for a terminal, newly allocated. The daemon already C-escapes
 * every name another process chose; this holds even for a daemon that did
 * not: control bytes and bytes outside ASCII are shown as \xNN. */
static char *terminal_escape(const char *s) {
        char *e, *q;

        e = q = malloc(strlen(s) * 4 + 1);
        if (!e)
                return NULL;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < ' ' || *p >= 127)
                        q += sprintf(q, "\\x%02x", *p);
                else
                        *q++ = (char) *p;
        *q = '\0';
        return e;
}

static bool terminal_is_safe(const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < ' ' || *p >= 127)
                        return false;
        return true;
}

/* A JSON string's text, made safe for a terminal in place: it lives as
 * long as the reply it is in. NULL if v is no string. */
static const char *jsafe(json_object *v) {
        _cleanup_free_ char *e = NULL;

        if (!v || !json_object_is_type(v, json_type_string))
                return NULL;
        if (terminal_is_safe(json_object_get_string(v)))
                return json_object_get_string(v);
        e = terminal_escape(json_object_get_string(v));
        if (!e || json_object_set_string(v, e) == 0)
                return "(out of memory)";
        return json_object_get_string(v);
}

/* A number as its digits, anything else as jsafe() shows it; "?" if absent. */
static const char *jnum_text(json_object *v, char *buf, size_t size) {
        if (v && json_object_is_type(v, json_type_int)) {
                snprintf(buf, size, "%" PRId64, json_object_get_int64(v));
                return buf;
        }
        return jsafe(v) ?: "?";
}

static const char *jstr(json_object *o, const char *key) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v))
                return NULL;
        return jsafe(v);
}

/* An error the daemon sent, its name and message escaped. */
static void print_daemon_error(const char *what, const char *error, json_object *reply) {
        _cleanup_free_ char *name = terminal_escape(error ?: "?");

        if (streq_ptr(error, "org.varlink.service.InvalidParameter") && jstr(reply, "parameter"))
                fprintf(stderr, "numastatctl: %s: the daemon refused parameter '%s'\n", what, jstr(reply, "parameter"));
        else if (jstr(reply, "message"))
                fprintf(stderr, "numastatctl: %s: %s: %s\n", what, strnull(name), jstr(reply, "message"));
        else
                fprintf(stderr, "numastatctl: %s: %s\n", what, strnull(name));
}

static int connect_daemon(const Args *a, VarlinkClient **ret) {
        int r = varlink_client_connect_address(ret, a->socket);
        if (r < 0) {
                fprintf(stderr, "numastatctl: cannot reach numastatd at %s: %s (is numastatd running?)\n",
                        a->socket, strerror(-r));
                return -EXIT_UNREACHABLE;
        }
        return 0;
}

/* Calls a method; on failure prints one line and returns -exit code. */
static int call(const Args *a, const char *method, json_object *params, json_object **ret) {
        _cleanup_(varlink_client_freep) VarlinkClient *c = NULL;
        _cleanup_json_ json_object *reply = NULL;
        const char *error = NULL;
        int r;

        r = connect_daemon(a, &c);
        if (r < 0)
                return r;
        r = varlink_client_call(c, method, params, &reply, &error);
        if (r < 0) {
                fprintf(stderr, "numastatctl: no answer from numastatd at %s: %s\n", a->socket, strerror(-r));
                return -EXIT_UNREACHABLE;
        }
        if (error) {
                if (strcmp(error, VARLINK_ERROR_PERMISSION_DENIED) == 0) {
                        fprintf(stderr, "numastatctl: permission denied: %s needs root.\n", method);
                        return -EXIT_DENIED;
                }
                print_daemon_error(method, error, reply);
                return -EXIT_DAEMON_ERROR;
        }
        if (ret)
                *ret = TAKE_PTR(reply);
        return 0;
}

static int64_t jint(json_object *o, const char *key) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        return json_object_get_int64(v);
}

/* The noun for a count: "1 reset", "0 resets". */
static const char *plural(int64_t n, const char *one, const char *many) {
        return n == 1 ? one : many;
}

/* A number the daemon sends as a float (0 when absent). */
static double jdouble(json_object *o, const char *key) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v) || !v)
                return 0;
        return json_object_get_double(v);
}

static bool jbool(json_object *o, const char *key) {
        json_object *v = NULL;
        return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static json_object *jget(json_object *o, const char *key) {
        json_object *v = NULL;
        json_object_object_get_ex(o, key, &v);
        return v;
}

static char *format_time(char *buf, size_t size, int64_t usec) {
        time_t t = (time_t) (usec / 1000000);
        struct tm tm;
        if (usec <= 0 || !localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, size, "n/a");
        return buf;
}

static char *format_bytes(char *buf, size_t size, uint64_t b) {
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
        double v = (double) b;
        size_t u = 0;
        while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024;
                u++;
        }
        snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
        return buf;
}

/* 987, 12.3k, 4.5M, 6.7G: counts of pages and instructions. */
static char *format_count(char *buf, size_t size, uint64_t n) {
        static const char *const units[] = { "", "k", "M", "G", "T", "P" };
        double v = (double) n;
        size_t u = 0;
        while (v >= 1000 && u + 1 < ELEMENTSOF(units)) {
                v /= 1000;
                u++;
        }
        snprintf(buf, size, u ? "%.1f%s" : "%.0f%s", v, units[u]);
        return buf;
}

static char *format_cpus(char *buf, size_t size, json_object *cpus) {
        size_t n = json_object_array_length(cpus), len = 0;
        buf[0] = 0;
        for (size_t i = 0; i < n;) {
                int64_t first = json_object_get_int64(json_object_array_get_idx(cpus, i)), last = first;
                size_t j = i + 1;
                while (j < n && json_object_get_int64(json_object_array_get_idx(cpus, j)) == last + 1)
                        last = json_object_get_int64(json_object_array_get_idx(cpus, j++));
                int w = first == last ? snprintf(buf + len, size - len, "%s%" PRId64, len ? "," : "", first)
                                      : snprintf(buf + len, size - len, "%s%" PRId64 "-%" PRId64,
                                                 len ? "," : "", first, last);
                if (w < 0 || (size_t) w >= size - len)
                        break;
                len += w;
                i = j;
        }
        if (!buf[0])
                snprintf(buf, size, "none");
        return buf;
}

static const char *transition_mode(json_object *t, const char *which) {
        const char *text = jstr(t, streq(which, "from") ? "from_text" : "to_text");

        return text ?: strempty(jstr(t, which));
}

/* One line per switch, its columns as wide as the list's widest entry
 * (an armed auto's "auto (triggered by ...)" is long). */
static void print_transition(json_object *t, json_object *list) {
        const char *kind = jstr(t, "kind");
        int from_w = 7, to_w = 7;
        char when[64];

        for (size_t i = 0; i < json_object_array_length(list); i++) {
                json_object *x = json_object_array_get_idx(list, i);

                from_w = MAX(from_w, (int) strlen(transition_mode(x, "from")));
                to_w = MAX(to_w, (int) strlen(transition_mode(x, "to")));
        }
        printf("%s  %-*s -> %-*s %-9s (policy %s, cause %s) %s\n", format_time(when, sizeof when, jint(t, "time")),
               from_w, transition_mode(t, "from"), to_w, transition_mode(t, "to"), kind ? kind : "",
               jstr(t, "policy"), jstr(t, "cause"), jstr(t, "reason"));
}

/* Why a reader's reads count or not: the daemon's words, or (another
 * user's reader, redacted) what the verdict alone says. Unknown readers
 * count, as they always did: nothing is said. */
static void print_verdict(json_object *x) {
        const char *verdict = jstr(x, "verdict") ?: "unknown", *why = jstr(x, "why"), *known = jstr(x, "known");

        if (strcmp(verdict, "unknown") == 0)
                return;
        if (why)
                printf(", %s", why);
        else if (known)
                printf(", %s %s", strcmp(verdict, "known") == 0 ? "known" : "counts: known", known);
        else if (jbool(x, "ignored"))
                printf(", ignored by rule");
        else
                printf(", counts by rule");
}

static void print_reader_line(json_object *x, const char *indent) {
        char when[64], uid[24];
        int64_t first_off;

        if (jbool(x, "redacted"))
                printf("%s%s (another user's process)", indent, jstr(x, "comm") ?: "?");
        else if (jstr(x, "comm"))
                printf("%s%s (pid %" PRId64 ", uid %s%s%s)", indent, jstr(x, "comm"), jint(x, "pid"),
                       jnum_text(jget(x, "uid"), uid, sizeof uid), jstr(x, "unit") ? ", " : "",
                       jstr(x, "unit") ? jstr(x, "unit") : "");
        else
                /* Gone before the daemon could look: only the pid is known. */
                printf("%sunattributed (last pid %" PRId64 ", exited at once)", indent, jint(x, "pid"));
        printf(" read %s %" PRId64 "x, last %s", jstr(x, "path"), jint(x, "count"),
               format_time(when, sizeof when, jint(x, "last_seen")));
        if (jget(x, "period")) {
                char every[DURATION_MAX];
                usec_t period = (usec_t) jint(x, "period");

                printf(", every %s", format_duration_approx(every, sizeof every, period, PERIOD_ACCURACY) ?: "?");
        }
        print_verdict(x);
        if (jint(x, "served") + jint(x, "unserved") > 0)
                printf(", served %" PRId64 " of %" PRId64, jint(x, "served"), jint(x, "served") + jint(x, "unserved"));
        first_off = jint(x, "first_reads_counting_off");
        if (first_off > 0)
                printf(", %" PRId64 " %s found counting off", first_off, plural(first_off, "first read", "first reads"));
        if (jdouble(x, "held_on_seconds") > 0) {
                char held[DURATION_MAX];

                printf(", held counting on %s under pressure",
                       format_duration_approx(held, sizeof held, (usec_t) (jdouble(x, "held_on_seconds") * USEC_PER_SEC),
                                              USEC_PER_SEC) ?: "?");
                if (jget(x, "held_on_share"))
                        printf(" (%.0f%%)", 100.0 * jdouble(x, "held_on_share"));
        }
        printf("%s\n", jbool(x, "pid_verified") ? ", pid verified" : "");
}

static void print_hold_line(json_object *x, const char *indent) {
        char since[64], until[64];

        /* Its id, as numastatctl hold printed it and the daemon logged it. */
        printf("%shold %" PRId64 " by %s", indent, jint(x, "id"), jstr(x, "comm") ?: "?");
        if (jbool(x, "redacted"))
                printf(" (another user's process)");
        else
                printf(" (pid %" PRId64 ", uid %" PRId64 "%s%s)", jint(x, "pid"), jint(x, "uid"),
                       jstr(x, "unit") ? ", " : "", jstr(x, "unit") ?: "");
        if (jstr(x, "reason"))
                printf(" for \"%s\"", jstr(x, "reason"));
        printf(", since %s", format_time(since, sizeof since, jint(x, "since")));
        if (jget(x, "until"))
                printf(", until %s", format_time(until, sizeof until, jint(x, "until")));
        printf("\n");
}

/* The readers whose reads keep counting on now, those that read most
 * often (and so keep it on longest) first. */
static void print_kept_on_by(json_object *readers, json_object *s) {
        size_t n = readers ? json_object_array_length(readers) : 0, order[64], k = 0;

        for (size_t i = 0; i < n && k < ELEMENTSOF(order); i++)
                if (jbool(json_object_array_get_idx(readers, i), "keeps_counting_on"))
                        order[k++] = i;
        /* Insertion sort by period (periodic first, shortest first), then count. */
        for (size_t i = 1; i < k; i++) {
                size_t v = order[i], j = i;
                json_object *b = json_object_array_get_idx(readers, v);
                while (j > 0) {
                        json_object *a = json_object_array_get_idx(readers, order[j - 1]);
                        int64_t pa = jint(a, "period"), pb = jint(b, "period");
                        bool before = pb && (!pa || pb < pa);
                        if (!before && !(pa == pb && jint(b, "count") > jint(a, "count")))
                                break;
                        order[j] = order[j - 1];
                        j--;
                }
                order[j] = v;
        }
        for (size_t i = 0; i < k && i < 3; i++) {
                json_object *x = json_object_array_get_idx(readers, order[i]);
                const char *why = jstr(x, "why");
                char every[DURATION_MAX];

                printf("%s%s (", i == 0 ? "  Kept on by: " : "              ", jstr(x, "comm") ?: "unattributed");
                if (jget(x, "period"))
                        printf("every %s", format_duration_approx(every, sizeof every, (usec_t) jint(x, "period"),
                                                                  PERIOD_ACCURACY) ?: "?");
                else
                        printf("%" PRId64 " %s", jint(x, "count"), plural(jint(x, "count"), "read", "reads"));
                if (why)
                        printf("; %s", why);
                else if (strcmp(jstr(x, "verdict") ?: "unknown", "unknown") == 0)
                        printf("; not a known reader");
                printf(")\n");
        }
        if (k > 3)
                printf("              and %zu more (numastatctl readers)\n", k - 3);
        if (k > 0 && jget(s, "allocation_rate")) {
                /* What they cost: the allocations counted meanwhile, and the
                 * instructions that takes where the bench figure is set. */
                double ipp = json_object_get_double(jget(jget(s, "ledger"), "insns_per_page"));
                char insns[32];

                printf("              cost: counting on at %" PRId64 " allocated pages/s", jint(s, "allocation_rate"));
                if (ipp > 0)
                        printf(" (about %s instructions/s at %.1f per page)",
                               format_count(insns, sizeof insns, (uint64_t) (ipp * (double) jint(s, "allocation_rate"))),
                               ipp);
                printf("\n");
        }
        if (k > 0)
                printf("              see numastatd.conf(5), KNOWN READERS, for readers that need no counting\n");
}

/* Whether a path can be written in an ignore= rule as it is: printable,
 * no white space (the matchers are white-space separated). */
static bool rule_word(const char *p) {
        if (!p || !*p)
                return false;
        for (; *p; p++)
                if (*p <= ' ' || *p >= 0x7f || *p == '\\')
                        return false;
        return true;
}

/* What to do about a costly reader: for an unknown one, the rule that
 * would ignore it, and what to make sure of first. */
static void print_cost_advice(json_object *x) {
        const char *verdict = jstr(x, "verdict") ?: "unknown", *exe = jstr(x, "exe"), *path = jstr(x, "path");

        if (strcmp(verdict, "known-counts") == 0) {
                printf("              numastatctl known-readers: how %s stops needing the counters\n",
                       jstr(x, "known") ?: "it");
                return;
        }
        if (strcmp(verdict, "unknown") != 0 || !rule_word(path))
                return;
        if (rule_word(exe))
                printf("              to ignore it: [readers] ignore = exe=%s path=%s\n", exe, path);
        else if (jbool(x, "redacted"))
                printf("              ask root (its uid's reader) which program it is\n");
        else
                return;
        printf("              first check that nothing uses the numa_* values it reads there\n");
}

/* The readers that kept counting on under allocation pressure, costliest
 * first (the daemon's order): what each cost of the pressured time. */
static void print_held_on_by(json_object *readers, json_object *s) {
        double pressured = jdouble(jget(s, "pressure"), "seconds");
        size_t n = readers ? json_object_array_length(readers) : 0, shown = 0;
        char total[DURATION_MAX];

        if (pressured <= 0)
                return;
        format_duration_approx(total, sizeof total, (usec_t) (pressured * USEC_PER_SEC), USEC_PER_SEC);
        printf("    Pressure: %s above coarse_above since start, counting on for %.0f%% of it\n", total,
               100.0 * jdouble(jget(s, "pressure"), "counting_on_seconds") / pressured);
        for (size_t i = 0; i < n && shown < 3; i++) {
                json_object *x = json_object_array_get_idx(readers, i);
                const char *verdict = jstr(x, "verdict") ?: "unknown";

                if (jdouble(x, "held_on_seconds") <= 0)
                        continue;
                printf("%s%s %.0f%% of the pressured time, %s\n", shown == 0 ? "  Held on by: " : "              ",
                       jstr(x, "comm") ?: "unattributed", 100.0 * jdouble(x, "held_on_share"),
                       strcmp(verdict, "unknown") == 0       ? "unknown reader"
                       : strcmp(verdict, "count-rule") == 0  ? "counts by a count= rule"
                       : strcmp(verdict, "known-counts") == 0 ? "known reader that counts"
                                                              : "its reads no longer count");
                print_cost_advice(x);
                shown++;
        }
}

static void print_status_kernel(json_object *s) {
        json_object *err = jget(s, "last_error"), *sources = jget(s, "sources"), *ks = jget(s, "kernel_state");
        const char *kernel = jstr(s, "kernel_mode"), *target = jstr(s, "target_mode"), *backend = jstr(s, "backend");

        /* × for an error, a rejected reload included (the metrics say so too). */
        printf("%s numastatd %s - NUMA statistics policy daemon (pid %" PRId64 ")\n",
               err || jstr(s, "config_error") ? "\u00d7" : "\u25cf", jstr(s, "version"), jint(s, "pid"));
        /* The source as the user knows it: the command, not the varlink method. */
        printf("      Policy: %s (from %s)%s%s\n", jstr(s, "policy"),
               streq_ptr(jstr(s, "policy_source"), "SetPolicy") ? "numastatctl set-policy" : jstr(s, "policy_source"),
               jbool(s, "dry_run") ? ", dry run: nothing is written" : "",
               jbool(s, "paused") ? ", paused after an external change" : "");
        if (!backend || strcmp(backend, "none") == 0)
                printf("      Kernel: no NUMA statistics interface (observing only)\n");
        else
                printf("      Kernel: %s via %s (%s), counting %s\n", jstr(ks, "text") ?: kernel,
                       jstr(s, "backend_path"), backend, jbool(s, "counting") ? "on" : "off");
        if (jint(ks, "arms") > 0)
                printf("        Arms: %" PRId64 " (re-arms %" PRId64 ", triggers %" PRId64 ", samples while armed %" PRId64 ")%s\n",
                       jint(ks, "arms"), jint(ks, "rearms"), jint(ks, "triggers"), jint(ks, "armed_samples"),
                       jbool(sources, "kernel_log") ? "" : "; the kernel's log is not readable: triggers are inferred");
        if (target && kernel && strcmp(target, kernel) != 0 && strcmp(target, "unknown") != 0)
                printf("      Target: %s\n", target);
        printf("      Reason: %s\n", jstr(s, "reason"));
        if (jget(s, "allocation_rate"))
                printf("  Alloc rate: %" PRId64 " pages/s\n", jint(s, "allocation_rate"));
}

static void print_status_readers(json_object *s) {
        json_object *readers = jget(s, "readers"), *holds = jget(s, "holds");

        if (readers && json_object_array_length(readers) > 0) {
                size_t n = json_object_array_length(readers);

                if (n == 1)
                        printf("     Readers: 1 program:\n");
                else
                        printf("     Readers: %zu programs, %s:\n", n,
                               jdouble(jget(s, "pressure"), "seconds") > 0 ? "costliest first" : "most frequent");
                for (size_t i = 0; i < n && i < 3; i++)
                        print_reader_line(json_object_array_get_idx(readers, i), "              ");
                if (n > 3)
                        printf("              and %zu more (numastatctl readers)\n", n - 3);
        } else
                printf("     Readers: none seen%s\n",
                       jbool(jget(s, "sources"), "readers") ? "" : " (reader detection unavailable)");
        print_kept_on_by(readers, s);
        print_held_on_by(readers, s);
        if (holds && json_object_array_length(holds) > 0) {
                printf("       Holds: %zu, counting held on:\n", json_object_array_length(holds));
                for (size_t i = 0; i < json_object_array_length(holds); i++)
                        print_hold_line(json_object_array_get_idx(holds, i), "              ");
        }
}

/* The best possible over the last 24 hours, and the daemon's share of it. */
static void print_best(json_object *s) {
        json_object *b = jget(s, "best_possible");
        char window[DURATION_MAX], pages[32], best[32];
        int64_t total = jint(b, "pages_total");

        if (!b || total <= 0)
                return;
        format_duration_approx(window, sizeof window, (usec_t) jint(b, "window_seconds") * USEC_PER_SEC, USEC_PER_SEC);
        printf("        Best: over the last %s, the best schedule keeps counting off for %s of %s pages (%.1f%%)",
               window, format_count(best, sizeof best, (uint64_t) jint(b, "pages_counting_off_best")),
               format_count(pages, sizeof pages, (uint64_t) total),
               100.0 * (double) jint(b, "pages_counting_off_best") / (double) total);
        if (jget(b, "share_of_best"))
                printf("; numastatd did %.0f%% of that\n", 100.0 * jdouble(b, "share_of_best"));
        else
                printf("\n");
}

static void print_status_counters(json_object *s) {
        json_object *counters = jget(s, "counters"), *ledger = jget(s, "ledger"), *precision = jget(s, "precision");

        if (counters) {
                json_object *tot = jget(counters, "total");
                printf("    Counters: since start numa_hit %" PRId64 ", numa_miss %" PRId64
                       ", counting %.0f%% of the time\n",
                       jint(tot, "numa_hit"), jint(tot, "numa_miss"),
                       100.0 * json_object_get_double(jget(counters, "counting_share")));
        }
        if (ledger && jint(ledger, "pages_total") > 0) {
                char pages[32], total[32];
                printf("      Ledger: %s of %s pages allocated with counting off (%.1f%%)",
                       format_count(pages, sizeof pages, (uint64_t) jint(ledger, "pages_counting_off")),
                       format_count(total, sizeof total, (uint64_t) jint(ledger, "pages_total")),
                       100.0 * json_object_get_double(jget(ledger, "share_off")));
                if (jget(ledger, "insns_saved"))
                        printf(", about %s instructions saved at %.1f per page",
                               format_count(pages, sizeof pages, (uint64_t) jint(ledger, "insns_saved")),
                               json_object_get_double(jget(ledger, "insns_per_page")));
                printf("\n");
        }
        print_best(s);
        if (precision && jint(precision, "max_drift") > 0)
                printf("   Precision: a zone counter may lag by up to %" PRId64 " pages\n",
                       jint(precision, "max_drift"));
}

/* The programs whose reads went unserved, most first: "collectd 2, sar 1". */
static void print_unserved_by(json_object *readers) {
        size_t n = readers ? json_object_array_length(readers) : 0, shown = 0, more = 0;
        bool done[64] = {};

        for (;;) {
                const char *best = NULL;
                int64_t best_sum = 0;

                for (size_t i = 0; i < n && i < ELEMENTSOF(done); i++) {
                        json_object *x = json_object_array_get_idx(readers, i);
                        const char *comm = jstr(x, "comm") ?: "unattributed";
                        int64_t sum = 0;

                        if (done[i] || jint(x, "unserved") <= 0)
                                continue;
                        for (size_t j = i; j < n && j < ELEMENTSOF(done); j++) {
                                json_object *y = json_object_array_get_idx(readers, j);
                                if (!done[j] && strcmp(jstr(y, "comm") ?: "unattributed", comm) == 0)
                                        sum += jint(y, "unserved");
                        }
                        if (sum > best_sum) {
                                best = comm;
                                best_sum = sum;
                        }
                }
                if (!best)
                        break;
                for (size_t j = 0; j < n && j < ELEMENTSOF(done); j++)
                        if (strcmp(jstr(json_object_array_get_idx(readers, j), "comm") ?: "unattributed", best) == 0)
                                done[j] = true;
                if (shown < 3)
                        printf("%s%s %" PRId64, shown ? ", " : ": ", best, best_sum);
                else
                        more++;
                shown++;
        }
        if (more)
                printf(" and %zu more", more);
}

/* What the readers got: counted reads that found counting on since their
 * previous read. Floored, so that 100% means every one. */
static void print_status_service(json_object *s) {
        json_object *service = jget(s, "service");
        int64_t served = jint(service, "served"), unserved = jint(service, "unserved"),
                first_off = jint(service, "first_reads_counting_off"), judged = served + unserved;

        if (judged > 0) {
                printf("     Service: %" PRId64 "%% of counted reads found counting on since their previous read",
                       served * 100 / judged);
                if (unserved > 0) {
                        printf(" (%" PRId64 " of %" PRId64 " did not", unserved, judged);
                        print_unserved_by(jget(s, "readers"));
                        printf(")");
                }
        }
        if (first_off > 0)
                printf("%s%" PRId64 " %s found counting off", judged > 0 ? "; " : "     Service: ", first_off,
                       plural(first_off, "first read", "first reads"));
        if (judged > 0 || first_off > 0)
                printf("\n");
}

/* " a, b, c": the strings of a JSON array, escaped. */
static void print_joined(json_object *a) {
        for (size_t i = 0; a && i < json_object_array_length(a); i++)
                printf("%s %s", i ? "," : "", jsafe(json_object_array_get_idx(a, i)));
}

/* Known readers on but none loaded: every read counts, so counting never
 * goes off on a monitored host. Says where the daemon looked; a directory
 * it could not read is worth a warning even when another had entries. */
static void print_catalogue_warning(json_object *sources) {
        json_object *n = jget(sources, "known_readers"), *dirs = jget(sources, "known_readers_dirs"),
                    *unreadable = jget(sources, "known_readers_unreadable");
        size_t n_unreadable = unreadable ? json_object_array_length(unreadable) : 0;

        if (!n || (json_object_get_int64(n) > 0 && n_unreadable == 0))
                return;
        if (json_object_get_int64(n) == 0) {
                printf("     Warning: known readers are on, but no catalogue entry is loaded: every read counts\n"
                       "              looked in:");
                print_joined(dirs);
                printf("\n");
        }
        for (size_t i = 0; i < n_unreadable; i++)
                printf("     Warning: known readers: cannot read %s\n", jsafe(json_object_array_get_idx(unreadable, i)));
}

/* Children that looked into other users' processes and outlived their
 * deadline: what a FUSE server that never answers leaves (their users'
 * reads count meanwhile). */
static void print_stuck_looks(json_object *sources) {
        int64_t n = 0;

        if (!sources)
                return;
        n += jint(jget(sources, "reader_looks"), "lingering");
        n += jint(jget(sources, "scan_looks"), "lingering");
        if (n > 0)
                printf("     Warning: %" PRId64 " %s into other users' processes outlived %s deadline (stuck in the "
                       "kernel: a FUSE server that never answers?); their users' reads count meanwhile\n",
                       n, plural(n, "look", "looks"), n == 1 ? "its" : "their");
}

static void print_status_sources(json_object *s) {
        json_object *sources = jget(s, "sources");

        if (sources && jbool(sources, "readers")) {
                json_object *inst = jget(sources, "proc_instances");
                size_t n_inst = inst ? json_object_array_length(inst) : 0;

                printf("     Sources: fanotify%s%s", jbool(sources, "readers_pidfd") ? " with pidfds" : "",
                       jbool(sources, "exit_records") ? ", exit records (taskstats)" : "");
                /* Not only containers: a sandboxed service has a procfs of its own. */
                if (jget(sources, "container_scan")) {
                        const char *how = jbool(sources, "mount_events") ? "scan and mount events" : "scan";

                        if (n_inst == 0)
                                printf(", no other procfs instance found (%s)", how);
                        else
                                printf(", %zu more procfs instance%s: containers, sandboxed services (%s)", n_inst,
                                       n_inst == 1 ? "" : "s", how);
                }
                printf("\n");
        }
        for (size_t i = 0; jget(sources, "fallbacks") && i < json_object_array_length(jget(sources, "fallbacks"));
             i++)
                printf("    Fallback: %s\n",
                       json_object_get_string(json_object_array_get_idx(jget(sources, "fallbacks"), i)));
        if (jstr(sources, "readers_error"))
                printf("     Warning: %s\n", jstr(sources, "readers_error"));
        if (jstr(sources, "metrics_error"))
                printf("     Warning: metrics textfile: %s\n", jstr(sources, "metrics_error"));
        if (jstr(sources, "exit_records_error"))
                printf("     Warning: %s: readers gone before they are looked at stay unnamed\n",
                       jstr(sources, "exit_records_error"));
        if (jstr(sources, "rate_error"))
                printf("     Warning: %s\n", jstr(sources, "rate_error"));
        if (jstr(sources, "uevents_error"))
                printf("     Warning: %s\n", jstr(sources, "uevents_error"));
        print_catalogue_warning(sources);
        print_stuck_looks(sources);
}

static void print_status_nodes(json_object *s) {
        json_object *nodes = jget(s, "nodes");
        char cpus[128], bytes[64];

        printf("       Nodes: %zu\n", nodes ? json_object_array_length(nodes) : 0);
        for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
                json_object *n = json_object_array_get_idx(nodes, i);
                printf("              node%" PRId64 ": cpus %s, %s\n", jint(n, "id"),
                       format_cpus(cpus, sizeof cpus, jget(n, "cpus")),
                       format_bytes(bytes, sizeof bytes, (uint64_t) jint(n, "memory_total_bytes")));
        }
}

static void print_status_daemon(json_object *s) {
        json_object *trans = jget(s, "transitions"), *err = jget(s, "last_error");
        const char *cfgerr = jstr(s, "config_error");
        char when[64];

        printf(" Transitions: %" PRId64, jint(s, "transitions_total"));
        if (trans && json_object_array_length(trans) > 0) {
                json_object *t = json_object_array_get_idx(trans, json_object_array_length(trans) - 1);
                printf(", last %s: %s -> %s", format_time(when, sizeof when, jint(t, "time")), jstr(t, "from"),
                       jstr(t, "to"));
        }
        printf("\n");
        printf("      Config: %s%s%s\n", jstr(s, "config_file"), cfgerr ? "\n              reload rejected: " : "",
               cfgerr ? cfgerr : "");
        if (jstr(s, "root") && strcmp(jstr(s, "root"), "/") != 0)
                printf("        Root: %s\n", jstr(s, "root"));
        printf("       Since: %s\n", format_time(when, sizeof when, jint(s, "started")));
        if (err)
                printf("       Error: %s (%s)\n", jstr(err, "message"), format_time(when, sizeof when, jint(err, "time")));
}

/* systemctl status' layout: one printer per block. */
static void print_status(json_object *s) {
        print_status_kernel(s);
        print_status_readers(s);
        print_status_counters(s);
        print_status_service(s);
        print_status_sources(s);
        print_status_nodes(s);
        print_status_daemon(s);
}

static void print_json(const Args *a, json_object *o) {
        int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                    (a->json == JSON_SHORT ? JSON_C_TO_STRING_PLAIN
                                           : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
        const char *text = json_object_to_json_string_ext(o, flags);
        bool in_string = false;

        /* json-c's pretty printer opens an empty array or object on one line
         * and closes it on the next: print "[]" and "{}" as people write them
         * (outside strings: a comm may be "[  ]"). */
        for (const char *p = text; p && *p; p++) {
                if (in_string && *p == '\\' && p[1]) {
                        putchar(*p++);
                } else if (*p == '"')
                        in_string = !in_string;
                else if (!in_string && (*p == '[' || *p == '{') && a->json != JSON_SHORT) {
                        const char *q = p + 1;

                        while (*q == '\n' || *q == ' ')
                                q++;
                        if (*q == (*p == '[' ? ']' : '}')) {
                                fputs(*p == '[' ? "[]" : "{}", stdout);
                                p = q;
                                continue;
                        }
                }
                putchar(*p);
        }
        putchar('\n');
}

static int verb_status(const Args *a) {
        _cleanup_json_ json_object *reply = NULL;
        json_object *s;
        int r = call(a, "io.numastatd.GetStatus", NULL, &reply);
        if (r < 0)
                return -r;
        s = jget(reply, "status");
        if (!s) {
                fprintf(stderr, "numastatctl: the daemon's reply has no status.\n");
                return EXIT_DAEMON_ERROR;
        }
        if (a->json)
                print_json(a, s);
        else
                print_status(s);
        return EXIT_OK;
}

/* history and readers: one array of the status, as JSON or one line each. */
static int verb_list(const Args *a, const char *field, const char *none,
                     void (*print_item)(json_object *item, json_object *list)) {
        _cleanup_json_ json_object *reply = NULL, *empty = json_object_new_array();
        json_object *list;
        int r = call(a, "io.numastatd.GetStatus", NULL, &reply);
        if (r < 0)
                return -r;
        list = jget(jget(reply, "status"), field);
        if (!list)
                list = empty;
        if (a->json) {
                print_json(a, list);
                return EXIT_OK;
        }
        if (json_object_array_length(list) == 0)
                printf("%s\n", none);
        for (size_t i = 0; i < json_object_array_length(list); i++)
                print_item(json_object_array_get_idx(list, i), list);
        /* Holds are readers that never stop reading: listed with them. */
        if (strcmp(field, "readers") == 0) {
                json_object *holds = jget(jget(reply, "status"), "holds");
                for (size_t i = 0; holds && i < json_object_array_length(holds); i++)
                        print_hold_line(json_object_array_get_idx(holds, i), "");
        }
        return EXIT_OK;
}

static void print_reader(json_object *x, json_object *list _unused_) {
        print_reader_line(x, "");
}

/* The Prometheus text the daemon renders, as it is: what the textfile
 * collector would read. Label values are escaped by the daemon (ASCII). */
static int verb_metrics(const Args *a) {
        _cleanup_json_ json_object *reply = NULL;
        const char *text;
        json_object *t = NULL;
        int r = call(a, "io.numastatd.GetMetrics", NULL, &reply);

        if (r < 0)
                return -r;
        if (!json_object_object_get_ex(reply, "text", &t) || !json_object_is_type(t, json_type_string)) {
                fprintf(stderr, "numastatctl: the daemon's reply has no metrics.\n");
                return EXIT_DAEMON_ERROR;
        }
        if (a->json) {
                print_json(a, reply);
                return EXIT_OK;
        }
        /* Line by line through the one escaping printer: any control byte
         * (the daemon sends none) never reaches the terminal raw. */
        for (text = json_object_get_string(t); *text;) {
                size_t n = strcspn(text, "\n");
                _cleanup_free_ char *line = strndup(text, n), *e = line ? terminal_escape(line) : NULL;

                if (!e)
                        return EXIT_DAEMON_ERROR;
                printf("%s%s", e, text[n] ? "\n" : "");
                text += n + (text[n] != '\0');
        }
        return EXIT_OK;
}

/* "unless CONFIG (or the file --config names) lacks [s] k = v", or "has
 * a line matching RE", as the entry's condition is. */
static void print_config_condition(json_object *f) {
        const char *arg = jstr(f, "config_arg"), *positional = jstr(f, "config_positional");

        printf("      unless %s", jstr(f, "config") ?: "");
        if (arg)
                printf(" (or the file %s names)", arg);
        else if (positional)
                printf(" (or the file named after '%s')", positional);
        if (jstr(f, "config_forbids")) {
                const char *dir = jstr(f, "config_dir") ?: jbool(f, "config_dir_beside") ? "the directory it is in"
                                                                                         : NULL;

                const char *glob = jstr(f, "config_dir_glob");

                if (glob)
                        printf("%sa file %s matches in %s%s%s%s", jstr(f, "config") ? " or " : "", glob,
                               dir ?: "the directory", jstr(f, "config_dir_arg") ? " (or the one " : "",
                               jstr(f, "config_dir_arg") ?: "",
                               !jstr(f, "config_dir_arg")         ? ""
                               : jbool(f, "config_dir_arg_required") ? " names, which it must)"
                                                                      : " names)");
                else if (dir && jstr(f, "config_dir_names"))
                        printf("%sone of %s in %s", jstr(f, "config") ? " or " : "", jstr(f, "config_dir_names"), dir);
                else if (!dir && jstr(f, "config_dir_arg"))
                        printf(" or, given one, a %s%s%s %s the directory %s names (links to directories %sfollowed)",
                               jstr(f, "config_dir_suffixes") ? "file ending in " : "*.conf",
                               jstr(f, "config_dir_suffixes") ?: "",
                               jbool(f, "config_dir_hidden") ? " (dot names too)" : "",
                               jbool(f, "config_dir_recursive") ? "below" : "in", jstr(f, "config_dir_arg"),
                               jbool(f, "config_dir_follow") ? "" : "not ");
                else if (jstr(f, "config_dir"))
                        printf("%s%s%s%s %s %s%s%s%s%s", jstr(f, "config") ? " or a " : "a ",
                               jstr(f, "config_dir_suffixes") ? "file ending in " : "*.conf",
                               jstr(f, "config_dir_suffixes") ?: "",
                               jbool(f, "config_dir_hidden") ? " (dot names too)" : "",
                               jbool(f, "config_dir_recursive") ? "below" : "in", jstr(f, "config_dir"),
                               jbool(f, "config_dir_follow") ? " (links to directories followed)" : "",
                               jstr(f, "config_dir_arg") ? " (or the directory " : "", jstr(f, "config_dir_arg") ?: "",
                               jstr(f, "config_dir_arg") ? " names)" : "");
                if (jstr(f, "config_dir_holds"))
                        printf(" (every file %s names below it)", jstr(f, "config_dir_holds"));
                printf(" has a line matching %s%s%s%s%s\n", jstr(f, "config_forbids"),
                       jstr(f, "config_allows") ? " (but for one matching " : "", jstr(f, "config_allows") ?: "",
                       jstr(f, "config_allows") ? ")" : "",
                       jbool(f, "config_environment") ? ", as written or with its ${VAR}s replaced from its environment"
                                                      : "");
        } else
                printf(" lacks [%s] %s = %s\n", jstr(f, "config_section"), jstr(f, "config_key"),
                       jstr(f, "config_value"));
}

/* "unless something in its root matches GLOB", and the others of a
 * program that loads code (Datadog's). */
static void print_code_conditions(json_object *f) {
        json_object *absent = jget(f, "absent");

        for (size_t i = 0; absent && i < json_object_array_length(absent); i++)
                printf("      unless something in its root matches %s\n", jsafe(json_object_array_get_idx(absent, i)));
        if (jstr(f, "installed"))
                printf("      unless %s holds what %s does not list\n", jstr(f, "installed"), jstr(f, "installed_list"));
        if (jstr(f, "environ_forbids"))
                printf("      unless a variable of its environment matches %s\n", jstr(f, "environ_forbids"));
}

/* "recognised by: EXE... SCRIPT... run by INTERPRETER...". */
static void print_recognised_by(json_object *k, const char *indent) {
        json_object *exes = jget(k, "exe"), *scripts = jget(k, "script"), *interpreters = jget(k, "interpreter");

        printf("%srecognised by:", indent);
        for (size_t i = 0; exes && i < json_object_array_length(exes); i++)
                printf(" %s", jsafe(json_object_array_get_idx(exes, i)));
        for (size_t i = 0; scripts && i < json_object_array_length(scripts); i++)
                printf(" %s", jsafe(json_object_array_get_idx(scripts, i)));
        if (interpreters && json_object_array_length(interpreters) > 0) {
                printf(" run by");
                for (size_t i = 0; i < json_object_array_length(interpreters); i++)
                        printf(" %s", jsafe(json_object_array_get_idx(interpreters, i)));
        }
        printf("\n");
}

static void print_known_reader(json_object *k) {
        json_object *files = jget(k, "files");

        printf("%s (%s)\n", jstr(k, "name"), jstr(k, "source"));
        if (jstr(k, "description"))
                printf("    %s\n", jstr(k, "description"));
        print_recognised_by(k, "    ");
        for (size_t i = 0; files && i < json_object_array_length(files); i++) {
                json_object *f = json_object_array_get_idx(files, i);

                printf("    reads of %s need no counting: %s\n", jstr(f, "path"), jstr(f, "why"));
                if (jstr(f, "arg"))
                        printf("      unless %s matches a numa_* name (default %s)\n", jstr(f, "arg"),
                               jstr(f, "arg_default") ?: "none: counts");
                if (jstr(f, "config") || jstr(f, "config_dir"))
                        print_config_condition(f);
                print_code_conditions(f);
        }
        printf("    %s%s%s\n", files && json_object_array_length(files) > 0 ? "other reads count" : "its reads count",
               jstr(k, "counts") ? ": " : "", jstr(k, "counts") ?: "");
        if (jstr(k, "evidence"))
                printf("    evidence: %s\n", jstr(k, "evidence"));
        if (jstr(k, "advice"))
                printf("    to need no counting: %s\n", jstr(k, "advice"));
}

/* The catalogue entry named name, and its [file] section for path. */
static json_object *entry_named(json_object *list, const char *name) {
        for (size_t i = 0; name && list && i < json_object_array_length(list); i++)
                if (streq_ptr(jstr(json_object_array_get_idx(list, i), "name"), name))
                        return json_object_array_get_idx(list, i);
        return NULL;
}

static json_object *entry_file(json_object *k, const char *path) {
        json_object *files = jget(k, "files");

        for (size_t i = 0; path && files && i < json_object_array_length(files); i++)
                if (jstr(json_object_array_get_idx(files, i), "path") &&
                    fnmatch(jstr(json_object_array_get_idx(files, i), "path"), path, FNM_PATHNAME) == 0)
                        return json_object_array_get_idx(files, i);
        return NULL;
}

/* Whether reader x is the one asked about: its pid, or its comm. */
static bool reader_is(json_object *x, const char *what) {
        char pid[24];

        snprintf(pid, sizeof pid, "%" PRId64, jint(x, "pid"));
        return streq_ptr(jstr(x, "comm"), what) || (jget(x, "pid") && streq(pid, what));
}

/* One file's judgement for --explain: the verdict and why, and for a
 * catalogued reader the entry, and the condition of its [file] section. */
static void explain_file(json_object *x, json_object *catalogue) {
        const char *verdict = jstr(x, "verdict") ?: "unknown", *why = jstr(x, "why");
        json_object *k = entry_named(catalogue, jstr(x, "known")), *f = entry_file(k, jstr(x, "path"));

        printf("  %s, read %" PRId64 "x: %s\n", jstr(x, "path"), jint(x, "count"),
               jbool(x, "ignored") ? "needs no counting" : "counts");
        if (streq(verdict, "unknown"))
                printf("    no entry and no rule: its binary is no catalogued program's\n");
        else if (streq(verdict, "ignore-rule") || streq(verdict, "count-rule"))
                printf("    a rule of the configuration: %s\n", jstr(x, "source") ?: "?");
        else if (k)
                printf("    entry: %s, %s\n", jstr(k, "name"), jstr(x, "source") ?: jstr(k, "source"));
        if (k && !f)
                printf("    its entry has no [file] section for this file\n");
        if (why)
                printf("    why: %s\n", why);
        if (jstr(x, "looked"))
                printf("    read: %s\n", jstr(x, "looked"));
        if (f && jstr(f, "arg"))
                printf("      unless %s matches a numa_* name (default %s)\n", jstr(f, "arg"),
                       jstr(f, "arg_default") ?: "none: counts");
        if (f && (jstr(f, "config") || jstr(f, "config_dir") || jstr(f, "config_dir_arg")))
                print_config_condition(f);
        if (f)
                print_code_conditions(f);
}

/* known-readers --explain PID|NAME: how the readers seen with that pid (or
 * comm) are judged, file by file, from the daemon's reader table and
 * catalogue: nothing is asked of the process itself. */
static int explain_known_readers(const Args *a) {
        _cleanup_json_ json_object *status = NULL, *catalogue = NULL, *out = NULL;
        json_object *readers, *list, *matched;
        const char *shown_known = NULL;
        int64_t shown_pid = 0;
        int r = call(a, "io.numastatd.GetStatus", NULL, &status);

        if (r >= 0)
                r = call(a, "io.numastatd.ListKnownReaders", NULL, &catalogue);
        if (r < 0)
                return -r;
        readers = jget(jget(status, "status"), "readers");
        list = jget(catalogue, "known_readers");
        matched = json_object_new_array();
        for (size_t i = 0; matched && readers && i < json_object_array_length(readers); i++)
                if (reader_is(json_object_array_get_idx(readers, i), a->explain))
                        json_object_array_add(matched, json_object_get(json_object_array_get_idx(readers, i)));
        if (!matched || json_object_array_length(matched) == 0) {
                json_object_put(matched);
                fprintf(stderr,
                        "numastatctl: no reader with pid or name '%s' has been seen reading the statistics files "
                        "(numastatctl readers lists those that have).\n",
                        a->explain);
                return EXIT_NOT_SEEN;
        }
        if (a->json) {
                json_object *entries = json_object_new_array();

                for (size_t i = 0; entries && i < json_object_array_length(matched); i++) {
                        json_object *k = entry_named(list, jstr(json_object_array_get_idx(matched, i), "known"));

                        /* Once each, for a reader known by one entry for several files. */
                        if (k && !entry_named(entries, jstr(k, "name")))
                                json_object_array_add(entries, json_object_get(k));
                }
                out = json_object_new_object();
                json_object_object_add(out, "readers", matched);
                json_object_object_add(out, "known_readers", entries);
                print_json(a, out);
                return EXIT_OK;
        }
        if (!jbool(catalogue, "enabled"))
                printf("Known readers are off ([readers] known = no): every read counts unless a rule ignores it.\n");
        for (size_t i = 0; i < json_object_array_length(matched); i++) {
                json_object *x = json_object_array_get_idx(matched, i);
                json_object *k = entry_named(list, jstr(x, "known"));
                char uid[24];

                /* One heading per process (and per entry it is known as). */
                if (i == 0 || jint(x, "pid") != shown_pid || jbool(x, "redacted") ||
                    !streq_ptr(jstr(x, "known"), shown_known)) {
                        if (i > 0)
                                printf("\n");
                        if (jbool(x, "redacted"))
                                printf("%s (another user's process: its judgement is shown to root)\n",
                                       jstr(x, "comm") ?: "?");
                        else
                                printf("%s (pid %" PRId64 ", uid %s%s%s), %s\n", jstr(x, "comm") ?: "unattributed",
                                       jint(x, "pid"), jnum_text(jget(x, "uid"), uid, sizeof uid),
                                       jstr(x, "unit") ? ", " : "", jstr(x, "unit") ?: "",
                                       jstr(x, "exe") ?: "its binary unknown");
                        if (k)
                                print_recognised_by(k, "  ");
                }
                shown_pid = jint(x, "pid");
                shown_known = jstr(x, "known");
                explain_file(x, list);
        }
        json_object_put(matched);
        return EXIT_OK;
}

/* The catalogue in effect, entry by entry. */
static int verb_known_readers(const Args *a) {
        _cleanup_json_ json_object *reply = NULL;
        json_object *list, *masked;
        int r;

        if (a->explain)
                return explain_known_readers(a);
        r = call(a, "io.numastatd.ListKnownReaders", NULL, &reply);
        if (r < 0)
                return -r;
        if (a->json) {
                print_json(a, reply);
                return EXIT_OK;
        }
        list = jget(reply, "known_readers");
        masked = jget(reply, "masked");
        if (!jbool(reply, "enabled")) {
                printf("Known readers are off ([readers] known = no): every read counts unless a rule ignores it.\n");
                return EXIT_OK;
        }
        if (!list || json_object_array_length(list) == 0) {
                json_object *dirs = jget(reply, "dirs");

                printf("No known readers");
                if (dirs && json_object_array_length(dirs) > 0) {
                        printf(" in");
                        print_joined(dirs);
                }
                printf(": every read counts unless a rule ignores it.\n");
        }
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
                if (i > 0)
                        printf("\n");
                print_known_reader(json_object_array_get_idx(list, i));
        }
        if (masked && json_object_array_length(masked) > 0) {
                printf("\nmasked:");
                for (size_t i = 0; i < json_object_array_length(masked); i++)
                        printf(" %s", jsafe(json_object_array_get_idx(masked, i)));
                printf("\n");
        }
        return EXIT_OK;
}

/* The node numastat names, in the daemon's (vmstat's) order. */
static const struct {
        const char *key, *numastat;
} counter_rows[] = {
        { "numa_hit", "numa_hit" },           { "numa_miss", "numa_miss" },
        { "numa_foreign", "numa_foreign" },   { "numa_interleave", "interleave_hit" },
        { "numa_local", "local_node" },       { "numa_other", "other_node" },
};

/* Like numastat(8): nodes as columns; then what makes them differ from it. */
static int verb_counters(const Args *a) {
        _cleanup_json_ json_object *reply = NULL;
        json_object *c, *nodes;
        char when[64];
        int r = call(a, "io.numastatd.GetCounters", NULL, &reply);
        if (r < 0)
                return -r;
        c = jget(reply, "counters");
        nodes = jget(c, "nodes");
        if (!c || !nodes) {
                fprintf(stderr, "numastatctl: the daemon's reply has no counters.\n");
                return EXIT_DAEMON_ERROR;
        }
        if (a->json) {
                print_json(a, c);
                return EXIT_OK;
        }
        if (json_object_array_length(nodes) == 0) {
                /* A kernel without a NUMA interface (no CONFIG_NUMA): nothing is counted. */
                printf("No NUMA counters: the kernel keeps none here (no NUMA statistics interface).\n");
                return EXIT_OK;
        }
        printf("%16s", "");
        for (size_t i = 0; i < json_object_array_length(nodes); i++) {
                char name[32];
                snprintf(name, sizeof name, "node%" PRId64, jint(json_object_array_get_idx(nodes, i), "id"));
                printf("%16s", name);
        }
        printf("\n");
        for (size_t k = 0; k < ELEMENTSOF(counter_rows); k++) {
                printf("%-16s", counter_rows[k].numastat);
                for (size_t i = 0; i < json_object_array_length(nodes); i++)
                        printf("%16" PRId64, jint(json_object_array_get_idx(nodes, i), counter_rows[k].key));
                printf("\n");
        }
        printf("\n# Never reset: the kernel's values when numastatd started (%s) plus all counted since,\n"
               "# across %" PRId64 " %s by numastatd and %" PRId64 " by others; counting %.0f%% of that time.\n",
               format_time(when, sizeof when, jint(c, "started")), jint(c, "resets_compensated"),
               plural(jint(c, "resets_compensated"), "reset", "resets"),
               jint(c, "external_resets"), 100.0 * json_object_get_double(jget(c, "counting_share")));
        if (!jbool(c, "fresh"))
                printf("# As last read: the kernel's armed auto would turn counting on if read now.\n");
        return EXIT_OK;
}

/* Holds counting on: until COMMAND exits (its exit status is ours), or for
 * timeout. The hold lives as long as this process's connection: killed,
 * it leaves nothing behind. */
/* Asks for a hold on a new connection: 0 with *ret (the connection that
 * keeps it) and *ret_id, or an exit code, the reason printed unless quiet. */
static int hold_acquire(const Args *a, const char *reason, usec_t timeout, bool quiet, VarlinkClient **ret,
                        int64_t *ret_id) {
        _cleanup_(varlink_client_freep) VarlinkClient *c = NULL;
        _cleanup_json_ json_object *p = json_object_new_object(), *reply = NULL;
        const char *error = NULL;
        bool continues = false;
        int r;

        if (!p)
                return EXIT_DAEMON_ERROR;
        r = quiet ? varlink_client_connect_address(&c, a->socket) : connect_daemon(a, &c);
        if (r < 0)
                return EXIT_UNREACHABLE;
        if (reason)
                json_object_object_add(p, "reason", json_object_new_string(reason));
        if (timeout)
                json_object_object_add(p, "timeout", json_object_new_int64((int64_t) timeout));
        r = varlink_client_send(c, "io.numastatd.Hold", p, VARLINK_METHOD_MORE);
        if (r >= 0)
                r = varlink_client_wait(c, &reply, &error, &continues);
        if (r < 0) {
                if (!quiet)
                        fprintf(stderr, "numastatctl: no answer from numastatd at %s: %s\n", a->socket, strerror(-r));
                return EXIT_UNREACHABLE;
        }
        if (error) {
                if (!quiet)
                        print_daemon_error("cannot hold counting on", error, reply);
                return EXIT_DAEMON_ERROR;
        }
        if (!jbool(reply, "held") || !continues) {
                if (!quiet)
                        fprintf(stderr, "numastatctl: the daemon did not confirm the hold.\n");
                return EXIT_DAEMON_ERROR;
        }
        *ret_id = jint(reply, "id");
        *ret = TAKE_PTR(c);
        return 0;
}

/* While command runs: if the daemon goes away (a crash, a restart), the
 * hold went with it; say so, and hold again once a daemon answers. A final
 * reply is the hold's --timeout: it is over, not lost. */
static void hold_watch(const Args *a, const char *reason, usec_t timeout, VarlinkClient **c, int pidfd) {
        bool expired = false;

        for (;;) {
                struct pollfd p[2] = {
                        { .fd = pidfd, .events = POLLIN },
                        { .fd = *c ? varlink_client_get_fd(*c) : -1, .events = POLLIN },
                };
                int64_t id;

                if (poll(p, 2, *c || expired ? -1 : 500) < 0 && errno != EINTR)
                        return;
                if (p[0].revents)
                        return;         /* the command is done */
                if (*c && p[1].revents) {
                        _cleanup_json_ json_object *reply = NULL;
                        const char *error = NULL;
                        bool continues = false;
                        int r = varlink_client_wait(*c, &reply, &error, &continues);

                        varlink_client_free(*c);
                        *c = NULL;
                        if (r >= 0 && !error && !continues) {
                                expired = true;
                                continue;
                        }
                        fprintf(stderr, "numastatctl: the hold ended: numastatd %s; holding again once it is back.\n",
                                r < 0 ? "went away" : "dropped it");
                }
                if (!*c && !expired && hold_acquire(a, reason, timeout, true, c, &id) == 0)
                        fprintf(stderr, "numastatctl: counting held on again (hold %" PRId64 ").\n", id);
        }
}

/* Runs the held command, as system(3) would, and keeps the hold while it
 * runs (taking it again if the daemon restarts). Returns its exit status. */
static int run_held(const Args *a, VarlinkClient **c) {
        _cleanup_close_ int pidfd = -1;
        int status;
        pid_t pid;

        /* The terminal's signals are the command's. The connection is
         * close-on-exec: only we keep the hold. */
        signal(SIGINT, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
        pid = fork();
        if (pid < 0) {
                fprintf(stderr, "numastatctl: fork: %s\n", strerror(errno));
                return EXIT_DAEMON_ERROR;
        }
        if (pid == 0) {
                signal(SIGINT, SIG_DFL);
                signal(SIGQUIT, SIG_DFL);
                execvp(a->command[0], a->command);
                fprintf(stderr, "numastatctl: cannot run %s: %s\n", a->command[0], strerror(errno));
                _exit(errno == ENOENT ? 127 : 126);
        }
        /* Without pidfds (Linux < 5.3) a lost hold goes unnoticed. */
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0)
                hold_watch(a, a->reason, a->timeout, c, pidfd);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return EXIT_DAEMON_ERROR;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Without a command: until the daemon says the timeout passed. */
static int wait_held(const Args *a, VarlinkClient *c) {
        _cleanup_json_ json_object *reply = NULL;
        const char *error = NULL;
        bool continues = false;
        int r;

        varlink_client_set_timeout(c, 0);
        r = varlink_client_wait(c, &reply, &error, &continues);
        if (r < 0) {
                fprintf(stderr, "numastatctl: the hold ended early: %s\n", strerror(-r));
                return EXIT_UNREACHABLE;
        }
        if (error) {
                print_daemon_error("the hold ended early", error, reply);
                return EXIT_DAEMON_ERROR;
        }
        if (!a->json)
                fprintf(stderr, "Hold ended after the timeout.\n");
        return EXIT_OK;
}

static int verb_hold(const Args *a) {
        _cleanup_(varlink_client_freep) VarlinkClient *c = NULL;
        int64_t id = 0;
        int r;

        if (a->argc > 0) {
                fprintf(stderr, "numastatctl: hold runs the command after \"--\": numastatctl hold -- %s ...\n",
                        a->argv[0]);
                return EXIT_USAGE;
        }
        if (a->command && !a->command[0]) {
                fprintf(stderr, "numastatctl: hold: no COMMAND after \"--\".\n");
                return EXIT_USAGE;
        }
        if (!a->command && !a->timeout) {
                fprintf(stderr, "numastatctl: hold needs a COMMAND (after \"--\") or --timeout.\n");
                return EXIT_USAGE;
        }
        r = hold_acquire(a, a->reason, a->timeout, false, &c, &id);
        if (r != 0)
                return r;
        if (a->json) {
                /* The daemon's first reply, as the other verbs print theirs. */
                _cleanup_json_ json_object *o = json_object_new_object();

                if (o) {
                        json_object_object_add(o, "held", json_object_new_boolean(true));
                        json_object_object_add(o, "id", json_object_new_int64(id));
                        print_json(a, o);
                        fflush(stdout);
                }
        }
        if (!a->command) {
                if (!a->json)
                        fprintf(stderr, "Counting held on (hold %" PRId64 ").\n", id);
                return wait_held(a, c);
        }
        return run_held(a, &c);
}

static int verb_monitor(const Args *a) {
        _cleanup_(varlink_client_freep) VarlinkClient *c = NULL;
        int r;

        r = connect_daemon(a, &c);
        if (r < 0)
                return -r;
        varlink_client_set_timeout(c, 0);
        r = varlink_client_send(c, "io.numastatd.Monitor", NULL, VARLINK_METHOD_MORE);
        for (bool continues = true; r >= 0 && continues;) {
                _cleanup_json_ json_object *reply = NULL;
                const char *error = NULL;

                r = varlink_client_wait(c, &reply, &error, &continues);
                if (r < 0)
                        break;
                if (error) {
                        print_daemon_error("monitor failed", error, reply);
                        return EXIT_DAEMON_ERROR;
                }
                if (a->json)
                        print_json(a, jget(reply, "status"));
                else {
                        print_status(jget(reply, "status"));
                        printf("\n");
                }
                fflush(stdout);
        }
        if (r < 0) {
                fprintf(stderr, "numastatctl: connection to numastatd lost: %s\n", strerror(-r));
                return EXIT_UNREACHABLE;
        }
        return EXIT_OK;
}

static int verb_set_policy(const Args *a) {
        _cleanup_json_ json_object *p = NULL, *reply = NULL;
        const char *policy;
        int r, dry_run = a->dry_run;

        if (a->argc != 1) {
                fprintf(stderr, "numastatctl: set-policy takes one POLICY: strict, coarse or auto.\n");
                return EXIT_USAGE;
        }
        policy = a->argv[0];
        if (strcmp(policy, "strict") != 0 && strcmp(policy, "coarse") != 0 && strcmp(policy, "auto") != 0) {
                fprintf(stderr, "numastatctl: unknown policy '%s' (strict, coarse or auto).\n", policy);
                return EXIT_USAGE;
        }
        p = json_object_new_object();
        json_object_object_add(p, "policy", json_object_new_string(policy));
        if (dry_run >= 0)
                json_object_object_add(p, "dry_run", json_object_new_boolean(dry_run));
        r = call(a, "io.numastatd.SetPolicy", p, &reply);
        if (r < 0)
                return -r;
        /* Dry run stays on unless --no-dry-run: say so whatever was asked. */
        if (!a->json)
                printf("Policy set to %s%s.\n", policy, jbool(reply, "dry_run") ? " (dry run)" : "");
        return EXIT_OK;
}

static int verb_reload(const Args *a) {
        int r = call(a, "io.numastatd.Reload", NULL, NULL);
        if (r < 0)
                return -r;
        if (!a->json)
                printf("Configuration reloaded.\n");
        return EXIT_OK;
}

static int verb_readers(const Args *a) {
        return verb_list(a, "readers", "No readers seen.", print_reader);
}

static int verb_history(const Args *a) {
        return verb_list(a, "transitions", "No transitions.", print_transition);
}

typedef enum VerbTakes {
        TAKES_ARGS = 1 << 0,            /* checks its own arguments */
        TAKES_HOLD_OPTIONS = 1 << 1,    /* --reason, --timeout, -- COMMAND */
        TAKES_DRY_RUN = 1 << 2,         /* --dry-run, --no-dry-run */
} VerbTakes;

typedef struct Verb {
        const char *name;
        VerbTakes takes;
        int (*run)(const Args *a);
} Verb;

static const Verb verbs[] = {
        { "status", 0, verb_status },
        { "monitor", 0, verb_monitor },
        { "readers", 0, verb_readers },
        { "history", 0, verb_history },
        { "counters", 0, verb_counters },
        { "metrics", 0, verb_metrics },
        { "known-readers", 0, verb_known_readers },
        { "reload", 0, verb_reload },
        { "set-policy", TAKES_ARGS | TAKES_DRY_RUN, verb_set_policy },
        { "hold", TAKES_ARGS | TAKES_HOLD_OPTIONS, verb_hold },
};

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
                if (strcmp(verbs[i].name, name) == 0)
                        return &verbs[i];
        return NULL;
}

/* Our options into *a. Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char *argv[], Args *a) {
        enum { ARG_DRY_RUN = 0x100, ARG_NO_DRY_RUN, ARG_REASON, ARG_TIMEOUT, ARG_EXPLAIN };
        static const struct option options[] = {
                { "socket", required_argument, NULL, 's' },
                { "json", optional_argument, NULL, 'j' },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "no-dry-run", no_argument, NULL, ARG_NO_DRY_RUN },
                { "reason", required_argument, NULL, ARG_REASON },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "explain", required_argument, NULL, ARG_EXPLAIN },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int c;

        /* Our own words for a bad option, not getopt's (which names the
         * program by the path it was run as). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":s:j::hV", options, NULL)) >= 0) {
                switch (c) {
                case 's':
                        a->socket = optarg;
                        break;
                case 'j':
                        if (!optarg || strcmp(optarg, "pretty") == 0)
                                a->json = JSON_PRETTY;
                        else if (strcmp(optarg, "short") == 0)
                                a->json = JSON_SHORT;
                        else {
                                fprintf(stderr, "numastatctl: --json takes pretty or short, not '%s'.\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_DRY_RUN:
                        a->dry_run = 1;
                        break;
                case ARG_NO_DRY_RUN:
                        a->dry_run = 0;
                        break;
                case ARG_REASON:
                        if (strlen(optarg) >= HOLD_REASON_MAX) {
                                fprintf(stderr, "numastatctl: --reason is at most %d bytes (got %zu).\n",
                                        HOLD_REASON_MAX - 1, strlen(optarg));
                                return EXIT_USAGE;
                        }
                        a->reason = optarg;
                        break;
                case ARG_TIMEOUT:
                        if (parse_duration(optarg, &a->timeout) < 0 || a->timeout == 0 || a->timeout == USEC_INFINITY) {
                                fprintf(stderr, "numastatctl: --timeout takes a duration (\"90s\", \"2h\"), not '%s'.\n",
                                        optarg);
                                return EXIT_USAGE;
                        }
                        if (a->timeout > HOLD_TIMEOUT_MAX_USEC) {
                                fprintf(stderr, "numastatctl: --timeout is at most 7d (got %s).\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_EXPLAIN:
                        if (!*optarg) {
                                fprintf(stderr, "numastatctl: --explain takes a pid or a name.\n");
                                return EXIT_USAGE;
                        }
                        a->explain = optarg;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                case 'V':
                        printf("numastatctl %s\nvarlink client: %s\n", PACKAGE_VERSION, VARLINK_CLIENT_IMPL);
                        return EXIT_OK;
                case ':':
                        fprintf(stderr, "numastatctl: option '%s' needs a value. See --help.\n", argv[optind - 1]);
                        return EXIT_USAGE;
                default:
                        if (optopt)
                                fprintf(stderr, "numastatctl: unknown option '-%c'. See --help.\n", optopt);
                        else
                                fprintf(stderr, "numastatctl: unknown option '%s'. See --help.\n", argv[optind - 1]);
                        return EXIT_USAGE;
                }
        }
        return -1;
}

/* Whether the options given go with the verb. */
static bool options_fit(const Args *a, const Verb *verb) {
        if ((a->command || a->reason || a->timeout) && !(verb->takes & TAKES_HOLD_OPTIONS)) {
                fprintf(stderr, "numastatctl: --reason, --timeout and -- COMMAND go with hold.\n");
                return false;
        }
        if (a->dry_run >= 0 && !(verb->takes & TAKES_DRY_RUN)) {
                fprintf(stderr, "numastatctl: --dry-run and --no-dry-run go with set-policy.\n");
                return false;
        }
        if (a->explain && verb->run != verb_known_readers) {
                fprintf(stderr, "numastatctl: --explain goes with known-readers.\n");
                return false;
        }
        if (a->argc > 0 && !(verb->takes & TAKES_ARGS)) {
                fprintf(stderr, "numastatctl: %s takes no arguments.\n", verb->name);
                return false;
        }
        return true;
}

int main(int argc, char *argv[]) {
        Args a = { .socket = DEFAULT_SOCKET_PATH, .dry_run = -1 };
        const Verb *verb;
        int r;

        /* hold ... -- COMMAND [ARGS...]: what follows "--" is the command's,
         * options included; the rest is parsed as ours. */
        for (int i = 1; i < argc; i++)
                if (strcmp(argv[i], "--") == 0) {
                        a.command = argv + i + 1;
                        argv[i] = NULL;
                        argc = i;
                        break;
                }
        r = parse_options(argc, argv, &a);
        if (r >= 0)
                return r;

        verb = verb_find(optind < argc ? argv[optind] : "status");
        if (!verb) {
                fprintf(stderr, "numastatctl: unknown command '%s'. See --help.\n", argv[optind]);
                return EXIT_USAGE;
        }
        optind += optind < argc;
        a.argv = argv + optind;
        a.argc = argc - optind;
        if (!options_fit(&a, verb))
                return EXIT_USAGE;
        return verb->run(&a);
}
