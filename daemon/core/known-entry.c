/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The catalogue's entry format: an entry file parsed and checked into a
 * KnownReader (what numastatd.conf(5), KNOWN READERS, documents). What an
 * entry's conditions say of a process is known.c's. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf() */
#endif

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
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
        free(f->config_allows);
        free(f->config_dir);
        free(f->config_dir_arg);
        free(f->config_dir_names);
        free(f->config_dir_suffixes);
        free(f->config_dir_glob);
        free(f->config_dir_holds);
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
        if (streq(key, "config_forbids") || streq(key, "config_allows") || streq(key, "environ_forbids")) {
                regex_t re;

                if (regcomp(&re, value, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
                        return set_why(reason, -EINVAL, "[%s] %s: '%s' does not compile (POSIX ERE)", section, key,
                                       value);
                regfree(&re);
                /* Repeated, each line one more alternative (lines are short). */
                char **field = streq(key, "config_forbids")  ? &f->config_forbids
                               : streq(key, "config_allows") ? &f->config_allows
                                                             : &f->environ_forbids;
                if (*field) {
                        char *joined;

                        if (asprintf(&joined, "%s|%s", *field, value) < 0)
                                return -ENOMEM;
                        free(*field);
                        *field = joined;
                        return 0;
                }
                return set_once(field, section, key, value, reason);
        }
        if (streq(key, "config_dir_names")) {
                if (strchr(value, '/') || !*value || streq(value, ".") || streq(value, ".."))
                        return set_why(reason, -EINVAL, "[%s] config_dir_names: '%s' is not a list of file names",
                                       section, value);
                return set_once(&f->config_dir_names, section, key, value, reason);
        }
        if (streq(key, "config_dir_suffixes")) {
                for (const char *p = value; *p; p += strcspn(p, " "), p += strspn(p, " "))
                        if (p[0] != '.' || p[1] == ' ' || p[1] == '\0' || memchr(p, '/', strcspn(p, " ")))
                                return set_why(reason, -EINVAL,
                                               "[%s] config_dir_suffixes: '%s' is not a list of suffixes (.yaml .yml)",
                                               section, value);
                if (!*value)
                        return set_why(reason, -EINVAL, "[%s] config_dir_suffixes: empty", section);
                return set_once(&f->config_dir_suffixes, section, key, value, reason);
        }
        if (streq(key, "config_dir_glob")) {
                const char *slash = strrchr(value, '/'), *meta = strpbrk(value, "*?[\\");

                /* Relative, and a glob in its last component only: the
                 * directory part is walked to, not globbed. */
                if (!*value || value[0] == '/' || (slash && (!slash[1] || (meta && meta < slash))) ||
                    strstr(value, "..") || strstr(value, "//") || startswith(value, "./") || strstr(value, "/./"))
                        return set_why(reason, -EINVAL,
                                       "[%s] config_dir_glob: '%s' is not a relative path with a glob in its last "
                                       "component only",
                                       section, value);
                return set_once(&f->config_dir_glob, section, key, value, reason);
        }
        if (streq(key, "config_dir_holds"))
                return set_once(&f->config_dir_holds, section, key, value, reason);
        if (streq(key, "config_dir")) {
                if (value[0] != '/')
                        return set_why(reason, -EINVAL, "[%s] config_dir: '%s' is not an absolute path", section, value);
                return set_once(&f->config_dir, section, key, value, reason);
        }
        bool *flag = streq(key, "config_arg_required")    ? &f->config_arg_required
                     : streq(key, "config_dir_arg_required") ? &f->config_dir_arg_required
                     : streq(key, "config_dir_recursive") ? &f->config_dir_recursive
                     : streq(key, "config_dir_hidden")    ? &f->config_dir_hidden
                     : streq(key, "config_dir_follow")    ? &f->config_dir_follow
                     : streq(key, "config_dir_beside")    ? &f->config_dir_beside
                     : streq(key, "config_environment")   ? &f->config_environment
                     : streq(key, "arg_files")            ? &f->arg_files
                                                          : NULL;
        if (flag) {
                int b = parse_boolean(value);

                if (b < 0)
                        return set_why(reason, -EINVAL, "[%s] %s: '%s' is not a boolean", section, key, value);
                *flag = b;
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
                if (f->config_forbids ? !(f->config || f->config_dir || f->config_dir_arg)
                                      : any_config && !(f->config && f->config_section && f->config_key &&
                                                        f->config_value))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config= with config_section=, config_key= and config_value= "
                                       "(or config_forbids= with config=, config_dir= or config_dir_arg=) go together",
                                       path, f->line, f->glob);
                if ((f->config_dir || f->config_dir_arg || f->config_arg_required || f->config_positional ||
                     f->config_environment) &&
                    !f->config_forbids)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir=, config_dir_arg=, config_arg_required=, "
                                       "config_positional= and config_environment= need config_forbids=",
                                       path, f->line, f->glob);
                if ((f->config_arg || f->config_arg_required || f->config_positional) && !f->config)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_arg=, config_arg_required= and config_positional= "
                                       "need config=",
                                       path, f->line, f->glob);
                if ((f->config_dir_recursive || f->config_dir_hidden || f->config_dir_follow || f->config_dir_names ||
                     f->config_dir_suffixes) &&
                    !f->config_dir && !f->config_dir_arg && !f->config_dir_beside)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_recursive=, config_dir_hidden=, config_dir_follow=, "
                                       "config_dir_names= and config_dir_suffixes= need config_dir= or config_dir_arg=",
                                       path, f->line, f->glob);
                if (f->config_dir_beside && (f->config_dir || f->config_dir_arg || !f->config ||
                                             !(f->config_dir_names || f->config_dir_suffixes)))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_beside= needs config= and config_dir_names= or "
                                       "config_dir_suffixes=, in place of config_dir= and config_dir_arg=",
                                       path, f->line, f->glob);
                if (f->config_dir_holds && (!f->config_dir || f->config_dir_arg || f->config_dir_beside))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_holds= needs config_dir=, without "
                                       "config_dir_arg= or config_dir_beside=",
                                       path, f->line, f->glob);
                if (f->config_allows && !f->config_forbids)
                        return set_why(ret_error, -EINVAL, "%s:%u: [file %s]: config_allows= needs config_forbids=",
                                       path, f->line, f->glob);
                if (f->config_dir_arg_required && !f->config_dir_arg)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_arg_required= needs config_dir_arg=", path, f->line,
                                       f->glob);
                if (f->config_dir_glob && (!(f->config_dir || f->config_dir_arg) || f->config_dir_beside ||
                                           f->config_dir_names || f->config_dir_suffixes || f->config_dir_recursive ||
                                           f->config_dir_hidden || f->config_dir_follow))
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_glob= needs config_dir= or config_dir_arg=, and "
                                       "names the files in place of config_dir_names=, config_dir_suffixes=, "
                                       "config_dir_recursive=, config_dir_hidden= and config_dir_follow=",
                                       path, f->line, f->glob);
                if (f->config_dir_names && f->config_dir_suffixes)
                        return set_why(ret_error, -EINVAL,
                                       "%s:%u: [file %s]: config_dir_names= or config_dir_suffixes=, not both", path,
                                       f->line, f->glob);
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
