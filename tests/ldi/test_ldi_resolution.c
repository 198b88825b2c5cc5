/* Mesh-resolution independence, Allard 2010's central claim (sec. 1, 5, 7: "the number of
 * equations is small and independent of geometric complexity"): the same shapes tessellated
 * at about 1 000 and about 20 000 triangles give the `ldi` model the same contacts, one per
 * pair (mono-volume) or one per grid cell holding intersection (multi-volume, sec. 5), with
 * the same volumes up to what the tessellation itself changes plus the pixel-scale error.
 * Measured through the host, as a solver sees them: worlds of rigid bodies built from scene
 * text, detection by the step context (tests/world/world_fixture.h).
 *
 * References, the primitives being inscribed (workbench/core/primitives.c; derived in
 * tests/scene/test_primitives.c):
 *
 *   - A sphere of resolution n (n segments around, n / 2 bands) lies between the spheres of
 *     radius R cos^2(pi / n) and R: its profile polygon holds the circle shrunk by
 *     cos(pi / n) (chords of angle 2 pi / n), and turning it in n steps scales it radially
 *     by c(phi) >= cos(pi / n) (the inscribed n-gon, whose area is n sin(2 pi/n) / (2 pi)
 *     of the circle's: the factor per circular direction). So the intersection of two such
 *     spheres lies between the closed-form lenses of those radii, and a sphere's cap in a
 *     plane between the closed-form caps. The band is R sin^2(pi / n) ~ R (pi / n)^2 wide:
 *     7.6e-3 R at n = 36, 4.8e-4 R at n = 144.
 *   - With n_fine = 4 n_coarse every coarse vertex is a fine vertex (same angles, bit for
 *     bit), and the fine polyhedron is convex: it holds the coarse one. Each LDI ray then
 *     crosses a coarse intersection inside the fine one, so every image's volume, and every
 *     cell's, is smaller for the coarse meshes up to rounding: an exact inequality, whatever
 *     the pixels. Every cell thus loses between 0 and the total difference.
 *   - A box is flat: subdividing its faces (12 triangles or 12 288) changes no surface, so
 *     with the sphere held the volumes agree to rounding.
 *
 * Pixel-scale error: each image's volume samples the column lengths at pixel centres. Two
 * parts (relative to the volume, at h = R / 50):
 *   - of random sign, from the pixels that an outline or a projected edge crosses: the three
 *     images measure the same polyhedra, so their spread measures it; 1.5e-4 to 2.7e-3 here
 *     (the most for the coarse cap, 10 pixels deep, whose 17 mm facets put kinks in the
 *     column lengths every 8 pixels);
 *   - a bias the images share: the column lengths through an intersection of convex solids
 *     are concave (Brunn-Minkowski), so a pixel-centre sample overestimates a pixel's mean by
 *     h^2 / 24 |lap L|, with |lap L| ~ 4 / R for two sphere caps: 2.4e-4 of the lens, 6.5e-4
 *     of the cap (thinner: L ~ 1 cm). PIXEL_BIAS_RTOL bounds it.
 * Each run's allowance is PIXEL_BIAS_RTOL plus three times its own images' spread, and the
 * spread itself must stay below SPREAD_RTOL (pixel-scale: a lost or doubled layer of
 * pixels would be ~h / L = 20 % of the cap). */
#include <math.h>

#include <glib/gstdio.h>

#include "mesh.h"
#include "world_fixture.h"

#define R 0.1            /* m, every sphere's radius */
#define PIXEL 0.002      /* m: R / 50 */
/* Multi-volume cells. A cell holding less than the coarse-fine difference (a sliver of the
 * rim) could be emptied by the coarse faceting, and the count would then rightly differ:
 * with cells of R and the intersection's centre near a cell corner, the lens is cut into 8
 * pieces of 1/11 to 1/5 of its volume and the cap into 4 quarters, each above the whole
 * band (6 to 8 %, asserted as the set-up's condition). */
#define CELL 0.1
#define N_COARSE 36      /* 36 x 34 = 1 224 triangles */
#define N_FINE 144       /* 144 x 142 = 20 448 triangles; 4 N_COARSE (nested) */
#define BOX_LEVELS 5     /* 12 x 4^5 = 12 288 triangles */
/* Exact comparisons (nesting, a box's tessellation): sums of ~1e4 interval lengths, each
 * rounded to 1e-16 relative; 1e-12 of the volume leaves margin. */
#define ROUNDING_RTOL 1e-12
/* The sampling error's shared bias and the largest spread of the images (see above). */
#define PIXEL_BIAS_RTOL 2e-3
#define SPREAD_RTOL 1e-2

