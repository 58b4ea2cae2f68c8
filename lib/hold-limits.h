/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon allows a Hold, which numastatctl checks before asking
 * (so that it can say which option is wrong and by how much). */

#define HOLD_REASON_MAX 128                                     /* bytes with the NUL: at most 127 of text */
#define HOLD_TIMEOUT_MAX_USEC (7ULL * 24 * 3600 * 1000 * 1000)  /* 7d, in µs */
