/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The [metrics] textfile as we keep it: the text last written, where, when,
 * and why the last write failed. Written through textfile.h. NULL is none:
 * nothing written, nothing to remove. */

#include <stdbool.h>
#include <stdint.h>

typedef struct MetricsFile MetricsFile;

MetricsFile *metrics_file_new(void);
/* Forgets; does not remove (metrics_file_remove()). */
MetricsFile *metrics_file_free(MetricsFile *f);

/* Writes text to path (absolute), unless the same text is there already.
 * A failure is logged once, until a write works again. Returns 1 when
 * the error came or went (status changes), 0 otherwise. */
int metrics_file_update(MetricsFile *f, const char *path, const char *text);
/* Removes the file we wrote, if it is still ours, and forgets it: a stale
 * file would tell node_exporter an old story. */
void metrics_file_remove(MetricsFile *f);

/* Whether the file we wrote last is at path. */
bool metrics_file_at(const MetricsFile *f, const char *path);
/* Why the last write failed; NULL: it worked, or none was tried. */
const char *metrics_file_error(const MetricsFile *f);
/* CLOCK_REALTIME µs of the last write that worked; 0: none. */
uint64_t metrics_file_written_at(const MetricsFile *f);
