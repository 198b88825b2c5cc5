/* Monotonic time in nanoseconds, for phase timing and progress. */
#pragma once

#include <glib.h>

gint64 cwb_clock_ns (void);
