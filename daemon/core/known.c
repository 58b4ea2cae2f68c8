/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Judging by an entry: what its conditions say of a process's command line
 * and configuration (known_file_counts()), and the readers of options,
 * regexes and configuration files they use. The entry format is
 * known-entry.c's. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-vars.h"
#include "known.h"
#include "macro.h"
#include "strutil.h"

static const char *const numa_counters[] = { NUMA_COUNTER_NAMES };

const char *argv_option(char * const *argv, size_t n, const char *option) {
        const char *value;

        /* The last one wins, as with Go's kingpin and most parsers. */
        (void) argv_options(argv, n, option, &value);
        return value;
}

/* What glibc's regcomp() cannot be trusted with, when another user chose
 * the text (a reader's command line): it copies the operand of every "+"
 * and "{n,m}", so nesting them grows the automaton exponentially (the
 * fuzzer found "numa_+++…+" taking 2 GiB and minutes); a back-reference
 * matches in exponential time. Refused: more than NUMA_REGEX_MAX bytes,
 * any "{", a back-reference, a quantifier right after another, and a "+"
 * on a group that holds one. What a collector's field filter needs
 * ("^(numa_|pg).*", "(pgpg|pswp)+") stays. */
static bool regex_too_complex(const char *regex) {
        bool plus_in[NUMA_REGEX_MAX + 2] = {};  /* per open group: a "+" inside */
        bool after_quantifier = false, atom_has_plus = false;
        size_t depth = 0;

        if (strlen(regex) > NUMA_REGEX_MAX)
                return true;
        for (const char *p = regex; *p; p++)
                switch (*p) {
                case '{':
                        return true;
                case '\\':
                        if (p[1] >= '1' && p[1] <= '9')
                                return true;
                        if (p[1])
                                p++;
                        after_quantifier = atom_has_plus = false;
                        break;
                case '[':
                        /* A bracket expression: "]" first is a member. */
                        p += p[1] == '^' ? 2 : 1;
                        if (*p == ']')
                                p++;
                        while (*p && *p != ']')
                                p++;
                        if (!*p)
                                return false;   /* regcomp() refuses it */
                        after_quantifier = atom_has_plus = false;
                        break;
                case '(':
                        plus_in[++depth] = false;
                        after_quantifier = atom_has_plus = false;
                        break;
                case ')':
                        atom_has_plus = depth > 0 && plus_in[depth];
                        if (depth > 0) {
                                depth--;
                                plus_in[depth] = plus_in[depth] || atom_has_plus;
                        }
                        after_quantifier = false;
                        break;
                case '+':
                        if (after_quantifier || atom_has_plus)
                                return true;
                        plus_in[depth] = true;
                        after_quantifier = true;
                        break;
                case '*':
                case '?':
                        if (after_quantifier)
                                return true;
                        after_quantifier = true;
                        break;
                default:
                        after_quantifier = atom_has_plus = false;
                }
        return false;
}

int numa_regex_matches(const char *regex, const char **ret_name) {
        regex_t re;

        if (regex_too_complex(regex))
                return -E2BIG;
        if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(numa_counters); i++)
                if (regexec(&re, numa_counters[i], 0, NULL, 0) == 0) {
                        regfree(&re);
                        if (ret_name)
                                *ret_name = numa_counters[i];
                        return 1;
                }
        regfree(&re);
        return 0;
}

int netdata_conf_get(const char *text, const char *section, const char *key, char **ret_value) {
        _cleanup_free_ char *copy = strdup(text), *value = NULL;
        bool in_section = false;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        /* strtok_r() skips empty lines, which netdata skips too. */
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq;

                strstrip(line);
                if (line[0] == '\0' || line[0] == '#')
                        continue;
                if (line[0] == '[') {
                        size_t n = strlen(line);
                        if (n < 2 || line[n - 1] != ']')
                                return -EINVAL;
                        line[n - 1] = '\0';
                        in_section = streq(strstrip(line + 1), section);
                        continue;
                }
                eq = strchr(line, '=');
                if (!eq)
                        return -EINVAL;
                *eq = '\0';
                if (in_section && streq(strstrip(line), key)) {
                        free(value);
                        value = strdup(strstrip(eq + 1));       /* the last one wins */
                        if (!value)
                                return -ENOMEM;
                }
        }
        if (!value)
                return 0;
        *ret_value = TAKE_PTR(value);
        return 1;
}

