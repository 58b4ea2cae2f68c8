/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* asprintf(), vasprintf() */
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "conf.h"
#include "ini-file.h"
#include "known-load.h"
#include "macro.h"
#include "strutil.h"

/* The kernel's TASK_COMM_LEN is 16 including the NUL: a longer comm= can never match. */
#define COMM_MAX 15

#define SUN_PATH_SIZE sizeof(((struct sockaddr_un *) NULL)->sun_path)

/* Builds a malloc'd message into *ret (if ret) and returns error, or
 * -ENOMEM if even the message can't be had. */
_printf_(3, 4)
static int make_error(char **ret, int error, const char *fmt, ...) {
        va_list ap;
        char *m;
        int k;

        if (!ret)
                return error;

        va_start(ap, fmt);
        k = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (k < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        *ret = m;
        return error;
}

static bool path_is_absolute(const char *p) {
        return p && p[0] == '/';
}

/* ---- ignore rules ---- */

void ignore_rule_done(IgnoreRule *r) {
        if (!r)
                return;
        free(r->comm);
        free(r->exe);
        free(r->unit);
        free(r->path);
        free(r->source);
        *r = (IgnoreRule) {};
}

void rules_free(IgnoreRule **rules, size_t *n) {
        for (size_t i = 0; i < *n; i++)
                ignore_rule_done(&(*rules)[i]);
        free(*rules);
        *rules = NULL;
        *n = 0;
}

static int rule_set_string(char **field, const char *name, const char *value, char **ret_error) {
        if (*field)
                return make_error(ret_error, -EINVAL, "duplicate field '%s'", name);
        *field = strdup(value);
        if (!*field)
                return -ENOMEM;
        return 0;
}

int ignore_rule_parse(const char *s, IgnoreRule *ret, char **ret_error) {
        _cleanup_(ignore_rule_done) IgnoreRule rule = {};
        _cleanup_strv_free_ char **words = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;

        r = strv_split_whitespace(s, &words);
        if (r < 0)
                return r;
        if (strv_length(words) == 0)
                return make_error(ret_error, -EINVAL,
                                  "empty rule, expected field=value matchers (comm, exe, unit, uid, path)");

        for (char **w = words; *w; w++) {
                const char *eq = strchr(*w, '=');
                if (!eq)
                        return make_error(ret_error, -EINVAL, "'%s': expected field=value", *w);

                size_t n = (size_t) (eq - *w);
                const char *value = eq + 1;
#define FIELD_IS(name) (n == strlen(name) && strncmp(*w, name, n) == 0)

                if (n > 0 && isempty(value))
                        return make_error(ret_error, -EINVAL, "'%s': empty value", *w);

                if (FIELD_IS("comm")) {
                        if (strlen(value) > COMM_MAX)
                                return make_error(ret_error, -EINVAL,
                                                  "comm '%s' is longer than %d characters and can never match",
                                                  value, COMM_MAX);
                        r = rule_set_string(&rule.comm, "comm", value, ret_error);
                } else if (FIELD_IS("exe")) {
                        if (!path_is_absolute(value))
                                return make_error(ret_error, -EINVAL, "exe '%s' is not an absolute path", value);
                        r = rule_set_string(&rule.exe, "exe", value, ret_error);
                } else if (FIELD_IS("unit"))
                        r = rule_set_string(&rule.unit, "unit", value, ret_error);
                else if (FIELD_IS("path")) {
                        if (!path_is_absolute(value))
                                return make_error(ret_error, -EINVAL, "path '%s' is not an absolute path (glob)", value);
                        r = rule_set_string(&rule.path, "path", value, ret_error);
                } else if (FIELD_IS("uid")) {
                        uint64_t u;

                        if (rule.has_uid)
                                return make_error(ret_error, -EINVAL, "duplicate field 'uid'");
                        /* Numbers only: resolving names would make the config depend on NSS at load time. */
                        r = parse_uint64(value, &u);
                        if (r == -EINVAL)
                                return make_error(ret_error, -EINVAL,
                                                  "uid '%s' is not a number (user names are not accepted)", value);
                        /* (uid_t) -1 means "no uid" to the kernel. */
                        if (r < 0 || u >= UINT32_MAX)
                                return make_error(ret_error, -EINVAL, "uid '%s' is out of range", value);
                        rule.uid = (unsigned) u;
                        rule.has_uid = true;
                } else
                        return make_error(ret_error, -EINVAL,
                                          "unknown field '%.*s' (expected comm, exe, unit, uid or path)", (int) n, *w);
#undef FIELD_IS
                if (r < 0)
                        return r;
        }

        *ret = rule;
        rule = (IgnoreRule) {};
        return 0;
}

/* ---- Config ---- */

void config_init(Config *c) {
        *c = (Config) {
                .mode = POLICY_AUTO,
                .dry_run = false,
                .min_dwell = 30 * USEC_PER_SEC,
                /* Measured on the patched 5.10 (README): coarse keeps counting
                 * off far longer where ignored readers read often. */
                .off_mode = OFF_MODE_COARSE,
                .exit_mode = EXIT_MODE_STRICT,
                .on_external_change = EXTERNAL_CHANGE_FOLLOW,
                .interval = 1 * USEC_PER_SEC,
                .coarse_above = 100000,
                .strict_below = 20000,
                .sustain = 10 * USEC_PER_SEC,
                .armed_interval = 30 * USEC_PER_SEC,
                .linger = 5 * 60 * USEC_PER_SEC,
                .linger_max = 3600 * USEC_PER_SEC,
                .exit_records = true,
                .known = true,
                .container_scan = USEC_INFINITY,        /* unset: by root */
                .metrics_interval = 15 * USEC_PER_SEC,
        };

        /* config_init() can't fail by contract; on OOM these stay NULL and
         * config_load() notices (it starts from a fresh config_init()). */
        (void) strv_split_whitespace(DEFAULT_WATCH, &c->watch);
        c->socket = strdup(DEFAULT_SOCKET_PATH);
}

void config_done(Config *c) {
        if (!c)
                return;
        c->watch = strv_free(c->watch);
        rules_free(&c->ignore, &c->n_ignore);
        rules_free(&c->count, &c->n_count);
        catalogue_done(&c->known_readers);
        free(c->socket);
        c->socket = NULL;
        free(c->metrics_textfile);
        c->metrics_textfile = NULL;
}

/* Each parser sets *reason (malloc'd) when it returns -EINVAL. */
typedef int (*ConfigParser)(Config *c, void *data, const char *value, char **reason);

#define DEFINE_PARSE_ENUM(function, type, from_string, expected)                            \
        static int function(Config *c _unused_, void *data, const char *value, char **reason) { \
                type v = from_string(value);                                                    \
                if ((int) v < 0)                                                                \
                        return make_error(reason, -EINVAL, "invalid value '%s' (expected %s)",  \
                                          value, expected);                                     \
                *(type *) data = v;                                                             \
                return 0;                                                                       \
        }

DEFINE_PARSE_ENUM(parse_policy, Policy, policy_from_string, "strict, coarse or auto")
DEFINE_PARSE_ENUM(parse_off_mode, OffMode, off_mode_from_string, "auto or coarse")
DEFINE_PARSE_ENUM(parse_exit_mode, ExitMode, exit_mode_from_string, "strict or previous")
DEFINE_PARSE_ENUM(parse_external_change, ExternalChange, external_change_from_string, "follow or override")

static int parse_bool(Config *c _unused_, void *data, const char *value, char **reason) {
        int b = parse_boolean(value);
        if (b < 0)
                return make_error(reason, -EINVAL, "invalid boolean '%s' (expected yes or no)", value);
        *(bool *) data = b;
        return 0;
}

static int parse_duration_value(const char *value, bool allow_infinity, usec_t *ret, char **reason) {
        int r = parse_duration(value, ret);
        if (r == -ERANGE)
                return make_error(reason, -EINVAL, "duration '%s' is too large", value);
        if (r < 0)
                return make_error(reason, -EINVAL, "invalid duration '%s'", value);
        if (*ret == USEC_INFINITY && !allow_infinity)
                return make_error(reason, -EINVAL, "'infinity' is not allowed here");
        return 0;
}

/* Bounds keep every sum the daemon forms (now + linger, above_since +
 * sustain, 3 * interval) far from overflow, and catch typos ("5d" for
 * "5s") that would disable the policy for days. */
static int check_duration(usec_t u, usec_t min, usec_t max, char **reason) {
        char a[DURATION_MAX], b[DURATION_MAX];

        if (u < min)
                return make_error(reason, -EINVAL, "must be at least %s (got %s)", format_duration(a, sizeof a, min),
                                  format_duration(b, sizeof b, u));
        if (u > max)
                return make_error(reason, -EINVAL, "must be at most %s (got %s)", format_duration(a, sizeof a, max),
                                  format_duration(b, sizeof b, u));
        return 0;
}

#define DEFINE_PARSE_DURATION(function, min, max, allow_infinity)                                    \
        static int function(Config *c _unused_, void *data, const char *value, char **reason) {     \
                usec_t u;                                                                            \
                int r = parse_duration_value(value, allow_infinity, &u, reason);                     \
                if (r < 0)                                                                           \
                        return r;                                                                    \
                if (!(allow_infinity && u == USEC_INFINITY)) {                                       \
                        r = check_duration(u, min, max, reason);                                     \
                        if (r < 0)                                                                   \
                                return r;                                                            \
                }                                                                                    \
                *(usec_t *) data = u;                                                                \
                return 0;                                                                            \
        }

DEFINE_PARSE_DURATION(parse_interval, INTERVAL_MIN, INTERVAL_MAX, false)
DEFINE_PARSE_DURATION(parse_min_dwell, 0, MIN_DWELL_MAX, false)
DEFINE_PARSE_DURATION(parse_sustain, 0, SUSTAIN_MAX, false)
/* Infinite linger is meaningful: once read, keep counting. */
DEFINE_PARSE_DURATION(parse_linger, 0, LINGER_MAX, true)
DEFINE_PARSE_DURATION(parse_linger_max, 0, LINGER_MAX_MAX, false)

/* 0 turns scanning off; otherwise at least CONTAINER_SCAN_MIN. */
static int parse_container_scan(Config *c _unused_, void *data, const char *value, char **reason) {
        usec_t u;
        int r = parse_duration_value(value, false, &u, reason);

        if (r < 0)
                return r;
        if (u != 0) {
                r = check_duration(u, CONTAINER_SCAN_MIN, CONTAINER_SCAN_MAX, reason);
                if (r < 0)
                        return r;
        }
        *(usec_t *) data = u;
        return 0;
}
/* Infinite: never sample while armed (and never see the pressure drop). */
DEFINE_PARSE_DURATION(parse_armed_interval, ARMED_INTERVAL_MIN, ARMED_INTERVAL_MAX, true)

static int parse_number(Config *c _unused_, void *data, const char *value, char **reason) {
        int r = parse_uint64(value, data);
        if (r == -ERANGE)
                return make_error(reason, -EINVAL, "number '%s' is out of range", value);
        if (r < 0)
                return make_error(reason, -EINVAL, "invalid number '%s'", value);
        return 0;
}

static int parse_watch(Config *c _unused_, void *data, const char *value, char **reason) {
        _cleanup_strv_free_ char **l = NULL;
        int r;

        /* An empty list is allowed: it means "watch nothing". */
        r = strv_split_whitespace(value, &l);
        if (r < 0)
                return r;
        for (char **i = l; *i; i++)
                if (!path_is_absolute(*i))
                        return make_error(reason, -EINVAL, "path '%s' is not absolute", *i);

        char ***watch = data;
        strv_free(*watch);
        *watch = TAKE_PTR(l);
        return 0;
}

/* ignore = and count = lines: each adds a rule, which remembers where it
 * was written ("numastatd.conf:57"). */
static int parse_rule(Config *c, IgnoreRule **rules, size_t *n_rules, const char *value, char **reason) {
        _cleanup_free_ char *why = NULL;
        IgnoreRule rule;
        const char *base;
        int r;

        r = ignore_rule_parse(value, &rule, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return make_error(reason, -EINVAL, "%s", why ? why : "invalid rule");
        base = c->parsing_file ? strrchr(c->parsing_file, '/') : NULL;
        base = base ? base + 1 : c->parsing_file;
        if (base && asprintf(&rule.source, "%s:%u", base, c->parsing_line) < 0) {
                rule.source = NULL;
                ignore_rule_done(&rule);
                return -ENOMEM;
        }

        IgnoreRule *a = reallocarray(*rules, *n_rules + 1, sizeof(IgnoreRule));
        if (!a) {
                ignore_rule_done(&rule);
                return -ENOMEM;
        }
        a[(*n_rules)++] = rule;
        *rules = a;
        return 0;
}

static int parse_ignore(Config *c, void *data _unused_, const char *value, char **reason) {
        return parse_rule(c, &c->ignore, &c->n_ignore, value, reason);
}

static int parse_count(Config *c, void *data _unused_, const char *value, char **reason) {
        return parse_rule(c, &c->count, &c->n_count, value, reason);
}

static int parse_socket(Config *c _unused_, void *data, const char *value, char **reason) {
        if (!path_is_absolute(value))
                return make_error(reason, -EINVAL, "socket path '%s' is not absolute", value);
        /* bind(2) would fail later, and less clearly. */
        if (strlen(value) >= SUN_PATH_SIZE)
                return make_error(reason, -EINVAL, "socket path '%s' is longer than %zu characters",
                                  value, SUN_PATH_SIZE - 1);

        char *s = strdup(value);
        if (!s)
                return -ENOMEM;
        char **socket = data;
        free(*socket);
        *socket = s;
        return 0;
}

DEFINE_PARSE_DURATION(parse_metrics_interval, METRICS_INTERVAL_MIN, METRICS_INTERVAL_MAX, false)

/* An absolute *.prom path (the textfile collector reads no other), or
 * empty for none. */
static int parse_textfile(Config *c _unused_, void *data, const char *value, char **reason) {
        char **textfile = data, *s = NULL;
        size_t n = strlen(value);

        if (!isempty(value)) {
                if (!path_is_absolute(value))
                        return make_error(reason, -EINVAL, "textfile '%s' is not absolute", value);
                if (n < 6 || strcmp(value + n - 5, ".prom") != 0 || value[n - 6] == '/')
                        return make_error(reason, -EINVAL,
                                          "textfile '%s' does not end in NAME.prom (the collector reads only those)",
                                          value);
                s = strdup(value);
                if (!s)
                        return -ENOMEM;
        }
        free(*textfile);
        *textfile = s;
        return 0;
}

/* A positive figure with a fraction ("42", "18.5"), or empty for unset. */
static int parse_insns_per_page(Config *c _unused_, void *data, const char *value, char **reason) {
        char *end;
        double v;

        if (isempty(value)) {
                *(double *) data = 0;
                return 0;
        }
        errno = 0;
        v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !(v > 0 && v <= 1e6))
                return make_error(reason, -EINVAL, "'%s' is not a number of instructions per page (0 < n <= 1000000)",
                                  value);
        *(double *) data = v;
        return 0;
}

typedef struct ConfigItem {
        const char *section;
        const char *key;
        ConfigParser parse;
        size_t offset;
} ConfigItem;

static const ConfigItem items[] = {
        { "policy",   "mode",               parse_policy,               offsetof(Config, mode)               },
        { "policy",   "dry_run",            parse_bool,                 offsetof(Config, dry_run)            },
        { "policy",   "min_dwell",          parse_min_dwell,            offsetof(Config, min_dwell)          },
        { "policy",   "off_mode",           parse_off_mode,             offsetof(Config, off_mode)           },
        { "policy",   "exit_mode",          parse_exit_mode,            offsetof(Config, exit_mode)          },
        { "policy",   "on_external_change", parse_external_change,      offsetof(Config, on_external_change) },
        { "pressure", "interval",           parse_interval,             offsetof(Config, interval)           },
        { "pressure", "coarse_above",       parse_number,               offsetof(Config, coarse_above)       },
        { "pressure", "strict_below",       parse_number,               offsetof(Config, strict_below)       },
        { "pressure", "sustain",            parse_sustain,              offsetof(Config, sustain)            },
        { "pressure", "armed_interval",     parse_armed_interval,       offsetof(Config, armed_interval)     },
        { "readers",  "linger",             parse_linger,               offsetof(Config, linger)             },
        { "readers",  "linger_max",         parse_linger_max,           offsetof(Config, linger_max)         },
        { "readers",  "exit_records",       parse_bool,                 offsetof(Config, exit_records)       },
        { "readers",  "container_scan",     parse_container_scan,       offsetof(Config, container_scan)     },
        { "readers",  "watch",              parse_watch,                offsetof(Config, watch)              },
        { "readers",  "ignore",             parse_ignore,               offsetof(Config, ignore)             },
        { "readers",  "count",              parse_count,                offsetof(Config, count)              },
        { "readers",  "known",              parse_bool,                 offsetof(Config, known)              },
        { "varlink",  "socket",             parse_socket,               offsetof(Config, socket)             },
        { "metrics",  "textfile",           parse_textfile,             offsetof(Config, metrics_textfile)   },
        { "metrics",  "interval",           parse_metrics_interval,     offsetof(Config, metrics_interval)   },
        { "ledger",   "insns_per_page",     parse_insns_per_page,       offsetof(Config, insns_per_page)     },
};

/* "[policy], [pressure], ... or [ledger]", from the table. */
static void format_sections(char *buf, size_t size) {
        size_t n = 0, count = 0, k = 0;

        for (size_t i = 0; i < ELEMENTSOF(items); i++)
                if (i == 0 || !streq(items[i].section, items[i - 1].section))
                        count++;
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(items) && n < size; i++) {
                if (i > 0 && streq(items[i].section, items[i - 1].section))
                        continue;
                k++;
                n += (size_t) snprintf(buf + n, size - n, "%s[%s]", k == 1 ? "" : k == count ? " or " : ", ",
                                       items[i].section);
        }
}

