/* One FEM body driven directly through the `fem` plugin's vtable (loaded by the registry from
 * the build tree, as the host does), for tests against closed forms: the body's parameters
 * come from scene YAML, its shape from the core's primitives, and the host services give a
 * private cache folder and count progress reports. */
#pragma once

#include <cwb/cwb.h>

#include "mesh.h"
#include "param_bind.h"
#include "registry.h"
#include "scene.h"

G_BEGIN_DECLS

typedef struct FemFixture {
  CwbRegistry *registry;
  CwbScene *scene;
  CwbMesh *mesh;
  CwbParamBinding *params;
  const CwbBodyModelVTable *vt;
  void *self;
  CwbBodyInfo info;
  size_t n;                 /* nq = nv = 3 nodes */
  double *q, *v;            /* the state, initialised by init_state */
  /* Host services. */
  CwbHostServices host;
  char *cache_dir;
  int progress_reports;
  double last_fraction;
  int cancel_after;         /* > 0: the progress call number that cancels */
  gboolean owns_cache_dir;
} FemFixture;

/* `body_yaml` is one body's mapping in scene syntax, with `model: fem`. dt is what the
 * host passes at creation (CwbBodyCreateInfo.dt). cache_dir: NULL for a fresh temporary
 * folder (removed by free), or a folder to share between fixtures. Fails the test when the
 * body does not build. */
FemFixture *fem_fixture_new (const char *body_yaml, double dt, const char *cache_dir);
/* The same, returning NULL with the error instead of failing. */
FemFixture *fem_fixture_try (const char *body_yaml, double dt, const char *cache_dir,
                             int cancel_after, GError **error);
void fem_fixture_free (FemFixture *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FemFixture, fem_fixture_free)

/* One free-motion step of length h under gravity g (and f_ext, may be NULL), in place. */
void fem_fixture_step (FemFixture *f, double h, const double g[3], const double *f_ext);

/* The rigid motion that best fits n points x to their rest positions (Kabsch, unweighted):
 * x ~ rot (X - c0) + c, rot the rotation of the polar decomposition of
 * sum (x - c)(X - c0)^T, by LAPACK's SVD. */
void fem_fixture_best_fit (const double *x, const double *rest, size_t n, double rot[9],
                           double c[3], double c0[3]);

/* The largest node distance from the rigid motion that best fits the state (the deformation
 * a rotation and translation cannot explain), in metres. */
double fem_fixture_deformation (const FemFixture *f);

G_END_DECLS
