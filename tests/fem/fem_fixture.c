#include "fem_fixture.h"

#include <math.h>

#include <glib/gstdio.h>
#include <lapacke.h>

/* The rotation of the polar decomposition of m (row-major), written here independently of
 * the plugin's (tests compare against it). */
static void
fixture_polar (const double m[9], double r[9])
{
  double a[9], s[3], u[9], vt[9], superb[2];
  memcpy (a, m, sizeof a);
  g_assert_cmpint (LAPACKE_dgesvd (LAPACK_ROW_MAJOR, 'A', 'A', 3, 3, a, 3, s, u, 3, vt, 3,
                                   superb), ==, 0);
  double det_u = u[0] * (u[4] * u[8] - u[5] * u[7]) - u[1] * (u[3] * u[8] - u[5] * u[6])
                 + u[2] * (u[3] * u[7] - u[4] * u[6]);
  double det_v = vt[0] * (vt[4] * vt[8] - vt[5] * vt[7]) - vt[1] * (vt[3] * vt[8] - vt[5] * vt[6])
                 + vt[2] * (vt[3] * vt[7] - vt[4] * vt[6]);
  if (det_u * det_v < 0)
    for (int i = 0; i < 3; i++)
      u[3 * i + 2] = -u[3 * i + 2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[3 * i + j] = u[3 * i] * vt[j] + u[3 * i + 1] * vt[3 + j] + u[3 * i + 2] * vt[6 + j];
}

static gboolean
fixture_progress (void *host_data, const char *what, double fraction)
{
  FemFixture *f = host_data;
  f->progress_reports++;
  g_assert_cmpfloat (fraction, >=, f->last_fraction);
  g_assert_cmpfloat (fraction, <=, 1);
  f->last_fraction = fraction;
  return f->cancel_after <= 0 || f->progress_reports < f->cancel_after;
}

static const char *
fixture_cache_dir (void *host_data)
{
  FemFixture *f = host_data;
  return f->cache_dir;
}

FemFixture *
fem_fixture_try (const char *body_yaml, double dt, const char *cache_dir, int cancel_after,
                 GError **error)
{
  g_autoptr (FemFixture) f = g_new0 (FemFixture, 1);
  f->registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (f->registry);
  cwb_registry_scan (f->registry);
  const CwbPluginDesc *desc = cwb_registry_find (f->registry, CWB_PLUGIN_BODY_MODEL, "fem");
  g_assert_nonnull (desc);
  f->vt = desc->vtable;

  g_autofree char *yaml = g_strdup_printf ("bodies:\n  - %s\n", body_yaml);
  f->scene = cwb_scene_load_from_data (yaml, -1, "fem-test.yaml", error);
  if (f->scene == NULL)
    return NULL;
  const CwbBodyDesc *body = g_ptr_array_index (f->scene->bodies, 0);
  f->params = cwb_param_binding_new (desc->params, desc->n_params, body->model_params,
                                     "model_params", error);
  if (f->params == NULL)
    return NULL;
  f->mesh = cwb_mesh_from_shape (&body->shape, NULL, error);
  if (f->mesh == NULL)
    return NULL;

  f->cache_dir = cache_dir != NULL ? g_strdup (cache_dir) : g_dir_make_tmp ("cwb-fem-XXXXXX", NULL);
  f->cancel_after = cancel_after;
  f->host = (CwbHostServices) {
    .struct_size = sizeof (CwbHostServices),
    .abi_major = CWB_ABI_MAJOR,
    .abi_minor = CWB_ABI_MINOR,
    .host_data = f,
    .progress = fixture_progress,
    .cache_dir = fixture_cache_dir,
  };
  f->owns_cache_dir = cache_dir == NULL;

  CwbSurfaceMesh surface;
  cwb_mesh_as_surface (f->mesh, &surface);
  CwbBodyCreateInfo info = {
    .struct_size = sizeof info,
    .name = body->name,
    .params = &f->params->set,
    .surface = &surface,
    .density = body->density,
    .fixed = body->fixed,
    .dt = dt,
  };
  memcpy (info.position, body->position, sizeof info.position);
  memcpy (info.orientation, body->orientation, sizeof info.orientation);
  memcpy (info.linear_velocity, body->linear_velocity, sizeof info.linear_velocity);
  memcpy (info.angular_velocity, body->angular_velocity, sizeof info.angular_velocity);
  f->self = f->vt->create (&info, &f->host, error);
  if (f->self == NULL)
    return NULL;
  f->vt->get_info (f->self, &f->info);
  f->n = f->info.nq;
  f->q = g_new0 (double, f->n);
  f->v = g_new0 (double, f->n);
  f->vt->init_state (f->self, f->q, f->v);
  return g_steal_pointer (&f);
}

FemFixture *
fem_fixture_new (const char *body_yaml, double dt, const char *cache_dir)
{
  g_autoptr (GError) error = NULL;
  FemFixture *f = fem_fixture_try (body_yaml, dt, cache_dir, 0, &error);
  g_assert_no_error (error);
  return f;
}

static void
remove_dir (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      g_unlink (file);
    }
  g_rmdir (path);
}

