/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The io.numastatd varlink service: the methods. It knows nothing of
 * sockets; the varlink layer knows nothing of NUMA. Status comes from a
 * Status snapshot (status.h) only. */

#include "status.h"

typedef struct Manager Manager;

/* Creates the varlink server with the interface and methods bound. */
int service_setup(Manager *m);
/* Sends st to every Monitor client. The manager calls it when something a
 * person would call a change happened (see status_fingerprint()). */
void service_notify_monitors(Manager *m, const Status *st);
/* A hold's timeout passed: the Hold call's last reply ({"held": false}),
 * so its caller learns it is over. */
void service_hold_expired(Varlink *link);
/* Lets go of the clients the service keeps (Monitor subscribers), once
 * the exit path has disconnected them. */
void service_done(Manager *m);
