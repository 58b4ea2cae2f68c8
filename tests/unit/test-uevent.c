/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "macro.h"
#include "tap.h"
#include "time-util.h"
#include "uevent.h"

/* A string literal's bytes including the explicit final \0, as the kernel sends them. */
#define DGRAM(s) (s), (sizeof(s) - 1)

static const char cpu_offline[] =
        "offline@/devices/system/cpu/cpu3\0"
        "ACTION=offline\0"
        "DEVPATH=/devices/system/cpu/cpu3\0"
        "SUBSYSTEM=cpu\0"
        "SEQNUM=1234\0";

/* Parses a copy in a buffer of exactly len bytes, so that ASan catches any
 * read past the end. */
static int parse_exact(const char *buf, size_t len, UeventParsed *ret) {
        _cleanup_free_ char *copy = malloc(len ? len : 1);
        int r;

        if (!copy)
                return -ENOMEM;
        memcpy(copy, buf, len);
        r = uevent_parse(copy, len, ret);
        return r;
}

static void test_parse_good(void) {
        UeventParsed p;

        is_int(parse_exact(DGRAM(cpu_offline), &p), 0, "cpu offline: parses");
        is_str(p.action, "offline", "cpu offline: action");
        is_str(p.devpath, "/devices/system/cpu/cpu3", "cpu offline: devpath");
        is_str(p.subsystem, "cpu", "cpu offline: subsystem");

        is_int(parse_exact(DGRAM("add@/devices/system/node/node1\0"
                                 "ACTION=add\0"
                                 "DEVPATH=/devices/system/node/node1\0"
                                 "SUBSYSTEM=node\0"
                                 "SEQNUM=2077\0"), &p),
               0, "node add: parses");
        is_str(p.action, "add", "node add: action");
        is_str(p.devpath, "/devices/system/node/node1", "node add: devpath");
        is_str(p.subsystem, "node", "node add: subsystem");

        is_int(parse_exact(DGRAM("online@/devices/system/memory/memory32\0"
                                 "ACTION=online\0"
                                 "DEVPATH=/devices/system/memory/memory32\0"
                                 "SUBSYSTEM=memory\0"
                                 "SEQNUM=2081\0"), &p),
               0, "memory online: parses");
        is_str(p.action, "online", "memory online: action");
        is_str(p.devpath, "/devices/system/memory/memory32", "memory online: devpath");
        is_str(p.subsystem, "memory", "memory online: subsystem");

        /* The subsystem comes from the key, not from guessing at the devpath;
         * keys that merely end in SUBSYSTEM= do not count. */
        is_int(parse_exact(DGRAM("change@/devices/virtual/misc/cpu_dma_latency\0"
                                 "PARENT_SUBSYSTEM=cpu\0"
                                 "ACTION=change\0"
                                 "SUBSYSTEM=misc\0"), &p),
               0, "misc change: parses");
        is_str(p.subsystem, "misc", "misc change: SUBSYSTEM= key, not PARENT_SUBSYSTEM=");

        /* The final \0 missing: the last key may be cut, the rest is fine. */
        is_int(parse_exact(cpu_offline, sizeof(cpu_offline) - 2, &p), 0, "unterminated SEQNUM: parses");
        is_str(p.subsystem, "cpu", "unterminated SEQNUM: subsystem");
}