void
fem_fixture_free (FemFixture *f)
{
  if (f == NULL)
    return;
  if (f->self != NULL)
    f->vt->destroy (f->self);
  if (f->owns_cache_dir && f->cache_dir != NULL)
    remove_dir (f->cache_dir);
  g_free (f->cache_dir);
  g_free (f->q);
  g_free (f->v);
  g_clear_pointer (&f->params, cwb_param_binding_free);
  g_clear_pointer (&f->mesh, cwb_mesh_free);
  g_clear_pointer (&f->scene, cwb_scene_free);
  g_clear_pointer (&f->registry, cwb_registry_free);
  g_free (f);
}

void
fem_fixture_step (FemFixture *f, double h, const double g[3], const double *f_ext)
{
  g_autofree double *q_free = g_new (double, f->n), *v_free = g_new (double, f->n);
  CwbFreeMotion args = {
    .struct_size = sizeof args, .h = h, .q = f->q, .v = f->v, .f_ext = f_ext,
    .q_free = q_free, .v_free = v_free,
  };
  memcpy (args.gravity, g, sizeof args.gravity);
  f->vt->free_motion (f->self, &args);
  memcpy (f->q, q_free, f->n * sizeof (double));
  memcpy (f->v, v_free, f->n * sizeof (double));
}

void
fem_fixture_best_fit (const double *x, const double *rest, size_t n, double rot[9],
                      double c[3], double c0[3])
{
  cwb_v3_set (c, 0, 0, 0);
  cwb_v3_set (c0, 0, 0, 0);
  for (size_t i = 0; i < n; i++)
    {
      cwb_v3_axpy (c, 1.0 / n, &x[3 * i]);
      cwb_v3_axpy (c0, 1.0 / n, &rest[3 * i]);
    }
  double cov[9] = { 0 };
  for (size_t i = 0; i < n; i++)
    {
      double d[3], d0[3];
      cwb_v3_sub (d, &x[3 * i], c);
      cwb_v3_sub (d0, &rest[3 * i], c0);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          cov[3 * a + b] += d[a] * d0[b];
    }
  fixture_polar (cov, rot);
}

double
fem_fixture_deformation (const FemFixture *f)
{
  size_t n = f->info.n_nodes;
  const double *rest = f->info.rest_nodes;
  double rot[9], xc[3], rc[3];
  fem_fixture_best_fit (f->q, rest, n, rot, xc, rc);
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    {
      double d0[3], fit[3], e[3];
      cwb_v3_sub (d0, &rest[3 * i], rc);
      cwb_m3_mul_v3 (fit, rot, d0);
      cwb_v3_add (fit, fit, xc);
      cwb_v3_sub (e, &f->q[3 * i], fit);
      worst = fmax (worst, cwb_v3_norm (e));
    }
  return worst;
}