/* Whether argv[*i] is one of options (space-separated), as "OPT=value" or
 * "OPT value": its value in *ret_value (NULL if it is the last word and
 * has none), *i moved past it. */
static bool option_at(char * const *argv, size_t n, size_t *i, const char *options, const char **ret_value) {
        for (const char *o = options; *o; o += strspn(o, " ")) {
                size_t l = strcspn(o, " ");
                const char *a = argv[*i];

                if (l > 0 && strncmp(a, o, l) == 0 && (a[l] == '=' || a[l] == '\0')) {
                        *ret_value = a[l] == '=' ? a + l + 1 : *i + 1 < n ? argv[++*i] : NULL;
                        return true;
                }
                o += l;
        }
        return false;
}

size_t argv_options(char * const *argv, size_t n, const char *options, const char **ret_value) {
        size_t count = 0;
        const char *v;

        *ret_value = NULL;
        for (size_t i = 0; argv && i < n; i++)
                if (option_at(argv, n, &i, options, &v) && v) {
                        *ret_value = v;
                        count++;
                }
        return count;
}

/* Whether every value of options on the command line names a file below
 * dir, by its absolute path, no ".." in it (a last word without one
 * names none). */
static bool argv_values_below(char * const *argv, size_t n, const char *options, const char *dir) {
        size_t dl = strlen(dir);
        const char *v;

        for (size_t i = 0; i < n; i++)
                if (option_at(argv, n, &i, options, &v)) {
                        size_t vl = v ? strlen(v) : 0;

                        if (!v || strncmp(v, dir, dl) != 0 || v[dl] != '/' || strstr(v, "/../") ||
                            (vl >= 3 && streq(v + vl - 3, "/..")))
                                return false;
                }
        return true;
}

int argv_positional(char * const *argv, size_t n, const char *subcommand, const char **ret_value) {
        bool options_end = false;
        int count = 0;

        *ret_value = NULL;
        if (!argv || n < 2 || !streq(argv[1], subcommand))
                return -ENOENT;
        for (size_t i = 2; i < n; i++) {
                if (!options_end && streq(argv[i], "--")) {
                        options_end = true;
                        continue;
                }
                if (!options_end && argv[i][0] == '-' && argv[i][1] != '\0') {
                        if (!strchr(argv[i], '='))
                                return -EINVAL;
                        continue;
                }
                if (count++ == 0)
                        *ret_value = argv[i];
        }
        return count;
}

const char *known_file_config_path(const KnownFile *f, char * const *argv, size_t argc) {
        const char *p = NULL;

        if (!f->config)
                return NULL;
        if (f->config_positional && argv)
                (void) argv_positional(argv, argc, f->config_positional, &p);
        else if (f->config_arg && argv)
                (void) argv_options(argv, argc, f->config_arg, &p);
        /* A program with no directory of its own that is given one and
         * no file loads no file (Vector's --config-dir). */
        if (!p && !f->config_dir && !f->config_dir_beside && known_file_config_dir(f, argv, argc))
                return NULL;
        return p ?: f->config;
}

const char *known_file_config_dir(const KnownFile *f, char * const *argv, size_t argc) {
        const char *p = NULL;

        if (f->config_dir_beside)
                return known_file_config_path(f, argv, argc);

        if (f->config_dir_arg && argv)
                (void) argv_options(argv, argc, f->config_dir_arg, &p);
        return p ?: f->config_dir;
}