static double
lens_volume (double radius, double d)
{
  return G_PI * (4 * radius + d) * (2 * radius - d) * (2 * radius - d) / 12;
}

/* The cap of a sphere of radius r sunk `depth` into a half-space. */
static double
cap_volume (double r, double depth)
{
  return G_PI * depth * depth * (3 * r - depth) / 3;
}

/* The inner sphere's radius of the band a sphere of resolution n lies in. */
static double
inner_radius (int n)
{
  return R * cos (G_PI / n) * cos (G_PI / n);
}

/* ---- Worlds ----------------------------------------------------------------------------- */

static char *
contact_yaml (gboolean multi_volume)
{
  return g_strdup_printf ("contact: { model: ldi, pixel_size: %g, threads: 1, multi_volume: %s,"
                          " cell_size: %g }\n", PIXEL, multi_volume ? "true" : "false", CELL);
}

static char *
position_yaml (const double p[3])
{
  char b[3][G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("[%s, %s, %s]", g_ascii_dtostr (b[0], sizeof b[0], p[0]),
                          g_ascii_dtostr (b[1], sizeof b[1], p[1]),
                          g_ascii_dtostr (b[2], sizeof b[2], p[2]));
}

/* Two free spheres of radius R and resolution n at ca and cb, no gravity. */
static CwbWorld *
two_spheres (CwbRegistry *registry, int n, gboolean multi_volume, const double ca[3],
             const double cb[3])
{
  g_autofree char *contact = contact_yaml (multi_volume);
  g_autofree char *pa = position_yaml (ca), *pb = position_yaml (cb);
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, 0] }\n%s"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: a\n"
    "    shape: { type: sphere, radius: %g, resolution: %d }\n"
    "    pose: { position: %s }\n"
    "  - name: b\n"
    "    shape: { type: sphere, radius: %g, resolution: %d }\n"
    "    pose: { position: %s }\n",
    contact, R, n, pa, R, n, pb);
  return fixture_world (registry, yaml);
}

/* Splits every triangle into four at its edges' midpoints (shared between the two triangles
 * of an edge, so the surface stays closed): flat faces stay the same planes, bit for bit
 * where a face's coordinate is the same at both ends of every edge. */
static void
subdivide (CwbMesh *mesh)
{
  g_autoptr (GHashTable) midpoints = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_set_size (keys, mesh->triangles->len);   /* at most one key per edge use */
  guint n_keys = 0;
  g_autoptr (GArray) old = g_array_copy (mesh->triangles);
  g_array_set_size (mesh->triangles, 0);
  const uint32_t *t = (const uint32_t *) old->data;
  for (guint k = 0; k < old->len / 3; k++)
    {
      uint32_t m[3];
      for (int e = 0; e < 3; e++)
        {
          uint32_t a = t[3 * k + e], b = t[3 * k + (e + 1) % 3];
          gint64 *key = &g_array_index (keys, gint64, n_keys);
          *key = (gint64) MIN (a, b) << 32 | MAX (a, b);
          gpointer found = g_hash_table_lookup (midpoints, key);
          if (found == NULL)
            {
              const double *pa = &g_array_index (mesh->vertices, double, 3 * a);
              const double *pb = &g_array_index (mesh->vertices, double, 3 * b);
              double p[3] = { (pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2, (pa[2] + pb[2]) / 2 };
              g_array_append_vals (mesh->vertices, p, 3);
              found = GUINT_TO_POINTER (cwb_mesh_n_vertices (mesh));   /* index + 1 */
              g_hash_table_insert (midpoints, key, found);
              n_keys++;
            }
          m[e] = GPOINTER_TO_UINT (found) - 1;
        }
      uint32_t v[3] = { t[3 * k], t[3 * k + 1], t[3 * k + 2] };
      uint32_t split[12] = { v[0], m[0], m[2], m[0], v[1], m[1], m[2], m[1], v[2],
                             m[0], m[1], m[2] };
      g_array_append_vals (mesh->triangles, split, 12);
    }
  cwb_mesh_check (mesh);
}

/* Writes the box primitive of `size`, its faces subdivided `levels` times, as an OBJ file
 * in dir; returns its path. */
static char *
write_box_obj (const char *dir, const double size[3], int levels)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_BOX, .size = { size[0], size[1], size[2] } };
  g_autoptr (CwbMesh) mesh = cwb_mesh_from_shape (&shape, NULL, NULL);
  for (int l = 0; l < levels; l++)
    subdivide (mesh);
  g_assert_true (mesh->closed);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
  g_autoptr (GString) text = g_string_new (NULL);
  for (size_t k = 0; k < cwb_mesh_n_vertices (mesh); k++)
    {
      const double *p = &g_array_index (mesh->vertices, double, 3 * k);
      g_string_append_printf (text, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
  const uint32_t *t = (const uint32_t *) mesh->triangles->data;
  for (size_t k = 0; k < cwb_mesh_n_triangles (mesh); k++)
    g_string_append_printf (text, "f %u %u %u\n", t[3 * k] + 1, t[3 * k + 1] + 1,
                            t[3 * k + 2] + 1);
  g_autofree char *name = g_strdup_printf ("box-%zu.obj", cwb_mesh_n_triangles (mesh));
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  return path;
}

/* A fixed box (the mesh file box_obj) whose top face is z = 0, and a free sphere of
 * resolution n at c, no gravity. */
static CwbWorld *
sphere_on_box (CwbRegistry *registry, int n, const char *box_obj, gboolean multi_volume,
               const double box_centre[3], const double c[3])
{
  g_autofree char *contact = contact_yaml (multi_volume);
  g_autofree char *pbox = position_yaml (box_centre), *pball = position_yaml (c);
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, 0] }\n%s"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: { type: mesh, file: %s }\n"
    "    pose: { position: %s }\n"
    "    fixed: true\n"
    "  - name: ball\n"
    "    shape: { type: sphere, radius: %g, resolution: %d }\n"
    "    pose: { position: %s }\n",
    contact, box_obj, pbox, R, n, pball);
  return fixture_world (registry, yaml);
}

