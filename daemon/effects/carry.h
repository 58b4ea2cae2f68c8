/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The NUMA counters carried across daemon restarts. The continuous counters
 * (counters.h) keep what the kernel counted across the resets a switch
 * causes, but only within one daemon's life: after a crash, a restart or an
 * upgrade they would start over from whatever the kernel shows then. So the
 * daemon keeps, in its runtime directory (file "counters", which lives
 * until the next boot), each source's continuous value and the kernel's
 * last reading; the next daemon of the same boot and root continues from
 * them. The file is read like untrusted input (state-file.h), and a file
 * that is refused or does not parse leaves the counters starting over. */

#include <stdbool.h>
#include <stddef.h>

#include "parsers.h"

#define CARRY_FILE "counters"
#define CARRY_SOURCES_MAX 65        /* /proc/vmstat and 64 nodes; more nodes start over */
#define CARRY_FILE_MAX (64 * 1024)
#define CARRY_VMSTAT (-1)           /* the source id of /proc/vmstat's numa_* lines */

typedef struct CarrySource {
        int id;                     /* a node's id, or CARRY_VMSTAT */
        NumaCounters continuous;    /* what counter_track_continuous() gave */
        NumaCounters last;          /* the kernel's last reading then */
} CarrySource;

typedef struct CarryState {
        char *root;
        char boot_id[40];           /* /proc/sys/kernel/random/boot_id; "" when unknown */
        CarrySource sources[CARRY_SOURCES_MAX];
        size_t n;
} CarryState;

void carry_state_done(CarryState *s);

/* "root=/\nboot=…\nsource=-1 C1 … C6 L1 … L6\n…". Pure. */
char *carry_state_format(const CarryState *s);
/* -EBADMSG for anything malformed: a bad number, a source twice, too many. */
int carry_state_parse(const char *text, CarryState *ret);

const CarrySource *carry_state_find(const CarryState *s, int id);

/* Loads the state for root and boot_id: -ENOENT when there is none, -EPERM
 * with *ret_why when refused or for another root or boot. */
int carry_state_load(int dir_fd, const char *root, const char *boot_id, CarryState *ret, char **ret_why);
int carry_state_save(int dir_fd, const CarryState *s);
