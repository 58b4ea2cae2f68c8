/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf(), vasprintf() */
#endif

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini-file.h"
#include "known.h"
#include "macro.h"
#include "strutil.h"

/* Far more than any program needs; a file is data an admin may get wrong. */
#define KNOWN_EXES_MAX 16
#define KNOWN_FILES_MAX 16

static const char *const numa_counters[] = { NUMA_COUNTER_NAMES };

static void known_file_done(KnownFile *f) {
        free(f->glob);
        free(f->why);
        free(f->arg);
        free(f->arg_default);
        free(f->arg_syntax);
        free(f->override_args);
        free(f->config);
        free(f->config_arg);
        free(f->config_section);
        free(f->config_key);
        free(f->config_value);
        free(f->config_forbids);
        free(f->config_dir);
        free(f->config_dir_arg);
        free(f->config_positional);
        strv_free(f->absent);
        free(f->installed);
        free(f->installed_list);
        free(f->installed_root);
        free(f->environ_forbids);
        *f = (KnownFile) {};
}

void known_reader_done(KnownReader *k) {
        if (!k)
                return;
        free(k->name);
        free(k->source);
        free(k->description);
        free(k->evidence);
        free(k->counts);
        free(k->advice);
        for (size_t i = 0; i < k->n_exes; i++)
                free(k->exes[i].path);
        free(k->exes);
        for (size_t i = 0; i < k->n_scripts; i++)
                free(k->scripts[i].path);
        free(k->scripts);
        for (size_t i = 0; i < k->n_interpreters; i++)
                free(k->interpreters[i].path);
        free(k->interpreters);
        for (size_t i = 0; i < k->n_children; i++)
                free(k->children[i].path);
        free(k->children);
        for (size_t i = 0; i < k->n_files; i++)
                known_file_done(&k->files[i]);
        free(k->files);
        *k = (KnownReader) {};
}

void catalogue_done(Catalogue *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n; i++)
                known_reader_done(&c->readers[i]);
        free(c->readers);
        strv_free(c->masked);
        strv_free(c->dirs);
        strv_free(c->unreadable);
        *c = (Catalogue) {};
}

typedef struct EntryState {
        KnownReader *k;
        KnownFile *file;        /* the [file] section being read, NULL in [reader] */
} EntryState;

