/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "known-load.h"
#include "known-parse.h"
#include "known-probe.h"
#include "known.h"
#include "macro.h"
#include "readers.h"
#include "rootfs.h"
#include "strutil.h"
#include "tap.h"
#include "verdict.h"

/* How long a file's verdict stands in the checks that outlive it: long
 * enough that a loaded machine judges within it (1 ms was not, beside a
 * package build), and slept past. */
#define SHORT_VERDICT_USEC (200 * 1000)

static void test_conditions(void) {
        char *argv[] = { "exporter", "--collector.vmstat.fields=^pg", "--collector.vmstat.fieldsx=1",
                         "--collector.vmstat.fields", "^numa_miss$", "-c" };
        const char *name = NULL;
        _cleanup_free_ char *v = NULL;

        is_str(argv_option(argv, 5, "--collector.vmstat.fields"), "^numa_miss$", "argv_option: the last one wins, two words");
        is_str(argv_option(argv, 2, "--collector.vmstat.fields"), "^pg", "  OPTION=VALUE");
        ok(!argv_option(argv, 6, "-c"), "  an option with no value after it has none");
        ok(!argv_option(argv, 1, "--collector.vmstat.fields"), "  absent");

        is_int(numa_regex_matches("^(oom_kill|pgpg|pswp|pg.*fault).*", NULL), 0, "node_exporter's default matches no numa_*");
        is_int(numa_regex_matches("^(numa_|pg).*", &name), 1, "^(numa_|pg).* matches");
        is_str(name, "numa_hit", "  numa_hit first");
        is_int(numa_regex_matches("miss", &name), 1, "an unanchored regex matches inside a name");
        is_str(name, "numa_miss", "  numa_miss");
        is_int(numa_regex_matches("(", NULL), -EINVAL, "a regex that does not compile");
        /* Another user's command line: what glibc's matcher cannot be
         * trusted with is refused before it compiles anything. */
        is_int(numa_regex_matches("((a{1,1000}){1,1000}){1,1000}numa_hit", NULL), -E2BIG,
               "a nested bounded repetition is too complex (it would take GiBs to compile)");
        is_int(numa_regex_matches("^(numa_).*\\1", NULL), -E2BIG, "a back-reference is too complex");
        is_int(numa_regex_matches("numa_+++++++++++++++++++++hit", NULL), -E2BIG,
               "pluses on pluses are too complex (the fuzzer's: 2 GiB and minutes)");
        is_int(numa_regex_matches("((((numa_+)+)+)+)", NULL), -E2BIG, "a + on a group holding one is too complex");
        is_int(numa_regex_matches("numa_*?", NULL), -E2BIG, "a quantifier on a quantifier is too complex");
        is_int(numa_regex_matches("(pgpg|pswp)+|^numa_h[it]+", &name), 1, "pluses side by side are fine");
        is_int(numa_regex_matches("[+{]numa|(a+)*x", NULL), 0, "+ and { inside brackets, * on a group with + : fine");
        {
                char long_re[NUMA_REGEX_MAX + 2];
                memset(long_re, 'x', sizeof long_re - 1);
                long_re[sizeof long_re - 1] = '\0';
                is_int(numa_regex_matches(long_re, NULL), -E2BIG, "a regex over 256 bytes is too complex");
        }
        is_int(numa_regex_matches("numa_pages_migrated", NULL), 0, "numa_pages_migrated is not one of the six");

        const char *nd = "[global]\n\t# memory mode = dbengine\n[plugin:proc:/proc/vmstat]\n"
                         "\t# filename to monitor = /proc/vmstat\n\tsystem-wide numa metric summary = auto\n"
                         "\tswap i/o = auto\n\tsystem-wide numa metric summary = no\n[other]\n"
                         "\tsystem-wide numa metric summary = yes\n";
        is_int(netdata_conf_get(nd, "plugin:proc:/proc/vmstat", "system-wide numa metric summary", &v), 1,
               "netdata.conf: a tab-indented key is found");
        is_str(v, "no", "  the last one wins, other sections do not count");
        is_int(netdata_conf_get(nd, "plugin:proc:/proc/vmstat", "enable per-node numa metrics", &v), 0, "  unset");
        is_int(netdata_conf_get("[a]\nno equals sign\n", "a", "b", &v), -EINVAL, "  a line that is neither is an error");
}