typedef struct ParseState {
        const char *path;
        Config *config;
        unsigned item_line[ELEMENTSOF(items)];  /* where each key was last set, 0 if not */
} ParseState;

static int config_section(void *userdata _unused_, const char *section, unsigned line _unused_, char **reason) {
        char expected[128];

        for (size_t i = 0; i < ELEMENTSOF(items); i++)
                if (streq(items[i].section, section))
                        return 0;
        format_sections(expected, sizeof expected);
        return make_error(reason, -EINVAL, "[%s]: unknown section (expected %s)", section, expected);
}

static int config_key(void *userdata, const char *section, const char *name, const char *value, unsigned line,
                      char **reason) {
        ParseState *st = userdata;
        _cleanup_free_ char *why = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(items); i++) {
                if (!streq(items[i].section, section) || !streq(items[i].key, name))
                        continue;

                st->config->parsing_line = line;
                r = items[i].parse(st->config, (uint8_t *) st->config + items[i].offset, value, &why);
                if (r < 0)
                        return make_error(reason, r == -ENOMEM ? -ENOMEM : -EINVAL, "[%s] %s: %s", section, name,
                                          why ? why : strerror(-r));
                st->item_line[i] = line;
                return 0;
        }

        return make_error(reason, -EINVAL, "[%s] %s: unknown key", section, name);
}

