/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The io.numastatd varlink service: methods and the status object. It knows
 * nothing of sockets; the varlink layer knows nothing of NUMA. */

#include <json-c/json.h>

typedef struct Manager Manager;

/* Creates the varlink server with the interface and methods bound. */
int service_setup(Manager *m);
json_object *service_status_json(Manager *m);
/* Sends the status to every Monitor client if it changed since last sent. */
void service_notify_monitors(Manager *m);
