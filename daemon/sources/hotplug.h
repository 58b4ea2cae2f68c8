/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Hotplug as one event per burst: the kernel's uevents about CPUs, memory
 * and nodes (uevent.h), gathered until the burst settles (memory blocks
 * come online by the dozen), then told once, saying whether nodes or CPUs
 * were among them. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct Hotplug Hotplug;

typedef struct HotplugSettled {
        bool nodes;             /* a node uevent: a node's files may have come or gone */
        bool cpus;              /* a CPU uevent: the counters' precision follows the CPU count */
} HotplugSettled;

typedef void (*hotplug_settled_t)(Hotplug *h, const HotplugSettled *what, void *userdata);

/* Listens; without a uevent socket, still returns a Hotplug that hears
 * nothing and says why (hotplug_error()). Returns a negative errno only
 * when out of memory. */
int hotplug_new(sd_event *event, hotplug_settled_t settled, void *userdata, Hotplug **ret);
Hotplug *hotplug_free(Hotplug *h);

/* Whether uevents are heard; if not, why (else NULL). */
bool hotplug_listening(const Hotplug *h);
const char *hotplug_error(const Hotplug *h);
/* Uevents heard, and the CLOCK_REALTIME µs of the last (0: none). */
uint64_t hotplug_changes(const Hotplug *h);
uint64_t hotplug_changed_at(const Hotplug *h);
