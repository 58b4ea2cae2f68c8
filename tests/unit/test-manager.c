/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager in-process on a --root tree: the one exit path when a source
 * fails on purpose (exit_mode, STOPPING=1, the socket and the restore state
 * removed, Monitor clients disconnected, everything freed once), and reader
 * detection that dies and comes back. */

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "manager.h"
#include "manager-internal.h"
#include "rootfs.h"
#include "tap.h"
#include "time-util.h"

static char root[] = "/tmp/numastatd-manager-XXXXXX";

static void put(const char *path, const char *text) {
        _cleanup_free_ char *full = NULL, *dir = NULL;
        FILE *f;

        if (root_path(root, path, &full) < 0 || !(dir = strdup(full)))
                abort();
        for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                (void) mkdir(dir, 0755);
                *s = '/';
        }
        f = fopen(full, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                abort();
}

static char *get(const char *path) {
        char *full = NULL, *text = NULL;

        if (root_path(root, path, &full) < 0)
                abort();
        if (root_read_file("/", full, 4096, &text) < 0)
                text = NULL;
        free(full);
        return text;
}

static bool exists(const char *path) {
        _cleanup_free_ char *full = NULL;

        if (root_path(root, path, &full) < 0)
                abort();
        return access(full, F_OK) == 0;
}

static void make_tree(void) {
        if (!mkdtemp(root))
                abort();
        put("/proc/sys/vm/numa_stat", "1\n");
        put("/proc/vmstat", "nr_free_pages 1000\npgalloc_normal 5000\nnuma_hit 100\nnuma_miss 0\nnuma_foreign 0\n"
                            "numa_interleave 0\nnuma_local 100\nnuma_other 0\n");
        for (int n = 0; n < 2; n++) {
                char path[128], text[64];

                snprintf(path, sizeof path, "/sys/devices/system/node/node%d/numastat", n);
                put(path, "numa_hit 50\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\nlocal_node 50\nother_node 0\n");
                snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", n);
                snprintf(text, sizeof text, "%d-%d\n", 2 * n, 2 * n + 1);
                put(path, text);
        }
}

static void remove_tree(void) {
        char cmd[128];

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", root);
}

/* A datagram socket standing in for systemd's notify socket. */
static int notify_listen(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/notify", root);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                abort();
        setenv("NOTIFY_SOCKET", sa.sun_path, 1);
        return fd;
}

static bool notify_got(int fd, const char *what) {
        char buf[4096];
        ssize_t n;
        bool found = false;

        while ((n = recv(fd, buf, sizeof buf - 1, 0)) > 0) {
                buf[n] = 0;
                for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
                        if (strcmp(l, what) == 0)
                                found = true;
        }
        return found;
}

static void test_config(Config *c, Policy policy, usec_t linger, OffMode off_mode) {
        config_init(c);
        c->mode = policy;
        c->interval = 3600 * USEC_PER_SEC;      /* no sampling in the way */
        c->min_dwell = c->sustain = 0;
        c->linger = linger;
        c->off_mode = off_mode;
        c->coarse_above = 1000;
        c->strict_below = 10;
}

/* Takes over *c. */
static Manager *start_config(Config *c) {
        _cleanup_free_ char *sock = NULL, *run = NULL;
        Manager *m = NULL;

        /* Its crash-restore state and carried counters in the tree, never
         * in this machine's /run/numastatd. */
        if (asprintf(&sock, "%s/run/numastatd/io.numastatd", root) < 0 || asprintf(&run, "%s/run/numastatd", root) < 0)
                abort();
        ManagerOptions opts = { .root = root, .runtime_dir = run };
        free(c->socket);
        c->socket = TAKE_PTR(sock);
        if (manager_new(&opts, c, &m) < 0 || manager_start(m) < 0)
                abort();
        config_done(c);
        return m;
}

static Manager *start_with(Policy policy, usec_t linger, OffMode off_mode) {
        Config c;

        test_config(&c, policy, linger, off_mode);
        return start_config(&c);
}

/* The allocation rate well above coarse_above for a second already. */
static void pressure(Manager *m) {
        EngineEffects fx;

        engine_feed(manager_engine(m), &(EngineEvent) { .type = ENGINE_EVENT_RATE, .rate = 1e6, .interval_rate = 1e6 },
                    now_usec(CLOCK_MONOTONIC) - USEC_PER_SEC, &fx);
}