/* A configuration judged by a line it must not have (Telegraf's). */
static void test_forbids(void) {
        KnownFile f = { .why = "no kernel_vmstat", .config = "/etc/t.conf", .config_arg = "--config -config",
                        .config_arg_required = true, .config_dir = "/etc/t.d",
                        .config_dir_arg = "--config-directory -config-directory", .config_forbids = "^[^#]*kernel_vmstat" };
        char *unit[] = { "telegraf", "-config", "/etc/t.conf", "-config-directory", "/etc/t.d" };
        char *two[] = { "telegraf", "-config", "/etc/t.conf", "--config=/etc/u.conf" };
        char *none[] = { "telegraf", "--config-directory", "/etc/t.d" };
        KnownFacts facts = { .argv = unit, .argc = 5, .config_text = "[[inputs.swap]]\n# [[inputs.kernel_vmstat]]\n",
                             .config_dir_text = "" };
        const char *v = NULL;
        char why[256];

        is_int((int) argv_options(unit, 5, "--config -config", &v), 1, "argv_options: -config once");
        is_str(v, "/etc/t.conf", "  its value");
        is_int((int) argv_options(two, 4, "--config -config", &v), 2, "  both spellings: twice");
        is_str(v, "/etc/u.conf", "  the last one's value");
        is_int((int) argv_options(none, 3, "--config -config", &v), 0, "  --config-directory is not --config");
        is_str(known_file_config_dir(&f, unit, 5), "/etc/t.d", "the directory from the command line");

        ok(!known_file_counts(&f, &facts, why, sizeof why), "a commented-out kernel_vmstat: no counting");
        facts.config_dir_text = "\n[[inputs.kernel_vmstat]]\n";
        ok(known_file_counts(&f, &facts, why, sizeof why), "one in the directory: counts");
        is_str(why, "counts: a line of its configuration matches the entry's config_forbids=", "  says why");
        facts.config_dir_text = NULL;
        ok(known_file_counts(&f, &facts, why, sizeof why), "a directory that cannot be read: counts");
        facts.config_dir_text = "";
        facts.config_text = "[[inputs.swap]]\n  [[ inputs.kernel_vmstat ]]\n";
        ok(known_file_counts(&f, &facts, why, sizeof why), "one in the file, spaced out: counts");
        facts.config_text = "[[inputs.swap]]\n";
        facts.argv = two;
        facts.argc = 4;
        ok(known_file_counts(&f, &facts, why, sizeof why), "two configs on the command line: counts");
        facts.argv = none;
        facts.argc = 3;
        ok(known_file_counts(&f, &facts, why, sizeof why), "none, with config_arg_required: counts");
        is_str(why, "counts: its command line does not name one config (--config -config)", "  says why");
        facts.argv = NULL;
        ok(known_file_counts(&f, &facts, why, sizeof why), "a command line that cannot be read: counts");

        parse_fails("config_forbids that does not compile",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x\nconfig_forbids = (\n",
                    "does not compile (POSIX ERE)");
        parse_fails("config_forbids with config_key",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x\nconfig_forbids = a\n"
                    "config_section = s\nconfig_key = k\nconfig_value = v\n", "not both");
        parse_fails("config_dir without config_forbids",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_dir = /etc/x.d\n", "need config_forbids=");
}

/* A configuration named by the one word after a subcommand (Alloy's
 * "alloy run [options] FILE"). */
static void test_positional(void) {
        KnownFile f = { .why = "default collectors", .config = "/etc/alloy/config.alloy", .config_positional = "run",
                        .config_forbids = "meminfo_numa|zoneinfo" };
        char *unit[] = { "alloy", "run", "--storage.path=/var/lib/alloy/data", "/etc/alloy/config.alloy" };
        char *moved[] = { "alloy", "run", "/srv/a.alloy", "--disable-reporting=true" };
        char *two_words[] = { "alloy", "run", "--storage.path", "/var/lib/alloy/data", "/etc/alloy/config.alloy" };
        char *two[] = { "alloy", "run", "/etc/a.alloy", "/etc/b.alloy" };
        char *none[] = { "alloy", "run", "--stability.level=generally-available" };
        char *other[] = { "alloy", "fmt", "/etc/alloy/config.alloy" };
        char *dashes[] = { "alloy", "run", "--", "-odd.alloy" };
        KnownFacts facts = { .argv = unit, .argc = 4, .config_text = "prometheus.exporter.unix \"default\" { }\n" };
        const char *v = NULL;
        char why[256];

        is_int(argv_positional(unit, 4, "run", &v), 1, "argv_positional: the unit's command line, one");
        is_str(v, "/etc/alloy/config.alloy", "  the config");
        is_int(argv_positional(moved, 4, "run", &v), 1, "  before an option: one");
        is_str(v, "/srv/a.alloy", "  that one");
        is_str(known_file_config_path(&f, moved, 4), "/srv/a.alloy", "  the config read is that one");
        is_int(argv_positional(two_words, 5, "run", &v), -EINVAL, "  an option as two words: cannot be told");
        is_int(argv_positional(two, 4, "run", &v), 2, "  two files: two");
        is_int(argv_positional(none, 3, "run", &v), 0, "  none");
        is_int(argv_positional(other, 3, "run", &v), -ENOENT, "  another subcommand");
        is_int(argv_positional(dashes, 4, "run", &v), 1, "  after --, a word with a dash is the file");
        is_str(v, "-odd.alloy", "  that one");

        ok(!known_file_counts(&f, &facts, why, sizeof why), "the unit's command line and a default config: no counting");
        is_str(why, "default collectors", "  why: the section's");
        facts.config_text = "prometheus.exporter.unix \"default\" {\n  enable_collectors = [\"meminfo_numa\"]\n}\n";
        ok(known_file_counts(&f, &facts, why, sizeof why), "a forbidden line: counts");
        facts.config_text = "\n";
        for (size_t i = 0; i < 4; i++) {
                char **argv[] = { two_words, two, none, other };
                size_t argc[] = { 5, 4, 3, 3 };

                facts.argv = argv[i];
                facts.argc = argc[i];
                ok(known_file_counts(&f, &facts, why, sizeof why), "%s %s ...: counts", argv[i][1], argv[i][2]);
        }
        is_str(why, "counts: its command line does not name one config after 'run' (options as --name=value)",
               "  says why");
        facts.argv = NULL;
        ok(known_file_counts(&f, &facts, why, sizeof why), "a command line that cannot be read: counts");

        parse_fails("config_positional without config_forbids",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig_positional = run\n",
                    "need config_forbids=");
        parse_fails("config_positional with config_arg",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nconfig = /etc/x\nconfig_forbids = a\n"
                    "config_arg = -c\nconfig_positional = run\n",
                    "config_positional= or config_arg=, not both");
}

static void test_file_counts(void) {
        KnownFile arg = { .why = "no numa", .arg = "--fields", .arg_default = "^pg" };
        KnownFile cfg = { .why = "off", .config = "/etc/x.conf", .config_section = "s", .config_key = "numa",
                          .config_value = "no" };
        char *plain[] = { "x" }, *numa[] = { "x", "--fields=numa_other" }, *bad[] = { "x", "--fields=(SECRET" };
        char why[KNOWN_WHY_MAX];

        ok(!known_file_counts(&arg, &(KnownFacts) { .argv = plain, .argc = 1 }, why, sizeof why), "the default: no counting");
        is_str(why, "no numa", "  why: the section's");
        ok(known_file_counts(&arg, &(KnownFacts) { .argv = numa, .argc = 2 }, why, sizeof why), "a numa_* regex counts");
        is_str(why, "counts: --fields matches numa_other", "  and says so");
        ok(known_file_counts(&arg, &(KnownFacts) { .argv = bad, .argc = 2 }, why, sizeof why), "a regex that does not compile counts");
        is_str(why, "counts: --fields is not a regular expression we can check", "  saying so, not what it is");
        {
                char *huge[] = { "x", "--fields=((a{1,1000}){1,1000}){1,1000}" };
                ok(known_file_counts(&arg, &(KnownFacts) { .argv = huge, .argc = 2 }, why, sizeof why),
                   "a regex too complex to check counts, at once");
                is_str(why, "counts: --fields is too complex to check (over 256 bytes, {n,m}, nested + or a back-reference)",
                       "  and says why");
        }
        ok(known_file_counts(&arg, &(KnownFacts) {}, why, sizeof why), "an unreadable command line counts");
        is_str(why, "counts: its command line cannot be read to check --fields", "  and says so");

        ok(known_file_counts(&cfg, &(KnownFacts) { .config_text = "[s]\nnuma = no\n" }, why, sizeof why) == false,
           "config: the value that turns numa off: no counting");
        ok(known_file_counts(&cfg, &(KnownFacts) { .config_text = "[s]\nnuma = SECRET-auto\n" }, why, sizeof why),
           "  another value counts");
        is_str(why, "counts: /etc/x.conf does not set [s] numa = no", "  and says so, never what the file holds");
        ok(known_file_counts(&cfg, &(KnownFacts) { .config_text = "[s]\n" }, why, sizeof why), "  unset counts");
        ok(known_file_counts(&cfg, &(KnownFacts) { .config_text = "junk\n" }, why, sizeof why), "  unparsable counts");
        ok(known_file_counts(&cfg, &(KnownFacts) { .config_error = -EACCES }, why, sizeof why), "  unreadable counts");
        is_str(why, "counts: /etc/x.conf cannot be read", "  and says so, not why (whether it exists is not told)");
        ok(known_file_counts(&cfg, &(KnownFacts) { .config_error = -ENOENT }, why, sizeof why), "  missing counts");
        is_str(why, "counts: /etc/x.conf cannot be read", "  told as unreadable");

        /* A file the command line names: the option, never the value. */
        {
                KnownFile named = cfg;
                char *argv[] = { "x", "-c", "/root/SECRET.conf" };

                named.config_arg = "-c";
                ok(known_file_counts(&named,
                                     &(KnownFacts) { .argv = argv, .argc = 3, .config_path = "/root/SECRET.conf",
                                                     .config_error = -EACCES },
                                     why, sizeof why),
                   "a config its command line names, unreadable: counts");
                is_str(why, "counts: the file its command line names (-c) cannot be read", "  naming the option, not the value");
                ok(known_file_counts(&named,
                                     &(KnownFacts) { .argv = argv, .argc = 3, .config_path = "/root/SECRET.conf",
                                                     .config_text = "[s]\nnuma = on\n" },
                                     why, sizeof why),
                   "  one that does not set the key: counts");
                is_str(why, "counts: the file its command line names (-c) does not set [s] numa = no", "  likewise");
        }
}

static void test_re2_subset(void) {
        KnownFile re2 = { .why = "no numa", .arg = "--fields", .arg_default = "^pg", .arg_syntax = "re2" };
        const char *alike[] = { "^(oom_kill|pgpg|pswp|pg.*fault).*", "^(numa_|pg).*", "[a-z_]+", "[^0-9]*hit$", "()", "a|" };
        const char *apart[] = { "^\\x6euma_.*", "(?i)NUMA_HIT", "[[:alpha:]]+", "nu{1}ma", "[]a]", "*numa", "(+a)",
                                "a**", "numa\\_hit", "n\xc3\xbama" };
        char why[KNOWN_WHY_MAX];

        for (size_t i = 0; i < ELEMENTSOF(alike); i++)
                ok(regex_in_common_subset(alike[i]), "RE2 and POSIX read '%s' alike", alike[i]);
        for (size_t i = 0; i < ELEMENTSOF(apart); i++)
                ok(!regex_in_common_subset(apart[i]), "'%s' is outside what both read alike", apart[i]);
        {
                char *hex[] = { "x", "--fields=^\\x6euma_.*" }, *plain[] = { "x", "--fields=^(pgpg|pswp).*" };

                ok(known_file_counts(&re2, &(KnownFacts) { .argv = hex, .argc = 2 }, why, sizeof why),
                   "an RE2 flag that matches numa_hit in Go but not in glibc: counts");
                is_str(why, "counts: --fields uses what Go's RE2 and POSIX may read differently (a backslash, {, a class or a flag)",
                       "  and says why");
                ok(!known_file_counts(&re2, &(KnownFacts) { .argv = plain, .argc = 2 }, why, sizeof why),
                   "  one both read alike, matching no numa_*: no counting");
        }
}

static void test_overrides(void) {
        KnownFile cfg = { .why = "off", .config = "/etc/x.conf", .config_section = "s", .config_key = "numa",
                          .config_value = "no", .override_args = "-W --set" };
        char *w[] = { "netdata", "-D", "-W", "set", "s", "numa", "auto" }, *wj[] = { "netdata", "-Wset" },
             *l[] = { "x", "--set=a" }, *none[] = { "netdata", "-D", "-c", "/etc/x.conf", "--settle" };
        char why[KNOWN_WHY_MAX];
        KnownFacts off = { .config_text = "[s]\nnuma = no\n" };

        off.argv = w;
        off.argc = ELEMENTSOF(w);
        ok(known_file_counts(&cfg, &off, why, sizeof why), "-W set on the command line overrides the config: counts");
        is_str(why, "counts: -W on its command line overrides what is checked", "  and says so");
        off.argv = wj;
        off.argc = ELEMENTSOF(wj);
        ok(known_file_counts(&cfg, &off, why, sizeof why), "  -Wset too");
        off.argv = l;
        off.argc = ELEMENTSOF(l);
        ok(known_file_counts(&cfg, &off, why, sizeof why), "  --set=a too");
        off.argv = none;
        off.argc = ELEMENTSOF(none);
        ok(!known_file_counts(&cfg, &off, why, sizeof why), "  none of them (--settle is not --set): the config decides");
        off.argv = NULL;
        ok(known_file_counts(&cfg, &off, why, sizeof why), "  a command line that cannot be read counts");
}

/* A strv of the words given, NULL-terminated. */
static char **words(const char *first, ...) {
        char **l = NULL;
        va_list ap;

        va_start(ap, first);
        for (const char *w = first; w; w = va_arg(ap, const char *))
                if (strv_extend(&l, w) < 0)
                        abort();
        va_end(ap);
        return l;
}

static int read_fake(const char *path, char **ret, void *userdata) {
        if (streq(path, "/args"))
                *ret = strdup("# a comment\n--collector.vmstat.fields=^(numa_|pg).*\n@/more\n");
        else if (streq(path, "/more"))
                *ret = strdup("--web.listen-address=:9100\n");
        else if (streq(path, "/loop"))
                *ret = strdup("@/loop\n");
        else
                return -ENOENT;
        return *ret ? 0 : -ENOMEM;
}

static void test_arg_files(void) {
        KnownFile arg = { .why = "no numa", .arg = "--collector.vmstat.fields", .arg_default = "^pg", .arg_syntax = "re2",
                          .arg_files = true };
        char **argv = words("node_exporter", "@/args", "--x", NULL), why[KNOWN_WHY_MAX];
        const char *unread = NULL;
        size_t n = 3;

        ok(known_expand_arg_files(&argv, &n, read_fake, NULL, &unread) == 0, "@FILE arguments expand");
        is_int((int) n, 4, "  its lines in its place, comments skipped, nested files too");
        ok(n == 4 && streq(argv[1], "--collector.vmstat.fields=^(numa_|pg).*") && streq(argv[2], "--web.listen-address=:9100") &&
                   streq(argv[3], "--x"),
           "  in order");
        ok(known_file_counts(&arg, &(KnownFacts) { .argv = argv, .argc = n }, why, sizeof why),
           "  a numa_* regex from an argument file counts");
        strv_free(argv);

        argv = words("node_exporter", "@/missing", NULL);
        n = 2;
        is_int(known_expand_arg_files(&argv, &n, read_fake, NULL, &unread), -ENOENT, "an argument file that cannot be read");
        is_str(unread, "/missing", "  is named");
        ok(known_file_counts(&arg, &(KnownFacts) { .arg_file_unread = "/missing" }, why, sizeof why), "  and counts");
        is_str(why, "counts: an argument file (@FILE) on its command line cannot be read",
               "  saying so, not which (its name may come from a file it named)");
        strv_free(argv);

        argv = words("node_exporter", "@relative", NULL);
        n = 2;
        is_int(known_expand_arg_files(&argv, &n, read_fake, NULL, &unread), -ENOENT, "a relative one (to a cwd we do not follow): unread");
        strv_free(argv);
        argv = words("node_exporter", "@/loop", NULL);
        n = 2;
        is_int(known_expand_arg_files(&argv, &n, read_fake, NULL, &unread), -ENOENT, "one that names itself: unread, at a bounded depth");
        strv_free(argv);
}

static void write_file(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *p = NULL;
        FILE *f;

        if (asprintf(&p, "%s/%s", dir, name) < 0)
                abort();
        f = fopen(p, "we");
        if (!f)
                abort();
        fputs(text, f);
        fclose(f);
}

static char *data_file(const char *name) {
        _cleanup_free_ char *path = NULL;
        const char *dir = getenv("TEST_DATA_DIR");
        char *text = NULL;
        size_t n = 0;
        FILE *f;

        if (!dir || asprintf(&path, "%s/agents/%s", dir, name) < 0 || !(f = fopen(path, "re")))
                return NULL;
        if (getdelim(&text, &n, '\0', f) < 0)
                text = mfree(text);
        fclose(f);
        return text;
}

/* text on one line, for a test's name: its newlines as " / ". */
static const char *one_line(const char *text) {
        static char buf[256];
        size_t n = 0;

        for (const char *p = text; *p && n + 4 < sizeof buf; p++)
                if (*p == '\n') {
                        memcpy(buf + n, " / ", 3);
                        n += 3;
                } else
                        buf[n++] = *p;
        buf[n] = '\0';
        return buf;
}

/* The section of the shipped entry name for path; NULL if none. */
static const KnownFile *shipped_file(const Catalogue *c, const char *name, const char *path) {
        for (size_t j = 0; j < c->n; j++)
                if (streq(c->readers[j].name, name))
                        return known_reader_file(&c->readers[j], path);
        return NULL;
}

/* Each line, appended to base, as the text of the configuration file
 * (or, in_dir, of its directory's files) in facts: counts or not, as
 * expected; where says where it was put. */
static void lines_judged(const KnownFile *f, KnownFacts facts, bool in_dir, const char *base,
                         const char *const *lines, size_t n, bool counts, const char *where) {
        char why[KNOWN_WHY_MAX];

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *text = NULL;

                if (asprintf(&text, "%s%s\n", base, lines[i]) < 0)
                        abort();
                *(in_dir ? &facts.config_dir_text : &facts.config_text) = text;
                ok(known_file_counts(f, &facts, why, sizeof why) == counts, "  '%s' in %s: %s", one_line(lines[i]),
                   where, counts ? "counts" : "no counting");
        }
}

/* The agents' shipped configurations (tests/data/agents/), on their units'
 * command lines, as the shipped entries judge them: no counting; and a
 * line that turns NUMA use on, appended: counts. */
static void test_shipped_configs(const Catalogue *c) {
        static const struct {
                const char *entry, *config, *numa_line;
                char *argv[6];
                size_t argc;
        } cases[] = {
                { "grafana-alloy", "alloy-config.alloy", "prometheus.exporter.unix \"n\" { set_collectors = [\"zoneinfo\"] }",
                  { "/usr/bin/alloy", "run", "--storage.path=/var/lib/alloy/data", "/etc/alloy/config.alloy" }, 4 },
                { "grafana-alloy", "alloy-config.alloy", "  vmstat {\n    fields = \"^numa_.*\"\n  }",
                  { "/usr/bin/alloy", "run", "--storage.path=/var/lib/alloy/data", "/etc/alloy/config.alloy" }, 4 },
                { "grafana-alloy", "alloy-config.alloy", "import.git \"m\" {",
                  { "/usr/bin/alloy", "run", "--storage.path=/var/lib/alloy/data", "/etc/alloy/config.alloy" }, 4 },
                { "grafana-agent", "grafana-agent.yaml", "    vmstat_fields: \".*\"",
                  { "/usr/bin/grafana-agent", "--config.file", "/etc/grafana-agent.yaml",
                    "-server.http.address=127.0.0.1:9090" }, 4 },
                { "grafana-agent", "grafana-agent.yaml", "logs:\n  configs:\n  - name: x\n    scrape_configs:\n"
                  "    - static_configs:\n      - labels:\n          __path__: /proc/vmstat",
                  { "/usr/bin/grafana-agent", "--config.file", "/etc/grafana-agent.yaml" }, 3 },
                { "opentelemetry-collector", "otelcol-hostmetrics.yaml", "  filelog:\n    include: [/proc/vmstat]",
                  { "/usr/bin/otelcol-contrib", "--config=/etc/otelcol-contrib/config.yaml" }, 2 },
                { "opentelemetry-collector", "otelcol-hostmetrics.yaml", "receivers: ${file:/etc/more.yaml}",
                  { "/usr/bin/otelcol-contrib", "--config=/etc/otelcol-contrib/config.yaml" }, 2 },
                { "opentelemetry-collector", "otelcol-contrib-config.yaml", "  file_log/vm:\n    include: [/proc/vmstat]",
                  { "/usr/bin/otelcol-contrib", "--config=/etc/otelcol-contrib/config.yaml" }, 2 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = data_file(cases[i].config), *more = NULL;
                const KnownFile *f = shipped_file(c, cases[i].entry, "/proc/vmstat");
                char why[KNOWN_WHY_MAX];

                if (!text || !f || asprintf(&more, "%s%s\n", text, cases[i].numa_line) < 0) {
                        ok(false, "%s: its entry and tests/data/agents/%s", cases[i].entry, cases[i].config);
                        continue;
                }
                ok(!known_file_counts(f, &(KnownFacts) { .argv = (char **) cases[i].argv, .argc = cases[i].argc,
                                                           .config_text = text },
                                      why, sizeof why),
                   "%s: its shipped %s on its unit's command line: no counting (%s)", cases[i].entry,
                   cases[i].config, why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = (char **) cases[i].argv, .argc = cases[i].argc,
                                                          .config_text = more },
                                     why, sizeof why),
                   "  with %.*s: counts", (int) strcspn(cases[i].numa_line, "\n"), cases[i].numa_line);
        }
}