/* ---- What the model made of it ---------------------------------------------------------- */

typedef struct Cell {
  double min[3];
  double volume;   /* its frame's */
} Cell;

typedef struct Contacts {
  guint n_frames;
  double volume;          /* the frames' sum */
  double axis_volume[3];  /* per image, from the spans */
  double allowance;       /* its sampling error, absolute (see the top) */
  GArray *cells;          /* Cell, multi-volume, in the model's order */
} Contacts;

static void
contacts_clear (Contacts *c)
{
  g_clear_pointer (&c->cells, g_array_unref);
}

/* Detects at the world's state (a position pass: normal rows only). */
static void
contacts_measure (CwbWorld *world, Contacts *out)
{
  const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_POSITION);
  const CwbInspection *inspection = cwb_world_inspection (world);
  *out = (Contacts) { .n_frames = set->frames->len,
                      .cells = g_array_new (FALSE, FALSE, sizeof (Cell)) };
  g_assert_cmpuint (set->rows->len, ==, set->frames->len);
  for (guint f = 0; f < set->frames->len; f++)
    out->volume += g_array_index (set->frames, CwbContactFrame, f).volume;
  for (guint s = 0; s < inspection->spans->len; s++)
    {
      const CwbInspectSpan *span = &g_array_index (inspection->spans, CwbInspectSpan, s);
      out->axis_volume[span->axis] += span->length * span->pixel_size * span->pixel_size;
    }
  for (guint k = 0; k < inspection->cells->len; k++)
    {
      const CwbInspectCell *cell = &g_array_index (inspection->cells, CwbInspectCell, k);
      Cell c = { .volume = g_array_index (set->frames, CwbContactFrame, cell->frame).volume };
      cwb_v3_copy (c.min, cell->min);
      g_array_append_val (out->cells, c);
    }
}

/* The three images measure the same polyhedra: their spread is the sampling error of random
 * sign, which sets the run's allowance. */
static void
set_allowance (Contacts *c, const char *what)
{
  double lo = MIN (c->axis_volume[0], MIN (c->axis_volume[1], c->axis_volume[2]));
  double hi = MAX (c->axis_volume[0], MAX (c->axis_volume[1], c->axis_volume[2]));
  g_test_message ("%s: %u contact(s), V = %.8g, images %.8g %.8g %.8g (spread %.2e)", what,
                  c->n_frames, c->volume, c->axis_volume[0], c->axis_volume[1],
                  c->axis_volume[2], (hi - lo) / c->volume);
  g_assert_cmpfloat (hi - lo, <=, SPREAD_RTOL * c->volume);
  /* The frames hold the whole intersection: their sum is a mean of the images' volumes,
   * each frame's weighted by the images' shares of its gradient (intersection_volume.c,
   * weighted_volume), so within the images' spread of their plain mean. */
  double mean = (c->axis_volume[0] + c->axis_volume[1] + c->axis_volume[2]) / 3;
  g_assert_cmpfloat (fabs (c->volume - mean), <=, (hi - lo) + ROUNDING_RTOL * c->volume);
  c->allowance = PIXEL_BIAS_RTOL * c->volume + 3 * (hi - lo);
}

