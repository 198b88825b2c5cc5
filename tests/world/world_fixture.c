#include <math.h>

#include "world_fixture.h"
#include "world_private.h"

const char *const fixture_two_boxes_yaml =
  "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
  "contact: { model: halfspace }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: resting\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.1] }\n"
  "  - name: tumbling\n"
  "    shape: { type: box, size: [0.3, 0.2, 0.1] }\n"
  "    pose: { position: [1, 0, 2] }\n"
  "    velocity: { linear: [0.5, 0, 3], angular: [0.1, 5, 0.2] }\n";

CwbRegistry *
fixture_registry (void)
{
  CwbRegistry *registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  /* The test-only plugins (halfspace, faulty), ':'-separated. */
  const char *dirs = g_getenv ("CWB_TEST_PLUGIN_DIRS");
  g_assert_nonnull (dirs);
  g_auto (GStrv) list = g_strsplit (dirs, ":", -1);
  for (char **d = list; *d != NULL; d++)
    cwb_registry_add_dir (registry, *d);
  cwb_registry_scan (registry);
  return registry;
}

CwbWorld *
fixture_world (CwbRegistry *registry, const char *yaml)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "test.yaml", &error);
  g_assert_no_error (error);
  CwbWorld *world = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  return world;
}

CwbWorld *
fixture_world_from_file (CwbRegistry *registry, const char *relative_path,
                         const char *const *sets)
{
  g_autofree char *path = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative_path, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_apply_sets (scene, (char *const *) sets, &error));
  g_assert_no_error (error);
  CwbWorld *world = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  return world;
}

GPtrArray *
fixture_params (const char *first_name, ...)
{
  GPtrArray *params = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_param_free);
  va_list args;
  va_start (args, first_name);
  for (const char *name = first_name; name != NULL; name = va_arg (args, const char *))
    {
      const char *text = va_arg (args, const char *);
      CwbSourceLoc loc = { "test", 1, 1 };
      g_autoptr (GError) error = NULL;
      CwbSceneNode *node = cwb_scene_node_parse (text, &loc, &error);
      g_assert_no_error (error);
      cwb_scene_params_set (params, name, node, &loc);
    }
  va_end (args);
  return params;
}

void
fixture_step (CwbWorld *world, int n)
{
  for (int k = 0; k < n; k++)
    {
      g_autoptr (GError) error = NULL;
      cwb_world_step (world, &error);
      g_assert_no_error (error);
    }
}

const CwbContactSet *
fixture_detect (CwbWorld *world, CwbContactPass pass)
{
  g_autoptr (GError) error = NULL;
  const CwbContactSet *set = world->ctx.detect (&world->ctx, world->q, world->v, pass, &error);
  g_assert_no_error (error);
  g_assert_nonnull (set);
  return set;
}

double
fixture_downhill_velocity (CwbWorld *world, size_t body, double angle)
{
  CwbBodySummary s;
  cwb_world_body_summary (world, body, &s);
  return s.linear_velocity[0] * cos (angle) - s.linear_velocity[2] * sin (angle);
}

double
fixture_deepest_contact (CwbWorld *world, size_t *n_frames)
{
  const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_POSITION);
  double deepest = 0;
  for (guint f = 0; f < set->frames->len; f++)
    deepest = MAX (deepest, -g_array_index (set->frames, CwbContactFrame, f).gap);
  if (n_frames != NULL)
    *n_frames = set->frames->len;
  return deepest;
}

double
fixture_downhill_acceleration (CwbWorld *world, size_t body, double angle, int settle,
                               int steps)
{
  fixture_step (world, settle);
  double v0 = fixture_downhill_velocity (world, body, angle);
  fixture_step (world, steps);
  return (fixture_downhill_velocity (world, body, angle) - v0) / (steps * cwb_world_dt (world));
}

void
fixture_assert_loaded_frames_slip (CwbWorld *world)
{
  const CwbContactSet *set = cwb_world_contacts (world);
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      if (frame->force[0] > 0)
        g_assert_cmpint (frame->state, ==, CWB_CONTACT_SLIP);
    }
}

