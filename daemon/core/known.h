/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The catalogue of known readers: programs that read the statistics files
 * but, as their sources show, export none of the six NUMA counters there,
 * so their reads need no counting. One file per program, in the INI dialect
 * of numastatd.conf (numastatd.conf(5), KNOWN READERS). Pure: parsing from
 * a FILE the caller opened, and the judgements on facts the caller read
 * from the process (known-probe.c does that I/O). */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The six counters counting off stops and zeroes. */
#define NUMA_COUNTER_NAMES "numa_hit", "numa_miss", "numa_foreign", "numa_interleave", "numa_local", "numa_other"

/* One [file GLOB] section: reads of these files need no counting, unless
 * its condition says the process does use a NUMA counter after all. */
typedef struct KnownFile {
        char *glob;             /* fnmatch(3) with FNM_PATHNAME over the watched path */
        unsigned line;          /* of the section header */
        char *why;              /* "default collectors export no numa_* of /proc/vmstat" */
        /* arg: an option whose value is a regex over field names
         * ("--collector.vmstat.fields"); arg_default when absent.
         * arg_syntax: whose regex it is: "re2" (Go's regexp: judged only
         * within what RE2 and POSIX read alike, else counts) or "posix-ere".
         * arg_files: arguments "@FILE" name files of further arguments, one
         * a line, '#' lines skipped (Go's kingpin). */
        char *arg, *arg_default, *arg_syntax;
        bool arg_files;
        /* override_args: options (space-separated) that override the
         * configuration from the command line (netdata's -W): present,
         * the reads count. */
        char *override_args;
        /* config: a file, in the process's root, that decides: reads need
         * no counting only if [config_section] config_key = config_value
         * there. config_arg: an option that names another config file. */
        char *config, *config_arg, *config_section, *config_key, *config_value;
        /* config_forbids: a POSIX ERE: reads need no counting only if no
         * line of the config (and of config_dir's *.conf files) matches it
         * (Telegraf's [[inputs.kernel_vmstat]]), in place of
         * config_section/key/value. config_arg may name alternatives
         * ("--config -config"); config_arg_required: without it on the
         * command line (the program would look elsewhere), the reads
         * count; given twice (the program reads both), they count.
         * config_dir, config_dir_arg: likewise, a directory;
         * config_dir_recursive, config_dir_hidden: its subdirectories too
         * (but those named "..*", Kubernetes' mounts), and its names that
         * start with '.', as Telegraf walks its --config-directory;
         * config_dir_names: in place of *.conf, these files of it
         * (space-separated; one missing has no lines), as the Checkmk
         * agent reads /etc/check_mk; config_dir_suffixes: in place of
         * *.conf, names ending so (Vector's .yaml .yml .toml .json);
         * config_dir_follow: links to directories walked too (Vector's
         * is_dir()); config_dir_beside: in place of config_dir, the
         * directory of the config file the process names (Fluent Bit's
         * plugins_file beside its -c file). config_dir may go without
         * config.
         * config_environment: the program replaces ${VAR} and $VAR in
         * its configuration from its environment: the lines are checked
         * as written and as replaced.
         * config_positional: a subcommand ("run"): the config is the one
         * word after it that is not an option (Alloy's "alloy run FILE"). */
        /* config_dir_holds: options (space-separated) whose every value
         * must name a file below config_dir, which is walked in their
         * place (the CloudWatch agent's -config, -otelconfig).
         * config_dir_glob: in place of *.conf, the files a glob relative to
         * the directory matches, as Go's filepath.Glob (a leading dot
         * matched by *; Metricbeat's modules.d/\*.yml below its
         * --path.config). config_dir_arg_required: a command line that does
         * not name the directory counts.
         * config_allows: a POSIX ERE: lines it matches are not judged by
         * config_forbids (the one line that names Metricbeat's modules). */
        char *config_forbids, *config_allows, *config_dir, *config_dir_arg, *config_dir_names, *config_dir_suffixes,
                *config_dir_glob, *config_dir_holds, *config_positional;
        bool config_arg_required, config_dir_arg_required, config_dir_recursive, config_dir_hidden,
                config_dir_follow, config_dir_beside, config_environment;
        /* What else may run in the process, for a program that loads code
         * it does not ship (Datadog's checks):
         * absent: paths, the last component a glob (dot names never
         * match), of which nothing may be in the process's root;
         * installed, installed_list, installed_root: every entry of the
         * directories installed names (a glob in one component) must be a
         * line of installed_list, as "./" and its path below
         * installed_root (what the package put there), __pycache__ aside;
         * environ_forbids: a POSIX ERE no variable of the process's
         * environment ("NAME=value", one a line) may match. */
        char **absent;          /* strv */
        char *installed, *installed_list, *installed_root, *environ_forbids;
} KnownFile;