/* Telegraf's entry as shipped: a line that makes Telegraf read numa_*
 * counts wherever Telegraf would load it from (the file -config names, a
 * file below -config-directory), as written or once its variables are
 * replaced from its environment; a benign one does not. */
static void test_telegraf(const Catalogue *c) {
        static const char *defaults = "[agent]\n  interval = \"10s\"\n[[outputs.file]]\n  files = [\"stdout\"]\n"
                                      "[[inputs.cpu]]\n[[inputs.swap]]\n# [[inputs.kernel_vmstat]]\n";
        static const char *environ_text = "STATS=/proc/vmstat\nINFLUX_TOKEN=s3cr3t\nPLUGIN=kernel_vmstat\n";
        static const char *counting[] = {
                "[[inputs.kernel_vmstat]]",
                "  [[ inputs.kernel_vmstat ]]",
                "[[inputs.file]]\n  files = [\"/proc/vmstat\"]",
                "[[inputs.tail]]\n  files = [\"/host/proc/zoneinfo\"]",
                "[[inputs.file]]\n  files = [\"/proc/vm*\"]",
                "[[inputs.file]]\n  files = [\"/sys/devices/system/node/node*/meminfo\"]",
                "[[inputs.file]]\n  files = [\"/pr?c/zone*\"]",
                "[[inputs.file]]\n  files = [\"/tmp/a#b\", \"/proc/vmstat\"]",
                "[[inputs.file]]\n  files = [\"${STATS}\"]",
                "[[inputs.file]]\n  files = [\"$STATS\"]",
                "[[inputs.file]]\n  files = [\"${UNSET:-/proc/vmstat}\"]",
                "[[inputs.${PLUGIN}]]",
                "[[inputs.tail]]\n  files = [\"/var/log/*.log\"]",
                "[[inputs.file]]\n  files = [\"/var/tmp/stats\"]",
                "[[inputs.tail]]\n  files = [\"../../pr?c/vmst?t\"]",
                "[[ \"inputs\" . 'multifile' ]]\n  base_dir = \"/var/tmp\"",
                "[inputs]\n  tail = [{files = [\"/var/log/x\"]}]",
                "inputs = {file = [{files = [\"/var/tmp/x\"]}]}",
                "inputs.file = [{files = [\"/var/tmp/x\"]}]",
        };
        static const char *benign[] = {
                "[[inputs.filestat]]\n  files = [\"/var/log/syslog\"]",
                "[[inputs.file_descriptor_count]]",
                "[[outputs.file]]\n  files = [\"/var/tmp/metrics.out\"]",
                "[[inputs.cpu]]\n  fieldpass = [\"usage_*\"]",
                "[[outputs.influxdb_v2]]\n  token = \"${INFLUX_TOKEN}\"",
                "# [[inputs.file]]\n#   files = [\"/proc/vmstat\"]",
        };
        char *argv[] = { "telegraf", "-config", "/etc/telegraf/telegraf.conf", "-config-directory",
                         "/etc/telegraf/telegraf.d" };
        const KnownFile *f = shipped_file(c, "telegraf", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f) {
                ok(false, "telegraf: its shipped entry");
                return;
        }
        ok(!known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 5, .config_text = defaults,
                                                   .config_dir_text = "", .environ_text = environ_text },
                              why, sizeof why),
           "telegraf: its default inputs: no counting (%s)", why);
        ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 5, .config_text = defaults,
                                                  .config_dir_text = "" },
                             why, sizeof why),
           "  its environment unreadable: counts (%s)", why);
        for (size_t i = 0; i < ELEMENTSOF(counting) + ELEMENTSOF(benign); i++) {
                bool counts = i < ELEMENTSOF(counting);
                const char *line = counts ? counting[i] : benign[i - ELEMENTSOF(counting)];
                _cleanup_free_ char *in_file = NULL, *in_dir = NULL;

                if (asprintf(&in_file, "%s%s\n", defaults, line) < 0 || asprintf(&in_dir, "\n%s\n", line) < 0)
                        abort();
                ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 5, .config_text = in_file,
                                                          .config_dir_text = "", .environ_text = environ_text },
                                     why, sizeof why) == counts,
                   "  %s in telegraf.conf: %s", line, counts ? "counts" : "no counting");
                ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 5, .config_text = defaults,
                                                          .config_dir_text = in_dir, .environ_text = environ_text },
                                     why, sizeof why) == counts,
                   "  in a file below telegraf.d: %s", counts ? "counts" : "no counting");
        }
}

/* Vector's entry as shipped: with no options its /etc/vector/vector.yaml,
 * with --config-dir that directory and no default file; a line that
 * brings a source reading any file (or could hide one) counts in either,
 * a benign one does not; a file named otherwise, or the configuration
 * named by its environment, counts. */
static void test_vector(const Catalogue *c) {
        static const char *counting[] = {
                "    type: file\n    include: [\"/var/log/*.log\"]",
                "    type: \"file\"",
                "[sources.x]\ntype = \"file\"",
                "{\"sources\": {\"x\": {\"type\": \"file_descriptor\", \"fd\": 3}}}",
                "    type: stdin",
                "    type: lua",
                "    type:\n      file",
                "file: {}",
                "    type: \"fi\\x6ce\"",
                "    type: \"fi\\u006ce\"",
                "    type: \"fi\\\n      le\"",
                "    type: !!binary ZmlsZQ==",
                "    type: ${SOURCE_TYPE}",
                "    type: $SOURCE_TYPE",
                "    type: SECRET[backend.type]",
                "    include: [/proc/vmstat]",
        };
        static const char *benign[] = {
                "#   type: file",
                "    type: host_metrics",
                "    filesystem:\n      mountpoints:\n        excludes: [\"*/proc/sys/fs/binfmt_misc\"]",
                "    type: kubernetes_logs",
                "    source: '. = parse_json!(.message)'",
        };
        static const char *environ_text = "PROCFS_ROOT=/host/proc\nVECTOR_LOG=info\n";
        _cleanup_free_ char *shipped = data_file("vector.yaml"), *agent = data_file("vector-agent.yaml");
        char *bare[] = { "/usr/bin/vector" };
        char *dir[] = { "/usr/bin/vector", "--config-dir", "/etc/vector/" };
        const KnownFile *f = shipped_file(c, "vector", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f || !shipped || !agent) {
                ok(false, "vector: its shipped entry and tests/data/agents/vector*.yaml");
                return;
        }
        ok(!known_file_counts(f, &(KnownFacts) { .argv = bare, .argc = 1, .config_text = shipped,
                                                   .environ_text = environ_text },
                              why, sizeof why),
           "vector: no options, its shipped example as /etc/vector/vector.yaml: no counting (%s)", why);
        ok(known_file_counts(f, &(KnownFacts) { .argv = bare, .argc = 1, .environ_text = environ_text }, why,
                             sizeof why),
           "  /etc/vector/vector.yaml unreadable: counts (%s)", why);
        ok(!known_file_counts(f, &(KnownFacts) { .argv = dir, .argc = 3, .config_dir_text = agent,
                                                   .environ_text = environ_text },
                              why, sizeof why),
           "  --config-dir /etc/vector/ holding the Helm chart's agent.yaml, no vector.yaml: no counting (%s)", why);
        ok(!known_file_config_path(f, dir, 3), "  given a directory, it reads no default file");
        ok(!known_file_config_dir(f, bare, 1), "  given none, no directory");
        {
                KnownFacts file = { .argv = bare, .argc = 1, .environ_text = environ_text },
                           below = { .argv = dir, .argc = 3, .environ_text = environ_text };

                lines_judged(f, file, false, shipped, counting, ELEMENTSOF(counting), true, "vector.yaml");
                lines_judged(f, file, false, shipped, benign, ELEMENTSOF(benign), false, "vector.yaml");
                lines_judged(f, below, true, agent, counting, ELEMENTSOF(counting), true, "a file below --config-dir");
                lines_judged(f, below, true, agent, benign, ELEMENTSOF(benign), false, "a file below --config-dir");
        }
        {
                char *named[] = { "/usr/bin/vector", "-c", "/etc/vector/vector.yaml" };
                char *two[] = { "/usr/bin/vector", "-C", "/etc/vector", "--config-dir=/srv/vector" };

                ok(known_file_counts(f, &(KnownFacts) { .argv = named, .argc = 3, .config_text = shipped,
                                                          .environ_text = environ_text },
                                     why, sizeof why),
                   "  a file named with -c (a glob, a list): counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = two, .argc = 4, .config_dir_text = agent,
                                                          .environ_text = environ_text },
                                     why, sizeof why),
                   "  two directories: counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = bare, .argc = 1, .config_text = shipped,
                                                          .environ_text = "VECTOR_CONFIG_DIR=/srv/vector\n" },
                                     why, sizeof why),
                   "  VECTOR_CONFIG_DIR in its environment: counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = bare, .argc = 1, .config_text = shipped }, why,
                                     sizeof why),
                   "  its environment unreadable: counts (%s)", why);
        }
}

/* Metricbeat's entry as shipped: its metricbeat.yml and modules.d/system.yml
 * on its unit's command line: no counting; the linux module, a variable, an
 * escape, a tag or another modules path counts in either, and so does a
 * command line that does not name both its -c file and its --path.config
 * once. The one line that globs modules.d is allowed, nowhere else. */