void
fixture_frame_force (const CwbContactFrame *frame, double out[3])
{
  cwb_v3_scale (out, frame->normal, frame->force[0]);
  cwb_v3_axpy (out, frame->force[1], frame->t1);
  cwb_v3_axpy (out, frame->force[2], frame->t2);
}

double
fixture_box_lowest_corner (CwbWorld *world, size_t body, double side)
{
  CwbBodySummary s;
  cwb_world_body_summary (world, body, &s);
  double lowest = INFINITY;
  for (int i = 0; i < 8; i++)
    {
      double local[3], corner[3];
      for (int k = 0; k < 3; k++)
        local[k] = ((i >> k) & 1 ? 0.5 : -0.5) * side;
      cwb_quat_rotate (corner, s.orientation, local);
      lowest = MIN (lowest, s.centroid[2] + corner[2]);
    }
  return lowest;
}

double
fixture_body_lowest_point (CwbWorld *world, size_t body)
{
  size_t n = 0;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n);
  double lowest = INFINITY;
  for (size_t g = 0; g < n; g++)
    if (geometries[g].body == body)
      for (size_t p = 0; p < geometries[g].n_points; p++)
        lowest = MIN (lowest, geometries[g].positions[3 * p + 2]);
  return lowest;
}

char *
fixture_pyramid_scene (int rows, double gap, double offset, double mu, double dt,
                       const char *contact, const char *solver)
{
  GString *s = g_string_new (NULL);
  char b[3][G_ASCII_DTOSTR_BUF_SIZE];   /* b[1] keeps mu throughout */
  double ground = MAX (40.0, 2.5 * rows);
  g_string_append_printf (s,
    "world: { dt: %s, gravity: [0, 0, -9.81] }\n"
    "contact: { %s }\n"
    "solver: { %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [%g, %g, 1] }\n"
    "    fixed: true\n"
    "    material: { friction: %s }\n",
    g_ascii_dtostr (b[0], sizeof b[0], dt), contact, solver, ground, ground,
    g_ascii_dtostr (b[1], sizeof b[1], mu));
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < rows - r; i++)
      {
        double x = (i - (rows - r - 1) / 2.0) * (1 + gap) + r * offset;
        double y = r * offset, z = 0.5 + r * (1 + gap) + gap;
        g_string_append_printf (s,
          "  - name: box-%d-%d\n"
          "    shape: { type: box, size: [1, 1, 1] }\n",
          r, i);
        g_string_append_printf (s, "    pose: { position: [%s, ",
                                g_ascii_dtostr (b[0], sizeof b[0], x));
        g_string_append_printf (s, "%s, %s] }\n", g_ascii_dtostr (b[0], sizeof b[0], y),
                                g_ascii_dtostr (b[2], sizeof b[2], z));
        g_string_append_printf (s, "    material: { density: 1000, friction: %s }\n", b[1]);
      }
  return g_string_free (s, FALSE);
}

double
fixture_pyramid_drift (CwbWorld *world, int rows, double gap, double offset)
{
  double worst = 0;
  size_t body = 1;
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < rows - r; i++, body++)
      {
        double rest[3] = { (i - (rows - r - 1) / 2.0) * (1 + gap) + r * offset, r * offset,
                           0.5 + r };
        CwbBodySummary sum;
        cwb_world_body_summary (world, body, &sum);
        double d[3];
        cwb_v3_sub (d, sum.centroid, rest);
        worst = MAX (worst, cwb_v3_norm (d));
      }
  return worst;
}

char *
fixture_incline_scene (double angle, double side, double mu, double dt, const char *contact,
                       const char *solver)
{
  char b[6][G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, -9.81] }\n"
    "contact: { %s }\n"
    "solver: { %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [6, 2, 0.5] }\n"
    "    pose: { orientation: [%s, 0, %s, 0] }\n"
    "    fixed: true\n"
    "    material: { friction: %g }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [%s, 0, %s], orientation: [%s, 0, %s, 0] }\n"
    "    material: { density: 500, friction: %g }\n",
    dt, contact, solver,
    g_ascii_dtostr (b[0], sizeof b[0], cos (angle / 2)),
    g_ascii_dtostr (b[1], sizeof b[1], sin (angle / 2)), mu, side, side, side,
    g_ascii_dtostr (b[2], sizeof b[2], sin (angle) * side / 2),
    g_ascii_dtostr (b[3], sizeof b[3], cos (angle) * side / 2),
    g_ascii_dtostr (b[4], sizeof b[4], cos (angle / 2)),
    g_ascii_dtostr (b[5], sizeof b[5], sin (angle / 2)), mu);
}

