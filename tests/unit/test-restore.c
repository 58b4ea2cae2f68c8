/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The crash-restore state: its format, and the file root obeys, handled as
 * untrusted input: links, other owners, loose modes, huge or garbage files,
 * another root, an unsafe directory. */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
                "pid=1\nbackend=numa_stat\nrestore=strict\nroot=/\nroot=/other\n", /* two roots */
                "garbage\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                is_int(restore_state_parse(bad[i], &p), -EBADMSG, "malformed state rejected");
}

static char root[] = "/tmp/numastatd-restore-XXXXXX";
static char dir[128];

/* Runs fmt with every %s the test's root (at most four). */
_printf_(1, 0)
static void sh(const char *fmt, const char *arg) {
        char cmd[1024];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(cmd, sizeof cmd, fmt, arg, arg, arg, arg, arg);
#pragma GCC diagnostic pop
        if (system(cmd) != 0)
                printf("# command failed: %s\n", cmd);
}

static char *sysctl_value(void) {
        char *v = NULL;
        (void) root_read_file(root, "/proc/sys/vm/numa_stat", 64, &v);
        return v;
}

static void test_apply(void) {
        RestoreState s = { .pid = 99999, .backend = BACKEND_NUMA_STAT, .restore = KERNEL_MODE_STRICT, .root = root };
        _cleanup_free_ char *v = NULL, *why = NULL;
        bool did = true;
        int fd;

        if (!mkdtemp(root))
                abort();
        snprintf(dir, sizeof dir, "%s/run", root);
        sh("mkdir -p %s/proc/sys/vm && echo 0 > %s/proc/sys/vm/numa_stat", root);
        is_int(restore_dir_open(dir, &fd, &why), 0, "the runtime directory is made and opened");
        is_int(restore_apply(fd, root, true, &did), 0, "no state: nothing to do");
        ok(!did, "and says so");

        is_int(restore_state_save(fd, &s), 0, "saved");
        is_int(restore_apply(fd, root, true, &did), 0, "a crashed daemon's state is applied");
        ok(did, "and says so");
        v = sysctl_value();
        is_str(v, "1\n", "counting restored");
        ok(faccessat(fd, RESTORE_FILE, F_OK, 0) < 0, "state file removed");

        /* A failed restore keeps the file for a later try. */
        sh("rm %s/proc/sys/vm/numa_stat", root);
        restore_state_save(fd, &s);
        ok(restore_apply(fd, root, true, &did) < 0, "restoring into a vanished sysctl fails");
        ok(faccessat(fd, RESTORE_FILE, F_OK, 0) == 0, "and keeps the state");
        sh("echo 0 > %s/proc/sys/vm/numa_stat", root);
        close(fd);
}

/* Plants something as the state file; expects it refused, the sysctl
 * untouched, and start-up's lenient apply to go on (0, nothing done). */
static void refused(const char *what, const char *plant, const char *reason) {
        _cleanup_free_ char *why = NULL, *v = NULL;
        RestoreState st = {};
        bool did = true;
        int fd, r;

        sh("rm -rf %s/run/" RESTORE_FILE, root);
        sh(plant, root);
        if (restore_dir_open(dir, &fd, &why) < 0) {
                ok(false, "%s: the directory opens", what);
                return;
        }
        r = restore_state_load(fd, root, &st, &why);
        is_int(r, -EPERM, what);
        ok(why && strstr(why, reason), "  because %s (%s)", reason, why ? why : "no reason");
        is_int(restore_apply(fd, root, false, &did), 0, "  start-up goes on");
        ok(!did, "  without obeying it");
        is_int(restore_apply(fd, root, true, &did), -EPERM, "  --restore refuses it");
        v = sysctl_value();
        is_str(v, "0\n", "  the kernel is left alone");
        restore_state_done(&st);
        close(fd);
}

static void test_hostile(void) {
        _cleanup_free_ char *why = NULL;
        int fd;

        refused("a symbolic link planted as the state file", "ln -s /etc/passwd %s/run/" RESTORE_FILE,
                "symbolic link");
        refused("a state file of another user",
                "printf 'pid=1\\nbackend=numa_stat\\nrestore=strict\\nroot=%s\\n' > %s/run/" RESTORE_FILE
                " && chown 65534 %s/run/" RESTORE_FILE, "not owned");
        refused("a state file others can write",
                "printf 'pid=1\\nbackend=numa_stat\\nrestore=strict\\nroot=%s\\n' > %s/run/" RESTORE_FILE
                " && chmod 666 %s/run/" RESTORE_FILE, "others can write");
        refused("a huge state file", "yes x | head -c 1048576 > %s/run/" RESTORE_FILE, "too large");
        /* Garbage, fixed so that the reason is known (random bytes give either). */
        refused("garbage", "printf 'no equals sign \\001\\377 here\\n' > %s/run/" RESTORE_FILE, "does not parse");
        refused("a NUL byte", "printf 'pid=1\\000\\nbackend=numa_stat\\n' > %s/run/" RESTORE_FILE, "holds a NUL byte");
        refused("a state for another root",
                "printf 'pid=1\\nbackend=numa_stat\\nrestore=strict\\nroot=/\\n' > %s/run/" RESTORE_FILE,
                "is for root /");
        refused("a FIFO planted as the state file", "mkfifo %s/run/" RESTORE_FILE, "not a regular file");
        refused("a directory planted as the state file", "mkdir %s/run/" RESTORE_FILE, "not a regular file");

        /* The directory itself. */
        sh("rm -rf %s/run/" RESTORE_FILE " && chmod 777 %s/run", root);
        is_int(restore_dir_open(dir, &fd, &why), -EPERM, "a runtime directory others can write to is refused");
        ok(why && strstr(why, "writable by others"), "  and says so: %s", why ? why : "");
        sh("chmod 1777 %s/run", root);
        is_int(restore_dir_open(dir, &fd, &why), -EPERM, "... also when sticky, like /tmp");
        ok(why && strstr(why, "others can write"), "  and says so: %s", why ? why : "");
        /* Only root could plant root's link; someone else's is refused. */
        sh("chmod 755 %s/run && mv %s/run %s/real-run && ln -s real-run %s/run && chown -h 65534 %s/run", root);
        is_int(restore_dir_open(dir, &fd, &why), -EPERM, "another user's symbolic link as the runtime directory is refused");
        ok(why && strstr(why, "symbolic link owned by another user"), "  and says so: %s", why ? why : "");
        sh("chown -h 0 %s/run", root);
        is_int(restore_dir_open(dir, &fd, &why), 0, "root's own link is followed");
        if (fd >= 0)
                close(fd);
        sh("chmod 755 %s/real-run && chown 65534 %s/real-run", root);
        is_int(restore_dir_open(dir, &fd, &why), -EPERM, "a runtime directory of another user is refused");
        sh("chown 0 %s/real-run && rm -f %s/run && mv %s/real-run %s/run", root);
}

int main(void) {
        test_format_parse();
        test_apply();
        test_hostile();
        sh("rm -rf %s", root);
        return tap_done();
}
