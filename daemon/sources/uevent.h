/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Kernel uevents about CPUs, memory and NUMA nodes, through a libnl-3
 * NETLINK_KOBJECT_UEVENT socket. Only the kernel's own messages (sender
 * pid 0) are taken. */

#include <systemd/sd-event.h>

typedef enum UeventSubsystem {
        UEVENT_CPU,
        UEVENT_MEMORY,
        UEVENT_NODE,
        _UEVENT_SUBSYSTEM_MAX,
        _UEVENT_SUBSYSTEM_INVALID = -22,
} UeventSubsystem;

typedef struct Uevent {
        UeventSubsystem subsystem;
        const char *action;     /* "add", "remove", "online", "offline", "change" */
        const char *devpath;    /* "/devices/system/cpu/cpu3" */
} Uevent;

typedef struct UeventParsed {
        char action[32];
        char devpath[256];
        char subsystem[32];
} UeventParsed;

/* Parses one datagram "ACTION@DEVPATH\0KEY=VALUE\0…" (not nlmsghdr framed).
 * Pure; returns 0, or -EINVAL for anything else (e.g. udev's "libudev"
 * messages). SUBSYSTEM= comes from the key list. */
int uevent_parse(const char *buf, size_t len, UeventParsed *ret);

typedef struct UeventMonitor UeventMonitor;
typedef void (*UeventCallback)(UeventMonitor *m, const Uevent *ev, void *userdata);

int uevent_monitor_new(sd_event *event, UeventCallback cb, void *userdata, UeventMonitor **ret);
UeventMonitor *uevent_monitor_free(UeventMonitor *m);