static Manager *start(Policy policy) {
        return start_with(policy, 0, OFF_MODE_COARSE);
}

/* Fails, saying what the kernel's mode was then (*userdata, malloc'd). */
static int fail_on_purpose(sd_event_source *s, uint64_t usec, void *userdata) {
        char **mode_then = userdata;

        *mode_then = get("/proc/sys/vm/numa_stat");
        return -EIO;
}

/* A client on a socket pair into the daemon's real server, which has
 * sent call (with its NUL); returns the client's end, or -1 if the server
 * did not take the connection. */
static int call_on_socketpair(Manager *m, const char *call, size_t size) {
        int pair[2];

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
                abort();
        if (service_add_connection(manager_service(m), pair[0]) < 0) {
                close(pair[0]);
                close(pair[1]);
                return -1;
        }
        if (send(pair[1], call, size, 0) != (ssize_t) size)
                abort();
        return pair[1];
}

static void test_exit_path_on_failure(void) {
        static const char monitor_call[] = "{\"method\":\"io.numastatd.Monitor\",\"more\":true}";
        Manager *m;
        sd_event_source *failing = NULL;
        int nfd, client, r;
        char buf[1 << 16];
        ssize_t n;
        size_t got = 0;
        char *mode, *mode_then = NULL;

        nfd = notify_listen();
        m = start(POLICY_COARSE);
        ok(exists("/run/numastatd/io.numastatd"), "the daemon listens on its socket");

        /* A Monitor client, on a socketpair into the real server. */
        client = call_on_socketpair(m, monitor_call, sizeof monitor_call);
        ok(client >= 0, "a Monitor client connects");

        /* A source that fails on purpose, after the first decision is applied. */
        r = sd_event_add_time_relative(manager_event(m), &failing, CLOCK_MONOTONIC, 200 * USEC_PER_MSEC, 0,
                                       fail_on_purpose, &mode_then);
        if (r >= 0)
                r = sd_event_source_set_exit_on_failure(failing, true);
        ok(r >= 0, "a failing source is armed");

        r = manager_run(m);
        is_int(r, -EIO, "the loop ends with the source's error");
        is_str(mode_then, "0\n", "policy coarse was applied before the failure (counting off)");
        free(mode_then);
        mode = get("/proc/sys/vm/numa_stat");
        is_str(mode, "1\n", "the kernel is left in exit_mode (strict) after policy coarse");
        free(mode);
        ok(!exists("/run/numastatd/restore"), "the crash-restore state is removed");
        ok(!exists("/run/numastatd/io.numastatd"), "the socket is unlinked");
        ok(notify_got(nfd, "STOPPING=1"), "STOPPING=1 is sent");
        is_int((int) service_monitors(manager_service(m)), 0, "no Monitor client is left");

        /* The client got its first status and then the end of the stream. */
        while ((n = recv(client, buf + got, sizeof buf - got, 0)) > 0)
                got += n;
        ok(got > 0 && memmem(buf, got, "\"continues\":true", 16), "the Monitor client got the status");
        is_int(n, 0, "then the connection closed");
        close(client);

        /* Running the exit path again, then freeing, touches nothing freed
         * (valgrind and the sanitizer build check what this cannot). */
        is_int(manager_shutdown(m), 0, "the exit path runs once");
        sd_event_source_unref(failing);
        manager_free(m);
        close(nfd);
        unsetenv("NOTIFY_SOCKET");
}

static bool run_until(Manager *m, bool (*cond)(Manager *m), usec_t timeout) {
        usec_t deadline = now_usec(CLOCK_MONOTONIC) + timeout;

        while (!cond(m)) {
                if (now_usec(CLOCK_MONOTONIC) >= deadline)
                        return false;
                if (sd_event_run(manager_event(m), 50 * USEC_PER_MSEC) < 0)
                        return false;
        }
        return true;
}

static bool counting_off(Manager *m) {
        _cleanup_free_ char *mode = get("/proc/sys/vm/numa_stat");
        return mode && streq(mode, "0\n");
}

static bool readers_back(Manager *m) {
        return reader_watch_readers(manager_reader_watch(m)) != NULL;
}

