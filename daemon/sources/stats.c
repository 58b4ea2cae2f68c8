/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"
#include "rootfs.h"
#include "stats.h"

/* Big enough for /proc/zoneinfo on large machines. */
#define STATS_FILE_MAX (16U * 1024U * 1024U)

int stats_read_vmstat(const char *root, RootFile *kept, VmStat *ret) {
        _cleanup_free_ char *text = NULL;
        int r = kept ? root_file_read(root, kept, STATS_FILE_MAX, &text)
                     : root_read_file(root, "/proc/vmstat", STATS_FILE_MAX, &text);
        if (r < 0)
                return r;
        return vmstat_parse(text, ret);
}

int stats_node_numastat_init(RootFile *f, int node) {
        char path[96];

        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/numastat", node);
        return root_file_init(f, path);
}

int stats_read_node_numastat(const char *root, RootFile *f, NumaCounters *ret) {
        _cleanup_free_ char *text = NULL;
        int r = root_file_read(root, f, 65536, &text);
        if (r < 0)
                return r;
        return numastat_parse(text, ret);
}

int stats_read_zoneinfo(const char *root, ZoneThreshold **ret, size_t *ret_n) {
        _cleanup_free_ char *text = NULL;
        int r = root_read_file(root, "/proc/zoneinfo", STATS_FILE_MAX, &text);
        if (r < 0)
                return r;
        return zoneinfo_parse(text, ret, ret_n);
}