static void test_metricbeat(const Catalogue *c) {
        static const char *counting[] = {
                "- module: linux\n  metricsets: [\"memory\"]",
                "- {module: linux, metricsets: [memory]}",
                "- module: \"lin\\x75x\"",
                "- module: !!binary bGludXg=",
                "- module: ${MODULE}",
                "- module: ${MODULE:system}",
                "metricbeat.config.modules.path: /srv/modules/*.yml",
                "  path: /srv/modules/*.yml",
                "  path: ${path.config}/modules.d/*.yml # and /srv",
                "path.config: /srv/metricbeat",
                "metricbeat.autodiscover:\n  providers:\n    - type: docker\n      hints.enabled: true",
                "management.enabled: true",
        };
        static const char *benign[] = {
                "#- module: linux",
                "- module: nginx\n  metricsets: [\"stubstatus\"]\n  hosts: [\"http://127.0.0.1\"]",
                "      system.filesystem.mount_point: '^/(sys|proc)($|/)'",
                "  password: \"pa$$word\"",
                "  path: ${path.config}/modules.d/*.yml",
        };
        static const char *environ_text = "GODEBUG='madvdontneed=1'\nBEAT_CONFIG_OPTS=-c /etc/metricbeat/metricbeat.yml\n";
        _cleanup_free_ char *shipped = data_file("metricbeat.yml"), *system = data_file("metricbeat-system.yml");
        char *unit[] = { "/usr/share/metricbeat/bin/metricbeat", "--environment", "systemd", "-c",
                         "/etc/metricbeat/metricbeat.yml", "--path.home", "/usr/share/metricbeat", "--path.config",
                         "/etc/metricbeat", "--path.data", "/var/lib/metricbeat", "--path.logs",
                         "/var/log/metricbeat" };
        const KnownFile *f = shipped_file(c, "metricbeat", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f || !shipped || !system) {
                ok(false, "metricbeat: its shipped entry and tests/data/agents/metricbeat*.yml");
                return;
        }
        KnownFacts facts = { .argv = unit, .argc = ELEMENTSOF(unit), .config_text = shipped,
                             .config_dir_text = system, .environ_text = environ_text };
        ok(!known_file_counts(f, &facts, why, sizeof why),
           "metricbeat: its unit's command line, metricbeat.yml and modules.d/system.yml as shipped: no counting (%s)",
           why);
        is_str(known_file_config_dir(f, unit, ELEMENTSOF(unit)), "/etc/metricbeat", "  its modules below --path.config");
        lines_judged(f, facts, false, shipped, counting, ELEMENTSOF(counting), true, "metricbeat.yml");
        lines_judged(f, facts, false, shipped, benign, ELEMENTSOF(benign), false, "metricbeat.yml");
        lines_judged(f, facts, true, system, counting, ELEMENTSOF(counting), true, "a file of modules.d");
        lines_judged(f, facts, true, system, benign, ELEMENTSOF(benign), false, "a file of modules.d");
        {
                static const struct {
                        const char *what;
                        char *argv[8];
                        size_t argc;
                } lines[] = {
                        { "no --path.config (path.home's, which --path.home or its binary sets)",
                          { "metricbeat", "-c", "/etc/metricbeat/metricbeat.yml", "--path.home", "/srv/mb" }, 5 },
                        { "--path.config twice",
                          { "metricbeat", "-c", "/etc/metricbeat/metricbeat.yml", "--path.config", "/etc/metricbeat",
                            "-path.config=/srv/mb" }, 6 },
                        { "no -c (path.config's metricbeat.yml)", { "metricbeat", "--path.config", "/etc/metricbeat" }, 3 },
                        { "two -c files, merged",
                          { "metricbeat", "-c", "/etc/metricbeat/metricbeat.yml", "-c", "/srv/more.yml",
                            "--path.config", "/etc/metricbeat" }, 7 },
                        { "-E setting the modules' glob",
                          { "metricbeat", "-c", "/etc/metricbeat/metricbeat.yml", "--path.config", "/etc/metricbeat",
                            "-E", "metricbeat.config.modules.path=/srv/*.yml" }, 7 },
                        { "test modules (runs them once, printing their fields)",
                          { "metricbeat", "test", "modules", "linux", "-c", "/etc/metricbeat/metricbeat.yml",
                            "--path.config", "/etc/metricbeat" }, 8 },
                };

                for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                        KnownFacts other = facts;

                        other.argv = (char **) lines[i].argv;
                        other.argc = lines[i].argc;
                        ok(known_file_counts(f, &other, why, sizeof why), "  %s: counts (%s)", lines[i].what, why);
                }
        }
}

/* Fluent Bit's entry as shipped: its node metrics example on its unit's
 * command line, plugins.conf beside it as packaged: no counting; a line
 * that brings an input reading any file, an include, a variable it sets
 * or an external plugin counts, in the -c file or (a plugin) in
 * plugins.conf; so do plugins added on its command line. */
static void test_fluent_bit(const Catalogue *c) {
        static const char *counting[] = {
                "[INPUT]\n    name tail\n    path /var/log/syslog",
                "[INPUT]\n    Name  HEAD\n    File /proc/vmstat",
                "[INPUT]\n    name serial",
                "    collector.textfile.path /var/lib/prom",
                "[FILTER]\n    name lua\n    script /etc/fluent-bit/x.lua",
                "@INCLUDE inputs/*.conf",
                "@SET T=tail",
                "[SERVICE]\n    plugins_file /srv/plugins.conf",
                "[SERVICE]\n    plugins_file more.conf",
                "[PLUGINS]\n    Path /opt/fluent-bit/lib/in_x.so",
                "pipeline:\n  inputs:\n    - name: \"t\\x61il\"",
                "includes:\n  - inputs.yaml",
        };
        static const char *benign[] = {
                "# [INPUT]\n#     name tail",
                "[SERVICE]\n    plugins_file plugins.conf\n    parsers_file parsers.conf",
                "[INPUT]\n    name systemd\n    tag host.*",
                "    path.procfs /host/proc",
                "    storage.path /var/lib/fluent-bit",
                "    name ${INPUT}",
        };
        static const char *environ_text = "INPUT=systemd\n";
        _cleanup_free_ char *metrics = data_file("fluent-bit-metrics.conf"), *plugins = data_file("fluent-bit-plugins.conf");
        char *unit[] = { "/opt/fluent-bit/bin/fluent-bit", "-c", "//etc/fluent-bit/fluent-bit.conf" };
        const KnownFile *f = shipped_file(c, "fluent-bit", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f || !metrics || !plugins) {
                ok(false, "fluent-bit: its shipped entry and tests/data/agents/fluent-bit-*.conf");
                return;
        }
        ok(!known_file_counts(f, &(KnownFacts) { .argv = unit, .argc = 3, .config_text = metrics,
                                                   .config_dir_text = plugins, .environ_text = environ_text },
                              why, sizeof why),
           "fluent-bit: its node metrics example, plugins.conf as packaged: no counting (%s)", why);
        is_str(known_file_config_dir(f, unit, 3), "//etc/fluent-bit/fluent-bit.conf",
               "  plugins.conf is looked for beside the file -c names");
        {
                static const char *external[] = { "[PLUGINS]\n    Path /opt/fluent-bit/lib/in_x.so" };
                KnownFacts shipped = { .argv = unit, .argc = 3, .config_text = metrics, .config_dir_text = plugins,
                                       .environ_text = environ_text };

                lines_judged(f, shipped, false, metrics, counting, ELEMENTSOF(counting), true, "fluent-bit.conf");
                lines_judged(f, shipped, false, metrics, benign, ELEMENTSOF(benign), false, "fluent-bit.conf");
                lines_judged(f, shipped, true, plugins, external, ELEMENTSOF(external), true, "plugins.conf");
        }
        {
                _cleanup_free_ char *by_variable = NULL;

                if (asprintf(&by_variable, "%s    name ${INPUT}\n", metrics) < 0)
                        abort();
                ok(known_file_counts(f, &(KnownFacts) { .argv = unit, .argc = 3, .config_text = by_variable,
                                                          .config_dir_text = plugins, .environ_text = "INPUT=tail\n" },
                                     why, sizeof why),
                   "  name ${INPUT}, tail in its environment: counts (%s)", why);
        }
        {
                char *more[] = { "/opt/fluent-bit/bin/fluent-bit", "-c", "/etc/fluent-bit/fluent-bit.conf", "-i", "tail",
                                 "-p", "path=/proc/vmstat" };
                char *bare[] = { "/opt/fluent-bit/bin/fluent-bit", "-i", "node_exporter_metrics" };

                ok(known_file_counts(f, &(KnownFacts) { .argv = more, .argc = 7, .config_text = metrics,
                                                          .config_dir_text = plugins, .environ_text = environ_text },
                                     why, sizeof why),
                   "  an input on its command line: counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = bare, .argc = 3, .config_text = metrics,
                                                          .config_dir_text = plugins, .environ_text = environ_text },
                                     why, sizeof why),
                   "  no -c: counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = unit, .argc = 3, .config_text = metrics,
                                                          .config_dir_text = plugins, .environ_text = environ_text,
                                                          .absent_found = "/plugins.conf" },
                                     why, sizeof why),
                   "  a plugins.conf in its working directory, /: counts (%s)", why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = unit, .argc = 3, .config_text = metrics,
                                                          .environ_text = environ_text },
                                     why, sizeof why),
                   "  the directory of its -c file unreadable: counts (%s)", why);
        }
}

/* The CloudWatch agent's entry as shipped: started as its start script
 * starts it, its Standard plan's TOML and YAML: no counting; a log input
 * or a variable from elsewhere counts, in any file below its etc; so does
 * a file named outside it. */
static void test_cloudwatch(const Catalogue *c) {
        static const char *counting[] = {
                "  [[inputs.logfile]]\n    [[inputs.logfile.file_config]]\n      file_path = \"/var/log/messages\"",
                "receivers:\n    filelog/syslog:\n        include:\n            - /var/log/syslog",
                "{\"logs\": {\"logs_collected\": {\"files\": {\"collect_list\": [{\"file_path\": \"/var/log/x\"}]}}}}",
                "        role_arn: ${file:/etc/arn}",
                "        include: [${INCLUDE}]",
                "        name: \"fi\\x6celog\"",
        };
        static const char *benign[] = {
                "        certificate_file_path: \"\"",
                "                  regex: ^(ServerSpan|LocalRootSpan)$",
                "      \"append_dimensions\": {\"InstanceId\": \"${aws:InstanceId}\"}",
                "# [[inputs.logfile]]",
        };
        static const char *environ_text = "CWAGENT_ROLE_ARN=arn:aws:iam::1:role/x\nINCLUDE=filelog\nRUN_WITH_IRSA=\n";
        const char *etc = "/opt/aws/amazon-cloudwatch-agent/etc";
        _cleanup_free_ char *toml = data_file("cloudwatch-agent.toml"), *yaml = data_file("cloudwatch-agent.yaml"),
                            *both = NULL, *toml_path = NULL, *env_path = NULL, *d_yaml = NULL, *yaml_path = NULL;
        const KnownFile *f = shipped_file(c, "amazon-cloudwatch-agent", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f || !toml || !yaml) {
                ok(false, "amazon-cloudwatch-agent: its shipped entry and tests/data/agents/cloudwatch-agent.*");
                return;
        }
        if (asprintf(&both, "%s%s", toml, yaml) < 0 || asprintf(&toml_path, "%s/amazon-cloudwatch-agent.toml", etc) < 0 ||
            asprintf(&env_path, "%s/env-config.json", etc) < 0 ||
            asprintf(&d_yaml, "%s/amazon-cloudwatch-agent.d/extra.yaml", etc) < 0 ||
            asprintf(&yaml_path, "%s/amazon-cloudwatch-agent.yaml", etc) < 0)
                abort();
        char *started[] = { "/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent", "-config", toml_path,
                            "-envconfig", env_path, "-otelconfig", d_yaml, "-otelconfig", yaml_path, "-pidfile",
                            "/opt/aws/amazon-cloudwatch-agent/var/amazon-cloudwatch-agent.pid" };
        size_t n = ELEMENTSOF(started);

        ok(!known_file_counts(f, &(KnownFacts) { .argv = started, .argc = n, .config_text = toml,
                                                   .config_dir_text = both, .environ_text = environ_text },
                              why, sizeof why),
           "amazon-cloudwatch-agent: its Standard plan's TOML and YAML, as its start script runs it: no counting (%s)",
           why);
        {
                KnownFacts as_started = { .argv = started, .argc = n, .config_text = toml,
                                          .environ_text = environ_text };

                lines_judged(f, as_started, true, both, counting, ELEMENTSOF(counting), true, "a file below its etc");
                lines_judged(f, as_started, true, both, benign, ELEMENTSOF(benign), false, "a file below its etc");
        }
        started[6] = "/tmp/extra.yaml";
        ok(known_file_counts(f, &(KnownFacts) { .argv = started, .argc = n, .config_text = toml,
                                                  .config_dir_text = both, .environ_text = environ_text },
                             why, sizeof why),
           "  an -otelconfig outside its etc: counts (%s)", why);
        started[6] = "/opt/aws/amazon-cloudwatch-agent/etc/../../../tmp/extra.yaml";
        ok(known_file_counts(f, &(KnownFacts) { .argv = started, .argc = n, .config_text = toml,
                                                  .config_dir_text = both, .environ_text = environ_text },
                             why, sizeof why),
           "  one that leaves it by ..: counts");
        started[6] = d_yaml;
        started[9] = "-setenv";
        ok(known_file_counts(f, &(KnownFacts) { .argv = started, .argc = n, .config_text = toml,
                                                  .config_dir_text = both, .environ_text = environ_text },
                             why, sizeof why),
           "  -setenv: counts (%s)", why);
        started[9] = "-pidfile";
        ok(known_file_counts(f, &(KnownFacts) { .argv = started + 2, .argc = n - 2, .config_text = toml,
                                                  .config_dir_text = both, .environ_text = environ_text },
                             why, sizeof why),
           "  no -config: counts (%s)", why);
}