/* The volume of shapes between inner and outer reference solids lies between theirs, up to
 * the sampling error. */
static void
assert_in_band (const Contacts *c, double inner, double outer)
{
  g_test_message ("closed forms: %.8g .. %.8g", inner, outer);
  g_assert_cmpfloat (c->volume, >=, inner - c->allowance);
  g_assert_cmpfloat (c->volume, <=, outer + c->allowance);
}

/* The cell of `contacts` at the place of `cell` (cells lie on one world grid). */
static const Cell *
find_cell (const Contacts *contacts, const Cell *cell)
{
  for (guint j = 0; j < contacts->cells->len; j++)
    {
      const Cell *candidate = &g_array_index (contacts->cells, Cell, j);
      double d[3];
      cwb_v3_sub (d, candidate->min, cell->min);
      if (cwb_v3_norm (d) < 1e-9)
        return candidate;
    }
  g_assert_not_reached ();
}

/* Coarse against fine, the coarse meshes nested in the fine ones: the same contacts
 * (frames, and cells at the same places), every volume smaller by at most the total
 * difference, which the band bounds. */
static void
assert_nested (const Contacts *coarse, const Contacts *fine, guint expected_frames,
               double band)
{
  g_assert_cmpuint (coarse->n_frames, ==, expected_frames);
  g_assert_cmpuint (fine->n_frames, ==, expected_frames);
  double rounding = ROUNDING_RTOL * fine->volume, loss = fine->volume - coarse->volume;
  g_test_message ("coarse %.8g, fine %.8g: difference %.3e of the volume, band %.3e", coarse->volume,
                  fine->volume, loss / fine->volume, band / fine->volume);
  g_assert_cmpfloat (loss, >=, -rounding);
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat (coarse->axis_volume[c], <=, fine->axis_volume[c] + rounding);
  g_assert_cmpfloat (loss, <=, band + coarse->allowance + fine->allowance);

  g_assert_cmpuint (coarse->cells->len, ==, fine->cells->len);
  for (guint k = 0; k < fine->cells->len; k++)
    {
      const Cell *f = &g_array_index (fine->cells, Cell, k);
      const Cell *c = find_cell (coarse, f);
      g_test_message ("cell at (%.2f, %.2f, %.2f): coarse %.6g, fine %.6g", f->min[0],
                      f->min[1], f->min[2], c->volume, f->volume);
      g_assert_cmpfloat (f->volume - c->volume, >=, -rounding);
      g_assert_cmpfloat (f->volume - c->volume, <=, loss + rounding);
      /* The set-up: no cell could be emptied by the faceting. */
      g_assert_cmpfloat (f->volume, >, band);
    }
}

/* ---- Sphere and sphere ------------------------------------------------------------------- */

/* Two spheres of radius R at a distance d = 0.147 m: a lens 2 R - d = 0.053 m thick and
 * 0.136 m across, whose centre is near the cell corner (0.1, 0.1, 0.1) and whose axis is
 * oblique to the grid. */
static void
lens_centres (double ca[3], double cb[3], double *d)
{
  const double axis[3] = { 0.146, 0.013, -0.009 }, centre[3] = { 0.102, 0.097, 0.1025 };
  for (int c = 0; c < 3; c++)
    {
      ca[c] = centre[c] - axis[c] / 2;
      cb[c] = centre[c] + axis[c] / 2;
    }
  *d = cwb_v3_norm (axis);
}

static void
test_sphere_sphere (gconstpointer multi)
{
  gboolean multi_volume = GPOINTER_TO_INT (multi);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double ca[3], cb[3], d;
  lens_centres (ca, cb, &d);
  Contacts contacts[2];
  const int n[2] = { N_COARSE, N_FINE };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (CwbWorld) world = two_spheres (registry, n[k], multi_volume, ca, cb);
      contacts_measure (world, &contacts[k]);
      g_autofree char *what = g_strdup_printf ("spheres of resolution %d", n[k]);
      set_allowance (&contacts[k], what);
      assert_in_band (&contacts[k], lens_volume (inner_radius (n[k]), d), lens_volume (R, d));
    }
  double band = lens_volume (R, d) - lens_volume (inner_radius (N_COARSE), d);
  assert_nested (&contacts[0], &contacts[1], multi_volume ? 8 : 1, band);
  for (int k = 0; k < 2; k++)
    contacts_clear (&contacts[k]);
}