typedef struct KnownExe {
        char *path;             /* absolute: on the host, or inside the process's root */
        unsigned line;
        bool has_id;            /* stat() on the daemon's root found it (known-load.c) */
        uint64_t dev, ino;
} KnownExe;

/* How an interpreter takes its script (the first script argument). */
typedef enum ScriptSyntax {
        SCRIPT_SYNTAX_PYTHON,
        SCRIPT_SYNTAX_PERL,
        SCRIPT_SYNTAX_SHELL,
        _SCRIPT_SYNTAX_MAX,
        _SCRIPT_SYNTAX_INVALID = -EINVAL,
} ScriptSyntax;

/* By the interpreter's file name: python*, perl*, sh, dash, bash. */
ScriptSyntax script_syntax_of(const char *interpreter_path);

/* The index in argv (n words, argv[0] the interpreter) of the script the
 * interpreter runs: the first word that is not an option or an option's
 * argument. -1 when it runs none (-c CODE, -m MODULE, -e CODE, a script on
 * its standard input) or the command line is not one it can tell: such a
 * reader is no script's. */
int script_argument(ScriptSyntax syntax, char * const *argv, size_t n);

typedef struct KnownReader {
        char *name;             /* the file name without ".conf" */
        char *source;           /* the file it was read from */
        char *description, *evidence;
        char *counts;           /* why reads not covered by a [file] count ("default pmlogger config logs ...") */
        char *advice;           /* how a counting reader stops needing the counters */
        KnownExe *exes;
        size_t n_exes;
        /* A program an interpreter runs: the interpreter is one of these,
         * and its script argument (script_argument()) is one of those, by
         * device and inode in the process's root. */
        KnownExe *scripts, *interpreters;
        size_t n_scripts, n_interpreters;
        /* Generic programs (a shell, awk) it runs: their reads of its
         * [file] files are judged by this entry when it is the first
         * program above them that is not one of these (read_judge()'s
         * ancestry). */
        KnownExe *children;
        size_t n_children;
        KnownFile *files;
        size_t n_files;
} KnownReader;

typedef struct Catalogue {
        KnownReader *readers;
        size_t n;
        char **masked;          /* names masked by an empty file */
        char **dirs;            /* where it was looked for, highest precedence first */
        char **unreadable;      /* "DIR: why" for each of dirs that could not be read */
} Catalogue;

/* Parses one entry; name is its file name without ".conf", path names it
 * in messages. An entry must name at least one exe. Returns 0 or a
 * negative errno with *ret_error = "PATH:LINE: why" (malloc'd). */
int known_reader_parse(FILE *f, const char *path, const char *name, KnownReader *ret, char **ret_error);
void known_reader_done(KnownReader *k);
void catalogue_done(Catalogue *c);

/* The file section of k that covers path, or NULL. */
const KnownFile *known_reader_file(const KnownReader *k, const char *path);

/* The value of the last "OPTION=VALUE" or "OPTION VALUE" in argv (n
 * words), or NULL. */
const char *argv_option(char * const *argv, size_t n, const char *option);

/* Tests regex (POSIX extended, unanchored search like Go's MatchString)
 * against the six counter names: 0 if none matches, 1 if one does (its
 * name in *ret_name), -EINVAL if it does not compile, -E2BIG if it is too
 * complex to trust glibc's matcher with (longer than NUMA_REGEX_MAX bytes,
 * a bounded repetition {n,m}, or a back-reference): either counts. */