static void test_parse_bad(void) {
        static const char libudev[] =
                "libudev\0"
                "\xfe\xed\xca\xfe" "\x28\x00\x00\x00" "\x28\x00\x00\x00" "\x30\x00\x00\x00"
                "\x00\x00\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x00"
                "ACTION=offline\0"
                "DEVPATH=/devices/system/cpu/cpu3\0"
                "SUBSYSTEM=cpu\0"
                "SEQNUM=1234\0";
        static const char garbage[] = "\x13\x37\xff\x00\x80@\x01\x02";
        UeventParsed p, sentinel;

        is_int(parse_exact(DGRAM(libudev), &p), -EINVAL, "libudev message: rejected");
        is_int(parse_exact(DGRAM("libudev@/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0"), &p), 0,
               "only the exact libudev magic is udev's (an action may start alike)");
        is_int(parse_exact(garbage, sizeof(garbage) - 1, &p), -EINVAL, "binary garbage: rejected");
        is_int(parse_exact(DGRAM("hello world"), &p), -EINVAL, "text without @ or NUL: rejected");
        is_int(parse_exact(DGRAM("hello world\0SUBSYSTEM=cpu\0"), &p), -EINVAL, "header without @: rejected");
        is_int(parse_exact("", 0, &p), -EINVAL, "empty datagram: rejected");
        is_int(uevent_parse(NULL, 10, &p), -EINVAL, "NULL buffer: rejected");
        is_int(parse_exact(DGRAM("@/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0"), &p), -EINVAL,
               "empty action: rejected");
        is_int(parse_exact(DGRAM("add@\0SUBSYSTEM=cpu\0"), &p), -EINVAL, "empty devpath: rejected");
        is_int(parse_exact(DGRAM("add@devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0"), &p), -EINVAL,
               "relative devpath: rejected");
        is_int(parse_exact(DGRAM("offline@/devices/system/cpu/cpu3\0"
                                 "ACTION=offline\0"
                                 "DEVPATH=/devices/system/cpu/cpu3\0"
                                 "SEQNUM=1234\0"), &p),
               -EINVAL, "missing SUBSYSTEM: rejected");
        is_int(parse_exact(DGRAM("offline@/devices/system/cpu/cpu3\0SUBSYSTEM=\0"), &p), -EINVAL,
               "empty SUBSYSTEM: rejected");
        is_int(parse_exact(DGRAM("offline@/devices/system/cpu/cpu3\0SUBSYSTEM=abcdefghijklmnopqrstuvwxyz012345\0"),
                           &p),
               -EINVAL, "SUBSYSTEM of 32 characters: rejected");
        is_int(parse_exact(DGRAM("abcdefghijklmnopqrstuvwxyz012345@/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0"),
                           &p),
               -EINVAL, "action of 32 characters: rejected");
        is_int(parse_exact(DGRAM("abcdefghijklmnopqrstuvwxyz01234@/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0"),
                           &p),
               0, "action of 31 characters: fits");

        /* On failure the result is left alone. */
        memset(&sentinel, 'x', sizeof sentinel);
        p = sentinel;
        (void) parse_exact(DGRAM("offline@/devices/system/cpu/cpu3\0SEQNUM=1\0"), &p);
        ok(memcmp(&p, &sentinel, sizeof p) == 0, "failure leaves the result untouched");
}

static void test_parse_truncated(void) {
        size_t need = 0;
        unsigned wrong = 0;
        UeventParsed p;

        /* Where "SUBSYSTEM=cpu\0" ends, walking the NUL-separated strings. */
        for (const char *s = cpu_offline; s < cpu_offline + sizeof(cpu_offline) - 1; s += strlen(s) + 1)
                if (strncmp(s, "SUBSYSTEM=", 10) == 0)
                        need = (size_t) (s - cpu_offline) + strlen(s) + 1;
        is_u64(need, 95, "truncation: SUBSYSTEM=cpu ends at byte 95");

        /* Every prefix: the parse succeeds exactly when the SUBSYSTEM key is
         * complete, and then gives the full result; each copy is exactly the
         * prefix's size, so ASan sees any read beyond. */
        for (size_t len = 0; len < sizeof(cpu_offline); len++) {
                int r = parse_exact(cpu_offline, len, &p);
                bool good = len >= need
                        ? r == 0 && strcmp(p.action, "offline") == 0 &&
                                  strcmp(p.devpath, "/devices/system/cpu/cpu3") == 0 &&
                                  strcmp(p.subsystem, "cpu") == 0
                        : r == -EINVAL;
                if (!good) {
                        printf("#   prefix of %zu bytes: r=%d\n", len, r);
                        wrong++;
                }
        }
        is_int(wrong, 0, "truncation: every prefix parses or fails as it must");
        is_int(parse_exact(cpu_offline, 20, &p), -EINVAL, "truncated inside the header: rejected");
        is_int(parse_exact(cpu_offline, need - 2, &p), -EINVAL, "truncated inside SUBSYSTEM=cp: rejected");
        is_int(parse_exact(cpu_offline, need - 1, &p), -EINVAL, "SUBSYSTEM=cpu without its NUL: rejected");
        is_int(parse_exact(cpu_offline, need, &p), 0, "cut right after SUBSYSTEM=cpu: parses");
}