/* Whether text has a line the ERE matches (1), none (0), or -EINVAL. */
static int text_has_line(const char *text, const char *ere) {
        regex_t re;
        int r;

        if (regcomp(&re, ere, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
                return -EINVAL;
        r = regexec(&re, text, 0, NULL, 0) == 0;
        regfree(&re);
        return r;
}

/* The same, but a line allows matches (allows NULL: none) is not judged. */
static int text_has_line_but(const char *text, const char *ere, const char *allows) {
        regex_t re, allowed;
        int r = 0;

        if (!allows)
                return text_has_line(text, ere);
        if (regcomp(&re, ere, REG_EXTENDED | REG_NOSUB) != 0)
                return -EINVAL;
        if (regcomp(&allowed, allows, REG_EXTENDED | REG_NOSUB) != 0) {
                regfree(&re);
                return -EINVAL;
        }
        for (const char *p = text; r == 0 && *p; p += strcspn(p, "\n"), p += *p == '\n') {
                _cleanup_free_ char *line = strndup(p, strcspn(p, "\n"));

                if (!line)
                        r = -ENOMEM;
                else if (regexec(&allowed, line, 0, NULL, 0) != 0 && regexec(&re, line, 0, NULL, 0) == 0)
                        r = 1;
        }
        regfree(&allowed);
        regfree(&re);
        return r;
}

static bool verdict(bool counts, char *buf, size_t size, const char *fmt, ...) _printf_(4, 5);
static bool verdict(bool counts, char *buf, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return counts;
}

/* The first of options (space-separated) on the command line: as a word,
 * as "--long=value", or as a short option with its value attached. */
static const char *override_on(const char *options, char * const *argv, size_t n) {
        static char found[64];
        const char *p = options;

        while (*p) {
                size_t l = strcspn(p, " ");

                for (size_t i = 1; l > 0 && i < n; i++)
                        if (strncmp(argv[i], p, l) == 0 &&
                            (argv[i][l] == '\0' || argv[i][l] == '=' || (l == 2 && p[0] == '-' && p[1] != '-'))) {
                                snprintf(found, sizeof found, "%.*s", (int) l, p);
                                return found;
                        }
                p += l;
                p += strspn(p, " ");
        }
        return NULL;
}

bool known_file_reads_files(const KnownFile *f) {
        return f->config || f->config_dir || f->config_dir_arg || f->arg_files || f->absent || f->installed;
}

bool known_file_conditional(const KnownFile *f) {
        return f->arg || f->override_args || f->environ_forbids || known_file_reads_files(f);
}

/* A file a why may name: the entry's own path, else the option that named
 * another. Whatever the process's command line says (its values may come
 * from a file it named, read as it) is never repeated. */
static const char *file_named(const char *path, const char *dflt, const char *how, char *buf, size_t size) {
        if (!path || streq_ptr(path, dflt))
                return dflt;
        snprintf(buf, size, "the file its command line names (%s)", how);
        return buf;
}

static const char *config_named(const KnownFile *f, const KnownFacts *facts, char *buf, size_t size) {
        char how[64];

        if (f->config_positional)
                snprintf(how, sizeof how, "after '%s'", f->config_positional);
        else
                snprintf(how, sizeof how, "%s", f->config_arg ?: "?");
        return file_named(facts->config_path, f->config, how, buf, size);
}

bool known_file_counts(const KnownFile *f, const KnownFacts *facts, char *buf, size_t size) {
        char named[128];
        const char *o;

        if (facts->arg_file_unread)
                return verdict(true, buf, size, "counts: an argument file (@FILE) on its command line cannot be read");
        if (f->override_args) {
                if (!facts->argv)
                        return verdict(true, buf, size, "counts: its command line cannot be read to check %s",
                                       f->override_args);
                o = override_on(f->override_args, facts->argv, facts->argc);
                if (o)
                        return verdict(true, buf, size, "counts: %s on its command line overrides what is checked", o);
        }
        if (f->arg) {
                const char *value = facts->argv ? argv_option(facts->argv, facts->argc, f->arg) : NULL, *name = NULL;
                int r;

                if (!facts->argv)
                        return verdict(true, buf, size, "counts: its command line cannot be read to check %s", f->arg);
                if (streq_ptr(f->arg_syntax, "re2") && !regex_in_common_subset(value ?: f->arg_default ?: ""))
                        return verdict(true, buf, size,
                                       "counts: %s uses what Go's RE2 and POSIX may read differently (a backslash, "
                                       "{, a class or a flag)", f->arg);
                r = numa_regex_matches(value ?: f->arg_default ?: "", &name);
                if (r == -E2BIG)
                        return verdict(true, buf, size,
                                       "counts: %s is too complex to check (over %d bytes, {n,m}, nested + or a back-reference)",
                                       f->arg, NUMA_REGEX_MAX);
                if (r < 0)
                        return verdict(true, buf, size, "counts: %s is not a regular expression we can check", f->arg);
                if (r > 0)
                        return verdict(true, buf, size, "counts: %s matches %s", f->arg, name);
        }
        if (facts->absent_unread)
                return verdict(true, buf, size, "counts: %s cannot be read", facts->absent_unread);
        if (facts->absent_found)
                return verdict(true, buf, size, "counts: something in its root matches %s", facts->absent_found);
        if (f->installed && facts->installed_result > 0)
                return verdict(true, buf, size, "counts: %s holds what %s does not list", f->installed,
                               f->installed_list);
        if (f->installed && facts->installed_result < 0)
                return verdict(true, buf, size, "counts: %s or %s cannot be read", f->installed, f->installed_list);
        if (f->environ_forbids && !facts->environ_text)
                return verdict(true, buf, size, "counts: its environment cannot be read");
        if (f->environ_forbids && text_has_line(facts->environ_text, f->environ_forbids) != 0)
                return verdict(true, buf, size, "counts: a variable of its environment matches the entry's environ_forbids=");
        if (f->config_forbids) {
                /* The file and the directory's files, each "" if the program loads none. */
                const char *texts[] = {
                        known_file_config_path(f, facts->argv, facts->argc) ? facts->config_text : "",
                        known_file_config_dir(f, facts->argv, facts->argc) ? facts->config_dir_text : "",
                };
                const char *v;

                if (f->config_arg && (!facts->argv || argv_options(facts->argv, facts->argc, f->config_arg, &v) > 1 ||
                                      (f->config_arg_required && !v)))
                        return verdict(true, buf, size, "counts: its command line does not name one config (%s)",
                                       f->config_arg);
                if (f->config_dir_holds && (!facts->argv || !argv_values_below(facts->argv, facts->argc,
                                                                                 f->config_dir_holds, f->config_dir)))
                        return verdict(true, buf, size, "counts: its command line names a configuration outside %s",
                                       f->config_dir);
                if (f->config_positional &&
                    (!facts->argv || argv_positional(facts->argv, facts->argc, f->config_positional, &v) != 1))
                        return verdict(true, buf, size,
                                       "counts: its command line does not name one config after '%s' (options as "
                                       "--name=value)",
                                       f->config_positional);
                if (f->config_dir_arg && (!facts->argv ||
                                          argv_options(facts->argv, facts->argc, f->config_dir_arg, &v) > 1))
                        return verdict(true, buf, size, "counts: its command line names more than one %s",
                                       f->config_dir_arg);
                if (f->config_dir_arg_required && !v)
                        return verdict(true, buf, size, "counts: its command line names no %s", f->config_dir_arg);
                if (!texts[0])
                        return verdict(true, buf, size, "counts: %s cannot be read",
                                       config_named(f, facts, named, sizeof named));
                if (!texts[1])
                        return verdict(true, buf, size, "counts: %s cannot be read",
                                       file_named(facts->config_dir_path, f->config_dir,
                                                  f->config_dir_arg ?: f->config_arg ?: "?", named, sizeof named));
                for (size_t i = 0; i < ELEMENTSOF(texts); i++)
                        if (text_has_line_but(texts[i], f->config_forbids, f->config_allows) != 0)
                                /* known-readers shows the regex: too long for a why. */
                                return verdict(true, buf, size,
                                               "counts: a line of its configuration matches the entry's config_forbids=");
                if (f->config_environment && !facts->environ_text)
                        return verdict(true, buf, size,
                                       "counts: its environment, which its configuration's variables come from, "
                                       "cannot be read");
                for (size_t i = 0; f->config_environment && i < ELEMENTSOF(texts); i++) {
                        _cleanup_free_ char *replaced = NULL;

                        if (config_vars_expand(texts[i], facts->environ_text, &replaced) < 0)
                                return verdict(true, buf, size,
                                               "counts: its configuration's variables are too many or too deep to "
                                               "replace");
                        if (text_has_line_but(replaced, f->config_forbids, f->config_allows) != 0)
                                return verdict(true, buf, size,
                                               "counts: a line of its configuration, its variables replaced from its "
                                               "environment, matches the entry's config_forbids=");
                }
                return verdict(false, buf, size, "%s", f->why);
        }
        if (f->config) {
                _cleanup_free_ char *value = NULL;
                const char *path = config_named(f, facts, named, sizeof named);
                int r;

                /* Whatever the file holds, or why it could not be read
                 * (missing, not the reader's to read, not a regular file),
                 * is not told: only whether it sets the key. */
                if (!facts->config_text)
                        return verdict(true, buf, size, "counts: %s cannot be read", path);
                r = netdata_conf_get(facts->config_text, f->config_section, f->config_key, &value);
                if (r <= 0 || !streq(value, f->config_value))
                        return verdict(true, buf, size, "counts: %s does not set [%s] %s = %s", path,
                                       f->config_section, f->config_key, f->config_value);
        }
        return verdict(false, buf, size, "%s", f->why);
}

bool regex_in_common_subset(const char *regex) {
        /* What may come before a quantifier: an atom (a literal, '.', ')'
         * or a bracket expression), never '(' '|' '^' or the start. */
        bool atom_before = false;

        for (const char *p = regex; *p; p++) {
                char c = *p;

                if (c == '[') {
                        p++;
                        if (*p == '^')
                                p++;
                        if (*p == ']' || *p == '\0')
                                return false;   /* a literal ']' first, or unclosed */
                        for (; *p != ']'; p++)
                                if (*p == '\0' || !(ascii_word_char(*p) || *p == '-'))
                                        return false;
                        atom_before = true;
                } else if (c == '*' || c == '+' || c == '?') {
                        if (!atom_before)
                                return false;
                        atom_before = false;    /* none right after another */
                } else if (c == '(' || c == '|' || c == '^') {
                        atom_before = false;
                } else if (c == ')' || c == '.' || c == '$' || ascii_word_char(c)) {
                        atom_before = true;
                } else
                        return false;
        }
        return true;
}

#define ARG_FILES_DEPTH 8
#define ARG_FILES_WORDS 4096

static int expand_into(char ***out, size_t *n_out, char * const *argv, size_t n, ArgFileReader read_arg_file,
                       void *userdata, unsigned depth, const char **ret_unread) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *text = NULL;
                _cleanup_strv_free_ char **lines = NULL;
                size_t n_lines = 0;
                char *line, *save = NULL;
                int r;

                if (argv[i][0] != '@' || (depth == 0 && i == 0)) {
                        if (*n_out >= ARG_FILES_WORDS)
                                return -E2BIG;
                        r = strv_extend(out, argv[i]);
                        if (r < 0)
                                return r;
                        (*n_out)++;
                        continue;
                }
                /* Relative to a cwd we do not follow; too deep; unreadable. */
                if (argv[i][1] != '/' || depth >= ARG_FILES_DEPTH || read_arg_file(argv[i] + 1, &text, userdata) < 0) {
                        *ret_unread = argv[i] + 1;
                        return -ENOENT;
                }
                for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                        if (line[0] == '#')
                                continue;
                        r = strv_extend(&lines, line);
                        if (r < 0)
                                return r;
                        n_lines++;
                }
                r = expand_into(out, n_out, lines, n_lines, read_arg_file, userdata, depth + 1, ret_unread);
                if (r == -ENOENT || r == -E2BIG) {
                        /* A name inside lines would be freed here: this file's instead. */
                        *ret_unread = argv[i] + 1;
                        return -ENOENT;
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

int known_expand_arg_files(char ***argv, size_t *n, ArgFileReader read_arg_file, void *userdata,
                           const char **ret_unread) {
        _cleanup_strv_free_ char **out = NULL;
        size_t n_out = 0;
        int r;

        r = expand_into(&out, &n_out, *argv, *n, read_arg_file, userdata, 0, ret_unread);
        if (r == -E2BIG) {
                *ret_unread = "(more than 4096 words)";
                return -ENOENT;
        }
        if (r < 0)
                return r;
        strv_free(*argv);
        *argv = TAKE_PTR(out);
        *n = n_out;
        return 0;
}

ScriptSyntax script_syntax_of(const char *interpreter_path) {
        const char *base = strrchr(interpreter_path, '/');

        base = base ? base + 1 : interpreter_path;
        if (startswith(base, "python"))
                return SCRIPT_SYNTAX_PYTHON;
        if (startswith(base, "perl"))
                return SCRIPT_SYNTAX_PERL;
        if (streq(base, "sh") || streq(base, "dash") || streq(base, "bash"))
                return SCRIPT_SYNTAX_SHELL;
        return _SCRIPT_SYNTAX_INVALID;
}

/* A word of options: whether it means code from elsewhere (no script), and
 * whether its last option takes the next word as its argument. Options
 * not listed for the syntax are taken as flags. */
typedef struct OptionWord {
        bool no_script, takes_next;
} OptionWord;

static OptionWord option_word(ScriptSyntax syntax, const char *w) {
        /* Letters that run code not from a script, and letters whose
         * argument is the next word when nothing follows them in w. */
        static const char *const code[_SCRIPT_SYNTAX_MAX] = { "cm", "eE", "cs" },
                                 *arg_next[_SCRIPT_SYNTAX_MAX] = { "WXQ", "IMm", "o" };
        OptionWord o = {};
        size_t len = strlen(w);

        if (w[0] == '-' && w[1] == '-') {
                /* Long options: perl has none; python's and bash's are
                 * flags but these, which take the next word. */
                o.no_script = syntax == SCRIPT_SYNTAX_PERL;
                o.takes_next = streq(w, "--check-hash-based-pycs") || streq(w, "--rcfile") ||
                               streq(w, "--init-file");
                return o;
        }
        for (size_t i = 1; i < len; i++) {
                if (strchr(code[syntax], w[i]))
                        o.no_script = true;
                /* perl's -I, -M, -m and python's -W, -X take the rest of
                 * the word as their value: the letters after it are not options. */
                if (strchr(arg_next[syntax], w[i])) {
                        o.takes_next = i + 1 == len;
                        break;
                }
        }
        return o;
}

int script_argument(ScriptSyntax syntax, char * const *argv, size_t n) {
        if (syntax < 0 || syntax >= _SCRIPT_SYNTAX_MAX || !argv)
                return -1;
        for (size_t i = 1; i < n; i++) {
                const char *w = argv[i];
                OptionWord o;

                if (streq(w, "--"))
                        return i + 1 < n ? (int) (i + 1) : -1;
                if (streq(w, "-"))
                        return -1;      /* the script on its standard input */
                if (w[0] != '-' && !(syntax == SCRIPT_SYNTAX_SHELL && w[0] == '+'))
                        return (int) i;
                o = option_word(syntax, w);
                if (o.no_script)
                        return -1;
                if (o.takes_next)
                        i++;
        }
        return -1;
}