/* What a YAML or Alloy parser reads differently from the text: a key or
 * string spelled with escapes, joined across lines, tagged, or a raw
 * string going on: each counts in the entry whose condition it would
 * hide; the configurations as shipped do not. */
static void test_escapes(const Catalogue *c) {
        static const struct {
                const char *entry, *base, *line;
        } cases[] = {
                { "datadog-agent", "api_key: 0123\nsite: datadoghq.com\n", "\"additional\\u005fchecksd\": /srv/checks" },
                { "datadog-agent", "api_key: 0123\n", "additional_\\\n  checksd: /srv/checks" },
                { "datadog-agent", "api_key: 0123\n", "? !!binary YWRkaXRpb25hbF9jaGVja3Nk\n: /srv/checks" },
                { "opentelemetry-collector", "receivers:\n", "  \"file\\x6cog/vm\":\n    include: [/proc/vmstat]" },
                { "opentelemetry-collector", "receivers:\n", "  ? !!binary ZmlsZWxvZy92bQ==\n  : {include: [/proc/vmstat]}" },
                { "grafana-agent", "integrations:\n  node_exporter:\n", "    \"vmstat\\x5ffields\": \".*\"" },
                { "grafana-alloy", "", "local.file_match \"m\" {\n  path_targets = [{\"__path__\" = \"/pro\\x63/vmstat\"}]\n}" },
                { "grafana-alloy", "", "local.file_match \"m\" {\n  path_targets = [{\"__path__\" = `\n/proc/vmstat`}]\n}" },
        };
        char *dd[] = { "/opt/datadog-agent/bin/agent/agent", "run", "-p", "/opt/datadog-agent/run/agent.pid" };
        char *otel[] = { "/usr/bin/otelcol-contrib", "--config=/etc/otelcol-contrib/config.yaml" };
        char *agent[] = { "/usr/bin/grafana-agent", "--config.file", "/etc/grafana-agent.yaml" };
        char *alloy[] = { "/usr/bin/alloy", "run", "--storage.path=/var/lib/alloy/data", "/etc/alloy/config.alloy" };
        char why[KNOWN_WHY_MAX];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const KnownFile *f = shipped_file(c, cases[i].entry, "/proc/vmstat");
                bool is_dd = streq(cases[i].entry, "datadog-agent"), is_otel = startswith(cases[i].entry, "opentelemetry"),
                     is_alloy = streq(cases[i].entry, "grafana-alloy");
                char **argv = is_dd ? dd : is_otel ? otel : is_alloy ? alloy : agent;
                size_t argc = is_dd ? ELEMENTSOF(dd) : is_otel ? ELEMENTSOF(otel) : is_alloy ? ELEMENTSOF(alloy)
                                                                                           : ELEMENTSOF(agent);
                _cleanup_free_ char *with = NULL;

                if (!f || asprintf(&with, "%s%s\n", cases[i].base, cases[i].line) < 0) {
                        ok(false, "%s: its shipped entry", cases[i].entry);
                        continue;
                }
                ok(!known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = argc, .config_text = cases[i].base,
                                                           .environ_text = "PATH=/usr/bin\n" },
                                      why, sizeof why),
                   "%s: without it, no counting (%s)", cases[i].entry, why);
                ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = argc, .config_text = with,
                                                          .environ_text = "PATH=/usr/bin\n" },
                                     why, sizeof why),
                   "  '%s': counts", one_line(cases[i].line));
        }
}

/* The Checkmk agent's entry as shipped: what /etc/check_mk's files would
 * have its own shell run (a command, a substitution, a second command on a
 * line) counts; plain assignments and comments do not; its environment
 * naming its directories elsewhere counts, and so does a spool file. */
static void test_checkmk(const Catalogue *c) {
        static const char *counting[] = {
                "Disk /usr/lib/nagios/plugins/check_disk -w 10%",
                "Numa (interval=60) cat /proc/vmstat",
                "MK_SKIP_PS=$(cat /proc/vmstat)",
                "MK_SKIP_PS=`cat /proc/vmstat`",
                "MK_SKIP_PS=yes; cat /proc/vmstat",
                "MK_SKIP_PS=yes && cat /proc/vmstat",
                "MK_SKIP_PS=yes </proc/vmstat",
                "export MK_SKIP_PS=yes",
                ". /etc/other.cfg",
                "  cat /proc/vmstat",
                "mrpe - /etc/check_mk/more_mrpe.cfg",
        };
        static const char *benign[] = {
                "MK_SKIP_PS=yes",
                "  MK_SKIP_SYSTEMD=\"yes\"",
                "# Disk /usr/lib/nagios/plugins/check_disk -w 10%",
                "RTC_SECTIONS=\"mem cpu\"",
                "",
        };
        char *argv[] = { "/bin/bash", "/usr/bin/check_mk_agent" };
        const KnownFile *f = shipped_file(c, "checkmk-agent", "/proc/vmstat");
        char why[KNOWN_WHY_MAX];

        if (!f) {
                ok(false, "checkmk-agent: its shipped entry");
                return;
        }
        ok(!known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 2, .config_dir_text = "",
                                                   .environ_text = "PATH=/usr/bin\n" },
                              why, sizeof why),
           "checkmk-agent: no /etc/check_mk: no counting (%s)", why);
        {
                static const char *header = "# its header\nMK_SKIP_MEM=yes\n";
                KnownFacts agent = { .argv = argv, .argc = 2, .environ_text = "PATH=/usr/bin\n" };

                lines_judged(f, agent, true, header, counting, ELEMENTSOF(counting), true, "one of its files");
                lines_judged(f, agent, true, header, benign, ELEMENTSOF(benign), false, "one of its files");
        }
        ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 2, .config_dir_text = "",
                                                  .environ_text = "MK_CONFDIR=/srv/cmk\n" },
                             why, sizeof why),
           "  MK_CONFDIR in its environment: counts");
        ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 2, .config_dir_text = "",
                                                  .environ_text = "PATH=/usr/bin\n",
                                                  .absent_found = "/var/lib/check_mk_agent/spool/*" },
                             why, sizeof why),
           "  a spool file: counts");
        ok(known_file_counts(f, &(KnownFacts) { .argv = argv, .argc = 2, .environ_text = "PATH=/usr/bin\n" },
                             why, sizeof why),
           "  its files unreadable: counts (%s)", why);
}

static void test_load(void) {
        char high[] = "/tmp/test-known-XXXXXX", low[] = "/tmp/test-known-XXXXXX";
        _cleanup_free_ char *error = NULL;
        Catalogue c = {};

        if (!mkdtemp(high) || !mkdtemp(low))
                abort();
        write_file(low, "a.conf", "[reader]\nexe = /bin/sh\n[file /proc/vmstat]\nwhy = low\n");
        write_file(low, "b.conf", "[reader]\nexe = /bin/b\n");
        write_file(low, "c.conf", "[reader]\nexe = /bin/c\n");
        write_file(low, "README", "not an entry");
        write_file(high, "a.conf", "[reader]\nexe = /bin/sh\n[file /proc/vmstat]\nwhy = high\n");
        write_file(high, "c.conf", "");
        ok(catalogue_load((char *[]) { high, low, "/nonexistent", NULL }, &c, &error) == 0, "the catalogue loads (%s)",
           strnull(error));
        is_int((int) c.n, 2, "  a and b (c masked, README no entry)");
        is_str(c.readers[0].name, "a", "  sorted by name");
        is_str(c.readers[0].files[0].why, "high", "  a from the directory of higher precedence");
        ok(strstr(c.readers[0].source, high) != NULL, "  whose file is its source");
        ok(c.readers[0].exes[0].has_id, "  /bin/sh resolved to its device and inode");
        ok(!c.readers[1].exes[0].has_id, "  /bin/b (not installed) is matched in a process's root only");
        ok(c.masked && streq_ptr(c.masked[0], "c") && !c.masked[1], "  c is listed as masked");
        catalogue_done(&c);

        write_file(high, "b.conf", "[reader]\nexe = /bin/b\nbad\n");
        is_int(catalogue_load((char *[]) { high, low, NULL }, &c, &error), -EINVAL, "a broken entry fails the load");
        ok(error && strstr(error, "/b.conf:3: syntax error"), "  naming FILE:LINE (%s)", strnull(error));
        catalogue_done(&c);
        error = mfree(error);

        /* What ships: every entry parses, and the table's verdicts hold. */
        const char *dir = getenv("TEST_CONF_DIR");
        _cleanup_free_ char *shipped = NULL;
        if (!dir || asprintf(&shipped, "%s/readers.d", dir) < 0) {
                tap_skip("TEST_CONF_DIR is not set (make check sets it)");
                return;
        }
        ok(catalogue_load((char *[]) { shipped, NULL }, &c, &error) == 0, "the shipped catalogue loads (%s)", strnull(error));
        is_int((int) c.n, 29, "  29 entries");
        for (size_t i = 0; i < c.n; i++) {
                const KnownReader *k = &c.readers[i];
                bool counts_default = streq(k->name, "netdata") || streq(k->name, "netdata-static") ||
                                      streq(k->name, "pcp") || streq(k->name, "numastat") || streq(k->name, "zabbix-agent");

                ok(k->evidence && k->description, "  %s has a description and its evidence", k->name);
                /* What counts by default says why; others may say what
                 * would count (collectl -sM), and have a file section. */
                ok(counts_default ? k->counts != NULL : k->n_files > 0, "  %s %s by default", k->name,
                   counts_default ? "counts, and says why," : "needs no counting for some file");
        }
        test_shipped_configs(&c);
        test_telegraf(&c);
        test_checkmk(&c);
        test_vector(&c);
        test_metricbeat(&c);
        test_fluent_bit(&c);
        test_cloudwatch(&c);
        test_escapes(&c);
        catalogue_done(&c);
}

static void test_dirs(void) {
        char exe_dir[] = "/tmp/test-known-XXXXXX";
        _cleanup_free_ char *d0 = NULL;
        char **d = NULL;

        if (!mkdtemp(exe_dir))
                abort();
        ok(catalogue_dirs_for("/a:rel:/b", exe_dir, &d) == 0 && strv_length(d) == 2 && streq(d[0], "/a") &&
           streq(d[1], "/b"), "a path wins; its relative entries are dropped");
        d = strv_free(d);
        ok(catalogue_dirs_for("", exe_dir, &d) == 0 && strv_length(d) == 1 && streq(d[0], "/nonexistent"),
           "an empty path: no catalogue");
        d = strv_free(d);
        ok(catalogue_dirs_for(NULL, exe_dir, &d) == 0 && strv_length(d) == 2 && streq(d[0], KNOWN_READERS_ETC_DIR) &&
           streq(d[1], KNOWN_READERS_LIB_DIR), "installed: /etc's, then the package's (%s)", d ? d[1] : "");
        d = strv_free(d);
        write_file(exe_dir, CATALOGUE_UNINSTALLED_MARKER, "/src/conf/readers.d\n");
        ok(catalogue_dirs_for(NULL, exe_dir, &d) == 0 && strv_length(d) == 2 && streq(d[0], KNOWN_READERS_ETC_DIR) &&
           streq(d[1], "/src/conf/readers.d"), "in a build tree: /etc's, then the source tree's");
        d = strv_free(d);
        write_file(exe_dir, CATALOGUE_UNINSTALLED_MARKER, "src/conf/readers.d\n");
        ok(catalogue_dirs_for(NULL, exe_dir, &d) == 0 && streq_ptr(d[1], KNOWN_READERS_LIB_DIR),
           "a relative marker is ignored");
        d = strv_free(d);
        if (asprintf(&d0, "%s/" CATALOGUE_UNINSTALLED_MARKER, exe_dir) < 0 || unlink(d0) < 0 || rmdir(exe_dir) < 0)
                abort();
}

