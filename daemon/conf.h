/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "known.h"
#include "mode.h"
#include "rules.h"
#include "strutil.h"

#define DEFAULT_CONFIG_PATH SYSCONFDIR "/numastatd.conf"
#define DEFAULT_SOCKET_PATH "/run/numastatd/io.numastatd"
#define DEFAULT_WATCH                                                           \
        "/proc/vmstat /proc/zoneinfo /sys/devices/system/node/node*/numastat " \
        "/sys/devices/system/node/node*/vmstat"

/* Documented bounds (numastatd.conf(5)). */
#define INTERVAL_MIN (10 * USEC_PER_MSEC)
#define INTERVAL_MAX (3600 * USEC_PER_SEC)
#define MIN_DWELL_MAX (24 * 3600 * USEC_PER_SEC)
#define SUSTAIN_MAX (24 * 3600 * USEC_PER_SEC)
#define LINGER_MAX (30 * 24 * 3600 * USEC_PER_SEC)      /* or infinity */
#define LINGER_MAX_MAX (24 * 3600 * USEC_PER_SEC)       /* linger_max: at most a day */
#define CONTAINER_SCAN_MIN (100 * USEC_PER_MSEC)
#define METRICS_INTERVAL_MIN (100 * USEC_PER_MSEC)
#define METRICS_INTERVAL_MAX (3600 * USEC_PER_SEC)
#define CONTAINER_SCAN_MAX (24 * 3600 * USEC_PER_SEC)
#define ARMED_INTERVAL_MIN (1 * USEC_PER_SEC)
#define ARMED_INTERVAL_MAX (3600 * USEC_PER_SEC)        /* or infinity */


typedef struct Config {
        /* [policy] */
        Policy mode;
        bool dry_run;
        usec_t min_dwell;
        OffMode off_mode;
        ExitMode exit_mode;
        ExternalChange on_external_change;
        /* [pressure] */
        usec_t interval;
        uint64_t coarse_above;  /* pages/s */
        uint64_t strict_below;  /* pages/s */
        usec_t sustain;
        usec_t armed_interval;  /* patched kernels, armed auto: sampling period; infinity: never */
        /* [readers] */
        usec_t linger;
        usec_t linger_max;      /* a periodic reader is waited for at most this long; 0: not at all */
        bool exit_records;      /* name readers gone before we looked from taskstats exit records */
        usec_t container_scan;  /* how often to look for other procfs instances; 0: never;
                                 * USEC_INFINITY: unset (see config_container_scan()) */
        char **watch;
        IgnoreRule *ignore;
        size_t n_ignore;
        IgnoreRule *count;      /* count = rules: reads that count whatever the catalogue says */
        size_t n_count;
        bool known;             /* judge known readers by the catalogue (readers.d) */
        Catalogue known_readers;        /* loaded with the file when known = yes */
        /* [varlink] */
        char *socket;
        /* [metrics] */
        char *metrics_textfile; /* the node_exporter textfile (*.prom) to keep; NULL: none */
        usec_t metrics_interval;        /* how often it is rewritten, when something changed */
        /* [ledger] */
        double insns_per_page;  /* the bench figure for this kernel; 0: unset */

        /* While config_load() parses: where the key being parsed is. */
        const char *parsing_file;
        unsigned parsing_line;
} Config;

void config_init(Config *c);    /* the documented defaults */
void config_done(Config *c);

/* Parses FILE into *c (which the caller has config_init()ed). A missing
 * file is fine only if !must_exist: defaults then apply. On error returns a
 * negative errno and sets *ret_error to "FILE:LINE: key: why" (malloc'd). */
int config_load(Config *c, const char *path, bool must_exist, char **ret_error);

/* How often containers' procfs instances are looked for: container_scan
 * when set; unset, every minute on "/" and never under --root=DIR (a tree
 * whose files containers do not read, where scanning the real /proc
 * would only watch files that are not the tree's). 0: never. */
#define CONTAINER_SCAN_DEFAULT (60 * USEC_PER_SEC)
usec_t config_container_scan(const Config *c, const char *root);

/* "comm=node_exporter path=/proc/vmstat" → rule. On error *ret_error says why. */
int ignore_rule_parse(const char *s, IgnoreRule *ret, char **ret_error);
void ignore_rule_done(IgnoreRule *r);
void rules_free(IgnoreRule **rules, size_t *n);