/* ---- Sphere on a box --------------------------------------------------------------------- */

/* A fixed box 0.4 x 0.4 x 0.2 and a sphere sunk CAP_DEPTH into its top face, the cap (0.12 m
 * across, 10 pixels deep) centred near the cell corner (0.1, 0.1). The top face lies on a
 * pixel boundary (the side images then count its rows exactly) inside the cell layer
 * [0, 0.1], away from the cell walls: Assimp reads OBJ coordinates as floats, so a face
 * meant to lie on a wall would end 1e-9 m off it and cut nanometre slivers, each a contact,
 * into the next layer. */
#define CAP_DEPTH 0.02
#define BOX_TOP (16 * PIXEL)

static void
test_sphere_on_box (gconstpointer multi)
{
  gboolean multi_volume = GPOINTER_TO_INT (multi);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cwb-ldi-resolution-XXXXXX", &error);
  g_assert_no_error (error);
  const double size[3] = { 0.4, 0.4, 0.2 };
  const double box_centre[3] = { 0.1, 0.1, BOX_TOP - size[2] / 2 };
  const double c[3] = { 0.103, 0.098, BOX_TOP + R - CAP_DEPTH };
  g_autofree char *coarse_box = write_box_obj (dir, size, 0);
  g_autofree char *fine_box = write_box_obj (dir, size, BOX_LEVELS);

  /* The sphere held, the box at 12 and 12 288 triangles: the same surfaces. */
  Contacts held[2];
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (CwbWorld) world = sphere_on_box (registry, N_COARSE, k ? fine_box : coarse_box,
                                                  multi_volume, box_centre, c);
      contacts_measure (world, &held[k]);
    }
  g_assert_cmpuint (held[0].n_frames, ==, held[1].n_frames);
  g_assert_cmpfloat (fabs (held[0].volume - held[1].volume), <=, ROUNDING_RTOL * held[0].volume);
  g_test_message ("sphere of resolution %d on boxes of 12 and %d triangles: %u contact(s), "
                  "V = %.17g and %.17g", N_COARSE, 12 << (2 * BOX_LEVELS), held[0].n_frames,
                  held[0].volume, held[1].volume);
  for (guint k = 0; k < held[1].cells->len; k++)
    {
      const Cell *fine = &g_array_index (held[1].cells, Cell, k);
      g_assert_cmpfloat (fabs (find_cell (&held[0], fine)->volume - fine->volume), <=,
                         ROUNDING_RTOL * held[0].volume);
    }

  /* Coarse (1 236 triangles) against fine (32 736). */
  Contacts contacts[2];
  const int n[2] = { N_COARSE, N_FINE };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (CwbWorld) world = sphere_on_box (registry, n[k], k ? fine_box : coarse_box,
                                                  multi_volume, box_centre, c);
      contacts_measure (world, &contacts[k]);
      g_autofree char *what = g_strdup_printf ("sphere of resolution %d on a box of %d "
                                               "triangles", n[k], k ? 12 << (2 * BOX_LEVELS) : 12);
      set_allowance (&contacts[k], what);
      double r_in = inner_radius (n[k]);
      assert_in_band (&contacts[k], cap_volume (r_in, CAP_DEPTH - (R - r_in)),
                      cap_volume (R, CAP_DEPTH));
    }
  double r_in = inner_radius (N_COARSE);
  double band = cap_volume (R, CAP_DEPTH) - cap_volume (r_in, CAP_DEPTH - (R - r_in));
  assert_nested (&contacts[0], &contacts[1], multi_volume ? 4 : 1, band);
  for (int k = 0; k < 2; k++)
    {
      contacts_clear (&contacts[k]);
      contacts_clear (&held[k]);
    }
  g_remove (coarse_box);
  g_remove (fine_box);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/ldi/resolution/sphere-sphere", GINT_TO_POINTER (FALSE),
                        test_sphere_sphere);
  g_test_add_data_func ("/ldi/resolution/sphere-sphere-cells", GINT_TO_POINTER (TRUE),
                        test_sphere_sphere);
  g_test_add_data_func ("/ldi/resolution/sphere-on-box", GINT_TO_POINTER (FALSE),
                        test_sphere_on_box);
  g_test_add_data_func ("/ldi/resolution/sphere-on-box-cells", GINT_TO_POINTER (TRUE),
                        test_sphere_on_box);
  return g_test_run ();
}
