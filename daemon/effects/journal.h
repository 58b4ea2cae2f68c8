/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "history.h"

/* journalctl MESSAGE_ID=9047bd2c736f496ba83969e626bf4f84 lists every switch. */
#define NUMASTATD_MESSAGE_TRANSITION "9047bd2c736f496ba83969e626bf4f84"

/* One journal entry for a transition, with fields to filter on
 * (NUMASTATD_FROM=, _TO=, _KIND=, _CAUSE=, the reader's own). Names another
 * process chose are escaped. */
void journal_transition(const Transition *t);
