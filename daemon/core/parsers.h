/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Parsers for the kernel's statistics files. Pure functions: text in,
 * structs out, no I/O, so they are unit-tested on captured file contents. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The six NUMA event counters, in the order nodeN/numastat prints them. */
typedef enum NumaCounter {
        NUMA_HIT,
        NUMA_MISS,
        NUMA_FOREIGN,
        NUMA_INTERLEAVE,
        NUMA_LOCAL,
        NUMA_OTHER,
        _NUMA_COUNTER_MAX,
} NumaCounter;

typedef struct NumaCounters {
        uint64_t v[_NUMA_COUNTER_MAX];
} NumaCounters;

/* Names as /proc/vmstat spells them ("numa_hit" … "numa_other"). */
const char *numa_counter_vmstat_name(NumaCounter c);
/* Names as nodeN/numastat spells them ("numa_hit" … "interleave_hit", "local_node", "other_node"). */
const char *numa_counter_numastat_name(NumaCounter c);

typedef struct VmStat {
        NumaCounters numa;
        bool has_numa;          /* at least one numa_* line was present */
        uint64_t pgalloc;       /* sum of every pgalloc_* line */
        bool has_pgalloc;
} VmStat;

/* /proc/vmstat or nodeN/vmstat: "name value" per line. Unknown lines are
 * ignored (the kernel adds fields); a known line with a bad value is -EINVAL. */
int vmstat_parse(const char *text, VmStat *ret);

/* nodeN/numastat: all six lines must be present, else -EINVAL. */
int numastat_parse(const char *text, NumaCounters *ret);

typedef struct ZoneThreshold {
        int node;
        char name[16];          /* "DMA", "DMA32", "Normal", "Movable", … */
        unsigned ncpus;         /* pagesets with a threshold line */
        unsigned threshold_max; /* largest "vm stats threshold" of the zone */
        uint64_t drift_max;     /* sum of thresholds over the zone's CPUs */
} ZoneThreshold;

/* /proc/zoneinfo: one entry per "Node N, zone NAME" block. Zones without
 * pagesets (empty zones) get ncpus == 0. *ret is malloc'd, free() it. */
int zoneinfo_parse(const char *text, ZoneThreshold **ret, size_t *ret_n);

/* "0-3,8,10-11" → sorted unique CPU numbers; *ret malloc'd, free() it.
 * Empty or "\n" gives 0 CPUs. Returns 0 or -EINVAL/-ENOMEM. */
int cpulist_parse(const char *s, unsigned **ret, size_t *ret_n);

/* Node meminfo ("Node 0 MemTotal:   16384 kB") → bytes; -ENOENT if absent. */
int node_meminfo_total_bytes(const char *text, uint64_t *ret);

/* /proc/PID/stat's fields after the comm, from the state on ("S 17 ..."):
 * they follow the comm's last ')' and a space (a comm may hold one too).
 * NULL if the text is not a stat line. */
const char *proc_stat_fields(const char *stat);
/* /proc/PID/stat → its parent's pid (the field after the state). -EINVAL
 * if the text is not a stat line. */
int proc_stat_ppid(const char *stat, pid_t *ret);
/* /proc/PID/stat → its starttime (field 22: clock ticks after boot), which
 * with the pid names one process. -EINVAL if the text is not a stat line. */
int proc_stat_starttime(const char *stat, uint64_t *ret);
/* /proc/PID/stat → which exec of the process it is: where its arguments
 * lie (fields 48 and 49, arg_start and arg_end), placed anew on each
 * exec's randomised stack, folded into one value. 0 where the kernel hides
 * them (no ptrace access to the process, or no memory left: a zombie) or
 * has none (before 3.5): unknown, not a value. -EINVAL if the text is not
 * a stat line. */
int proc_stat_image(const char *stat, uint64_t *ret);

/* A process's ids as /proc/PID/status shows them: real, effective, saved
 * and fs uid and gid, and its supplementary groups (at most
 * PROC_GROUPS_MAX: more is -E2BIG). */
#define PROC_GROUPS_MAX 64
typedef struct ProcIds {
        uid_t uid[4];
        gid_t gid[4];
        gid_t groups[PROC_GROUPS_MAX];
        size_t n_groups;
} ProcIds;
int proc_status_ids(const char *status, ProcIds *ret);
/* Whether all four uids are one, and all four gids: a process in the
 * middle of a set-user-ID execution, or one that changes ids, is not. */
bool proc_ids_settled(const ProcIds *ids);