/* The test program itself as a known reader. */
static void self_catalogue(Catalogue *c, KnownFile *f, KnownExe *e, KnownReader *k) {
        struct stat st;

        if (stat("/proc/self/exe", &st) < 0)
                abort();
        *e = (KnownExe) { .path = "/self", .has_id = true, .dev = st.st_dev, .ino = st.st_ino };
        *k = (KnownReader) { .name = "self", .source = "/x/self.conf", .exes = e, .n_exes = 1, .files = f, .n_files = 1 };
        *c = (Catalogue) { .readers = k, .n = 1 };
}

/* The inspector's work, done here as ourselves: the look known_judge()
 * asked for, into our own process, its answer kept. */
static void look_into(KnownCache *cache, const KnownAsk *ask, pid_t pid);
static void look_here(KnownCache *cache, const KnownAsk *ask) {
        look_into(cache, ask, getpid());
}

/* Runs a shell command made of fmt; aborts unless it succeeds. */
static void shell(const char *fmt, ...) _printf_(1, 2);
static void shell(const char *fmt, ...) {
        _cleanup_free_ char *cmd = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&cmd, fmt, ap);
        va_end(ap);
        if (r < 0 || system(cmd) != 0)
                abort();
}

/* A read of /proc/vmstat by ourselves, alive, our binary known. */
static KnownRead self_read(void) {
        struct stat st;

        if (stat("/proc/self/exe", &st) < 0)
                abort();
        return (KnownRead) { .pid = getpid(), .alive = true, .has_uid = true, .uid = getuid(), .has_exe_id = true,
                             .exe_dev = st.st_dev, .exe_ino = st.st_ino, .path = "/proc/vmstat" };
}

/* What the last judge_here()'s look read. */
static char looked_here[KNOWN_LOOKED_MAX];

/* judge_here: the look at ourselves for f, from a cleared cache; the verdict. */
static bool judge_here(KnownFile *f, char *why, size_t size) {
        static KnownCache cache;
        KnownExe e;
        KnownReader k;
        Catalogue c;
        KnownVerdict v;
        KnownRead rd = self_read();

        self_catalogue(&c, f, &e, &k);
        known_cache_clear(&cache);
        known_judge(&c, &cache, &rd, &v);
        look_here(&cache, &v.ask);
        known_judge(&c, &cache, &rd, &v);
        snprintf(why, size, "%s", v.why);
        snprintf(looked_here, sizeof looked_here, "%s", v.looked);
        return v.counts;
}

/* A tree for looks into our own root: on the root's file system (a look
 * crosses no mount but its own), in t; false if there is no such place. */
static bool tree_on_root(char *t, size_t size) {
        static const char *const places[] = { "/var/tmp", "/tmp", "/root" };
        struct stat root_st, st;

        if (stat("/", &root_st) < 0)
                abort();
        for (size_t i = 0; i < ELEMENTSOF(places); i++)
                if (stat(places[i], &st) == 0 && st.st_dev == root_st.st_dev && access(places[i], W_OK) == 0) {
                        snprintf(t, size, "%s/test-known-XXXXXX", places[i]);
                        return mkdtemp(t) != NULL;
                }
        return false;
}

/* A configuration directory walked as Vector walks one (its suffixes,
 * links to directories followed), and what the look says it read. */
static void test_config_dir_walk(void) {
        char t[64], why[KNOWN_WHY_MAX], expected[KNOWN_LOOKED_MAX];
        _cleanup_free_ char *config = NULL, *dir = NULL;
        KnownFile f = { .glob = "/proc/vmstat", .line = 1, .why = "keeps swap's fields",
                        .config_forbids = "numa_hit", .config_dir_suffixes = ".yaml .yml",
                        .config_dir_recursive = true, .config_environment = true };

        if (!tree_on_root(t, sizeof t)) {
                tap_skip("no writable /var/tmp, /tmp or /root on the root file system: a tree elsewhere is never looked into");
                return;
        }
        if (asprintf(&config, "%s/main.yaml", t) < 0 || asprintf(&dir, "%s/conf.d", t) < 0)
                abort();
        shell("mkdir -p %1$s/conf.d/sources %1$s/more && printf 'a: 1\n' > %1$s/main.yaml && "
              "printf 'b: 1\n' > %1$s/conf.d/b.yaml && printf 'c: 1\n' > %1$s/conf.d/sources/c.yml && "
              "printf 'numa_hit\n' > %1$s/conf.d/d.conf && printf 'numa_hit\n' > %1$s/conf.d/.yaml && "
              "printf 'numa_hit\n' > %1$s/more/e.yaml && ln -s ../more %1$s/conf.d/linked",
              t);
        f.config = config;
        f.config_dir = dir;
        ok(!judge_here(&f, why, sizeof why), "a directory's *.yaml and *.yml below it: no counting (%s)", why);
        snprintf(expected, sizeof expected,
                 "its command line; %s as its configuration; %s as its configuration directory (2 files); its environment",
                 config, dir);
        is_str(looked_here, expected, "  what the look read: the files by their paths, how many, its environment");
        f.config_dir_follow = true;
        ok(judge_here(&f, why, sizeof why), "  links to directories followed: the one below a link counts (%s)", why);
        f.config_dir_follow = false;
        shell("printf 'numa_hit\n' > %s/conf.d/sources/x.yml", t);
        ok(judge_here(&f, why, sizeof why), "  a line in a subdirectory's x.yml counts");
        shell("rm %s/conf.d/sources/x.yml", t);
        f.config_dir_suffixes = NULL;
        f.config_dir_names = NULL;
        ok(judge_here(&f, why, sizeof why), "  *.conf in place of the suffixes: d.conf counts");
        shell("rm -rf %s", t);
}

/* Code the program does not ship, looked for in its root (Datadog's):
 * absent=, installed= against its list, environ_forbids=. */
static void test_code_inventory(void) {
        /* A lookup in a root crosses no mount but the root's own file
         * system's: the tree goes where "/" is. */
        static const char *const places[] = { "/var/tmp", "/tmp", "/root" };
        char t[64] = "", why[KNOWN_WHY_MAX];
        _cleanup_free_ char *absent = NULL, *installed = NULL, *list = NULL, *root = NULL;
        char *absents[2] = {};
        KnownFile f = { .glob = "/proc/vmstat", .line = 1, .why = "ships nothing reading numa_*" };

        struct stat root_st, st;

        if (stat("/", &root_st) < 0)
                abort();
        for (size_t i = 0; i < ELEMENTSOF(places) && !t[0]; i++)
                if (stat(places[i], &st) == 0 && st.st_dev == root_st.st_dev && access(places[i], W_OK) == 0)
                        snprintf(t, sizeof t, "%s/test-known-XXXXXX", places[i]);
        if (!t[0]) {
                tap_skip("no writable /var/tmp, /tmp or /root on the root file system: a tree elsewhere is never looked into");
                return;
        }
        if (!mkdtemp(t) || asprintf(&absent, "%s/checks.d/*", t) < 0 ||
            asprintf(&installed, "%s/opt/embedded/lib/python*/site-packages", t) < 0 ||
            asprintf(&list, "%s/opt/embedded/.installed_by_pkg.txt", t) < 0 || asprintf(&root, "%s/opt", t) < 0)
                abort();
        shell("mkdir -p %1$s/checks.d %1$s/opt/embedded/lib/python3.11 "
              "%1$s/opt/embedded/lib/python3.12/site-packages/datadog_checks/disk "
              "%1$s/opt/embedded/lib/python3.12/site-packages/__pycache__ && "
              "touch %1$s/opt/embedded/lib/python3.12/site-packages/six.py",
              t);
        write_file(root, "embedded/.installed_by_pkg.txt",
                   "# DO NOT REMOVE/MODIFY - used by package removal tasks\n"
                   "./embedded/lib/python3.12/site-packages/datadog_checks\n"
                   "./embedded/lib/python3.12/site-packages/datadog_checks/disk\n"
                   "./embedded/lib/python3.12/site-packages/six.py\n");
        absents[0] = absent;
        f.absent = absents;
        f.installed = installed;
        f.installed_list = list;
        f.installed_root = root;
        f.environ_forbids = "^NUMASTATD_TEST_NEVER_SET=";

        ok(!judge_here(&f, why, sizeof why), "nothing in checks.d, every site-packages entry listed: no counting");
        is_str(why, "known self: ships nothing reading numa_*", "  why (python3.11 without site-packages, __pycache__)");
        write_file(t, "checks.d/custom.py", "");
        ok(judge_here(&f, why, sizeof why), "a custom check in checks.d: counts");
        ok(strstr(why, "counts: something in its root matches ") && strstr(why, "/checks.d/*"), "  says which (%s)", why);
        write_file(t, "checks.d/.hidden", "");
        shell("rm %s/checks.d/custom.py", t);
        ok(!judge_here(&f, why, sizeof why), "  a dot file there: not code, no counting");
        write_file(root, "embedded/lib/python3.12/site-packages/datadog_extra-1.0.dist-info", "");
        ok(judge_here(&f, why, sizeof why), "an integration its package did not install: counts");
        ok(strstr(why, "holds what") != NULL, "  says so (%s)", why);
        write_file(root, "embedded/.installed_by_pkg.txt",
                   "./embedded/lib/python3.12/site-packages/datadog_checks\n"
                   "./embedded/lib/python3.12/site-packages/six.py\n"
                   "./embedded/lib/python3.12/site-packages/datadog_extra-1.0.dist-info/RECORD\n");
        ok(judge_here(&f, why, sizeof why), "  listed only below its own path: still counts");
        shell("rm %s/opt/embedded/lib/python3.12/site-packages/datadog_extra-1.0.dist-info %s", t, list);
        ok(judge_here(&f, why, sizeof why), "no list: counts");
        ok(strstr(why, "cannot be read") != NULL, "  says so (%s)", why);
        write_file(root, "embedded/.installed_by_pkg.txt",
                   "./embedded/lib/python3.12/site-packages/datadog_checks\n"
                   "./embedded/lib/python3.12/site-packages/six.py");
        ok(!judge_here(&f, why, sizeof why), "the list back, its last line without a newline: no counting");
        f.environ_forbids = "^PATH=";
        ok(judge_here(&f, why, sizeof why), "environ_forbids matching a variable of ours: counts");
        is_str(why, "counts: a variable of its environment matches the entry's environ_forbids=", "  says so");

        parse_fails("absent with a glob before its last component",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nabsent = /a/*/b\n", "glob in its last component");
        parse_fails("installed without its list",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\ninstalled = /o/lib\ninstalled_root = /o\n",
                    "go together");
        parse_fails("installed outside its root",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\ninstalled = /p/lib\ninstalled_list = /o/l\n"
                    "installed_root = /o\n",
                    "not below installed_root=");
        parse_fails("environ_forbids that does not compile",
                    "[reader]\nexe = /x\n[file /proc/vmstat]\nwhy = w\nenviron_forbids = (\n", "environ_forbids: '(' does not compile");
        shell("rm -rf %s", t);
}

static void test_judge(void) {
        KnownFile f = { .glob = "/proc/vmstat", .line = 4, .why = "exports no numa", .arg = "--fields", .arg_default = "^pg" };
        static KnownCache cache;
        KnownExe e;
        KnownReader k;
        Catalogue c;
        KnownVerdict v;
        struct stat st;
        KnownRead rd = self_read();

        self_catalogue(&c, &f, &e, &k);
        stat("/proc/self/exe", &st);
        known_cache_clear(&cache);      /* as the daemon does at a (re)load */

        known_judge(&c, &cache, &(KnownRead) { .has_exe_id = true, .exe_dev = 1, .exe_ino = 2, .path = "/proc/vmstat" }, &v);
        ok(!v.reader && v.counts, "another binary: not known, counts");
        known_judge(&c, &cache, &(KnownRead) { .pid = getpid(), .alive = true, .path = "/proc/vmstat" }, &v);
        ok(!v.reader && v.counts, "no binary known: counts (never by comm)");
        ok(!v.pending, "  in our own root, no entry's binary: nothing asked of the inspector");

        known_judge(&c, &cache, &(KnownRead) { .pid = 999999, .alive = false, .has_exe_id = true, .exe_dev = st.st_dev,
                                               .exe_ino = st.st_ino, .path = "/proc/vmstat" }, &v);
        ok(v.reader == &k && v.counts, "known, gone before its command line was read: counts");
        is_str(v.why, "counts: gone before its command line could be checked", "  and says so");

        known_judge(&c, &cache, &rd, &v);
        ok(v.reader == &k && v.counts && v.pending, "known, alive, its argv not checked yet: counts, a look is asked for");
        ok(v.ask.cat == &c && v.ask.reader == 0 && v.ask.file == 0 && v.ask.pid == getpid() && v.ask.start > 0,
           "  the ask names the entry, its section and the process");
        look_here(&cache, &v.ask);
        known_judge(&c, &cache, &rd, &v);
        ok(v.reader == &k && !v.counts && !v.pending, "looked into: its argv has no --fields, needs no counting");
        is_str(v.why, "known self: exports no numa", "  why");
        is_str(v.source, "/x/self.conf:4", "  source: the section's FILE:LINE");
        /* Gone, named from its exit record: the verdict is its own, by pid,
         * uid and when it began; never by pid alone. */
        for (size_t i = 0; i < KNOWN_CACHE_MAX; i++)
                if (cache.entries[i].pid == getpid())
                        rd.began = cache.entries[i].began;
        ok(rd.began > 0, "the verdict's process began at a known time");
        rd.alive = false;
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts, "the same process named from its exit record: the verdict kept for it");
        rd.began += 1;
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts, "  a second apart (ac_btime rounds): still its own");
        rd.began += 4;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "another process of the pid (begun 5 s later): not its verdict, counts");
        rd.began -= 5;
        rd.uid = getuid() + 1;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "another uid: counts");
        rd.uid = getuid();
        rd.has_uid = false;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "uid unknown: counts (never by pid alone)");
        rd.has_uid = true;
        rd.began = 0;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "when it began unknown: counts");
        rd.alive = true;

        /* A verdict a file decided stands for a while only: the file may
         * change, and the process read it again. One from the argv alone
         * stands. */
        known_cache_clear(&cache);
        cache.file_verdict_usec = SHORT_VERDICT_USEC;
        known_judge(&c, &cache, &rd, &v);
        look_here(&cache, &v.ask);
        usleep(SHORT_VERDICT_USEC + 50 * 1000);
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && !v.pending, "a verdict from the argv alone stands past the files' time");
        /* A section that would read an @FILE, of a process whose command
         * line names none (this one's): from the argv alone, it stands. */
        f.arg_files = true;
        known_cache_clear(&cache);
        cache.file_verdict_usec = SHORT_VERDICT_USEC;
        known_judge(&c, &cache, &rd, &v);
        look_here(&cache, &v.ask);
        usleep(SHORT_VERDICT_USEC + 50 * 1000);
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && !v.pending, "@FILE read where named, none named: the verdict stands past the files' time");
        f.arg_files = false;
        /* One that rests on files (nothing may be at a path): it may change. */
        char *absent[] = { "/nonexistent-numastatd-test-*", NULL };
        f.absent = absent;
        known_cache_clear(&cache);
        cache.file_verdict_usec = SHORT_VERDICT_USEC;
        known_judge(&c, &cache, &rd, &v);
        look_here(&cache, &v.ask);
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && !v.pending, "one a file decides stands at first");
        usleep(SHORT_VERDICT_USEC + 50 * 1000);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending, "  past its time the process is looked into again (the read counts meanwhile)");
        look_here(&cache, &v.ask);
        f.absent = NULL;
        known_cache_clear(&cache);

        /* Installed after the catalogue was loaded: its path is stat()ed again. */
        KnownExe later = { .path = "/proc/self/exe" };
        KnownReader kl = k;
        Catalogue cl = { .readers = &kl, .n = 1 };
        kl.exes = &later;
        known_judge(&cl, &cache, &rd, &v);
        ok(v.reader == &kl, "a binary installed after the catalogue was loaded is recognised");

        {
                KnownAsk stale;

                known_cache_clear(&cache);
                known_judge(&c, &cache, &rd, &v);
                stale = v.ask;
                known_cache_clear(&cache);      /* a reload */
                look_here(&cache, &stale);
                known_judge(&c, &cache, &rd, &v);
                ok(v.pending, "an answer asked for under a catalogue since reloaded is dropped");
                look_here(&cache, &v.ask);
        }

        rd.path = "/proc/zoneinfo";
        known_judge(&c, &cache, &rd, &v);
        ok(v.reader == &k && v.counts, "a file its entry does not list counts");
        is_str(v.why, "counts: its entry exempts no reads of this file", "  and says so");
        rd.path = "/proc/vmstat";

        /* The operator's rules win over the catalogue, count over ignore. */
        IgnoreRule count = { .comm = "me", .source = "numastatd.conf:9" }, ignore = { .comm = "me", .source = "numastatd.conf:8" };
        Config cfg = { .known = true, .known_readers = c };
        ReaderIdentity id = { .comm = "me", .path = "/proc/vmstat", .has_exe_id = true, .exe_dev = st.st_dev, .exe_ino = st.st_ino };
        ReadJudgement j;

        read_judge(&cfg, &cache, &id, getpid(), true, 0, &j);
        ok(!j.v.counts && streq(j.v.verdict, READ_VERDICT_KNOWN) && streq_ptr(j.v.known, "self"), "catalogue: known");
        read_judgement_done(&j);
        cfg.ignore = &ignore;
        cfg.n_ignore = 1;
        read_judge(&cfg, &cache, &id, getpid(), true, 0, &j);
        ok(!j.v.counts && streq(j.v.verdict, READ_VERDICT_IGNORE_RULE), "an ignore rule before the catalogue");
        is_str(j.v.why, "ignored by rule numastatd.conf:8 (comm=me)", "  why names the rule and where it is");
        read_judgement_done(&j);
        cfg.count = &count;
        cfg.n_count = 1;
        read_judge(&cfg, &cache, &id, getpid(), true, 0, &j);
        ok(j.v.counts && streq(j.v.verdict, READ_VERDICT_COUNT_RULE), "a count rule before both");
        is_str(j.v.why, "counts: by rule numastatd.conf:9 (comm=me)", "  why");
        read_judgement_done(&j);
        cfg = (Config) { .known = false, .known_readers = c };
        read_judge(&cfg, &cache, &id, getpid(), true, 0, &j);
        ok(j.v.counts && streq(j.v.verdict, READ_VERDICT_UNKNOWN), "known = no: the catalogue is not asked");
        read_judgement_done(&j);
}