static void test_parse_long_devpath(void) {
        char buf[1024], devpath[300];
        UeventParsed p;
        int n;

        /* 255 characters fit the 256-byte field, 256 do not. */
        memset(devpath, 'a', sizeof devpath);
        devpath[0] = '/';
        devpath[255] = 0;
        n = snprintf(buf, sizeof buf, "add@%s%cSUBSYSTEM=memory%c", devpath, 0, 0);
        is_int(parse_exact(buf, n, &p), 0, "devpath of 255 characters: parses");
        is_u64(strlen(p.devpath), 255, "devpath of 255 characters: kept whole");

        devpath[255] = 'a';
        devpath[256] = 0;
        n = snprintf(buf, sizeof buf, "add@%s%cSUBSYSTEM=memory%c", devpath, 0, 0);
        is_int(parse_exact(buf, n, &p), -EINVAL, "devpath of 256 characters: rejected, not cut");

        devpath[299] = 0;
        memset(devpath + 256, 'b', 43);
        n = snprintf(buf, sizeof buf, "remove@%s%cACTION=remove%cSUBSYSTEM=cpu%c", devpath, 0, 0, 0);
        is_int(parse_exact(buf, n, &p), -EINVAL, "devpath of 298 characters: rejected");
}

/* The live test: a synthetic kernel event through the real socket. */

#define SPOOF_DEVPATH "/devices/system/cpu/cpu0/numastatd-spoof"

typedef struct LiveState {
        unsigned events, spoofed;
        bool seen;
} LiveState;

static void on_event(UeventMonitor *m, const Uevent *ev, void *userdata) {
        LiveState *st = userdata;

        st->events++;
        printf("# uevent: subsystem %d, %s %s\n", ev->subsystem, ev->action, ev->devpath);
        if (strcmp(ev->devpath, SPOOF_DEVPATH) == 0)
                st->spoofed++;
        if (ev->subsystem == UEVENT_CPU && strcmp(ev->action, "change") == 0 &&
            strcmp(ev->devpath, "/devices/system/cpu/cpu0") == 0)
                st->seen = true;
}

/* Sends a kernel-looking uevent from userspace to group 1. Returns the
 * datagrams a plain group member received, to show the spoof was really
 * delivered (so that the monitor ignoring it means something). */
static int send_spoof(void) {
        static const char msg[] =
                "change@" SPOOF_DEVPATH "\0"
                "ACTION=change\0"
                "DEVPATH=" SPOOF_DEVPATH "\0"
                "SUBSYSTEM=cpu\0"
                "SEQNUM=1\0";
        struct sockaddr_nl group = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        _cleanup_close_ int tx = -1, rx = -1;
        char buf[512];
        ssize_t n;

        rx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        tx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        if (rx < 0 || tx < 0)
                return -errno;
        if (bind(rx, (struct sockaddr *) &group, sizeof group) < 0)
                return -errno;
        if (sendto(tx, msg, sizeof(msg) - 1, 0, (struct sockaddr *) &group, sizeof group) < 0)
                return -errno;
        n = recv(rx, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0)
                return -errno;
        return n == (ssize_t) sizeof(msg) - 1 && memcmp(buf, msg, n) == 0 ? 1 : 0;
}

/* Overfills the monitor's receive queue (at most 4 MiB with the usual
 * rmem_max) with userspace messages: the kernel then reports ENOBUFS. */
static int flood(void) {
        struct sockaddr_nl group = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        _cleanup_close_ int tx = -1;
        char msg[4096] = "change@" SPOOF_DEVPATH;

        tx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        if (tx < 0)
                return -errno;
        for (int i = 0; i < 4096; i++)
                if (sendto(tx, msg, sizeof msg, MSG_DONTWAIT, (struct sockaddr *) &group, sizeof group) < 0)
                        return -errno;
        return 0;
}

static int run_until_idle(sd_event *e) {
        int r;

        /* sd_event_run() returns 0 once 100 ms pass with nothing to dispatch. */
        for (int i = 0; i < 1000; i++) {
                r = sd_event_run(e, 100 * USEC_PER_MSEC);
                if (r <= 0)
                        return r;
        }
        return -ETIME;
}

/* Points stderr at a memfd; returns the saved stderr. */
static int stderr_capture_begin(void) {
        _cleanup_close_ int fd = -1;
        int saved;

        fd = memfd_create("stderr", MFD_CLOEXEC);
        if (fd < 0)
                return -errno;
        saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (saved < 0)
                return -errno;
        if (dup2(fd, STDERR_FILENO) < 0) {
                close(saved);
                return -errno;
        }
        return saved;
}

