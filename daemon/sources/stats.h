/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reads the statistics files the daemon samples, through the --root helper.
 * On a patched kernel in "auto" mode any of these reads turns counting on:
 * callers check engine_may_read_stats() first. */

#include "parsers.h"
#include "rootfs.h"

/* kept: NULL, or a file kept open between readings (set up with
 * stats_node_numastat_init() for a node's). */
int stats_read_vmstat(const char *root, RootFile *kept, VmStat *ret);
int stats_node_numastat_init(RootFile *f, int node);
int stats_read_node_numastat(const char *root, int node, RootFile *kept, NumaCounters *ret);
int stats_read_zoneinfo(const char *root, ZoneThreshold **ret, size_t *ret_n);
