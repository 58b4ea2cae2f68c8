/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* libnl returns its own codes (-NLE_*); callers and %m want errno. Shared
 * by the uevent monitor and the taskstats listener. */
int errno_from_nl(int nl_error);