static unsigned item_line(const ParseState *st, const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(items); i++)
                if (streq_ptr(items[i].key, key))
                        return st->item_line[i];
        return 0;
}

/* Returns 0, or -EINVAL with *ret_error = "PATH:LINE: why". */
static int config_check(const ParseState *st, char **ret_error) {
        const Config *c = st->config;
        unsigned lc = item_line(st, "coarse_above"), ls = item_line(st, "strict_below");
        char where[32];

        if (c->strict_below <= c->coarse_above)
                return 0;

        /* An inverted hysteresis band. Blame the later of the two keys: that
         * is where the contradiction arose; name the other one and its line. */
        unsigned other = ls >= lc ? lc : ls;
        if (other > 0)
                snprintf(where, sizeof where, "line %u", other);
        else
                snprintf(where, sizeof where, "default");
        if (ls >= lc)
                return make_error(ret_error, -EINVAL,
                                  "%s:%u: [pressure] strict_below: %" PRIu64 " is above coarse_above (%" PRIu64 ", %s)",
                                  st->path, ls, c->strict_below, c->coarse_above, where);
        return make_error(ret_error, -EINVAL,
                          "%s:%u: [pressure] coarse_above: %" PRIu64 " is below strict_below (%" PRIu64 ", %s)",
                          st->path, lc, c->coarse_above, c->strict_below, where);
}

