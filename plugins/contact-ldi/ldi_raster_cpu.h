/* The reference LDI backend: rasterises closed surfaces into the three images of an LDI on
 * the CPU (ldi_raster_cpu.c). */
#pragma once

#include "ldi.h"

G_BEGIN_DECLS

/* Checks every surface not marked checked (ldi_surface_check), then fills the three images
 * of `ldi` with one fragment per (pixel, triangle) whose projection covers the pixel centre,
 * and sorts them, on n_threads threads (0: one per processor). The fragments, and everything computed from
 * them, are the same for any number of threads. FALSE with the check's error, leaving the
 * LDI empty. */
gboolean ldi_raster_cpu (Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces,
                         guint n_threads, GError **error);

G_END_DECLS
