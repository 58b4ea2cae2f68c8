/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reads the statistics files the daemon samples, through the --root helper.
 * On a patched kernel in "auto" mode any of these reads turns counting on:
 * callers check engine_may_read_stats() first. */

#include "parsers.h"
#include "rootfs.h"

/* kept: NULL, or the file kept open between readings. */
int stats_read_vmstat(const char *root, RootFile *kept, VmStat *ret);
/* A node's numastat, through f, set up with stats_node_numastat_init(). */
int stats_node_numastat_init(RootFile *f, int node);
int stats_read_node_numastat(const char *root, RootFile *f, NumaCounters *ret);
int stats_read_zoneinfo(const char *root, ZoneThreshold **ret, size_t *ret_n);
