/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The executor on a tree: the crash-restore state recorded before the
 * first write and not before, a write read back, a failed one kept as the
 * last error with the mode read back, the state removed once the kernel is
 * restored, and at start the state of a dead daemon obeyed, a live one's
 * refused. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor.h"
#include "macro.h"
#include "restore.h"
#include "rootfs.h"
#include "strutil.h"
#include "tap.h"

static char root[] = "/tmp/test-executor-XXXXXX";
static char run[256];

/* Runs fmt with each %s as arg. */
static void sh(const char *fmt, const char *arg) {
        char cmd[600];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(cmd, sizeof cmd, fmt, arg, arg, arg);
#pragma GCC diagnostic pop
        if (system(cmd) != 0)
                printf("# command failed: %s\n", cmd);
}

static char *sysctl_value(void) {
        static char buf[64];
        char *v = NULL;

        if (root_read_file(root, "/proc/sys/vm/numa_stat", 64, &v) < 0)
                return NULL;
        snprintf(buf, sizeof buf, "%s", v);
        free(v);
        return buf;
}

static bool state_exists(const Executor *x) {
        return faccessat(executor_runtime_fd(x), RESTORE_FILE, F_OK, 0) == 0;
}

/* A pid that was and is no more. */
static pid_t dead_pid(void) {
        pid_t pid = fork();

        if (pid == 0)
                _exit(0);
        waitpid(pid, NULL, 0);
        return pid;
}

static void test_writes(void) {
        Executor *x;
        KernelMode mode = KERNEL_MODE_UNKNOWN;
        bool restored = true;

        is_int(executor_new(root, run, &x), 0, "an executor");
        is_int(executor_recover(x, &restored), 0, "start: no state to obey");
        ok(!restored, "  nothing restored");
        ok(executor_runtime_fd(x) >= 0, "  the runtime directory is open");
        is_int(executor_probe(x, &mode), 0, "probed");
        is_int(executor_backend(x), BACKEND_NUMA_STAT, "  the mainline interface");
        is_int(mode, KERNEL_MODE_STRICT, "  counting on");
        ok(!state_exists(x) && !executor_wrote(x), "nothing written, no crash-restore state yet");

        is_int(executor_write(x, KERNEL_MODE_COARSE, KERNEL_MODE_STRICT, "a test", &mode), 0, "counting off written");
        is_int(mode, KERNEL_MODE_COARSE, "  the mode now");
        is_str(sysctl_value(), "0\n", "  the sysctl says so");
        ok(state_exists(x) && executor_wrote(x), "  the crash-restore state was recorded with it");
        ok(executor_last_error(x)->message == NULL, "  no error");

        sh("rm %s/proc/sys/vm/numa_stat", root);
        ok(executor_write(x, KERNEL_MODE_STRICT, KERNEL_MODE_STRICT, "a test", &mode) < 0, "a write into a vanished sysctl fails");
        is_int(mode, KERNEL_MODE_UNKNOWN, "  the mode read back: unknown");
        ok(executor_last_error(x)->message && executor_last_error(x)->error > 0 && executor_last_error(x)->time > 0,
           "  the error kept for status: %s", strnull(executor_last_error(x)->message));
        executor_clear_error(x);
        ok(executor_last_error(x)->message == NULL, "  and cleared");

        sh("echo 1 > %s/proc/sys/vm/numa_stat", root);
        executor_restored(x);
        ok(!state_exists(x), "restored at stop: the crash-restore state goes");
        executor_free(x);
}