static int entry_section(void *userdata, const char *section, unsigned line, char **reason) {
        EntryState *st = userdata;
        const char *glob;
        KnownFile *a;

        if (streq(section, "reader")) {
                st->file = NULL;
                return 0;
        }
        glob = startswith(section, "file ");
        if (!glob)
                return set_why(reason, -EINVAL, "[%s]: unknown section (expected [reader] or [file PATH])", section);
        glob += strspn(glob, " \t");
        if (glob[0] != '/')
                return set_why(reason, -EINVAL, "[%s]: '%s' is not an absolute path (glob)", section, glob);
        if (st->k->n_files >= KNOWN_FILES_MAX)
                return set_why(reason, -EINVAL, "[%s]: more than %d [file] sections", section, KNOWN_FILES_MAX);
        a = reallocarray(st->k->files, st->k->n_files + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        st->k->files = a;
        st->file = &a[st->k->n_files];
        *st->file = (KnownFile) { .glob = strdup(glob), .line = line };
        if (!st->file->glob)
                return -ENOMEM;
        st->k->n_files++;
        return 0;
}

static int set_once(char **field, const char *section, const char *key, const char *value, char **reason) {
        if (*field)
                return set_why(reason, -EINVAL, "[%s] %s: set twice", section, key);
        if (isempty(value))
                return set_why(reason, -EINVAL, "[%s] %s: empty value", section, key);
        *field = strdup(value);
        return *field ? 0 : -ENOMEM;
}

/* Prose keys may be repeated: each line adds to the text (lines are at
 * most 199 characters). */
static int append_text(char **field, const char *section, const char *key, const char *value, char **reason) {
        char *n;

        if (isempty(value))
                return set_why(reason, -EINVAL, "[%s] %s: empty value", section, key);
        if (!*field)
                n = strdup(value);
        else if (asprintf(&n, "%s %s", *field, value) < 0)
                n = NULL;
        if (!n)
                return -ENOMEM;
        free(*field);
        *field = n;
        return 0;
}

/* An exe=, script= or interpreter= path: absolute, at most KNOWN_EXES_MAX of each. */
static int add_path(KnownExe **list, size_t *n, const char *section, const char *key, const char *value,
                    unsigned line, char **reason) {
        KnownExe *a;

        if (value[0] != '/')
                return set_why(reason, -EINVAL, "[%s] %s: '%s' is not an absolute path", section, key, value);
        if (*n >= KNOWN_EXES_MAX)
                return set_why(reason, -EINVAL, "[%s] %s: more than %d", section, key, KNOWN_EXES_MAX);
        a = reallocarray(*list, *n + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        *list = a;
        a[*n] = (KnownExe) { .path = strdup(value), .line = line };
        if (!a[*n].path)
                return -ENOMEM;
        (*n)++;
        return 0;
}

static int entry_key(void *userdata, const char *section, const char *key, const char *value, unsigned line,
                     char **reason) {
        EntryState *st = userdata;
        KnownReader *k = st->k;
        KnownFile *f = st->file;

        if (!f) {
                if (streq(key, "exe"))
                        return add_path(&k->exes, &k->n_exes, section, key, value, line, reason);
                if (streq(key, "script"))
                        return add_path(&k->scripts, &k->n_scripts, section, key, value, line, reason);
                if (streq(key, "child"))
                        return add_path(&k->children, &k->n_children, section, key, value, line, reason);
                if (streq(key, "interpreter")) {
                        if (script_syntax_of(value) < 0)
                                return set_why(reason, -EINVAL,
                                               "[%s] interpreter: '%s': not python*, perl*, sh, dash or bash (how it "
                                               "takes a script is not known)",
                                               section, value);
                        return add_path(&k->interpreters, &k->n_interpreters, section, key, value, line, reason);
                }
                if (streq(key, "description"))
                        return append_text(&k->description, section, key, value, reason);
                if (streq(key, "evidence"))
                        return append_text(&k->evidence, section, key, value, reason);
                if (streq(key, "counts"))
                        return append_text(&k->counts, section, key, value, reason);
                if (streq(key, "advice"))
                        return append_text(&k->advice, section, key, value, reason);
                return set_why(reason, -EINVAL, "[%s] %s: unknown key", section, key);
        }

#define FILE_KEY(name)                                                          \
        if (streq(key, #name))                                                  \
                return set_once(&f->name, section, key, value, reason)
        FILE_KEY(why);
        FILE_KEY(arg);
        FILE_KEY(arg_default);
        FILE_KEY(arg_syntax);
        FILE_KEY(override_args);
        FILE_KEY(config_arg);
        FILE_KEY(config_section);
        FILE_KEY(config_key);
        FILE_KEY(config_value);
        FILE_KEY(config_dir_arg);
        FILE_KEY(config_positional);
#undef FILE_KEY
        if (streq(key, "absent")) {
                const char *last = strrchr(value, '/'), *glob = strpbrk(value, "*?[");

                if (value[0] != '/' || (glob && glob < last))
                        return set_why(reason, -EINVAL,
                                       "[%s] absent: '%s' is not an absolute path with a glob in its last component "
                                       "only",
                                       section, value);
                if (strv_length(f->absent) >= KNOWN_EXES_MAX)
                        return set_why(reason, -EINVAL, "[%s] absent: more than %d", section, KNOWN_EXES_MAX);
                return strv_extend(&f->absent, value);
        }
        if (streq(key, "installed") || streq(key, "installed_list") || streq(key, "installed_root")) {
                char **field = streq(key, "installed") ? &f->installed
                               : streq(key, "installed_list") ? &f->installed_list : &f->installed_root;

                if (value[0] != '/' || (field != &f->installed && strpbrk(value, "*?[")))
                        return set_why(reason, -EINVAL, "[%s] %s: '%s' is not an absolute path%s", section, key,
                                       value, field != &f->installed ? " without a glob" : "");
                return set_once(field, section, key, value, reason);
        }
        if (streq(key, "config_forbids") || streq(key, "environ_forbids")) {
                regex_t re;

                if (regcomp(&re, value, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
                        return set_why(reason, -EINVAL, "[%s] %s: '%s' does not compile (POSIX ERE)", section, key,
                                       value);
                regfree(&re);
                return set_once(streq(key, "config_forbids") ? &f->config_forbids : &f->environ_forbids, section,
                                key, value, reason);
        }
        if (streq(key, "config_dir")) {
                if (value[0] != '/')
                        return set_why(reason, -EINVAL, "[%s] config_dir: '%s' is not an absolute path", section, value);
                return set_once(&f->config_dir, section, key, value, reason);
        }
        if (streq(key, "config_arg_required")) {
                int b = parse_boolean(value);

                if (b < 0)
                        return set_why(reason, -EINVAL, "[%s] config_arg_required: '%s' is not a boolean", section,
                                       value);
                f->config_arg_required = b;
                return 0;
        }
        if (streq(key, "arg_files")) {
                int b = parse_boolean(value);

                if (b < 0)
                        return set_why(reason, -EINVAL, "[%s] arg_files: '%s' is not a boolean", section, value);
                f->arg_files = b;
                return 0;
        }
        if (streq(key, "config")) {
                if (value[0] != '/')
                        return set_why(reason, -EINVAL, "[%s] config: '%s' is not an absolute path", section, value);
                return set_once(&f->config, section, key, value, reason);
        }
        return set_why(reason, -EINVAL, "[%s] %s: unknown key", section, key);
}

/* Whether path is below dir, at a component boundary. */
static bool path_below(const char *path, const char *dir) {
        size_t n = strlen(dir);

        while (n > 1 && dir[n - 1] == '/')
                n--;
        return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* What the parser cannot check key by key: the keys that go together. */
static int entry_check(const KnownReader *k, const char *path, char **ret_error) {
        if (k->n_exes == 0 && k->n_scripts == 0)
                return set_why(ret_error, -EINVAL,
                               "%s: no exe= or script= in [reader]: a known reader is recognised by its executable, "
                               "or by the script an interpreter runs",
                               path);
        if ((k->n_scripts == 0) != (k->n_interpreters == 0))
                return set_why(ret_error, -EINVAL,
                               "%s: script= and interpreter= go together: the script is known only as one of these "
                               "interpreters runs it",
                               path);
        for (size_t i = 0; i < k->n_files; i++) {
                const KnownFile *f = &k->files[i];
                bool any_config = f->config || f->config_arg || f->config_section || f->config_key || f->config_value;

                if (!f->why)
                        return set_why(ret_error, -EINVAL, "%s:%u: [file %s]: no why= (what makes these reads need no counting)",
                                    path, f->line, f->glob);
                if ((f->arg_default || f->arg_syntax || f->arg_files) && !f->arg)
                        return set_why(ret_error, -EINVAL,
                                    "%s:%u: [file %s]: arg_default=, arg_syntax= or arg_files= without arg=", path,
                                    f->line, f->glob);
                if (f->arg && !f->arg_syntax)
                        return set_why(ret_error, -EINVAL,
                                    "%s:%u: [file %s]: arg= needs arg_syntax= (re2 or posix-ere: whose regex it is)",
                                    path, f->line, f->glob);
                if (f->arg_syntax && !streq(f->arg_syntax, "re2") && !streq(f->arg_syntax, "posix-ere"))
                        return set_why(ret_error, -EINVAL, "%s:%u: [file %s]: arg_syntax= '%s' is not re2 or posix-ere",
                                    path, f->line, f->glob, f->arg_syntax);
                if (f->arg_default && !f->arg)
                        return set_why(ret_error, -EINVAL, "%s:%u: [file %s]: arg_default= without arg=", path, f->line,
                                    f->glob);
                if (f->arg_default && numa_regex_matches(f->arg_default, NULL) != 0)
                        return set_why(ret_error, -EINVAL,
                                    "%s:%u: [file %s]: arg_default= '%s' matches a numa_* name or does not compile",
                                    path, f->line, f->glob, f->arg_default);
                bool keyed = f->config_section || f->config_key || f->config_value;

                if (f->config_forbids && keyed)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_forbids= or config_section=, config_key= and "
                                       "config_value=, not both",
                                       path, f->line, f->glob);
                if (f->config_forbids ? !f->config
                                      : any_config && !(f->config && f->config_section && f->config_key &&
                                                        f->config_value))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config= with config_section=, config_key= and config_value= "
                                       "(or config_forbids=) go together",
                                       path, f->line, f->glob);
                if ((f->config_dir || f->config_dir_arg || f->config_arg_required || f->config_positional) &&
                    !f->config_forbids)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir=, config_dir_arg=, config_arg_required= and "
                                       "config_positional= need config_forbids=",
                                       path, f->line, f->glob);
                if ((f->installed || f->installed_list || f->installed_root) &&
                    !(f->installed && f->installed_list && f->installed_root))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: installed=, installed_list= and installed_root= go together",
                                       path, f->line, f->glob);
                if (f->installed && !path_below(f->installed, f->installed_root))
                        return set_why(ret_error, -EINVAL, "%s:%u: [file %s]: installed= is not below installed_root=",
                                       path, f->line, f->glob);
                if (f->config_positional && (f->config_arg || f->config_arg_required))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_positional= or config_arg=, not both: the config is "
                                       "named one way",
                                       path, f->line, f->glob);
        }
        return 0;
}

int known_reader_parse(FILE *f, const char *path, const char *name, KnownReader *ret, char **ret_error) {
        _cleanup_(known_reader_done) KnownReader k = {};
        EntryState st = { .k = &k };
        int r;

        if (ret_error)
                *ret_error = NULL;
        k.name = strdup(name);
        k.source = strdup(path);
        if (!k.name || !k.source)
                return -ENOMEM;

        r = ini_file_parse(f, path, entry_section, entry_key, &st, ret_error);
        if (r < 0)
                return r;
        r = entry_check(&k, path, ret_error);
        if (r < 0)
                return r;

        *ret = k;
        k = (KnownReader) {};
        return 0;
}

const KnownFile *known_reader_file(const KnownReader *k, const char *path) {
        if (!k || !path)
                return NULL;
        for (size_t i = 0; i < k->n_files; i++)
                if (fnmatch(k->files[i].glob, path, FNM_PATHNAME) == 0)
                        return &k->files[i];
        return NULL;
}

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

size_t argv_options(char * const *argv, size_t n, const char *options, const char **ret_value) {
        size_t count = 0;

        *ret_value = NULL;
        for (size_t i = 0; argv && i < n; i++)
                for (const char *o = options; *o;) {
                        size_t l = strcspn(o, " ");

                        if (l > 0 && strncmp(argv[i], o, l) == 0 &&
                            (argv[i][l] == '=' || (argv[i][l] == '\0' && i + 1 < n))) {
                                *ret_value = argv[i][l] == '=' ? argv[i] + l + 1 : argv[++i];
                                count++;
                                break;
                        }
                        o += l + strspn(o + l, " ");
                }
        return count;
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
        return p ?: f->config;
}

const char *known_file_config_dir(const KnownFile *f, char * const *argv, size_t argc) {
        const char *p = NULL;

        if (!f->config_dir)
                return NULL;
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

static bool ascii_word_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
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
        return f->config || f->config_dir || f->arg_files || f->absent || f->installed;
}

bool known_file_conditional(const KnownFile *f) {
        return f->arg || f->override_args || f->environ_forbids || known_file_reads_files(f);
}

/* A file a why may name: the entry's own path, else the option that named
 * another. Whatever the process's command line says (its values may come
 * from a file it named, read as it) is never repeated. */
static const char *file_named(const char *path, const char *dflt, const char *how, char *buf, size_t size) {
        if (!path || streq(path, dflt))
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
        if (f->config && f->config_forbids) {
                const char *path = config_named(f, facts, named, sizeof named), *v;

                if (f->config_arg && (!facts->argv || argv_options(facts->argv, facts->argc, f->config_arg, &v) > 1 ||
                                      (f->config_arg_required && !v)))
                        return verdict(true, buf, size, "counts: its command line does not name one config (%s)",
                                       f->config_arg);
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
                if (!facts->config_text)
                        return verdict(true, buf, size, "counts: %s cannot be read", path);
                if (f->config_dir && !facts->config_dir_text)
                        return verdict(true, buf, size, "counts: %s cannot be read",
                                       file_named(facts->config_dir_path, f->config_dir, f->config_dir_arg ?: "?",
                                                  named, sizeof named));
                if (text_has_line(facts->config_text, f->config_forbids) != 0 ||
                    (f->config_dir && text_has_line(facts->config_dir_text, f->config_forbids) != 0))
                        /* known-readers shows the regex: too long for a why. */
                        return verdict(true, buf, size,
                                       "counts: a line of its configuration matches the entry's config_forbids=");
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
