/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* io.numastatd compiled for sd-varlink: daemon/interface-sd.c, generated
 * from varlink/io.numastatd.varlink by varlink/gen-sd-interface.py. */

#include <systemd/sd-varlink-idl.h>

extern const sd_varlink_interface vl_interface_io_numastatd;