static void test_readers_die_and_return(void) {
        /* One event of a metadata version nobody knows, after one whose
         * fd the daemon must close. */
        struct fanotify_event_metadata ev[2];
        int fd_before = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int fd_after = open("/dev/null", O_RDONLY | O_CLOEXEC);
        Manager *m;
        Status st;
        char *mode;

        m = start(POLICY_AUTO);
        if (!reader_watch_readers(manager_reader_watch(m))) {
                tap_skip("fanotify unavailable here (needs CAP_SYS_ADMIN): reader death not testable");
                manager_free(m);
                return;
        }
        (void) manager_apply(m);
        /* Pressure, no reader within linger (0): counting goes off. */
        pressure(m);
        (void) manager_apply(m);
        /* (After the read events of its own samples: never off while reads
         * are queued.) */
        run_until(m, counting_off, 5 * USEC_PER_SEC);
        mode = get("/proc/sys/vm/numa_stat");
        is_str(mode, "0\n", "auto under pressure: counting off");
        free(mode);

        ev[0] = (struct fanotify_event_metadata) {
                .event_len = sizeof ev[0], .vers = 99, .metadata_len = sizeof ev[0], .fd = fd_before,
        };
        ev[1] = (struct fanotify_event_metadata) {
                .event_len = sizeof ev[1], .vers = FANOTIFY_METADATA_VERSION, .metadata_len = sizeof ev[1],
                .mask = FAN_ACCESS, .fd = fd_after, .pid = 1,
        };
        readers_process_buffer(reader_watch_readers(manager_reader_watch(m)), ev, sizeof ev);

        ok(reader_watch_readers(manager_reader_watch(m)) == NULL, "an unknown metadata version kills reader detection");
        ok(fcntl(fd_after, F_GETFD) < 0 && errno == EBADF, "the event fd left in the buffer is closed");
        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        ok(!st.sources.readers, "status: readers unavailable");
        is_str(st.sources.readers_error, "reader detection failed: Protocol error; retrying",
               "status says why, with the error's text");
        ok(st.sources.readers_retry_at > 0, "status says when it tries again");
        is_str(policy_rule_to_string(st.decision->rule), "readers-unseen", "policy auto goes blind");
        is_str(cause_to_string(st.decision->cause), "readers-unseen", "cause: readers unseen");
        mode = get("/proc/sys/vm/numa_stat");
        is_str(mode, "1\n", "and turns counting on");
        free(mode);

        ok(run_until(m, readers_back, 5 * USEC_PER_SEC), "reader detection is re-created after the back-off");
        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        ok(st.sources.readers && !st.sources.readers_error && st.sources.readers_retry_at == 0,
           "status: readers back, no error");
        ok(strv_length((char **) st.sources.watched) == 3, "the files are watched again (%zu)",
           strv_length((char **) st.sources.watched));
        close(fd_before);       /* its layout was unknown: not ours to close */
        manager_free(m);
}

static bool nothing_parked(Manager *m) {
        return exits_parked(manager_exits(m)) == 0;
}

/* Whether pid is a reader in the table. */
static bool in_readertab(const Manager *m, pid_t pid) {
        const ReaderTable *t = engine_readers(manager_engine(m));

        for (size_t i = 0; i < t->n; i++)
                if (t->entries[i].last_pid == pid)
                        return true;
        return false;
}

/* One read at a time: a read handled now looks up exit records (its reader
 * is unnamed), which may bring the news another parked read waited for;
 * that read is handled on the loop's next turn, never inside this one. */
