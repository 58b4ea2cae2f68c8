/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reads the statistics files the daemon samples, through the --root helper.
 * On a patched kernel in "auto" mode any of these reads turns counting on:
 * callers check engine_may_read_stats() first. */

#include "parsers.h"

int stats_read_vmstat(const char *root, VmStat *ret);
int stats_read_node_numastat(const char *root, int node, NumaCounters *ret);
int stats_read_zoneinfo(const char *root, ZoneThreshold **ret, size_t *ret_n);