/* The look into process pid (ours, or a child of ours), its answer kept. */
static void look_into(KnownCache *cache, const KnownAsk *ask, pid_t pid) {
        char path[64];
        int pidfd_dir;
        InspectedProcess p = { .pid = pid };
        KnownAnswer answer;
        size_t n_fds = 0;

        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        pidfd_dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        p.rootfd = openat(pidfd_dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
        p.cmdlinefd = openat(pidfd_dir, "cmdline", O_RDONLY | O_CLOEXEC);
        p.environfd = openat(pidfd_dir, "environ", O_RDONLY | O_CLOEXEC);
        p.mountinfofd = openat(pidfd_dir, "mountinfo", O_RDONLY | O_CLOEXEC);
        ok(known_inspect(&p, ask, &answer, sizeof answer, NULL, &n_fds) == 0 && n_fds == 0, "the look answers");
        known_cache_store(cache, ask, &answer);
        close(p.rootfd);
        close(p.cmdlinefd);
        close(p.environfd);
        close(p.mountinfofd);
        close(pidfd_dir);
}

static void look_at(KnownCache *cache, const KnownAsk *ask) {
        look_into(cache, ask, ask->pid);
}

/* Whether pid's /proc file name holds text (NUL-separated words joined). */
static bool proc_holds(pid_t pid, const char *name, const char *text) {
        char path[64], buf[4096];
        ssize_t n;
        int fd;

        snprintf(path, sizeof path, "/proc/%d/%s", (int) pid, name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
                return false;
        for (ssize_t i = 0; i < n; i++)
                if (buf[i] == '\0')
                        buf[i] = ' ';
        buf[n] = '\0';
        return strstr(buf, text);
}

/* Waits (at most a minute) until pid's file name holds text. */
static bool wait_proc_holds(pid_t pid, const char *name, const char *text) {
        for (int i = 0; i < 6000; i++) {
                if (proc_holds(pid, name, text))
                        return true;
                usleep(10 * 1000);
        }
        return false;
}

/* The child of test_exec: this binary, run as "--exec-child FD". Its first
 * exec waits for a byte on FD and execs itself again with a numa_* regex;
 * its second waits for FD's end. */
static int exec_child(int argc, char **argv) {
        int fd = atoi(argv[2]);
        char c;

        if (argc == 3 && read(fd, &c, 1) == 1) {
                execv("/proc/self/exe", (char *[]) { argv[0], argv[1], argv[2], "--fields=numa_hit", NULL });
                return 127;
        }
        while (read(fd, &c, 1) > 0)
                ;
        return 0;
}

/* An exec keeps the pid and start time but not the command line: the
 * verdict on the process's earlier exec is not its new one's. */
static void test_exec(const char *self) {
        KnownFile f = { .glob = "/proc/vmstat", .line = 4, .why = "exports no numa", .arg = "--fields", .arg_default = "^pg" };
        static KnownCache cache;
        KnownExe e;
        KnownReader k;
        Catalogue c;
        KnownVerdict v;
        KnownRead rd = self_read();
        char fdarg[16];
        int pipefd[2];
        pid_t child;

        self_catalogue(&c, &f, &e, &k);
        known_cache_clear(&cache);
        if (pipe(pipefd) < 0)
                abort();
        snprintf(fdarg, sizeof fdarg, "%d", pipefd[0]);
        child = fork();
        if (child < 0)
                abort();
        if (child == 0) {
                close(pipefd[1]);
                execv(self, (char *[]) { "test-known", "--exec-child", fdarg, NULL });
                _exit(127);
        }
        close(pipefd[0]);
        rd.pid = child;
        ok(wait_proc_holds(child, "cmdline", "--exec-child"), "the child runs");

        known_judge(&c, &cache, &rd, &v);
        ok(v.pending && v.ask.image != 0, "its first exec: a look is asked for, the exec told apart");
        look_at(&cache, &v.ask);
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && !v.pending, "  its command line has no --fields: no counting");

        if (write(pipefd[1], "x", 1) != 1)
                abort();
        ok(wait_proc_holds(child, "cmdline", "--fields=numa_hit"), "the child execs itself with --fields=numa_hit");
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending, "its new exec: the old verdict is not its own, a look is asked for");
        look_at(&cache, &v.ask);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "  its numa_* regex counts");
        is_str(v.why, "counts: --fields matches numa_hit", "  why");

        /* Exited, not reaped: a zombie shows no image; its last exec's
         * verdict is the one kept, and so once it is gone. */
        close(pipefd[1]);
        ok(wait_proc_holds(child, "stat", ") Z "), "the child exits (a zombie)");
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "a zombie: its last exec's verdict, no look");
        for (size_t i = 0; i < KNOWN_CACHE_MAX; i++)
                if (cache.entries[i].pid == child)
                        rd.began = cache.entries[i].began;
        waitpid(child, NULL, 0);
        rd.alive = false;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending && rd.began > 0, "gone, named from its exit record: its last exec's verdict");
        known_cache_clear(&cache);
}

/* Scripts: the entry names them with their interpreters; the first
 * script argument is found past each interpreter's options. */