/* Restores stderr; returns how many captured lines contain needle. */
static unsigned stderr_capture_end(int saved, const char *needle) {
        char buf[8192];
        unsigned count = 0;
        ssize_t n;

        fflush(stderr);
        n = pread(STDERR_FILENO, buf, sizeof buf - 1, 0);
        (void) dup2(saved, STDERR_FILENO);
        close(saved);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                printf("# stderr: %s\n", line);
                if (strstr(line, needle))
                        count++;
        }
        return count;
}

/* Writes "change" into this machine's real cpu0 uevent file: the only way
 * to make the kernel itself send one. udev and the other listeners here see
 * it too (a "change" only reruns rules), so it says so, and
 * NUMASTATD_TEST_HOST_UEVENTS=no turns it off. */
static int trigger_cpu0_change(void) {
        _cleanup_close_ int fd = -1;
        const char *allowed = getenv("NUMASTATD_TEST_HOST_UEVENTS");

        if (allowed && strcmp(allowed, "no") == 0)
                return -ECANCELED;
        printf("# writing \"change\" into this machine's /sys/devices/system/cpu/cpu0/uevent: "
               "udev here sees a synthetic uevent\n");
        fd = open("/sys/devices/system/cpu/cpu0/uevent", O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, "change", 6) != 6)
                return errno > 0 ? -errno : -EIO;
        return 0;
}

static void test_live(void) {
        UeventMonitor *m = NULL;
        LiveState st = {};
        sd_event *e = NULL;
        bool isolated;
        uint64_t deadline;
        int r;

        is_int(uevent_monitor_new(NULL, on_event, NULL, &m), -EINVAL, "monitor without event loop: -EINVAL");
        ok(!m, "monitor without event loop: nothing returned");

        if (geteuid() != 0) {
                tap_skip("live uevent test needs root to trigger a kernel uevent");
                return;
        }

        /* A private network namespace (still in the initial user namespace,
         * so kernel uevents reach it) keeps the spoofed message away from the
         * machine's other uevent listeners. */
        isolated = unshare(CLONE_NEWNET) >= 0;

        r = sd_event_new(&e);
        if (!is_int(r, 0, "live: event loop"))
                return;
        r = uevent_monitor_new(e, on_event, &st, &m);
        if (!is_int(r, 0, "live: uevent_monitor_new")) {
                sd_event_unref(e);
                return;
        }

        if (isolated) {
                r = send_spoof();
                is_int(r, 1, "live: a userspace message to group 1 is delivered");
                /* Two overflows: logged once, and the monitor reads on. */
                int saved = stderr_capture_begin();
                if (saved >= 0) {
                        is_int(flood(), 0, "live: flooded the uevent group");
                        is_int(run_until_idle(e), 0, "live: event loop drained the flood");
                        is_int(flood(), 0, "live: flooded the uevent group again");
                        is_int(run_until_idle(e), 0, "live: event loop drained the second flood");
                        is_int(stderr_capture_end(saved, "overflowed"), 1, "live: the overflow was logged once");
                } else
                        tap_skip("cannot capture stderr, no flood");
        } else
                tap_skip("cannot unshare the network namespace, no spoofed messages sent");

        r = trigger_cpu0_change();
        if (r < 0) {
                printf("# writing /sys/devices/system/cpu/cpu0/uevent: %s\n",
                       r == -ECANCELED ? "not done, NUMASTATD_TEST_HOST_UEVENTS=no" : strerror(-r));
                tap_skip("no uevent from the kernel of cpu0 (see above)");
                goto finish;
        }

        deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;
        while (!st.seen && now_usec(CLOCK_MONOTONIC) < deadline) {
                r = sd_event_run(e, 100 * USEC_PER_MSEC);
                if (r < 0)
                        break;
        }
        is_int(r >= 0, 1, "live: event loop ran");
        ok(st.seen, "live: callback saw cpu change /devices/system/cpu/cpu0 within 5 s");
        if (isolated)
                is_int(st.spoofed, 0, "live: the userspace message (sender pid != 0) was ignored");

finish:
        m = uevent_monitor_free(m);
        ok(!m, "live: free returns NULL");
        sd_event_unref(e);
}

int main(void) {
        test_parse_good();
        test_parse_bad();
        test_parse_truncated();
        test_parse_long_devpath();
        test_live();
        return tap_done();
}