static void test_no_read_inside_another(void) {
        pid_t gone, child;
        Manager *m;
        ReadEvent now_read = {
                .pid = getpid(),
                .has_uid = true,
                .uid = getuid(),
                .path = "/proc/vmstat",
        };

        m = start(POLICY_STRICT);
        if (!exits_enabled(manager_exits(m))) {
                tap_skip("no exit records here (taskstats needs CAP_NET_ADMIN and the kernel's support)");
                manager_free(m);
                return;
        }
        /* A reader gone, parked past its deadline, that the next look at
         * the exit records resolves (unnamed). */
        gone = fork();
        if (gone == 0)
                _exit(0);
        waitpid(gone, NULL, 0);
        {
                uid_t uid = getuid();

                if (exits_park_unlooked(manager_exits(m), gone, now_usec(CLOCK_MONOTONIC) - USEC_PER_SEC,
                                        "/proc/zoneinfo", &uid) != 0)
                        abort();
        }
        /* An exit record queued, not yet read. */
        child = fork();
        if (child == 0)
                _exit(0);
        waitpid(child, NULL, 0);

        manager_reader_watch_ops.read(NULL, &now_read, m);
        ok(in_readertab(m, getpid()), "a read by a running reader is handled");
        is_int(exits_parked(manager_exits(m)), 1, "  the parked read its record lookup made due waits for the loop");
        ok(!in_readertab(m, gone), "  and is not handled inside it");
        ok(run_until(m, nothing_parked, 5 * USEC_PER_SEC), "the loop's next turns handle it");
        ok(in_readertab(m, gone), "  as a read");
        manager_free(m);
}

/* Monitor messages that came (each ends in a NUL), and whether the last
 * said counting is on. */