static void test_recover(void) {
        RestoreState st = { .backend = BACKEND_NUMA_STAT, .restore = KERNEL_MODE_STRICT, .root = root };
        Executor *x;
        bool restored = false;
        pid_t live;
        int fd, sync_pipe[2];
        char c;

        /* A daemon that crashed with counting off. */
        sh("echo 0 > %s/proc/sys/vm/numa_stat", root);
        st.pid = dead_pid();
        if (executor_new(root, run, &x) < 0 || executor_recover(x, &restored) < 0)
                abort();
        is_int(restore_state_save(executor_runtime_fd(x), &st), 0, "a dead daemon's state planted");
        executor_free(x);
        is_int(executor_new(root, run, &x), 0, "a new executor");
        is_int(executor_recover(x, &restored), 0, "start: the dead daemon's state is obeyed");
        ok(restored, "  and it says so");
        is_str(sysctl_value(), "1\n", "  counting is back on");
        ok(!state_exists(x), "  the state is gone");

        /* A live daemon: a process named numastatd. */
        if (pipe(sync_pipe) < 0)
                abort();
        live = fork();
        if (live == 0) {
                (void) prctl(PR_SET_NAME, "numastatd");
                (void) !write(sync_pipe[1], "x", 1);
                pause();
                _exit(0);
        }
        if (read(sync_pipe[0], &c, 1) != 1)
                abort();
        sh("echo 0 > %s/proc/sys/vm/numa_stat", root);
        st.pid = live;
        fd = executor_runtime_fd(x);
        is_int(restore_state_save(fd, &st), 0, "a live daemon's state planted");
        executor_free(x);
        is_int(executor_new(root, run, &x), 0, "a new executor");
        is_int(executor_recover(x, &restored), -EBUSY, "start refused: another numastatd drives the kernel");
        is_str(sysctl_value(), "0\n", "  the kernel is left to it");
        ok(executor_runtime_fd(x) < 0, "  its state is not ours to remove");
        executor_free(x);
        kill(live, SIGKILL);
        waitpid(live, NULL, 0);
        close(sync_pipe[0]);
        close(sync_pipe[1]);
}

/* The counters carried to the next daemon: saved at once when their
 * meaning changed, else at most once a minute; loaded back for the same
 * root and boot only. */
static void test_counters(void) {
        _cleanup_(carry_state_done) CarryState loaded = {};
        CarryState s = { .n = 1 };
        Executor *x;
        bool restored;

        sh("mkdir -p %s/proc/sys/kernel/random && echo boot-1 > %s/proc/sys/kernel/random/boot_id", root);
        is_int(executor_new(root, run, &x), 0, "an executor");
        ok(!executor_counters_due(x, true), "no runtime directory yet: never due");
        is_int(executor_recover(x, &restored), 0, "the runtime directory opened");
        is_int(executor_load_counters(x, &loaded), -ENOENT, "nothing to continue from");
        ok(executor_counters_due(x, false), "never saved: due");
        s.sources[0] = (CarrySource) { .id = CARRY_VMSTAT, .continuous = { .v = { 42 } }, .last = { .v = { 40 } } };
        executor_save_counters(x, &s);
        ok(faccessat(executor_runtime_fd(x), CARRY_FILE, F_OK, 0) == 0, "saved");
        ok(!executor_counters_due(x, false), "just saved: not due again within the minute");
        ok(executor_counters_due(x, true), "...unless their meaning changed");
        carry_state_done(&s);
        executor_free(x);

        is_int(executor_new(root, run, &x), 0, "the next daemon's executor");
        is_int(executor_recover(x, &restored), 0, "  its runtime directory");
        is_int(executor_load_counters(x, &loaded), 0, "  continues from what was saved");
        ok(loaded.n == 1 && loaded.sources[0].continuous.v[0] == 42 && streq(loaded.boot_id, "boot-1"),
           "  the same counters, of this boot");
        carry_state_done(&loaded);
        sh("echo boot-2 > %s/proc/sys/kernel/random/boot_id", root);
        executor_free(x);
        is_int(executor_new(root, run, &x), 0, "after a reboot");
        is_int(executor_recover(x, &restored), 0, "  its runtime directory");
        is_int(executor_load_counters(x, &loaded), -EPERM, "  another boot's counters are refused");
        executor_free(x);
}

int main(void) {
        if (!mkdtemp(root))
                abort();
        snprintf(run, sizeof run, "%s/run", root);
        sh("mkdir -p %s/proc/sys/vm && echo 1 > %s/proc/sys/vm/numa_stat", root);
        test_writes();
        test_recover();
        test_counters();
        sh("rm -rf %s", root);
        return tap_done();
}