void
fixture_sphere_facet_down (double radius, int resolution, double orientation[4],
                           double *facet_distance)
{
  /* The quad between the first two rings above the lower pole, between longitudes 0 and
   * one step: its four vertices are coplanar (a symmetric trapezoid), its normal the
   * normalised cross product of its diagonals. */
  double band = 2 * G_PI / resolution, around = 2 * G_PI / resolution, v[4][3];
  for (int ring = 0; ring < 2; ring++)
    for (int k = 0; k < 2; k++)
      {
        double polar = (ring + 1) * band, phi = k * around;
        cwb_v3_set (v[2 * ring + k], radius * sin (polar) * cos (phi),
                    radius * sin (polar) * sin (phi), -radius * cos (polar));
      }
  double d1[3], d2[3], normal[3];
  cwb_v3_sub (d1, v[3], v[0]);
  cwb_v3_sub (d2, v[2], v[1]);
  cwb_v3_cross (normal, d1, d2);
  cwb_v3_normalize (normal);
  if (cwb_v3_dot (normal, v[0]) < 0)
    cwb_v3_scale (normal, normal, -1);   /* outward, away from the centre */
  double down[3] = { 0, 0, -1 }, axis[3];
  cwb_v3_cross (axis, normal, down);
  double sine = cwb_v3_normalize (axis), angle = atan2 (sine, cwb_v3_dot (normal, down));
  orientation[0] = cos (angle / 2);
  for (int k = 0; k < 3; k++)
    orientation[1 + k] = axis[k] * sin (angle / 2);
  *facet_distance = cwb_v3_dot (normal, v[0]);
}

char *
fixture_sphere_facet_down_pose (double radius, int resolution, double x, double y, double base,
                                double above, double *facet_distance)
{
  double q[4];
  fixture_sphere_facet_down (radius, resolution, q, facet_distance);
  double position[3] = { x, y, base + *facet_distance + above };
  char p[3][G_ASCII_DTOSTR_BUF_SIZE], o[4][G_ASCII_DTOSTR_BUF_SIZE];
  for (int k = 0; k < 3; k++)
    g_ascii_dtostr (p[k], sizeof p[k], position[k]);
  for (int k = 0; k < 4; k++)
    g_ascii_dtostr (o[k], sizeof o[k], q[k]);
  return g_strdup_printf ("    pose: { position: [%s, %s, %s], orientation: [%s, %s, %s, %s] }\n",
                          p[0], p[1], p[2], o[0], o[1], o[2], o[3]);
}

double
fixture_derived (const GArray *derived, const char *name)
{
  for (guint k = 0; derived != NULL && k < derived->len; k++)
    if (g_strcmp0 (g_array_index (derived, CwbDerivedParam, k).name, name) == 0)
      return g_array_index (derived, CwbDerivedParam, k).value;
  return NAN;
}

const double *
fixture_body_points (CwbWorld *world, size_t body, size_t *n)
{
  size_t nq;
  const double *q = cwb_world_q (world, &nq);
  const CwbBodySlot *slot = cwb_world_body_slot (world, body);
  *n = slot->nq / 3;
  return q + slot->q_offset;
}

size_t
fixture_points_escaped (const double *x, size_t n, double radius, const double lo[3],
                        const double hi[3])
{
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    {
      const double *p = &x[3 * i];
      if (hi[2] > lo[2] && p[2] > hi[2])
        continue;
      gboolean out = p[2] < lo[2] - radius;
      for (int c = 0; c < 2; c++)
        out = out || p[c] < lo[c] - radius || p[c] > hi[c] + radius;
      count += out;
    }
  return count;
}

