/* Shared parts of the TEST-ONLY broken plugins: a trivial solver whose operations do nothing,
 * so that each broken library differs from a valid one in exactly the one thing it tests. */
#pragma once

#include <cwb/cwb.h>

/* G_GNUC_UNUSED: a library that lacks an operation on purpose does not use it. */
G_GNUC_UNUSED static void *
broken_create (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error)
{
  return g_new0 (int, 1);
}

G_GNUC_UNUSED static void
broken_destroy (void *self)
{
  g_free (self);
}

G_GNUC_UNUSED static gboolean
broken_step (void *self, CwbStepContext *ctx, GError **error)
{
  return TRUE;
}

/* A complete solver vtable. */
#define BROKEN_SOLVER_VTABLE                                                  \
  {                                                                           \
    .struct_size = sizeof (CwbSolverVTable), .create = broken_create,         \
    .destroy = broken_destroy, .step = broken_step,                           \
  }
