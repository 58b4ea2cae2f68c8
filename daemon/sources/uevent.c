/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "log.h"
#include "macro.h"
#include "nl-util.h"
#include "string-table.h"
#include "uevent.h"

/* Datagrams handled per wakeup: a hotplug storm must not starve the rest
 * of the loop. The io source is level-triggered, so the rest comes next. */
#define UEVENT_BATCH_MAX 256

/* libnl asks for 32 KiB by default; adding a DIMM sends one "memory" add and
 * online per 128 MiB block, hundreds at once. The kernel caps this at
 * net.core.rmem_max. */
#define UEVENT_RCVBUF (1024 * 1024)

struct UeventMonitor {
        struct nl_sock *sk;
        sd_event_source *io;
        UeventCallback callback;
        void *userdata;
        int logged_error;       /* the last receive error logged as a warning */
};

static const char *const uevent_subsystem_table[_UEVENT_SUBSYSTEM_MAX] = {
        [UEVENT_CPU] = "cpu",
        [UEVENT_MEMORY] = "memory",
        [UEVENT_NODE] = "node",
};

static DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(uevent_subsystem, UeventSubsystem)

/* Copies a field that must be non-empty and fit; a cut-off action or
 * devpath would name something else, so too long is an error. */
static int copy_field(char *dst, size_t size, const char *src, size_t n) {
        if (n == 0 || n >= size)
                return -EINVAL;
        memcpy(dst, src, n);
        dst[n] = 0;
        return 0;
}

int uevent_parse(const char *buf, size_t len, UeventParsed *ret) {
        static const char key[] = "SUBSYSTEM=";
        const char *end, *header_end, *at;
        UeventParsed u = {};
        bool have_subsystem = false;

        if (!buf || !ret)
                return -EINVAL;
        end = buf + len;

        header_end = memchr(buf, 0, len);
        if (!header_end)
                return -EINVAL;         /* truncated inside the header */
        /* udev's re-broadcasts start with "libudev\0" and a binary header. */
        if (strcmp(buf, "libudev") == 0)
                return -EINVAL;

        at = memchr(buf, '@', header_end - buf);
        if (!at)
                return -EINVAL;
        if (copy_field(u.action, sizeof u.action, buf, at - buf) < 0 ||
            copy_field(u.devpath, sizeof u.devpath, at + 1, header_end - at - 1) < 0)
                return -EINVAL;
        if (u.devpath[0] != '/')
                return -EINVAL;

        for (const char *p = header_end + 1; p < end;) {
                const char *z = memchr(p, 0, end - p);

                if (!z)
                        /* An unterminated last key may have been cut short
                         * ("SUBSYSTEM=mem"): not trusted. */
                        break;
                if (!have_subsystem && (size_t) (z - p) >= strlen(key) && memcmp(p, key, strlen(key)) == 0) {
                        if (copy_field(u.subsystem, sizeof u.subsystem, p + strlen(key), z - p - strlen(key)) < 0)
                                return -EINVAL;
                        have_subsystem = true;
                }
                p = z + 1;
        }
        if (!have_subsystem)
                return -EINVAL;

        *ret = u;
        return 0;
}

static void uevent_monitor_log_error(UeventMonitor *m, int error, const char *what) {
        /* A lasting error would come back on every wakeup: warn once per
         * kind of error, repeats only at debug level. */
        if (error == m->logged_error)
                log_debug_errno(error, "%s: %m", what);
        else
                log_warning_errno(error, "%s: %m", what);
        m->logged_error = error;
}

static void uevent_monitor_dispatch(UeventMonitor *m, const char *buf, size_t len) {
        UeventParsed p;
        int s;

        if (uevent_parse(buf, len, &p) < 0) {
                log_debug("Ignoring a kernel uevent that does not parse (%zu bytes).", len);
                return;
        }
        s = uevent_subsystem_from_string(p.subsystem);
        if (s < 0)
                return;         /* not about topology: most uevents are not */

        /* The strings live on our stack, for the time of the call. The
         * callback must not free the monitor: the receive loop goes on. */
        m->callback(m,
                    &(const Uevent) {
                            .subsystem = s,
                            .action = p.action,
                            .devpath = p.devpath,
                    },
                    m->userdata);
}

static int on_uevent_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        UeventMonitor *m = userdata;

        for (unsigned i = 0; i < UEVENT_BATCH_MAX; i++) {
                /* nl_recv() leaves *buf untouched on failure: start from NULL. */
                _cleanup_free_ unsigned char *buf = NULL;
                _cleanup_free_ struct ucred *creds = NULL;
                struct sockaddr_nl nla = {};
                int n;

                /* With no message buffer size set, libnl 3.7 peeks at each
                 * datagram's size first and allocates to fit, so none is
                 * truncated (setting a size would turn that off and fail
                 * larger ones with -NLE_MSG_TRUNC, dropping them). */
                n = nl_recv(m->sk, &nla, &buf, &creds);
                if (n == 0 || n == -NLE_AGAIN)
                        return 0;
                if (n < 0) {
                        /* libnl turns the socket's ENOBUFS into -NLE_NOMEM;
                         * errno still tells them apart (free() keeps it). The
                         * queue itself is intact, so reading goes on. */
                        if (n == -NLE_NOMEM && errno == ENOBUFS) {
                                uevent_monitor_log_error(m, ENOBUFS,
                                                         "Kernel uevent queue overflowed, hotplug events were lost");
                                continue;
                        }
                        uevent_monitor_log_error(m, errno_from_nl(n), "Cannot receive kernel uevents");
                        return 0;
                }

                /* Root may send to the kernel's group too; only the kernel's
                 * own messages describe what happened. */
                if (nla.nl_pid != 0)
                        continue;

                uevent_monitor_dispatch(m, (const char *) buf, (size_t) n);
        }
        return 0;
}

UeventMonitor *uevent_monitor_free(UeventMonitor *m) {
        if (!m)
                return NULL;
        /* The source goes first: it has to leave epoll while the fd is open. */
        sd_event_source_disable_unref(m->io);
        if (m->sk)
                nl_socket_free(m->sk);
        free(m);
        return NULL;
}

static void uevent_monitor_freep(UeventMonitor **m) {
        uevent_monitor_free(*m);
}

int uevent_monitor_new(sd_event *event, UeventCallback cb, void *userdata, UeventMonitor **ret) {
        _cleanup_(uevent_monitor_freep) UeventMonitor *m = NULL;
        int r;

        if (!event || !cb || !ret)
                return -EINVAL;

        m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        m->callback = cb;
        m->userdata = userdata;

        m->sk = nl_socket_alloc();
        if (!m->sk)
                return -ENOMEM;
        /* Uevents carry no sequence numbers to check. */
        nl_socket_disable_seq_check(m->sk);
        /* Group 1 is the kernel's; it has to be set before the bind nl_connect() does. */
        nl_join_groups(m->sk, 1);

        r = nl_connect(m->sk, NETLINK_KOBJECT_UEVENT);
        if (r < 0)
                return -errno_from_nl(r);
        r = nl_socket_set_nonblocking(m->sk);
        if (r < 0)
                return -errno_from_nl(r);
        r = nl_socket_set_buffer_size(m->sk, UEVENT_RCVBUF, 0);
        if (r < 0)
                /* The default still works, it only overflows sooner. */
                log_debug_errno(errno_from_nl(r), "Cannot enlarge the uevent receive buffer, using the default: %m");

        r = sd_event_add_io(event, &m->io, nl_socket_get_fd(m->sk), EPOLLIN, on_uevent_io, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(m->io, "uevent");

        *ret = TAKE_PTR(m);
        return 0;
}