static int config_new_defaults(Config *c) {
        config_init(c);
        if (!c->watch || !c->socket) {
                config_done(c);
                return -ENOMEM;
        }
        return 0;
}

int config_load(Config *c, const char *path, bool must_exist, char **ret_error) {
        /* Parse into a scratch Config and swap only on success, so a failed
         * reload leaves the running config alone. The file applies on top of
         * the defaults, not of *c: a key removed from the file reverts. */
        _cleanup_(config_done) Config tmp = {};
        _cleanup_fclose_ FILE *f = NULL;
        ParseState st = {};
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!path)
                path = DEFAULT_CONFIG_PATH;

        r = config_new_defaults(&tmp);
        if (r < 0)
                return make_error(ret_error, r, "Out of memory");

        f = fopen(path, "re");
        if (!f) {
                r = negative_errno();
                if (r != -ENOENT || must_exist)
                        return make_error(ret_error, r, "%s: %s", path, strerror(-r));
                goto apply;
        }

        st = (ParseState) {
                .path = path,
                .config = &tmp,
        };
        tmp.parsing_file = path;
        r = ini_file_parse(f, path, config_section, config_key, &st, ret_error);
        if (r >= 0)
                r = config_check(&st, ret_error);
        tmp.parsing_file = NULL;
        if (r < 0)
                return r;

apply:
        if (tmp.known) {
                _cleanup_strv_free_ char **dirs = NULL;

                r = catalogue_dirs(&dirs);
                if (r < 0)
                        return make_error(ret_error, r, "Out of memory");
                r = catalogue_load(dirs, &tmp.known_readers, ret_error);
                if (r < 0)
                        return r;
        }
        config_done(c);
        *c = tmp;
        tmp = (Config) {};
        return 0;
}

usec_t config_container_scan(const Config *c, const char *root) {
        if (c->container_scan != USEC_INFINITY)
                return c->container_scan;
        return streq(root, "/") ? CONTAINER_SCAN_DEFAULT : 0;
}
