/* The primitive shapes of scenes as closed, outward-oriented, welded triangle meshes, and
 * the one open shape, the flat rectangle (a regular grid, for cloth).
 *
 * Every round shape is a surface of revolution: a profile polyline (s_j, z_j) in the
 * half-plane s >= 0, from top to bottom (or a closed loop for the torus), turned about z in
 * n equal steps. Vertices sit on the exact surface, so the mesh is inscribed; its volume is
 * n sin(2 pi / n) / (2 pi) times that of the profile turned exactly (a discrete Pappus
 * theorem, derived in tests/scene/test_primitives.c), which the tests check. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include <gio/gio.h>

#include "mesh.h"

/* Profile of a round shape, top to bottom: at the outer side z decreases along it, which
 * makes the quads (j, k), (j + 1, k), (j + 1, k + 1), (j, k + 1) counter-clockwise seen from
 * outside (their normal is d(profile) x d(phi), pointing away from the axis). */
typedef struct Profile {
  GArray *s, *z;
  gboolean loop;   /* the last point joins the first (torus) */
} Profile;

static void
profile_add (Profile *p, double s, double z)
{
  g_array_append_val (p->s, s);
  g_array_append_val (p->z, z);
}

static void
revolve (CwbMesh *mesh, const Profile *profile, int n)
{
  size_t np = profile->s->len;
  g_autofree uint32_t *ring = g_new (uint32_t, np);
  g_autofree gboolean *pole = g_new (gboolean, np);
  for (size_t j = 0; j < np; j++)
    {
      double s = g_array_index (profile->s, double, j), z = g_array_index (profile->z, double, j);
      ring[j] = (uint32_t) cwb_mesh_n_vertices (mesh);
      pole[j] = !profile->loop && s == 0;   /* one vertex on the axis */
      for (int k = 0; k < (pole[j] ? 1 : n); k++)
        {
          double phi = 2 * G_PI * k / n;
          double v[3] = { s * cos (phi), s * sin (phi), z };
          g_array_append_vals (mesh->vertices, v, 3);
        }
    }
  size_t n_bands = profile->loop ? np : np - 1;
  for (size_t j = 0; j < n_bands; j++)
    {
      size_t j1 = (j + 1) % np;
      for (int k = 0; k < n; k++)
        {
          int k1 = (k + 1) % n;
          uint32_t a = ring[j] + (pole[j] ? 0 : (uint32_t) k);
          uint32_t d = ring[j] + (pole[j] ? 0 : (uint32_t) k1);
          uint32_t b = ring[j1] + (pole[j1] ? 0 : (uint32_t) k);
          uint32_t c = ring[j1] + (pole[j1] ? 0 : (uint32_t) k1);
          if (!pole[j1])
            {
              uint32_t t[3] = { a, b, c };
              g_array_append_vals (mesh->triangles, t, 3);
            }
          if (!pole[j])
            {
              uint32_t t[3] = { a, c, d };
              g_array_append_vals (mesh->triangles, t, 3);
            }
        }
    }
}

static CwbMesh *
mesh_revolved (const char *source, const Profile *profile, int n)
{
  CwbMesh *mesh = cwb_mesh_new (source);
  revolve (mesh, profile, n);
  cwb_mesh_check (mesh);
  return mesh;
}

static Profile
profile_new (gboolean loop)
{
  return (Profile) { g_array_new (FALSE, FALSE, sizeof (double)),
                     g_array_new (FALSE, FALSE, sizeof (double)), loop };
}

static void
profile_clear (Profile *p)
{
  g_array_unref (p->s);
  g_array_unref (p->z);
}

/* Arc of the circle of radius r centred on the axis at height zc, from polar angle t0 to t1
 * (from +z) in m steps; skip_first leaves out its first point. Points on the axis get s = 0
 * exactly so they become poles. */
static void
profile_arc (Profile *p, double r, double zc, double t0, double t1, int m, gboolean skip_first)
{
  for (int j = skip_first ? 1 : 0; j <= m; j++)
    {
      double t = t0 + (t1 - t0) * j / m;
      double s = (t == 0 || t == G_PI) ? 0 : r * sin (t);
      profile_add (p, s, zc + r * cos (t));
    }
}

static CwbMesh *
mesh_box (const double size[3], const double centre[3], const char *source)
{
  CwbMesh *mesh = cwb_mesh_new (source);
  for (int i = 0; i < 8; i++)
    {
      double v[3];
      for (int k = 0; k < 3; k++)
        v[k] = centre[k] + ((i >> k) & 1 ? 0.5 : -0.5) * size[k];
      g_array_append_vals (mesh->vertices, v, 3);
    }
  /* Vertex i has bit k set when it is on the + side of axis k; each face counter-clockwise
   * seen from outside, as two triangles. */
  static const uint32_t faces[6][4] = {
    { 0, 2, 3, 1 }, /* -z */ { 4, 5, 7, 6 }, /* +z */
    { 0, 1, 5, 4 }, /* -y */ { 2, 6, 7, 3 }, /* +y */
    { 0, 4, 6, 2 }, /* -x */ { 1, 3, 7, 5 }, /* +x */
  };
  for (int f = 0; f < 6; f++)
    {
      uint32_t t[6] = { faces[f][0], faces[f][1], faces[f][2],
                        faces[f][0], faces[f][2], faces[f][3] };
      g_array_append_vals (mesh->triangles, t, 6);
    }
  cwb_mesh_check (mesh);
  return mesh;
}