static unsigned monitor_messages(int fd, bool *last_counting) {
        static char buf[1 << 16];
        unsigned n = 0;
        ssize_t got;

        while ((got = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
                buf[got] = 0;
                for (ssize_t i = 0; i < got; i++)
                        if (buf[i] == 0)
                                n++;
                if (memmem(buf, got, "\"counting\":true", 15))
                        *last_counting = true;
                else if (memmem(buf, got, "\"counting\":false", 16))
                        *last_counting = false;
        }
        return n;
}

/* Runs the loop until nothing is pending. */
static void run_idle(Manager *m) {
        for (int i = 0; i < 1000 && sd_event_run(manager_event(m), 0) > 0; i++)
                ;
}

static bool counting_on(Manager *m) {
        return !counting_off(m);
}

/* A read of /proc/vmstat by this process, as reader detection reports it. */
static ReadEvent own_read(void) {
        return (ReadEvent) {
                .pid = getpid(),
                .comm = "reader",
                .has_uid = true,
                .uid = getuid(),
                .path = "/proc/vmstat",
        };
}

/* Policy auto under pressure, counting off; NULL (said) if it is not. */
static Manager *start_counting_off(void) {
        Manager *m = start(POLICY_AUTO);

        (void) manager_apply(m);
        pressure(m);
        (void) manager_apply(m);
        if (!ok(run_until(m, counting_off, 5 * USEC_PER_SEC), "auto under pressure: counting off")) {
                manager_free(m);
                return NULL;
        }
        return m;
}

/* A read that switches counting on changes the decision, the history and
 * the reader table: Monitor hears of it once. */
static void test_one_status_per_read(void) {
        static const char monitor_call[] = "{\"method\":\"io.numastatd.Monitor\",\"more\":true}";
        ReadEvent read = own_read();
        EngineConfig engine_config;
        bool counting = false;
        EngineEffects fx;
        int client;
        Manager *m;

        m = start_counting_off();
        if (!m)
                return;
        client = call_on_socketpair(m, monitor_call, sizeof monitor_call);
        run_idle(m);
        is_int(monitor_messages(client, &counting), 1, "a Monitor client gets the status");

        manager_engine_config(m, &engine_config);
        engine_config.linger = 3600 * USEC_PER_SEC;     /* the read keeps counting on while we look */
        engine_feed(manager_engine(m), &(EngineEvent) { .type = ENGINE_EVENT_CONFIGURE, .config = &engine_config },
                    now_usec(CLOCK_MONOTONIC), &fx);
        manager_reader_watch_ops.read(NULL, &read, m);
        run_idle(m);
        ok(counting_on(m), "a read: counting on");
        is_int(monitor_messages(client, &counting), 1, "  Monitor hears of it once");
        ok(counting, "  saying counting is on");
        close(client);
        manager_free(m);
}

/* One handler, two changes: someone else's switch found, and ours written
 * over it (on_external_change=override). Monitor hears of the turn once. */
static void test_one_status_per_turn(void) {
        static const char monitor_call[] = "{\"method\":\"io.numastatd.Monitor\",\"more\":true}";
        _cleanup_free_ char *mode = NULL;
        bool counting = true;
        int client;
        Manager *m;
        Config c;

        test_config(&c, POLICY_AUTO, 0, OFF_MODE_COARSE);
        c.on_external_change = EXTERNAL_CHANGE_OVERRIDE;
        c.strict_below = 0;     /* the tree's counters do not move: no rate turns counting back on */
        m = start_config(&c);
        (void) manager_apply(m);
        pressure(m);
        (void) manager_apply(m);
        if (!ok(run_until(m, counting_off, 5 * USEC_PER_SEC), "override: counting off under pressure")) {
                manager_free(m);
                return;
        }
        client = call_on_socketpair(m, monitor_call, sizeof monitor_call);
        run_idle(m);
        is_int(monitor_messages(client, &counting), 1, "  a Monitor client gets the status");

        put("/proc/sys/vm/numa_stat", "1\n");          /* someone else */
        (void) manager_apply(m);
        run_idle(m);
        mode = get("/proc/sys/vm/numa_stat");
        is_str(mode, "0\n", "  someone else's switch is overridden");
        is_int(engine_history(manager_engine(m))->total, 3, "  recorded: ours, theirs, ours again");
        is_int(monitor_messages(client, &counting), 1, "  Monitor hears of the turn once");
        ok(!counting, "  saying counting is off");
        close(client);
        manager_free(m);
}

/* GetStatus calls pipelined on one connection: each answered, the status
 * rendered once while nothing changes; a change renders it again. */
static void test_status_rendered_once(void) {
        static const char call[] = "{\"method\":\"io.numastatd.GetStatus\"}";
        char calls[8 * sizeof call], buf[1 << 16];
        size_t got = 0, replies = 0;
        uint64_t before;
        Manager *m;
        int client;

        m = start(POLICY_COARSE);
        run_idle(m);
        for (size_t i = 0; i < 8; i++)
                memcpy(calls + i * sizeof call, call, sizeof call);
        before = service_status_renders(manager_service(m));
        client = call_on_socketpair(m, calls, sizeof calls);
        ok(client >= 0, "a client sends 8 GetStatus calls at once");
        for (int i = 0; i < 200 && replies < 8; i++) {
                ssize_t n;

                (void) sd_event_run(manager_event(m), 10 * USEC_PER_MSEC);
                while ((n = recv(client, buf + got, sizeof buf - got, MSG_DONTWAIT)) > 0)
                        got += (size_t) n;
                replies = 0;
                for (size_t k = 0; k < got; k++)
                        replies += buf[k] == '\0';
        }
        is_int((int) replies, 8, "  each is answered");
        /* A sample (a change) may fall between two turns: at most two. */
        ok(service_status_renders(manager_service(m)) - before <= 2, "  the status was rendered once (%llu times)",
           (unsigned long long) (service_status_renders(manager_service(m)) - before));
        close(client);

        /* A change: the next call gets a new rendering, which shows it. */
        before = service_status_renders(manager_service(m));
        (void) manager_set_policy(m, POLICY_STRICT, -1);
        client = call_on_socketpair(m, call, sizeof call);
        got = 0;
        for (int i = 0; i < 200 && !memchr(buf, '\0', got); i++) {
                ssize_t n;

                (void) sd_event_run(manager_event(m), 10 * USEC_PER_MSEC);
                while ((n = recv(client, buf + got, sizeof buf - got, MSG_DONTWAIT)) > 0)
                        got += (size_t) n;
        }
        ok(service_status_renders(manager_service(m)) > before && memmem(buf, got, "\"policy\":\"strict\"", 17),
           "after a change (set-policy strict) the next call is rendered again, and shows it");
        close(client);
        manager_free(m);
}

/* Off while a read event is queued waits for it, and comes right after
 * it: the read may be a counted one, whose reader must find counting on. */
/* Another process reads the tree's /proc/vmstat and exits: its read event
 * is queued, not yet taken. */
static void read_vmstat_in_child(void) {
        _cleanup_free_ char *vmstat = NULL;
        pid_t pid;

        if (root_path(root, "/proc/vmstat", &vmstat) < 0)
                abort();
        pid = fork();
        if (pid == 0) {
                char buf[64];
                int fd = open(vmstat, O_RDONLY | O_CLOEXEC);

                _exit(fd >= 0 && read(fd, buf, sizeof buf) > 0 ? 0 : 1);
        }
        waitpid(pid, NULL, 0);
}

static void test_off_waits_for_queued_reads(void) {
        uint64_t when = 0;
        int enabled = SD_EVENT_OFF;
        char *mode;
        Manager *m;

        m = start(POLICY_AUTO);
        if (!reader_watch_readers(manager_reader_watch(m))) {
                tap_skip("fanotify unavailable here (needs CAP_SYS_ADMIN)");
                manager_free(m);
                return;
        }
        (void) manager_apply(m);
        run_idle(m);
        /* Another process's read, queued and not yet taken. */
        read_vmstat_in_child();
        ok(readers_pending(reader_watch_readers(manager_reader_watch(m))) > 0, "a read event is queued");

        pressure(m);
        (void) manager_apply(m);
        is_int(sd_event_run(manager_event(m), 0), 1, "  the turn ends");
        mode = get("/proc/sys/vm/numa_stat");
        is_str(mode, "1\n", "pressure, but off waits for the queued read");
        free(mode);
        (void) sd_event_source_get_time(manager_timer(m, MANAGER_TIMER_DEADLINE), &when);
        (void) sd_event_source_get_enabled(manager_timer(m, MANAGER_TIMER_DEADLINE), &enabled);
        ok(enabled != SD_EVENT_OFF && when <= now_usec(CLOCK_MONOTONIC), "  the deadline is set for right after it");
        ok(run_until(m, counting_off, 5 * USEC_PER_SEC), "then counting goes off");
        manager_free(m);
}

/* A hold ends after what was queued before its end: its command's last
 * read, still in the fanotify queue when the release comes (the client's
 * disconnect), is the hold's and does not linger past it. */
static void test_hold_ends_after_queued_reads(void) {
        static const char hold_call[] = "{\"method\":\"io.numastatd.Hold\",\"more\":true}";
        const Holds *holds;
        int client;
        Manager *m;

        m = start_with(POLICY_AUTO, 3 * USEC_PER_SEC, OFF_MODE_COARSE);
        if (!reader_watch_readers(manager_reader_watch(m)) || !exits_enabled(manager_exits(m))) {
                tap_skip("fanotify or taskstats unavailable here (needs CAP_SYS_ADMIN, CAP_NET_ADMIN)");
                manager_free(m);
                return;
        }
        /* A hold by this process, through the service. */
        client = call_on_socketpair(m, hold_call, sizeof hold_call);
        run_idle(m);
        holds = service_holds(manager_service(m));
        if (!is_int((int) holds_count(holds), 1, "a hold is in force")) {
                close(client);
                manager_free(m);
                return;
        }
        pressure(m);
        (void) manager_apply(m);
        run_idle(m);
        ok(counting_on(m), "pressure, and a hold: counting on");
        /* Linger from the start-up (a read just before it, maybe) passes:
         * only the hold keeps counting on. */
        nanosleep(&(struct timespec) { .tv_sec = 3, .tv_nsec = 100 * 1000 * 1000 }, NULL);
        run_idle(m);
        ok(counting_on(m), "  linger passed, the hold keeps counting on");

        /* The held command's read, and its exit. */
        read_vmstat_in_child();
        ok(readers_pending(reader_watch_readers(manager_reader_watch(m))) > 0, "its read event is queued");
        service_release_hold(manager_service(m), holds_get(holds, 0)->id);
        is_int((int) holds_count(holds), 1, "  released: the hold stays in force until it is taken");
        ok(run_until(m, counting_off, 2 * USEC_PER_SEC), "the read was the hold's: counting goes off, no linger (3 s)");
        is_int((int) holds_count(holds), 0, "  and the hold is gone");
        close(client);
        manager_free(m);
}

static bool counting_strict(Manager *m) {
        return engine_kernel(manager_engine(m))->mode == KERNEL_MODE_STRICT;
}

/* On a patched kernel: an armed sample due while a read is queued waits
 * for it. The read turned the kernel's auto on (it found counting off),
 * not the sample. */
static void test_armed_sample_after_queued_reads(void) {
        _cleanup_free_ char *mode_file = NULL;
        Manager *m;

        put("/proc/sys/vm/numa_stats_mode", "strict\n");
        m = start_with(POLICY_AUTO, 0, OFF_MODE_AUTO);
        if (!reader_watch_readers(manager_reader_watch(m))) {
                tap_skip("fanotify unavailable here (needs CAP_SYS_ADMIN)");
                goto done;
        }
        is_int(manager_backend(m), BACKEND_NUMA_STATS_MODE, "a patched kernel's interface");
        pressure(m);
        (void) manager_apply(m);
        run_idle(m);
        ok(engine_armed(manager_engine(m)),
           "pressure: the kernel's auto is armed");

        read_vmstat_in_child();
        ok(readers_pending(reader_watch_readers(manager_reader_watch(m))) > 0, "a read is queued");
        /* The armed sample dispatched now, as when the read came after the
         * loop's poll (or during a flood, when reads lose their precedence). */
        (void) on_timer(manager_timer(m, MANAGER_TIMER_ARMED_SAMPLE), now_usec(CLOCK_MONOTONIC), m);
        ok(run_until(m, counting_strict, 5 * USEC_PER_SEC), "the read turns counting on: strict");
        is_int((int) engine_counts(manager_engine(m)).triggers, 1, "  the trigger was the read's");
        is_int((int) engine_counts(manager_engine(m)).armed_samples, 0, "  the sample waited, and was moot");
        is_int((int) engine_readers(manager_engine(m))->first_off, 1, "  the read found counting off");
done:
        manager_free(m);
        if (root_path(root, "/proc/sys/vm/numa_stats_mode", &mode_file) < 0 || unlink(mode_file) < 0)
                abort();
}

/* The dispatch loop takes one event at a time. News that comes while an
 * event is handled waits for it; a read, whose fds cannot wait, is taken
 * as lost reads (counting on, to be safe); a command whose caller waits
 * for its outcome is refused. Pushed outside any handling, an event waits
 * for the loop's next turn. */
static void test_one_event_at_a_time(void) {
        ReadEvent read = own_read();
        uint64_t reloads;
        EventQueue *q;
        Manager *m;

        m = start_counting_off();
        if (!m)
                return;
        q = manager_queue(m);
        run_idle(m);
        reloads = nodes_reloads(manager_nodes(m));

        event_queue_set_draining(q, true);     /* as while a handler runs */
        on_hotplug_settled(NULL, &(HotplugSettled) { .nodes = true }, m);
        is_int((int) event_queue_length(q), 1, "news that comes while an event is handled is queued");
        is_int((int) (nodes_reloads(manager_nodes(m)) - reloads), 0, "  not handled inside it");
        manager_reader_watch_ops.read(NULL, &read, m);
        is_int((int) event_queue_length(q), 2, "a read that comes then is queued too");
        ok(counting_off(m), "  and not handled inside it");
        is_int(manager_set_policy(m, POLICY_AUTO, -1), -EBUSY, "a set-policy then is refused: its caller waits");
        event_queue_set_draining(q, false);
        (void) on_queue(NULL, m);
        is_int((int) event_queue_length(q), 0, "the loop takes them after");
        is_int((int) (nodes_reloads(manager_nodes(m)) - reloads), 1, "  the uevents' news is handled");
        ok(counting_on(m), "  then the read, as lost reads: counting on, to be safe");

        manager_push(m, &(ManagerEvent) { .type = MANAGER_EVENT_HOTPLUG, .hotplug = { .nodes = true } });
        is_int((int) event_queue_length(q), 1, "pushed outside any handling: queued");
        run_idle(m);
        is_int((int) event_queue_length(q), 0, "  the loop's next turn takes it");
        is_int((int) (nodes_reloads(manager_nodes(m)) - reloads), 2, "  and handles it");
        manager_free(m);
}

int main(void) {
        sigset_t mask;

        /* As main() does: sd-event takes these as signalfd. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        alarm(60);
        make_tree();
        test_exit_path_on_failure();
        test_status_rendered_once();
        if (geteuid() == 0) {
                test_readers_die_and_return();
                test_no_read_inside_another();
                test_one_status_per_read();
                test_one_status_per_turn();
                test_off_waits_for_queued_reads();
                test_hold_ends_after_queued_reads();
                test_armed_sample_after_queued_reads();
                test_one_event_at_a_time();
        } else
                tap_skip("not root: fanotify needs CAP_SYS_ADMIN");
        remove_tree();
        return tap_done();
}