static void test_scripts(void) {
        _cleanup_free_ char *error = NULL;
        KnownReader k = {};
        struct {
                ScriptSyntax syntax;
                const char *argv;       /* words separated by '|' */
                int script;
        } cases[] = {
                { SCRIPT_SYNTAX_PYTHON, "/usr/bin/python3|/usr/bin/dstat|--vm|1", 1 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-u|-W|ignore|-X|dev|/usr/bin/glances", 6 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-Wignore::DeprecationWarning|-OO|/usr/bin/glances", 3 },
                { SCRIPT_SYNTAX_PYTHON, "python3|--check-hash-based-pycs|never|/x.py", 3 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-c|import x|/usr/bin/dstat", -1 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-uc|import x", -1 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-m|dstat", -1 },
                { SCRIPT_SYNTAX_PYTHON, "python3|-", -1 },
                { SCRIPT_SYNTAX_PYTHON, "python3", -1 },
                { SCRIPT_SYNTAX_PYTHON, "python3|--|/x.py|-c", 2 },
                { SCRIPT_SYNTAX_PERL, "/usr/bin/perl|-w|/usr/bin/collectl|-sm", 2 },
                { SCRIPT_SYNTAX_PERL, "/usr/bin/perl|-wT|/usr/sbin/munin-node", 2 },
                { SCRIPT_SYNTAX_PERL, "perl|-I|/opt/lib|-Mstrict|/usr/bin/collectl", 4 },
                { SCRIPT_SYNTAX_PERL, "perl|-e|print 1|/usr/bin/collectl", -1 },
                { SCRIPT_SYNTAX_PERL, "perl|-we|print 1", -1 },
                { SCRIPT_SYNTAX_PERL, "perl|--version", -1 },
                { SCRIPT_SYNTAX_SHELL, "/bin/sh|/etc/munin/plugins/swap", 1 },
                { SCRIPT_SYNTAX_SHELL, "sh|-eu|+x|-o|pipefail|/x.sh", 5 },
                { SCRIPT_SYNTAX_SHELL, "sh|-c|cat /proc/vmstat", -1 },
                { SCRIPT_SYNTAX_SHELL, "sh|-s", -1 },
                { SCRIPT_SYNTAX_SHELL, "bash|--rcfile|/x|/y.sh", 3 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[256], *argv[16], *save = NULL;
                size_t n = 0;

                snprintf(buf, sizeof buf, "%s", cases[i].argv);
                for (char *w = strtok_r(buf, "|", &save); w && n < ELEMENTSOF(argv); w = strtok_r(NULL, "|", &save))
                        argv[n++] = w;
                is_int(script_argument(cases[i].syntax, argv, n), cases[i].script, cases[i].argv);
        }
        is_int(script_syntax_of("/usr/bin/python3.11"), SCRIPT_SYNTAX_PYTHON, "python3.11 is a python");
        is_int(script_syntax_of("/usr/bin/perl"), SCRIPT_SYNTAX_PERL, "perl");
        is_int(script_syntax_of("/usr/bin/dash"), SCRIPT_SYNTAX_SHELL, "dash is a shell");
        ok(script_syntax_of("/usr/bin/ruby") < 0, "ruby: not known");

        ok(parse("[reader]\nscript = /usr/bin/dstat\ninterpreter = /usr/bin/python3.11\n"
                 "interpreter = /usr/bin/python3.13\n[file /proc/vmstat]\nwhy = w\n", &k, &error) == 0,
           "a script's entry parses (%s)", strnull(error));
        ok(k.n_scripts == 1 && k.n_interpreters == 2 && k.n_exes == 0, "  one script, two interpreters, no exe");
        known_reader_done(&k);
        parse_fails("a script without an interpreter", "[reader]\nscript = /usr/bin/dstat\n", "go together");
        parse_fails("an interpreter without a script", "[reader]\nexe = /x\ninterpreter = /usr/bin/perl\n",
                    "go together");
        parse_fails("an interpreter whose syntax is not known", "[reader]\nscript = /x\ninterpreter = /usr/bin/ruby\n",
                    "how it takes a script is not known");
        parse_fails("a relative script", "[reader]\nscript = dstat\ninterpreter = /usr/bin/perl\n",
                    "[reader] script: 'dstat' is not an absolute path");
}

/* Run by a known program: a generic child's read is judged by the first
 * program above it that is not one of the entry's children. Files made
 * here stand for the binaries (by device and inode). */
static KnownExe fake_binary(const char *dir, const char *name, struct stat *ret) {
        char path[256];
        int fd;

        snprintf(path, sizeof path, "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        if (fd >= 0)
                close(fd);
        ok(fd >= 0 && stat(path, ret) >= 0, "made %s", name);
        return (KnownExe) { .path = strdup(path), .has_id = true, .dev = ret->st_dev, .ino = ret->st_ino };
}

static void test_ancestry(void) {
        char dir[] = "/tmp/test-known-ancestry-XXXXXX";
        struct stat awk, sh, perl, prog, other;
        KnownFile f = { .glob = "/proc/vmstat", .line = 9, .why = "plugins keep pswpin only" };
        KnownExe children[2], exes[1], interpreters[1];
        KnownReader k = { .name = "munin", .source = "/x/munin.conf", .files = &f, .n_files = 1 };
        Catalogue c = { .readers = &k, .n = 1 };
        KnownCache cache;
        KnownVerdict v;
        KnownAncestor up[4];
        KnownRead rd;
        uint64_t start, ppid_start = 0;
        pid_t fork_pid;

        if (!ok(mkdtemp(dir) != NULL, "a directory for the fake binaries"))
                return;
        (void) process_start_time(getppid(), &ppid_start);
        children[0] = fake_binary(dir, "awk", &awk);
        children[1] = fake_binary(dir, "sh", &sh);
        interpreters[0] = fake_binary(dir, "perl", &perl);
        exes[0] = fake_binary(dir, "prog", &prog);
        KnownExe o = fake_binary(dir, "other", &other);
        k.children = children;
        k.n_children = 2;
        k.interpreters = interpreters;
        k.n_interpreters = 1;
        k.exes = exes;
        k.n_exes = 1;
        known_cache_clear(&cache);

#define AT(i, st, is_alive, p) up[i] = (KnownAncestor) { .pid = (p), .alive = (is_alive), .has_uid = true, .uid = getuid(), \
                                                          .has_exe_id = true, .exe_dev = (st).st_dev, .exe_ino = (st).st_ino }
        rd = (KnownRead) { .pid = 99999, .alive = false, .has_uid = true, .uid = getuid(), .began = 1, .has_exe_id = true,
                           .exe_dev = awk.st_dev, .exe_ino = awk.st_ino, .path = "/proc/vmstat", .ancestors = up };
        AT(0, sh, false, 99998);
        AT(1, prog, false, 99997);
        rd.n_ancestors = 2;
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && v.reader == &k, "awk under sh under the entry's program: known");
        is_str(v.why, "known munin (run by it): plugins keep pswpin only", "  and says by whom");

        AT(1, other, false, 99997);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "under another program: counts");
        up[1].has_exe_id = false;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "an ancestor whose binary is not known: counts");
        AT(1, prog, false, 99997);
        AT(0, other, false, 99998);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "another program between them: counts");
        rd.exe_dev = other.st_dev;
        rd.exe_ino = other.st_ino;
        AT(0, sh, false, 99998);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "a reader that is none of its children: counts");
        rd.exe_dev = awk.st_dev;
        rd.exe_ino = awk.st_ino;

        /* The program an interpreter runs: a look at the topmost one says
         * which; the same interpreter below it running the same exec (its
         * arguments where the program's are) is a fork of it. A fork of
         * ours stands for the program's (we are the program). */
        fflush(NULL);
        fork_pid = fork();
        if (fork_pid == 0) {
                pause();
                _exit(EXIT_SUCCESS);
        }
        AT(1, perl, true, fork_pid);
        AT(2, perl, true, getpid());
        rd.n_ancestors = 3;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending && v.ask.pid == getpid(), "interpreters not looked into: the topmost is asked about");
        ok(process_start_time(getpid(), &start) >= 0, "its start time");
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = 0, .file = 0, .counts = false });
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && v.reader == &k, "  it is the entry's script: known, through its fork");
        /* An exec of the same interpreter between them (a plugin script of
         * the program's, run by the same shell) is another program. */
        AT(1, perl, true, getpid());
        AT(2, perl, true, getppid());
        known_cache_clear(&cache);
        known_cache_store(&cache, &(KnownAsk) { .cat = &c, .generation = cache.generation, .pid = getppid(),
                                                 .start = ppid_start, .reader = SIZE_MAX, .file = SIZE_MAX },
                          &(KnownAnswer) { .reader = 0, .file = 0, .counts = false });
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending && v.ask.pid == getpid(),
           "the same interpreter running another exec between: it is looked into, not taken for a fork");
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = SIZE_MAX, .file = SIZE_MAX, .counts = true });
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "  another program: counts");
        /* The one looked into is the topmost of the lowest ones that run
         * one exec: not the shell above that started the program. */
        known_cache_clear(&cache);
        AT(1, perl, true, fork_pid);
        AT(2, perl, true, getpid());
        AT(3, perl, true, getppid());
        rd.n_ancestors = 4;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending && v.ask.pid == getpid(),
           "the same interpreter above the program (the shell that ran it): the program is looked into");
        rd.n_ancestors = 3;
        known_cache_clear(&cache);
        known_judge(&c, &cache, &rd, &v);
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = 0, .file = 0, .counts = false });
        known_cache_clear(&cache);
        cache.file_verdict_usec = SHORT_VERDICT_USEC;
        known_judge(&c, &cache, &rd, &v);
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = SIZE_MAX, .file = SIZE_MAX, .counts = true,
                                                            .failed = true });
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "a look that failed: counts, for now");
        usleep(SHORT_VERDICT_USEC + 50 * 1000);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending && v.ask.pid == getpid(), "  and the process is looked into again later");
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = 0, .file = 0, .counts = false });
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && v.reader == &k, "  then known");
        cache.file_verdict_usec = KNOWN_FILE_VERDICT_USEC;
        AT(1, other, true, fork_pid);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts, "  but not through another program");
        AT(1, perl, true, fork_pid);
        known_cache_clear(&cache);
        known_cache_store(&cache, &(KnownAsk) { .cat = &c, .generation = cache.generation, .pid = getpid(),
                                                 .start = start, .reader = SIZE_MAX, .file = SIZE_MAX },
                          &(KnownAnswer) { .reader = SIZE_MAX, .file = SIZE_MAX, .counts = true });
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "the look found another script: counts, no more looks");
        AT(2, perl, false, 99996);
        known_cache_clear(&cache);
        rd.n_ancestors = 3;
        up[1].alive = false;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "interpreters gone before a look: counts");

        /* A section with a condition: the condition is the program's (its
         * command line, configuration, environment), as a look into it
         * finds; its child's reads are judged by that. */
        f.arg = "--fields";
        f.arg_syntax = "re2";
        AT(1, prog, false, 99997);
        rd.n_ancestors = 2;
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending && v.reader == &k, "a conditional section, the program gone: counts");
        is_str(v.why, "counts: run by munin, gone before its configuration could be checked", "  and says why");
        AT(1, prog, true, getpid());
        known_cache_clear(&cache);
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && v.pending && v.ask.pid == getpid() && v.ask.reader == 0 && v.ask.file == 0 &&
           streq(v.ask.path, "/proc/vmstat"),
           "  the program running: a look into it is asked, for the entry's section of the child's file");
        is_str(v.why, "counts: run by munin, whose configuration is not checked yet", "  counting meanwhile");
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = 0, .file = 0, .counts = false });
        known_judge(&c, &cache, &rd, &v);
        ok(!v.counts && v.reader == &k, "  the look found the condition unmet: known");
        is_str(v.why, "known munin (run by it): plugins keep pswpin only", "  by whom");
        known_cache_clear(&cache);
        known_judge(&c, &cache, &rd, &v);
        known_cache_store(&cache, &v.ask, &(KnownAnswer) { .reader = 0, .file = 0, .counts = true,
                                                            .why = "counts: --fields matches numa_hit" });
        known_judge(&c, &cache, &rd, &v);
        ok(v.counts && !v.pending, "  the look found it met: counts");
        is_str(v.why, "counts: run by munin, --fields matches numa_hit", "  and says why");
        f.arg = NULL;
        f.arg_syntax = NULL;
#undef AT
        kill(fork_pid, SIGKILL);
        (void) waitpid(fork_pid, NULL, 0);
        for (size_t i = 0; i < 2; i++)
                unlink(children[i].path), free(children[i].path);
        unlink(interpreters[0].path);
        free(interpreters[0].path);
        unlink(exes[0].path);
        free(exes[0].path);
        unlink(o.path);
        free(o.path);
        rmdir(dir);
}

int main(int argc, char **argv) {
        if (argc >= 3 && streq(argv[1], "--exec-child"))
                return exec_child(argc, argv);
        test_ancestry();
        test_scripts();
        test_forbids();
        test_positional();
        test_re2_subset();
        test_overrides();
        test_arg_files();
        test_conditions();
        test_file_counts();
        test_load();
        test_dirs();
        test_judge();
        test_exec(argv[0]);
        test_code_inventory();
        test_config_dir_walk();
        return tap_done();
}