static CwbMesh *
mesh_from_file (const CwbShapeDesc *shape, const char *scene_dir,
                const CwbMeshProgress *progress, GError **error)
{
  const char *field = shape->field != NULL ? shape->field : "shape";
  g_autofree char *file_field = g_strconcat (field, ".file", NULL);
  const char *file = shape->mesh_file != NULL ? shape->mesh_file : "";
  g_autofree char *path = g_path_is_absolute (file)
                            ? g_strdup (file)
                            : g_build_filename (scene_dir != NULL ? scene_dir : ".", file, NULL);
  g_autoptr (GError) mesh_error = NULL;
  CwbMesh *mesh = cwb_mesh_load_with_progress (path, shape->scale, progress, &mesh_error);
  if (mesh == NULL && g_error_matches (mesh_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_propagate_error (error, g_steal_pointer (&mesh_error));   /* a cancel stays a cancel */
  else if (mesh == NULL)
    {
      if (g_error_matches (mesh_error, CWB_MESH_ERROR, CWB_MESH_ERROR_IO)
          && !g_file_test (path, G_FILE_TEST_EXISTS))
        cwb_scene_set_error (error, CWB_SCENE_ERROR_MESH, &shape->file_loc, file_field,
                             "no such file '%s' (looked for %s)", file, path);
      else
        cwb_scene_set_error (error, CWB_SCENE_ERROR_MESH, &shape->file_loc, file_field,
                             "%s", mesh_error->message);
    }
  return mesh;
}

void
cwb_primitive_rectangle_cells (const CwbShapeDesc *shape, int *nx, int *ny)
{
  int n = MAX (shape->resolution, 1);
  double w = shape->size[0], h = shape->size[1];
  /* n cells along the longer side; the shorter gets the count that keeps the cells closest
   * to square, at least one. */
  int other = (int) MAX (1, lround (n * (w < h ? w / h : h / w)));
  *nx = w >= h ? n : other;
  *ny = w >= h ? other : n;
}

/* The rectangle w x h centred on the origin in the xy plane, a grid of nx x ny cells, each
 * cut into two triangles counter-clockwise seen from +z (normal +z). The diagonal alternates
 * in a checkerboard, so that the mesh has no preferred shear direction: with every diagonal
 * one way, a cloth model would answer a shear of one sign differently from the other. */
static CwbMesh *
mesh_rectangle (const CwbShapeDesc *shape)
{
  double w = shape->size[0], h = shape->size[1];
  int nx, ny;
  cwb_primitive_rectangle_cells (shape, &nx, &ny);
  g_autofree char *source = g_strdup_printf ("rectangle %g x %g n=%d", w, h, shape->resolution);
  CwbMesh *mesh = cwb_mesh_new (source);
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++)
      {
        /* (i / n - 1/2) w puts the edges at exactly -w/2 and w/2, symmetric about 0. */
        double v[3] = { ((double) i / nx - 0.5) * w, ((double) j / ny - 0.5) * h, 0 };
        g_array_append_vals (mesh->vertices, v, 3);
      }
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      {
        /* Corners counter-clockwise from (i, j): a (i, j), b (i+1, j), c (i+1, j+1),
         * d (i, j+1). */
        uint32_t a = (uint32_t) (j * (nx + 1) + i), b = a + 1;
        uint32_t d = a + (uint32_t) (nx + 1), c = d + 1;
        const uint32_t along_ac[6] = { a, b, c, a, c, d }, along_bd[6] = { a, b, d, b, c, d };
        g_array_append_vals (mesh->triangles, (i + j) % 2 == 0 ? along_ac : along_bd, 6);
      }
  cwb_mesh_check (mesh);
  return mesh;
}

/* The profile of a round shape (sphere, cylinder, capsule, torus) and its description. */
static Profile
round_profile (const CwbShapeDesc *shape, char **source)
{
  int n = shape->resolution;
  double r = shape->radius, h = shape->height;
  Profile p = profile_new (shape->kind == CWB_SHAPE_TORUS);
  switch (shape->kind)
    {
    case CWB_SHAPE_SPHERE:
      /* n segments around, n / 2 latitude bands: edges of about equal length. */
      profile_arc (&p, r, 0, 0, G_PI, MAX (2, n / 2), FALSE);
      *source = g_strdup_printf ("sphere r=%g n=%d", r, n);
      break;
    case CWB_SHAPE_CYLINDER:
      profile_add (&p, 0, 0.5 * h);
      profile_add (&p, r, 0.5 * h);
      profile_add (&p, r, -0.5 * h);
      profile_add (&p, 0, -0.5 * h);
      *source = g_strdup_printf ("cylinder r=%g h=%g n=%d", r, h, n);
      break;
    case CWB_SHAPE_CAPSULE:
      {
        int q = MAX (1, n / 4);   /* bands per quarter circle, as for the sphere */
        profile_arc (&p, r, 0.5 * h, 0, G_PI_2, q, FALSE);
        /* With height 0 both equators coincide: keep one. */
        profile_arc (&p, r, -0.5 * h, G_PI_2, G_PI, q, h == 0);
        *source = g_strdup_printf ("capsule r=%g h=%g n=%d", r, h, n);
        break;
      }
    case CWB_SHAPE_TORUS:
      {
        double big = shape->major_radius, small = shape->minor_radius;
        /* Clockwise in (s, z) so that z decreases on the outer side. */
        for (int j = 0; j < n; j++)
          {
            double t = 2 * G_PI * j / n;
            profile_add (&p, big + small * cos (t), -small * sin (t));
          }
        *source = g_strdup_printf ("torus R=%g r=%g n=%d", big, small, n);
        break;
      }
    default:
      g_assert_not_reached ();
    }
  return p;
}

static gboolean
is_round (CwbShapeKind kind)
{
  return kind == CWB_SHAPE_SPHERE || kind == CWB_SHAPE_CYLINDER || kind == CWB_SHAPE_CAPSULE
         || kind == CWB_SHAPE_TORUS;
}

guint64
cwb_primitive_triangle_count (const CwbShapeDesc *shape)
{
  if (shape->kind == CWB_SHAPE_BOX || shape->kind == CWB_SHAPE_GROUND)
    return 12;
  if (shape->kind == CWB_SHAPE_RECTANGLE)
    {
      if (shape->resolution < 1 || !(shape->size[0] > 0) || !(shape->size[1] > 0))
        return 0;
      int nx, ny;
      cwb_primitive_rectangle_cells (shape, &nx, &ny);
      return 2 * (guint64) nx * (guint64) ny;
    }
  if (!is_round (shape->kind) || shape->resolution < 3)
    return 0;
  g_autofree char *source = NULL;
  Profile p = round_profile (shape, &source);
  /* As revolve () makes them: per band and segment, one triangle unless the next ring is a
   * pole, one more unless this ring is. */
  size_t np = p.s->len;
  size_t n_bands = p.loop ? np : np - 1;
  guint64 count = 0;
  for (size_t j = 0; j < n_bands; j++)
    {
      size_t j1 = (j + 1) % np;
      gboolean pole = !p.loop && g_array_index (p.s, double, j) == 0;
      gboolean pole1 = !p.loop && g_array_index (p.s, double, j1) == 0;
      count += (guint64) shape->resolution * (guint64) (!pole + !pole1);
    }
  profile_clear (&p);
  return count;
}

CwbMesh *
cwb_mesh_from_shape (const CwbShapeDesc *shape, const char *scene_dir, GError **error)
{
  return cwb_mesh_from_shape_with_progress (shape, scene_dir, NULL, error);
}

CwbMesh *
cwb_mesh_from_shape_with_progress (const CwbShapeDesc *shape, const char *scene_dir,
                                   const CwbMeshProgress *progress, GError **error)
{
  static const double origin[3] = { 0, 0, 0 };
  g_autofree char *source = NULL;
  switch (shape->kind)
    {
    case CWB_SHAPE_BOX:
      source = g_strdup_printf ("box %g x %g x %g", shape->size[0], shape->size[1],
                                shape->size[2]);
      return mesh_box (shape->size, origin, source);
    case CWB_SHAPE_GROUND:
      {
        /* The top face is the body's z = 0: contact with the ground is contact with it. */
        double centre[3] = { 0, 0, -0.5 * shape->size[2] };
        source = g_strdup_printf ("ground %g x %g x %g", shape->size[0], shape->size[1],
                                  shape->size[2]);
        return mesh_box (shape->size, centre, source);
      }
    case CWB_SHAPE_MESH:
      return mesh_from_file (shape, scene_dir, progress, error);
    case CWB_SHAPE_RECTANGLE:
      g_return_val_if_fail (shape->resolution >= 1, NULL);
      return mesh_rectangle (shape);
    case CWB_SHAPE_SPHERE:
    case CWB_SHAPE_CYLINDER:
    case CWB_SHAPE_CAPSULE:
    case CWB_SHAPE_TORUS:
      break;
    default:
      g_return_val_if_reached (NULL);
    }

  g_return_val_if_fail (shape->resolution >= 3, NULL);
  Profile p = round_profile (shape, &source);
  CwbMesh *mesh = mesh_revolved (source, &p, shape->resolution);
  profile_clear (&p);
  return mesh;
}
