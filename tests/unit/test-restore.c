/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "restore.h"
#include "rootfs.h"
#include "tap.h"

static void test_format_parse(void) {
        RestoreState s = { .pid = 4242, .backend = BACKEND_NUMA_STATS_MODE, .restore = KERNEL_MODE_AUTO,
                           .root = (char *) "/srv/root" }, p = {};
        _cleanup_free_ char *text = restore_state_format(&s);

        is_str(text, "pid=4242\nbackend=numa_stats_mode\nrestore=auto\nroot=/srv/root\n", "format");
        is_int(restore_state_parse(text, &p), 0, "round trip parses");
        is_int(p.pid, 4242, "pid");
        is_int(p.backend, BACKEND_NUMA_STATS_MODE, "backend");
        is_int(p.restore, KERNEL_MODE_AUTO, "restore mode");
        is_str(p.root, "/srv/root", "root");
        restore_state_done(&p);

        is_int(restore_state_parse("pid=1\nbackend=numa_stat\nrestore=strict\nroot=/\nfuture=x\n", &p), 0,
               "unknown keys of a newer daemon are ignored");
        restore_state_done(&p);
        static const char *const bad[] = {
                "",
                "pid=1\nbackend=numa_stat\nrestore=strict\n",                    /* no root */
                "pid=0\nbackend=numa_stat\nrestore=strict\nroot=/\n",            /* pid 0 */
                "pid=x\nbackend=numa_stat\nrestore=strict\nroot=/\n",
                "pid=1\nbackend=none\nrestore=strict\nroot=/\n",                 /* nothing to drive */
                "pid=1\nbackend=bogus\nrestore=strict\nroot=/\n",
                "pid=1\nbackend=numa_stat\nrestore=unknown\nroot=/\n",
                "pid=1\nbackend=numa_stat\nrestore=strict\nroot=relative\n",
                "garbage\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                is_int(restore_state_parse(bad[i], &p), -EBADMSG, "malformed state rejected");
}

static void test_apply(void) {
        char tmpl[] = "/tmp/numastatd-restore-XXXXXX";
        char *root = mkdtemp(tmpl), cmd[256], *state = NULL, *value = NULL;
        bool did = true;

        snprintf(cmd, sizeof cmd, "mkdir -p %s/proc/sys/vm && echo 0 > %s/proc/sys/vm/numa_stat", root, root);
        if (system(cmd) != 0)
                abort();
        restore_state_path("/x/run/numastatd/io.numastatd", &state);
        is_str(state, "/x/run/numastatd/restore", "state file beside the socket");
        free(state);
        if (asprintf(&state, "%s/restore", root) < 0)
                abort();

        is_int(restore_apply(state, &did), 0, "no state: nothing to do");
        ok(!did, "and says so");

        RestoreState s = { .pid = 99999, .backend = BACKEND_NUMA_STAT, .restore = KERNEL_MODE_STRICT, .root = root };
        is_int(restore_state_save(state, &s), 0, "saved");
        is_int(restore_apply(state, &did), 0, "a crashed daemon's state is applied");
        ok(did, "and says so");
        root_read_file(root, "/proc/sys/vm/numa_stat", 64, &value);
        is_str(value, "1\n", "counting restored");
        free(value);
        ok(access(state, F_OK) < 0, "state file removed");

        /* A failed restore keeps the file for a later try. */
        snprintf(cmd, sizeof cmd, "rm %s/proc/sys/vm/numa_stat", root);
        (void) !system(cmd);
        restore_state_save(state, &s);
        ok(restore_apply(state, &did) < 0, "restoring into a vanished sysctl fails");
        ok(access(state, F_OK) == 0, "and keeps the state");

        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        (void) !system(cmd);
        free(state);
}

int main(void) {
        test_format_parse();
        test_apply();
        return tap_done();
}