#define NUMA_REGEX_MAX 256
int numa_regex_matches(const char *regex, const char **ret_name);

/* A value from a netdata-style configuration (netdata.conf): "[section]",
 * "name = value", '#' comments, every line stripped (netdata's own
 * appconfig rules; inih would take its tab-indented keys for continuation
 * lines). Returns 1 and *ret_value (malloc'd) if set, 0 if not, -EINVAL
 * if a line is neither, -ENOMEM. */
int netdata_conf_get(const char *text, const char *section, const char *key, char **ret_value);

/* What the process's own facts say about a read of a file section.
 * argv: its command line (n words), NULL if unreadable; config_text: the
 * config file's contents, NULL if unreadable (config_error says why). */
typedef struct KnownFacts {
        char **argv;                    /* with arg_files, expanded */
        size_t argc;
        const char *arg_file_unread;    /* an "@FILE" that could not be read (argv is then NULL) */
        const char *config_path;        /* the config file as the process names it */
        const char *config_text;
        int config_error;               /* why config_text is NULL (negative errno) */
        const char *config_dir_path;    /* config_dir as the process names it */
        const char *config_dir_text;    /* its *.conf files, one after another; NULL: unreadable */
        const char *absent_found;       /* the absent= path something in its root matched */
        const char *absent_unread;      /* an absent= path whose directory cannot be read */
        int installed_result;           /* 0: all listed, 1: an entry the list lacks, negative errno: unknown */
        const char *environ_text;       /* one variable a line; NULL: unreadable */
} KnownFacts;

/* Whether f's reads need a look at the process (its command line, files,
 * environment) before they are judged; and whether what it looks at
 * includes files, which may change while the process runs. */
bool known_file_conditional(const KnownFile *f);
bool known_file_reads_files(const KnownFile *f);

/* Whether a read of f by a process with these facts counts, with why
 * (written to buf: "counts: --collector.vmstat.fields matches numa_hit" or
 * f's why). Facts that cannot be read count. */
bool known_file_counts(const KnownFile *f, const KnownFacts *facts, char *buf, size_t size);

/* Whether regex is within what Go's RE2 and POSIX ERE (glibc) read alike
 * for matching the six counter names: ASCII letters, digits and '_',
 * ". * + ? | ( ) ^ $", and bracket expressions of those letters, digits,
 * '_' and ranges ('^' first negates). No backslash, '{', "(?" flags,
 * "[:class:]", a quantifier with nothing before it, or non-ASCII. */
bool regex_in_common_subset(const char *regex);

/* Expands kingpin's argument files in argv (n words; replaced): each word
 * "@FILE" is replaced by FILE's lines but those starting with '#', read by
 * read_arg_file(path, &text, userdata), again in what it gave, at most 8 deep and
 * 4096 words. A FILE that is not absolute, or cannot be read: -ENOENT,
 * with it in *ret_unread (a pointer into argv's old words, valid until
 * they are freed; argv unchanged). */
typedef int (*ArgFileReader)(const char *path, char **ret, void *userdata);
int known_expand_arg_files(char ***argv, size_t *n, ArgFileReader read_arg_file, void *userdata,
                           const char **ret_unread);

/* The config file that decides for f: config_arg's value, else config. */
const char *known_file_config_path(const KnownFile *f, char * const *argv, size_t argc);
/* The directory that decides for f too: config_dir_arg's value, else
 * config_dir; with config_dir_beside, the config file whose directory it
 * is; NULL if the program reads none. */
const char *known_file_config_dir(const KnownFile *f, char * const *argv, size_t argc);
/* How often argv gives one of options (space-separated alternatives), and
 * the last value. */
size_t argv_options(char * const *argv, size_t n, const char *options, const char **ret_value);
/* The words after subcommand (argv[1]) that are not options: how many
 * (*ret_value the first), -ENOENT if argv[1] is not subcommand, -EINVAL if
 * an option is given as two words (which word is its value and which the
 * positional cannot be told without knowing every option). */
int argv_positional(char * const *argv, size_t n, const char *subcommand, const char **ret_value);
