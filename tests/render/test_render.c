/* The renderer: overlay geometry counted against the contact set it draws, headless frames
 * through EGL surfaceless (software OpenGL is enough), overlays changing the picture where
 * the contacts are, and --screenshot's PNG. */
#include <math.h>

#include <cairo.h>
#include <glib/gstdio.h>
#include <webp/demux.h>

#include "annotations.h"
#include "offscreen.h"
#include "world_fixture.h"

#define WIDTH 320
#define HEIGHT 240

/* The incline scene after 0.5 s: a box sliding on the plane on four corner contacts. */
static CwbWorld *
sliding_box (CwbRegistry *registry)
{
  CwbWorld *world = fixture_world_from_file (registry, "scenes/penalty-incline.yaml", NULL);
  fixture_step (world, 100);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 4);
  return world;
}

static void
test_overlay_counts (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  CwbOverlayGeometry geometry;
  cwb_render_overlay_init (&geometry);
  CwbOverlayOptions options;
  cwb_render_overlay_options_all (&options);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  cwb_render_overlay_build (&geometry, snapshot, &options);
  guint frames = cwb_world_contacts (world)->frames->len;
  /* One cone and one force arrow per contact frame, one depth vector per penalty contact,
   * one box per body. */
  g_assert_cmpuint (geometry.n_cones, ==, frames);
  g_assert_cmpuint (geometry.n_force_arrows, ==, frames);
  g_assert_cmpuint (geometry.n_vectors, ==, frames);
  g_assert_cmpuint (geometry.n_aabbs, ==, cwb_world_n_bodies (world));
  g_assert_cmpuint (geometry.triangles->len % 3, ==, 0);
  g_assert_cmpuint (geometry.lines->len % 2, ==, 0);
  g_assert_cmpuint (geometry.triangles->len, >, 0);

  /* Everything off: nothing drawn. */
  CwbOverlayOptions none = { .force_scale = 0.01, .vector_scale = 1 };
  cwb_render_overlay_build (&geometry, snapshot, &none);
  g_assert_cmpuint (geometry.lines->len + geometry.triangles->len, ==, 0);
  g_assert_cmpuint (geometry.n_cones + geometry.n_force_arrows, ==, 0);
  cwb_render_overlay_destroy (&geometry);
}

/* Overlay vertices are floats: coordinates of order 1 m carry about 1e-7 m of rounding per
 * endpoint, so a sum over a few hundred segments is good to well under this. */
#define LINE_LENGTH_TOLERANCE 1e-5

/* The overlay scales against closed forms: an arrow for force f at scale s is a shaft of
 * length s|f| and two head strokes of length s|f| sqrt(0.2^2 + 0.08^2); a cone for normal
 * force f_n is s f_n tall with a rim of radius mu s f_n drawn as 24 chords of 2 r sin(pi/24);
 * the pyramid's rim (drawn when the solve used friction: pyramid) is the square through
 * +-r t1, +-r t2, 4 sides of r sqrt 2; an inspection vector v at factor k is an arrow of
 * length k|v|. */
static void
test_overlay_scales (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  const double head = 1 + 2 * sqrt (0.2 * 0.2 + 0.08 * 0.08);
  double force_sum = 0, rim_per_scale = 0, square_per_scale = 0;
  for (guint f = 0; f < snapshot->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (snapshot->frames, CwbContactFrame, f);
      g_assert_cmpfloat (frame->force[0], >, 0);   /* no open contact: every cone scales */
      force_sum += cwb_v3_norm (frame->force);
      rim_per_scale += 48 * sin (G_PI / 24) * frame->mu * frame->force[0];
      square_per_scale += 4 * G_SQRT2 * frame->mu * frame->force[0];
    }
  double vector_sum = 0;
  for (guint k = 0; k < snapshot->inspection.vectors->len; k++)
    vector_sum += cwb_v3_norm (
      g_array_index (snapshot->inspection.vectors, CwbInspectVector, k).vector);
  g_assert_cmpfloat (vector_sum, >, 0);

  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  const double scales[] = { 0.004, 0.01, 0.05 };
  for (size_t k = 0; k < G_N_ELEMENTS (scales); k++)
    {
      double s = scales[k];
      CwbOverlayOptions arrows = { .contacts = TRUE, .force_scale = s, .vector_scale = 1 };
      cwb_render_overlay_build (&g, snapshot, &arrows);
      g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                      s * force_sum * head, LINE_LENGTH_TOLERANCE);
      CwbOverlayOptions cones = { .cones = TRUE, .force_scale = s, .vector_scale = 1 };
      cwb_render_overlay_build (&g, snapshot, &cones);
      g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g), s * rim_per_scale,
                                      LINE_LENGTH_TOLERANCE);
      snapshot->friction_law = CWB_FRICTION_PYRAMID;
      cwb_render_overlay_build (&g, snapshot, &cones);
      snapshot->friction_law = CWB_FRICTION_CONE;
      g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                      s * square_per_scale, LINE_LENGTH_TOLERANCE);
      CwbOverlayOptions depth = { .depth_vectors = TRUE, .force_scale = 0.01,
                                  .vector_scale = 100 * s };
      cwb_render_overlay_build (&g, snapshot, &depth);
      g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                      100 * s * vector_sum * head, LINE_LENGTH_TOLERANCE);
    }
  cwb_render_overlay_destroy (&g);
}

/* The FEM elements overlay on chain-3-links (a FEM link between two rigid ones, built turned
 * 90 degrees about y). At the built state every element of the link is its rest shape turned
 * by that quarter turn: strain 0, rotation pi/2. With the link's nodes spread 1 % about its
 * centroid, every element's strain is e = 0.01 I (a uniform stretch): volumetric 0.03,
 * equivalent (deviatoric) 0, rotation unchanged. The snapshot's nodes are the body's state
 * (q holds the FEM body's node positions). Tolerances: 1e-9 on strains (round-off of
 * order-one sums, with margin), 1e-7 rad on the angle (acos at a quarter turn is well
 * conditioned; 1e-7 leaves margin). The overlay draws one shrunk tetrahedron of 6 edges and
 * 4 faces per element, coloured by cwb_render_element_color at the automatic scale: the
 * largest |value|, at least 0.1 % strain. */
static void
test_overlay_elements (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/chain-3-links.yaml",
                                                        NULL);
  size_t fem = G_MAXSIZE;
  for (size_t b = 0; b < cwb_world_n_bodies (world); b++)
    if (strcmp (cwb_world_body_model_name (world, b), "fem") == 0)
      fem = b;
  g_assert_cmpuint (fem, !=, G_MAXSIZE);
  for (int stretched = 0; stretched < 2; stretched++)
    {
      double uniform = stretched ? 0.01 : 0;
      g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
      size_t n_tets = 0;
      for (size_t b = 0; b < snapshot->n_bodies; b++)
        {
          const CwbSnapshotBody *body = &snapshot->bodies[b];
          if (b != fem)
            {
              g_assert_null (body->tetrahedra);   /* rigid: no elements */
              continue;
            }
          g_assert_nonnull (body->tetrahedra);
          g_assert_cmpuint (body->n_tetrahedra, >, 0);
          g_assert_cmpuint (3 * body->n_nodes, ==, body->nq);
          for (size_t k = 0; k < body->nq; k++)
            g_assert_cmpfloat (body->nodes[k], ==, snapshot->q[body->q_offset + k]);
          for (size_t e = 0; e < body->n_tetrahedra; e++)
            {
              for (int k = 0; k < 6; k++)
                g_assert_cmpfloat_with_epsilon (body->element_strain[6 * e + k],
                                                k < 3 ? uniform : 0, 1e-9);
              g_assert_cmpfloat_with_epsilon (body->element_rotation[e], G_PI / 2, 1e-7);
              g_assert_cmpfloat_with_epsilon (
                cwb_render_element_value (CWB_ELEMENT_VOLUME, body, e), 3 * uniform, 1e-9);
              g_assert_cmpfloat_with_epsilon (
                cwb_render_element_value (CWB_ELEMENT_STRAIN, body, e), 0, 1e-7);
            }
          n_tets += body->n_tetrahedra;
        }
      CwbOverlayGeometry g;
      cwb_render_overlay_init (&g);
      CwbOverlayOptions options = { .elements = TRUE, .element_field = CWB_ELEMENT_VOLUME,
                                    .vector_scale = 1 };
      cwb_render_overlay_build (&g, snapshot, &options);
      g_assert_cmpuint (g.n_elements, ==, n_tets);
      g_assert_cmpuint (g.lines->len, ==, 12 * n_tets);
      g_assert_cmpuint (g.triangles->len, ==, 12 * n_tets);
      g_assert_cmpfloat_with_epsilon (g.element_scale, stretched ? 0.03 : 1e-3, 1e-9);
      /* Expanded at the scale: every element full red. */
      float red[4];
      cwb_render_element_color (CWB_ELEMENT_VOLUME, 0.03, 0.03, red);
      const CwbOverlayVertex *first = &g_array_index (g.lines, CwbOverlayVertex, 0);
      if (stretched)
        for (int k = 0; k < 3; k++)
          g_assert_cmpfloat_with_epsilon (first->color[k], red[k], 1e-6);
      /* Coloured by rotation at a scale of pi: half way from white to purple. */
      options.element_field = CWB_ELEMENT_ROTATION;
      options.element_scale = G_PI;
      cwb_render_overlay_build (&g, snapshot, &options);
      float half[4];
      cwb_render_element_color (CWB_ELEMENT_ROTATION, G_PI / 2, G_PI, half);
      first = &g_array_index (g.lines, CwbOverlayVertex, 0);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat_with_epsilon (first->color[k], half[k], 1e-6);
      cwb_render_overlay_destroy (&g);

      /* Spread the link's nodes 1 % about their mean. */
      const CwbBodySlot *slot = cwb_world_body_slot (world, fem);
      double *q = cwb_world_q (world, NULL) + slot->q_offset, mean[3] = { 0, 0, 0 };
      for (size_t n = 0; n < slot->nq / 3; n++)
        cwb_v3_axpy (mean, 3.0 / (double) slot->nq, &q[3 * n]);
      for (size_t n = 0; n < slot->nq / 3; n++)
        for (int k = 0; k < 3; k++)
          q[3 * n + k] = mean[k] + 1.01 * (q[3 * n + k] - mean[k]);
    }
}

/* The equivalent strain against its closed forms: a uniaxial stretch with the volume kept to
 * first order (e = diag(s, -s/2, -s/2)) gives s; a pure shear e_xy = g gives 2 g / sqrt 3;
 * a uniform expansion gives 0. To 1e-12 (a few operations on numbers of order 0.01). */
static void
test_element_values (void)
{
  double strain[3][6] = {
    { 0.02, -0.01, -0.01, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0.015 }, { 0.01, 0.01, 0.01, 0, 0, 0 },
  };
  double rotation[3] = { 0.1, 0.2, 0.3 };
  CwbSnapshotBody body = { .n_tetrahedra = 3, .element_strain = &strain[0][0],
                           .element_rotation = rotation };
  g_assert_cmpfloat_with_epsilon (cwb_render_element_value (CWB_ELEMENT_STRAIN, &body, 0),
                                  0.02, 1e-12);
  g_assert_cmpfloat_with_epsilon (cwb_render_element_value (CWB_ELEMENT_STRAIN, &body, 1),
                                  2 * 0.015 / sqrt (3), 1e-12);
  g_assert_cmpfloat_with_epsilon (cwb_render_element_value (CWB_ELEMENT_STRAIN, &body, 2), 0,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (cwb_render_element_value (CWB_ELEMENT_VOLUME, &body, 2), 0.03,
                                  1e-12);
  g_assert_cmpfloat (cwb_render_element_value (CWB_ELEMENT_ROTATION, &body, 1), ==, 0.2);
}

/* The element overlay's colour map against its closed form: white at 0, the end colours at
 * +-scale and beyond (clamped), linear between; a non-finite value is white. */
static void
test_element_colors (void)
{
  float white[4], red[4], blue[4], purple[4], mid[4], beyond[4], nan_color[4];
  cwb_render_element_color (CWB_ELEMENT_VOLUME, 0, 0.02, white);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, 0.02, 0.02, red);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, -0.02, 0.02, blue);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, -0.01, 0.02, mid);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, 0.5, 0.02, beyond);
  cwb_render_element_color (CWB_ELEMENT_ROTATION, 1, 1, purple);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, NAN, 0.02, nan_color);
  for (int k = 0; k < 3; k++)
    {
      g_assert_cmpfloat_with_epsilon (mid[k], 0.5f * (white[k] + blue[k]), 1e-6);
      g_assert_cmpfloat (beyond[k], ==, red[k]);
      g_assert_cmpfloat (nan_color[k], ==, white[k]);
    }
  g_assert_cmpfloat (red[0], >, red[2]);      /* expanded: red */
  g_assert_cmpfloat (blue[2], >, blue[0]);    /* compressed: blue */
  g_assert_cmpfloat (purple[2], >, purple[1]);
  g_assert_cmpfloat (white[0], >, 0.9f);
}

/* With the automatic force scale an impact's force (here the sliding box's contact forces
 * times 1000) is cut at 1.5 median bodies: each arrow a shaft of that length, its head
 * (2 strokes of sqrt(0.2^2 + 0.08^2) of it) and a bar of 0.3 of it across the tip; each cone
 * that tall. An explicit scale draws them whole. */
static void
test_overlay_clipped (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  for (guint f = 0; f < snapshot->frames->len; f++)
    {
      CwbContactFrame *frame = &g_array_index (snapshot->frames, CwbContactFrame, f);
      cwb_v3_scale (frame->force, frame->force, 1000);
    }
  double longest = 1.5 * cwb_snapshot_median_moving_size (snapshot);
  guint n = snapshot->frames->len;
  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  CwbOverlayOptions arrows = { .contacts = TRUE, .vector_scale = 1 };
  cwb_render_overlay_build (&g, snapshot, &arrows);
  g_assert_cmpuint (g.n_clipped, ==, n);
  const double head = 1 + 2 * sqrt (0.2 * 0.2 + 0.08 * 0.08);
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                  n * longest * (head + 0.3), LINE_LENGTH_TOLERANCE);
  CwbOverlayOptions cones = { .cones = TRUE, .vector_scale = 1 };
  cwb_render_overlay_build (&g, snapshot, &cones);
  g_assert_cmpuint (g.n_clipped, ==, n);
  double rim = 0;
  for (guint f = 0; f < n; f++)
    rim += 48 * sin (G_PI / 24) * g_array_index (snapshot->frames, CwbContactFrame, f).mu
           * longest;
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g), rim,
                                  LINE_LENGTH_TOLERANCE);
  CwbOverlayOptions explicit_scale = { .contacts = TRUE, .vector_scale = 1,
                                       .force_scale = 1e-3 };
  cwb_render_overlay_build (&g, snapshot, &explicit_scale);
  g_assert_cmpuint (g.n_clipped, ==, 0);
  cwb_render_overlay_destroy (&g);
}

/* The legend names what the active overlays draw, in their colours, with the scales the
 * frame used: the contact states in cwb_render_state_color's colours; "10 cm of arrow" (half
 * the 0.2 m box, rounded to 1, 2 or 5 times a power of ten) as 0.1 m over the resolved
 * force scale, in newtons; the element field's range from the resolved element scale; x-ray
 * and hidden bodies said in words. Off, it is empty. */
static void
test_legend (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  CwbOverlayOptions o;
  cwb_render_overlay_options_default (&o);
  o.xray = TRUE;
  const char *hidden[] = { "ground", NULL };
  o.hidden_bodies = hidden;
  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  cwb_render_overlay_build (&g, snapshot, &o);
  g_autoptr (GArray) legend = cwb_render_legend (snapshot, &o, &g);
  const CwbLegendEntry *stick = cwb_render_legend_find (legend, "stick");
  const CwbLegendEntry *slip = cwb_render_legend_find (legend, "slip");
  g_assert_nonnull (stick);
  g_assert_nonnull (slip);
  float green[4], red[4];
  cwb_render_state_color (CWB_CONTACT_STICK, green);
  cwb_render_state_color (CWB_CONTACT_SLIP, red);
  g_assert_cmpmem (stick->color, sizeof green, green, sizeof green);
  g_assert_cmpmem (slip->color, sizeof red, red, sizeof red);
  g_autofree char *force = g_strdup_printf ("force: 10 cm of arrow or cone = %.3g N",
                                            0.1 / g.force_scale);
  g_assert_nonnull (cwb_render_legend_find (legend, force));
  g_assert_nonnull (cwb_render_legend_find (legend, "ground grid: 0.5 m squares"));
  g_assert_nonnull (cwb_render_legend_find (legend, "x-ray: every body at 30 % opacity"));
  g_assert_nonnull (cwb_render_legend_find (legend, "1 of 2 bodies hidden"));
  g_assert_null (cwb_render_legend_find (legend, "FEM elements"));   /* no elements drawn */
  o.legend = FALSE;
  g_autoptr (GArray) none = cwb_render_legend (snapshot, &o, &g);
  g_assert_cmpuint (none->len, ==, 0);

  /* The FEM link of chain-3-links, spread 1 %: volumetric strain 3 % at the automatic scale. */
  g_autoptr (CwbWorld) chain = fixture_world_from_file (registry, "scenes/chain-3-links.yaml",
                                                        NULL);
  for (size_t b = 0; b < cwb_world_n_bodies (chain); b++)
    if (strcmp (cwb_world_body_model_name (chain, b), "fem") == 0)
      {
        const CwbBodySlot *slot = cwb_world_body_slot (chain, b);
        double *q = cwb_world_q (chain, NULL) + slot->q_offset;
        for (size_t k = 0; k < slot->nq; k++)
          q[k] *= 1.01;   /* about the origin: a uniform stretch and a shift */
      }
  g_autoptr (CwbSnapshot) stretched = cwb_snapshot_capture (chain, NULL);
  CwbOverlayOptions elements = { .elements = TRUE, .element_field = CWB_ELEMENT_VOLUME,
                                 .legend = TRUE, .vector_scale = 1 };
  cwb_render_overlay_build (&g, stretched, &elements);
  g_autoptr (GArray) fem = cwb_render_legend (stretched, &elements, &g);
  g_assert_cmpuint (fem->len, ==, 1);
  const CwbLegendEntry *e = &g_array_index (fem, CwbLegendEntry, 0);
  g_assert_cmpstr (e->text, ==, "FEM elements, volumetric strain: -3 % (compressed) to +3 % "
                                "(largest in view)");
  g_assert_true (e->ramp);
  float blue[4], white[4], full_red[4];
  cwb_render_element_color (CWB_ELEMENT_VOLUME, -0.03, 0.03, blue);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, 0, 0.03, white);
  cwb_render_element_color (CWB_ELEMENT_VOLUME, 0.03, 0.03, full_red);
  g_assert_cmpmem (e->color, sizeof blue, blue, sizeof blue);
  g_assert_cmpmem (e->middle, sizeof white, white, sizeof white);
  g_assert_cmpmem (e->end, sizeof full_red, full_red, sizeof full_red);
  cwb_render_overlay_destroy (&g);
}

/* The volume methods' inspection (Allard 2010 LDI spans and multi-volume cells, Faure 2007
 * density voxels and gradients), drawn whatever model filled it: no shipped model fills
 * them yet, so they are put into a snapshot here. Closed forms: a span is one segment of its
 * length along its axis; a cell or a voxel is a box of 12 edges, 4 along each side; a
 * gradient is an arrow (shaft and two head strokes). Each overlay draws only when asked. A
 * coarse cell one body alone is in (body_b CWB_NO_BODY, a hierarchy's root level) is drawn
 * in a colour of its own and counted, and named in the legend, apart from the others. */
static void
test_overlay_volume_inspection (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  CwbInspection *in = &snapshot->inspection;
  g_array_set_size (in->spans, 0);
  g_array_set_size (in->cells, 0);
  g_array_set_size (in->voxels, 0);
  g_array_set_size (in->vectors, 0);
  const CwbInspectSpan spans[] = {
    { .axis = 0, .start = { 0, 0, 0 }, .length = 0.3, .pixel_size = 0.01 },
    { .axis = 2, .start = { 1, 1, 0 }, .length = 0.05, .pixel_size = 0.01 },
  };
  g_array_append_vals (in->spans, spans, G_N_ELEMENTS (spans));
  const CwbInspectCell cell = { .min = { 0, 0, 0 }, .max = { 0.1, 0.2, 0.3 }, .volume = 1e-4 };
  g_array_append_val (in->cells, cell);
  const CwbInspectCell coarse = { .body_a = 0, .body_b = CWB_NO_BODY, .min = { 1, 1, 1 },
                                  .max = { 1.05, 1.05, 1.05 }, .frame = UINT32_MAX };
  g_array_append_val (in->cells, coarse);
  const CwbInspectVoxel voxels[] = {
    { .kind = CWB_VOXEL_DENSITY, .center = { 0, 0, 0 }, .size = { 0.02, 0.02, 0.02 },
      .value = 0.5 },
    { .kind = CWB_VOXEL_INTERSECTION, .center = { 1, 0, 0 }, .size = { 0.01, 0.02, 0.04 },
      .value = 1 },
  };
  g_array_append_vals (in->voxels, voxels, G_N_ELEMENTS (voxels));
  const CwbInspectVector gradient = { .kind = CWB_VECTOR_VOLUME_GRADIENT, .origin = { 0, 0, 1 },
                                      .vector = { 0, 0.3, 0.4 } };
  g_array_append_val (in->vectors, gradient);

  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  CwbOverlayOptions o = { .force_scale = 0.01, .vector_scale = 2 };
  o.spans = TRUE;
  cwb_render_overlay_build (&g, snapshot, &o);
  g_assert_cmpuint (g.n_spans, ==, 2);
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g), 0.35, LINE_LENGTH_TOLERANCE);
  o.spans = FALSE;
  o.cells = TRUE;
  cwb_render_overlay_build (&g, snapshot, &o);
  g_assert_cmpuint (g.n_cells, ==, 1);
  g_assert_cmpuint (g.n_root_cells, ==, 1);
  g_assert_cmpuint (g.lines->len, ==, 2 * 2 * 12);
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                  4 * (0.1 + 0.2 + 0.3) + 4 * 3 * 0.05, LINE_LENGTH_TOLERANCE);
  const CwbOverlayVertex *first = &g_array_index (g.lines, CwbOverlayVertex, 0);
  const CwbOverlayVertex *last = &g_array_index (g.lines, CwbOverlayVertex, g.lines->len - 1);
  g_assert_true (memcmp (first->color, last->color, sizeof first->color) != 0);
  o.legend = TRUE;
  g_autoptr (GArray) legend = cwb_render_legend (snapshot, &o, &g);
  const CwbLegendEntry *fine = cwb_render_legend_find (legend, "multi-volume grid cells (1)");
  const CwbLegendEntry *alone = cwb_render_legend_find (legend, "coarse cells, one body in each (1)");
  g_assert_nonnull (fine);
  g_assert_nonnull (alone);
  g_assert_cmpmem (fine->color, sizeof fine->color, first->color, sizeof first->color);
  g_assert_cmpmem (alone->color, sizeof alone->color, last->color, sizeof last->color);
  o.legend = FALSE;
  o.cells = FALSE;
  o.voxels = TRUE;
  cwb_render_overlay_build (&g, snapshot, &o);
  g_assert_cmpuint (g.n_voxels, ==, 2);
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                  4 * (0.06 + 0.01 + 0.02 + 0.04), LINE_LENGTH_TOLERANCE);
  o.voxels = FALSE;
  o.gradients = TRUE;
  cwb_render_overlay_build (&g, snapshot, &o);
  g_assert_cmpuint (g.n_vectors, ==, 1);
  g_assert_cmpfloat_with_epsilon (cwb_render_overlay_line_length (&g),
                                  2 * 0.5 * (1 + 2 * sqrt (0.2 * 0.2 + 0.08 * 0.08)),
                                  LINE_LENGTH_TOLERANCE);
  /* Depth vectors are another overlay: none of them here. */
  o.gradients = FALSE;
  o.depth_vectors = TRUE;
  cwb_render_overlay_build (&g, snapshot, &o);
  g_assert_cmpuint (g.n_vectors + g.lines->len, ==, 0);
  cwb_render_overlay_destroy (&g);
}

/* A body being dragged: its edges drawn at the pose the drag gives, here a quarter turn about
 * z through its centre of mass and a shift of 0.1 m along x, where (x, y, z) about the
 * pivot goes to (-y, x, z). */
static void
test_overlay_ghost (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = sliding_box (registry);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  size_t box = snapshot->n_bodies;
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    if (!snapshot->bodies[b].fixed)
      box = b;
  g_assert_cmpuint (box, <, snapshot->n_bodies);
  const CwbSnapshotBody *body = &snapshot->bodies[box];
  CwbOverlayOptions options = { .ghost = TRUE, .ghost_body = box, .force_scale = 0.01,
                                .vector_scale = 1, .ghost_rotation = { 0, 0, G_PI / 2 },
                                .ghost_translation = { 0.1, 0, 0 } };
  cwb_v3_copy (options.ghost_pivot, body->summary.centroid);
  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  cwb_render_overlay_build (&g, snapshot, &options);
  g_assert_cmpuint (g.n_ghost_edges, ==, 3 * body->n_triangles);
  g_assert_cmpuint (g.lines->len, ==, 2 * g.n_ghost_edges);
  const uint32_t *triangles = g_bytes_get_data (body->triangles, NULL);
  for (size_t t = 0; t < body->n_triangles; t++)
    for (int e = 0; e < 3; e++)
      {
        const double *p = &body->positions[3 * triangles[3 * t + e]];
        const double *c = body->summary.centroid;
        double expected[3] = { c[0] - (p[1] - c[1]) + 0.1, c[1] + (p[0] - c[0]), p[2] };
        const CwbOverlayVertex *v = &g_array_index (g.lines, CwbOverlayVertex, 2 * (3 * t + e));
        for (int i = 0; i < 3; i++)   /* float vertices: see LINE_LENGTH_TOLERANCE */
          g_assert_cmpfloat_with_epsilon (v->position[i], expected[i], 1e-6);
      }
  /* No ghost asked for, or a body that does not exist: nothing drawn. */
  options.ghost_body = snapshot->n_bodies;
  cwb_render_overlay_build (&g, snapshot, &options);
  g_assert_cmpuint (g.lines->len, ==, 0);
  cwb_render_overlay_destroy (&g);
}

static CwbCamera
framed_camera (const CwbSnapshot *snapshot)
{
  CwbCamera camera;
  cwb_render_camera_default (&camera);
  double lo[3], hi[3];
  g_assert_true (cwb_snapshot_bounds (snapshot, TRUE, lo, hi));
  cwb_render_camera_frame (&camera, lo, hi);
  return camera;
}

/* An offscreen context and the sliding box, framed: what the frame tests draw. */
typedef struct Scene {
  CwbOffscreen *offscreen;
  CwbRegistry *registry;
  CwbWorld *world;
  CwbSnapshot *snapshot;
  CwbCamera camera;
} Scene;

static void
scene_setup (Scene *scene, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  scene->offscreen = cwb_render_offscreen_new (WIDTH, HEIGHT, &error);
  g_assert_no_error (error);
  scene->registry = fixture_registry ();
  scene->world = sliding_box (scene->registry);
  scene->snapshot = cwb_snapshot_capture (scene->world, NULL);
  scene->camera = framed_camera (scene->snapshot);
}

static void
scene_teardown (Scene *scene, gconstpointer data)
{
  cwb_snapshot_unref (scene->snapshot);
  cwb_world_free (scene->world);
  cwb_registry_free (scene->registry);
  cwb_render_offscreen_free (scene->offscreen);
}

/* A frame is not blank: many pixels differ from the clear colour's. */
static size_t
non_background (const guint8 *rgba)
{
  size_t count = 0;
  for (size_t k = 0; k < (size_t) WIDTH * HEIGHT; k++)
    count += abs (rgba[4 * k] - rgba[0]) + abs (rgba[4 * k + 1] - rgba[1])
             + abs (rgba[4 * k + 2] - rgba[2]) > 30;
  return count;
}

static void
test_frame_not_blank (Scene *scene, gconstpointer data)
{
  CwbOverlayOptions options;
  cwb_render_overlay_options_default (&options);
  g_autofree guint8 *pixels = cwb_render_offscreen_frame (scene->offscreen, scene->snapshot,
                                                          &scene->camera, &options);
  size_t drawn = non_background (pixels);
  g_test_message ("%zu of %d pixels differ from the corner's", drawn, WIDTH * HEIGHT);
  /* The framed box alone covers far more than 5 % of the picture. */
  g_assert_cmpuint (drawn, >, WIDTH * HEIGHT / 20);
}

static void project (const float vp[16], const float p[3], double *x, double *y);

static gboolean
pixel_differs (const guint8 *a, const guint8 *b, size_t k)
{
  return abs (a[4 * k] - b[4 * k]) + abs (a[4 * k + 1] - b[4 * k + 1])
         + abs (a[4 * k + 2] - b[4 * k + 2]) > 6;
}

/* Pixels that differ between two frames by more than rounding. */
static size_t
pixels_differing (const guint8 *a, const guint8 *b)
{
  size_t count = 0;
  for (size_t k = 0; k < (size_t) WIDTH * HEIGHT; k++)
    count += pixel_differs (a, b, k);
  return count;
}

/* How bodies are drawn (issue 19, "show what hides inside contacts"), on the sliding box
 * (bodies "ground", then "box"):
 * - hiding the box gives, bit for bit, the frame of the snapshot without it; isolating the box
 *   gives the frame with the ground hidden; a hidden body's wireframe goes too;
 * - a line inside the box changes no pixel while the box is opaque, and many under x-ray;
 * - a section plane facing the camera through the box's centre removes its near half: at the
 *   centre's pixel the view looks at the inside of the far faces, drawn unlit at 0.3 times
 *   the body's colour (mesh.frag), to 2/255 for rounding; a plane behind everything removes
 *   every body, as hiding both does, bit for bit. */
static void
test_body_looks (Scene *scene, gconstpointer data)
{
  CwbSnapshot *s = scene->snapshot;
  g_assert_cmpuint (s->n_bodies, ==, 2);
  g_assert_cmpstr (s->bodies[1].name, ==, "box");
  CwbOverlayOptions plain = { .vector_scale = 1, .xray_opacity = 0.3, .wireframe = TRUE };
  g_autofree guint8 *shown = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                         &plain);
  const char *box[] = { "box", NULL }, *ground[] = { "ground", NULL };
  const char *both[] = { "ground", "box", NULL };
  CwbOverlayOptions hide_box = plain;
  hide_box.hidden_bodies = box;
  g_autofree guint8 *hidden = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                          &hide_box);
  s->n_bodies = 1;
  g_autofree guint8 *without = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                           &plain);
  s->n_bodies = 2;
  g_assert_cmpmem (hidden, 4 * WIDTH * HEIGHT, without, 4 * WIDTH * HEIGHT);
  g_assert_cmpuint (pixels_differing (shown, hidden), >, WIDTH * HEIGHT / 50);

  CwbOverlayOptions isolate_box = plain, hide_ground = plain;
  isolate_box.isolated_bodies = box;
  hide_ground.hidden_bodies = ground;
  g_autofree guint8 *isolated = cwb_render_offscreen_frame (scene->offscreen, s,
                                                            &scene->camera, &isolate_box);
  g_autofree guint8 *no_ground = cwb_render_offscreen_frame (scene->offscreen, s,
                                                             &scene->camera, &hide_ground);
  g_assert_cmpmem (isolated, 4 * WIDTH * HEIGHT, no_ground, 4 * WIDTH * HEIGHT);
  g_assert_cmpuint (pixels_differing (shown, isolated), >, WIDTH * HEIGHT / 50);

  /* X-ray: a line inside the box (the mouse spring's, from 3 cm below its centre to 3 cm
   * above, with its 4 cm cross) is hidden by the opaque box and shows through under x-ray. */
  double lo[3], hi[3], box_centre[3];
  g_assert_true (cwb_snapshot_body_bounds (&s->bodies[1], lo, hi));
  cwb_v3_add (box_centre, lo, hi);
  cwb_v3_scale (box_centre, box_centre, 0.5);
  size_t changed[2];
  for (int xray = 0; xray < 2; xray++)
    {
      CwbOverlayOptions off = { .vector_scale = 1, .xray = xray, .xray_opacity = 0.3 };
      CwbOverlayOptions on = off;
      on.grab = TRUE;
      cwb_v3_copy (on.grab_point, box_centre);
      cwb_v3_copy (on.grab_target, box_centre);
      on.grab_point[2] -= 0.03;
      on.grab_target[2] += 0.03;
      g_autofree guint8 *a = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                         &off);
      g_autofree guint8 *b = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                         &on);
      changed[xray] = pixels_differing (a, b);
    }
  g_test_message ("a line inside the box changes %zu pixels, %zu with x-ray", changed[0],
                  changed[1]);
  g_assert_cmpuint (changed[0], ==, 0);
  g_assert_cmpuint (changed[1], >, 20);

  /* Section facing the camera through the box's centre. */
  CwbOverlayOptions cut = { .vector_scale = 1, .xray_opacity = 0.3, .section = CWB_SECTION_VIEW };
  g_autofree guint8 *sectioned = cwb_render_offscreen_frame (scene->offscreen, s,
                                                             &scene->camera, &cut);
  float vp[16];
  double eye[3], x, y;
  cwb_render_camera_matrices (&scene->camera, (double) WIDTH / HEIGHT, vp, eye);
  float centre[3] = { (float) box_centre[0], (float) box_centre[1], (float) box_centre[2] };
  project (vp, centre, &x, &y);
  const guint8 *pixel = &sectioned[4 * ((size_t) y * WIDTH + (size_t) x)];
  float color[4];
  cwb_render_body_color (1, FALSE, color);
  for (int k = 0; k < 3; k++)
    g_assert_cmpint (abs ((int) pixel[k] - (int) lround (255 * 0.3 * color[k])), <=, 2);
  cut.section_offset = -1e3;
  g_autofree guint8 *emptied = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                           &cut);
  CwbOverlayOptions hide_both = { .vector_scale = 1, .xray_opacity = 0.3, .hidden_bodies = both };
  g_autofree guint8 *none = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                        &hide_both);
  g_assert_cmpmem (emptied, 4 * WIDTH * HEIGHT, none, 4 * WIDTH * HEIGHT);
}

/* The view settings by name, as the View panel and --view set them: each key, and values
 * refused with what was expected (the options then unchanged). Body opacity from the lists:
 * hidden 0, translucent and x-ray the x-ray opacity, isolation hiding the others. */
/* A body shown to the contact models as volume particles (`sample: volume`) is drawn as its
 * particles: hiding it changes a large share of the frame, about as many pixels as the same
 * box drawn from its surface: octahedra of the particles' radii (0.62 of the lattice's
 * spacing) leave gaps between them, and reach 0.12 spacings past the faces, their slanted
 * facets lit unlike the faces: measured 1.15 times the surface's changed pixels; bounds a
 * third and 1.5 times. */
static void
test_particles_drawn (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbOffscreen) offscreen = cwb_render_offscreen_new (WIDTH, HEIGHT, &error);
  g_assert_no_error (error);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  size_t changed[2];
  for (int volume = 0; volume < 2; volume++)
    {
      g_autofree char *yaml = g_strdup_printf (
        "world: { dt: 0.01 }\n"
        "contact: { model: eulerian }\n"
        "bodies:\n"
        "  - name: ground\n"
        "    shape: { type: ground, size: [2, 2, 0.2] }\n"
        "    fixed: true\n"
        "  - name: grains\n"
        "    shape: { type: box, size: [0.5, 0.5, 0.5] }\n"
        "    pose: { position: [0, 0, 0.25] }\n"
        "    mapping_params: { sample: %s, particle_spacing: 0.05 }\n",
        volume ? "volume" : "surface");
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      CwbSnapshot *snapshot = cwb_snapshot_capture (world, NULL);
      g_assert_cmpint (snapshot->bodies[1].kind, ==,
                       volume ? CWB_GEOMETRY_PARTICLES : CWB_GEOMETRY_SURFACE);
      CwbCamera camera = framed_camera (snapshot);
      CwbOverlayOptions plain = { .vector_scale = 1, .xray_opacity = 0.3 };
      const char *grains[] = { "grains", NULL };
      CwbOverlayOptions hidden = plain;
      hidden.hidden_bodies = grains;
      g_autofree guint8 *a = cwb_render_offscreen_frame (offscreen, snapshot, &camera, &plain);
      g_autofree guint8 *b = cwb_render_offscreen_frame (offscreen, snapshot, &camera, &hidden);
      changed[volume] = pixels_differing (a, b);
      cwb_snapshot_unref (snapshot);
    }
  g_test_message ("the box changes %zu pixels drawn from its surface, %zu from its particles",
                  changed[0], changed[1]);
  g_assert_cmpuint (changed[0], >, WIDTH * HEIGHT / 50);
  g_assert_cmpuint (changed[1], >, changed[0] / 3);
  g_assert_cmpuint (changed[1], <, changed[0] + changed[0] / 2);
}

static void
test_view_settings (void)
{
  CwbOverlayOptions o;
  cwb_render_overlay_options_default (&o);
  g_assert_cmpfloat (o.xray_opacity, ==, 0.3);
  const char *settings[][2] = {
    { "force_scale", "0.02" }, { "vector_scale", "3" }, { "element_field", "rotation" },
    { "element_scale", "0.5" }, { "xray", "true" }, { "xray_opacity", "0.5" },
    { "section", "z" }, { "section_offset", "-0.25" }, { "particle_field", "speed" },
    { "particle_scale", "2500" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (settings); k++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_true (cwb_render_view_set (&o, settings[k][0], settings[k][1], &error));
      g_assert_no_error (error);
    }
  g_assert_cmpfloat (o.force_scale, ==, 0.02);
  g_assert_cmpfloat (o.vector_scale, ==, 3);
  g_assert_cmpint (o.element_field, ==, CWB_ELEMENT_ROTATION);
  g_assert_cmpfloat (o.element_scale, ==, 0.5);
  g_assert_true (o.xray);
  g_assert_cmpfloat (o.xray_opacity, ==, 0.5);
  g_assert_cmpint (o.section, ==, CWB_SECTION_Z);
  g_assert_cmpfloat (o.section_offset, ==, -0.25);
  g_assert_cmpint (o.particle_field, ==, CWB_PARTICLE_SPEED);
  g_assert_cmpfloat (o.particle_scale, ==, 2500);

  const char *bad[][3] = {
    { "xray", "maybe", "expected one of false, true" },
    { "section", "w", "expected one of none, x, y, z, view" },
    { "xray_opacity", "0", "expected a number from 0.02 to 1" },
    { "force_scale", "1x", "expected a number from 0 to 10" },
    { "wobble", "1", "unknown view setting 'wobble'" },
    { "particle_field", "heat", "expected one of density, pressure, speed" },
    { "particle_scale", "-1", "expected a number from 0 to 1e+09" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      CwbOverlayOptions before = o;
      g_autoptr (GError) error = NULL;
      g_assert_false (cwb_render_view_set (&o, bad[k][0], bad[k][1], &error));
      g_assert_nonnull (strstr (error->message, bad[k][2]));
      g_assert_cmpmem (&before, sizeof before, &o, sizeof o);
    }

  const char *hidden[] = { "a", NULL }, *translucent[] = { "b", NULL };
  const char *isolated[] = { "b", "c", NULL };
  CwbOverlayOptions looks = { .xray_opacity = 0.4, .hidden_bodies = hidden,
                              .translucent_bodies = translucent };
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "a"), ==, 0);
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "b"), ==, 0.4);
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "c"), ==, 1);
  looks.xray = TRUE;
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "c"), ==, 0.4);
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "a"), ==, 0);
  looks.isolated_bodies = isolated;
  looks.xray = FALSE;
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "d"), ==, 0);
  g_assert_cmpfloat (cwb_render_body_opacity (&looks, "c"), ==, 1);
}

/* Projects a world point to pixel coordinates (top row 0). */
static void
project (const float vp[16], const float p[3], double *x, double *y)
{
  double clip[4];
  for (int r = 0; r < 4; r++)
    clip[r] = vp[r] * p[0] + vp[4 + r] * p[1] + vp[8 + r] * p[2] + vp[12 + r];
  *x = (clip[0] / clip[3] * 0.5 + 0.5) * WIDTH;
  *y = (1 - (clip[1] / clip[3] * 0.5 + 0.5)) * HEIGHT;
}

/* Drawn over a frame: nothing asked, nothing changes (bit for bit); the legend only in the
 * frame's lower part, within its margin of the left and bottom edges; body labels only near
 * where the bodies' tops project (within 80 px: a label is about 40 px wide and 15 tall). */
static void
test_annotate (Scene *scene, gconstpointer data)
{
  CwbSnapshot *s = scene->snapshot;
  CwbOverlayOptions o;
  cwb_render_overlay_options_default (&o);
  g_autofree guint8 *plain = cwb_render_offscreen_frame (scene->offscreen, s, &scene->camera,
                                                         &o);
  const CwbOverlayGeometry *drawn = cwb_render_last_overlays (
    cwb_render_offscreen_renderer (scene->offscreen));
  size_t bytes = 4 * (size_t) WIDTH * HEIGHT;
  g_autofree guint8 *copy = g_memdup2 (plain, bytes);
  CwbOverlayOptions quiet = o;
  quiet.legend = FALSE;
  cwb_render_annotate_rgba (copy, WIDTH, HEIGHT, s, &scene->camera, &quiet, drawn);
  g_assert_cmpmem (copy, bytes, plain, bytes);

  cwb_render_annotate_rgba (copy, WIDTH, HEIGHT, s, &scene->camera, &o, drawn);
  size_t changed = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      if (pixel_differs (copy, plain, (size_t) y * WIDTH + (size_t) x))
        {
          changed++;
          g_assert_cmpint (x, >=, 8);
          g_assert_cmpint (y, <, HEIGHT - 8 + 1);
          g_assert_cmpint (y, >, HEIGHT / 4);
        }
  g_assert_cmpuint (changed, >, 500);

  memcpy (copy, plain, bytes);
  CwbOverlayOptions labels = quiet;
  labels.body_labels = TRUE;
  cwb_render_annotate_rgba (copy, WIDTH, HEIGHT, s, &scene->camera, &labels, drawn);
  float vp[16];
  double eye[3], anchors[2][2];
  cwb_render_camera_matrices (&scene->camera, (double) WIDTH / HEIGHT, vp, eye);
  for (size_t b = 0; b < 2; b++)
    {
      double lo[3], hi[3];
      g_assert_true (cwb_snapshot_body_bounds (&s->bodies[b], lo, hi));
      float top[3] = { (float) (lo[0] + hi[0]) / 2, (float) (lo[1] + hi[1]) / 2,
                       (float) (s->bodies[b].fixed ? (lo[2] + hi[2]) / 2 : hi[2]) };
      project (vp, top, &anchors[b][0], &anchors[b][1]);
    }
  changed = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      if (pixel_differs (copy, plain, (size_t) y * WIDTH + (size_t) x))
        {
          changed++;
          double near = INFINITY;
          for (int b = 0; b < 2; b++)
            near = MIN (near, hypot (x - anchors[b][0], y - anchors[b][1]));
          g_assert_cmpfloat (near, <, 80);
        }
  g_assert_cmpuint (changed, >, 50);
}

/* Cones and force arrows on against off: the picture changes, and only where the overlay
 * geometry projects (its screen bounding box, with a 2-pixel margin for rasterisation). */
static void
test_overlays_change_expected_region (Scene *scene, gconstpointer data)
{
  CwbOffscreen *offscreen = scene->offscreen;
  CwbWorld *world = scene->world;
  const CwbCamera camera = scene->camera;
  CwbOverlayOptions on = { .contacts = TRUE, .cones = TRUE, .force_scale = 0.01,
                           .vector_scale = 1 };
  CwbOverlayOptions off = { .force_scale = 0.01, .vector_scale = 1 };
  g_autofree guint8 *with = cwb_render_offscreen_frame (offscreen, scene->snapshot, &camera, &on);
  const CwbOverlayGeometry *drawn = cwb_render_last_overlays (
    cwb_render_offscreen_renderer (offscreen));
  g_assert_cmpuint (drawn->n_cones, ==, cwb_world_contacts (world)->frames->len);

  float vp[16];
  double eye[3], lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
  cwb_render_camera_matrices (&camera, (double) WIDTH / HEIGHT, vp, eye);
  GArray *all[2] = { drawn->lines, drawn->triangles };
  for (int a = 0; a < 2; a++)
    for (guint k = 0; k < all[a]->len; k++)
      {
        double x, y;
        project (vp, g_array_index (all[a], CwbOverlayVertex, k).position, &x, &y);
        lo_x = MIN (lo_x, x);
        hi_x = MAX (hi_x, x);
        lo_y = MIN (lo_y, y);
        hi_y = MAX (hi_y, y);
      }
  g_autofree guint8 *without = cwb_render_offscreen_frame (offscreen, scene->snapshot, &camera,
                                                           &off);

  size_t changed = 0, outside = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++)
      {
        size_t k = 4 * ((size_t) y * WIDTH + (size_t) x);
        if (memcmp (&with[k], &without[k], 4) == 0)
          continue;
        changed++;
        if (x < lo_x - 2 || x > hi_x + 2 || y < lo_y - 2 || y > hi_y + 2)
          outside++;
      }
  g_test_message ("overlays changed %zu pixels, %zu outside their projected box", changed,
                  outside);
  g_assert_cmpuint (changed, >, 100);
  g_assert_cmpuint (outside, ==, 0);
}

/* --screenshot writes a PNG of the documented size through the same renderer. */
static void
test_cli_screenshot (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cwb-shot-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "shot.png", NULL);
  g_autofree char *scene = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "scenes",
                                             "penalty-incline.yaml", NULL);
  const char *argv[] = { g_getenv ("CWB_CLI"), "--headless", scene, "--steps", "20",
                         "--screenshot", png, NULL };
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                &status, &error);
  g_assert_no_error (error);
  g_test_message ("stderr: %s", err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  cairo_surface_t *image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 1280);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, 720);
  cairo_surface_destroy (image);
  g_unlink (png);
  g_rmdir (dir);
}

/* Runs the built program with `args` (NULL-terminated); returns its exit status, stderr in
 * *err. */
static int
run_program (const char *const *args, char **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("CWB_CLI"));
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* Runs the program with `extra` options after a headless run of `steps` steps of the scene
 * (a file of scenes/) and --screenshot PNG; returns the exit status, stderr in *err. */
static int
screenshot_of (const char *scene_file, const char *steps, const char *png,
               const char *const *extra, char **err)
{
  g_autofree char *scene = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "scenes",
                                             scene_file, NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *base[] = { "--headless", scene, "--steps", steps, "--screenshot", png };
  for (size_t k = 0; k < G_N_ELEMENTS (base); k++)
    g_ptr_array_add (args, (gpointer) base[k]);
  for (const char *const *e = extra; *e != NULL; e++)
    g_ptr_array_add (args, (gpointer) *e);
  g_ptr_array_add (args, NULL);
  return run_program ((const char *const *) args->pdata, err);
}

/* The same after 20 steps of the incline. */
static int
screenshot_with (const char *png, const char *const *extra, char **err)
{
  return screenshot_of ("penalty-incline.yaml", "20", png, extra, err);
}

static GBytes *
png_pixels (const char *png, int *width, int *height)
{
  cairo_surface_t *image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  *width = cairo_image_surface_get_width (image);
  *height = cairo_image_surface_get_height (image);
  GBytes *bytes = g_bytes_new (cairo_image_surface_get_data (image),
                               (gsize) cairo_image_surface_get_stride (image) * (gsize) *height);
  cairo_surface_destroy (image);
  return bytes;
}

/* Issue 19 ("Controls a lecture needs"): figures reproducible from the command line. --size
 * sets the PNG's size; the same --camera and --overlays give the same image twice, pixel for
 * pixel; another camera direction or another overlay set gives another; --view hides,
 * isolates or cuts bodies (isolating the box is hiding the ground, pixel for pixel, their
 * legends, which say which, left out); a bad
 * value is a bad argument (exit 2) that says what was expected. */
static void
test_cli_screenshot_view (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cwb-shot-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (dir, "a.png", NULL);
  g_autofree char *b = g_build_filename (dir, "b.png", NULL);
  g_autofree char *c = g_build_filename (dir, "c.png", NULL);
  g_autofree char *d = g_build_filename (dir, "d.png", NULL);
  const char *view[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays",
                         "wireframe,contacts", NULL };
  const char *turned[] = { "--size", "320x240", "--camera", "0,60", "--overlays",
                           "wireframe,contacts", NULL };
  const char *bare[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays", "none",
                         NULL };
  g_autofree char *err = NULL;
  g_assert_cmpint (screenshot_with (a, view, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (b, view, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (c, turned, &err), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (d, bare, &err), ==, 0);
  int w, h;
  g_autoptr (GBytes) pa = png_pixels (a, &w, &h);
  g_assert_cmpint (w, ==, 320);
  g_assert_cmpint (h, ==, 240);
  g_autoptr (GBytes) pb = png_pixels (b, &w, &h);
  g_autoptr (GBytes) pc = png_pixels (c, &w, &h);
  g_autoptr (GBytes) pd = png_pixels (d, &w, &h);
  g_assert_true (g_bytes_equal (pa, pb));
  g_assert_false (g_bytes_equal (pa, pc));
  g_assert_false (g_bytes_equal (pa, pd));

  const char *bad_overlay[] = { "--overlays", "wireframe,cows", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (a, bad_overlay, &err), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "unknown overlay 'cows'"));
  const char *bad_camera[] = { "--camera", "0,95", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (a, bad_camera, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--camera: expected YAW,PITCH"));
  const char *bad_size[] = { "--size", "320x", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (a, bad_size, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--size: expected WIDTHxHEIGHT"));

  /* --view: the box hidden, or isolated, or cut: each another picture; isolating the box is
   * hiding the ground. Bad settings and names no body has exit 2 saying so. */
  const char *hide_box[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays", "none",
                             "--view", "hide=box", NULL };
  const char *isolate_box[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays",
                                "none", "--view", "isolate=box", "--view", "legend=false",
                                NULL };
  const char *hide_ground[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays",
                                "none", "--view", "hide=ground", "--view", "legend=false",
                                NULL };
  const char *section[] = { "--size", "320x240", "--camera", "90,10,1.2", "--overlays", "none",
                            "--view", "section=view", "--view", "xray_opacity=0.5", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (b, hide_box, &err), ==, 0);
  g_autoptr (GBytes) p_hidden = png_pixels (b, &w, &h);
  g_assert_false (g_bytes_equal (p_hidden, pd));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (b, isolate_box, &err), ==, 0);
  g_autoptr (GBytes) p_isolated = png_pixels (b, &w, &h);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (b, hide_ground, &err), ==, 0);
  g_autoptr (GBytes) p_no_ground = png_pixels (b, &w, &h);
  g_assert_true (g_bytes_equal (p_isolated, p_no_ground));
  g_assert_false (g_bytes_equal (p_isolated, pd));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (screenshot_with (b, section, &err), ==, 0);
  g_autoptr (GBytes) p_section = png_pixels (b, &w, &h);
  g_assert_false (g_bytes_equal (p_section, pd));
  const char *bad_views[][3] = {
    { "--view", "isolate=crate", "--view: no body is named 'crate'" },
    { "--view", "xray=maybe", "--view: xray: expected one of false, true, got 'maybe'" },
    { "--view", "wobble=1", "unknown view setting 'wobble'" },
    { "--view", "xray", "--view: expected KEY=VALUE, got 'xray'" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (bad_views); k++)
    {
      const char *args[] = { bad_views[k][0], bad_views[k][1], NULL };
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (screenshot_with (a, args, &err), ==, 2);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, bad_views[k][2]));
    }
  for (const char *const *p = (const char *const[]){ a, b, c, d, NULL }; *p != NULL; p++)
    g_unlink (*p);
  g_rmdir (dir);
}

/* A clip's frames, decoded (libwebpdemux): RGBA of each and its end time in ms. */
typedef struct Clip {
  int width, height;
  GPtrArray *frames;      /* GBytes, RGBA */
  GArray *times;          /* int, the end of each frame in ms */
} Clip;

static void
clip_clear (Clip *clip)
{
  g_clear_pointer (&clip->frames, g_ptr_array_unref);
  g_clear_pointer (&clip->times, g_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Clip, clip_clear)

static Clip
read_clip (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &bytes, &length, NULL));
  WebPData data = { (const uint8_t *) bytes, length };
  WebPAnimDecoderOptions options;
  g_assert_true (WebPAnimDecoderOptionsInit (&options));
  options.color_mode = MODE_RGBA;
  WebPAnimDecoder *decoder = WebPAnimDecoderNew (&data, &options);
  g_assert_nonnull (decoder);
  WebPAnimInfo info;
  g_assert_true (WebPAnimDecoderGetInfo (decoder, &info));
  Clip clip = { (int) info.canvas_width, (int) info.canvas_height,
                g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref),
                g_array_new (FALSE, FALSE, sizeof (int)) };
  while (WebPAnimDecoderHasMoreFrames (decoder))
    {
      uint8_t *rgba;
      int time;
      g_assert_true (WebPAnimDecoderGetNext (decoder, &rgba, &time));
      g_ptr_array_add (clip.frames, g_bytes_new (rgba, 4 * (gsize) clip.width * clip.height));
      g_array_append_val (clip.times, time);
    }
  g_assert_cmpuint (clip.frames->len, ==, info.frame_count);
  WebPAnimDecoderDelete (decoder);
  return clip;
}


/* Issue 19 ("What no peer has"): recording. 50 steps of 5 ms, a frame every 5 steps: 11
 * frames (the start and one per 5 steps) of the asked size, each 25 ms (the simulated time
 * it stands for: the clip plays in real time); the box slides, so the last frame differs
 * from the first; with --compare, B's clip beside A's starts from the same picture (the same
 * state, the same deterministic encoder: the same pixels) and ends on another (B's box has
 * less friction). By default 25 frames a simulated second: 40 steps of 5 ms, every 8 steps,
 * 6 frames 40 ms apart. Bad uses are bad arguments (exit 2). */
static void
test_cli_record (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cwb-clip-XXXXXX", NULL);
  g_autofree char *clip_a = g_build_filename (dir, "slide.webp", NULL);
  g_autofree char *clip_b = g_build_filename (dir, "slide.b.webp", NULL);
  g_autofree char *clip_d = g_build_filename (dir, "default.webp", NULL);
  g_autofree char *scene = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "scenes",
                                             "penalty-incline.yaml", NULL);
  g_autofree char *err = NULL;
  const char *compared[] = { "--headless", scene, "--steps", "50", "--record", clip_a,
                             "--record-every", "5", "--size", "160x120", "--compare",
                             "bodies.box.friction=0.1", NULL };
  g_assert_cmpint (run_program (compared, &err), ==, 0);
  g_auto (Clip) a = read_clip (clip_a);
  g_auto (Clip) b = read_clip (clip_b);
  g_assert_cmpint (a.width, ==, 160);
  g_assert_cmpint (a.height, ==, 120);
  g_assert_cmpuint (a.frames->len, ==, 11);
  g_assert_cmpuint (b.frames->len, ==, 11);
  for (guint k = 0; k < a.times->len; k++)
    g_assert_cmpint (g_array_index (a.times, int, k), ==, 25 * (int) (k + 1));
  g_assert_false (g_bytes_equal (a.frames->pdata[0], a.frames->pdata[10]));
  g_assert_true (g_bytes_equal (a.frames->pdata[0], b.frames->pdata[0]));
  g_assert_false (g_bytes_equal (a.frames->pdata[10], b.frames->pdata[10]));

  const char *by_default[] = { "--headless", scene, "--steps", "40", "--record", clip_d,
                               "--size", "64x48", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_program (by_default, &err), ==, 0);
  g_auto (Clip) d = read_clip (clip_d);
  g_assert_cmpuint (d.frames->len, ==, 6);
  g_assert_cmpint (g_array_index (d.times, int, 0), ==, 40);

  const char *no_record[] = { "--headless", scene, "--record-every", "3", NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_program (no_record, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--record-every needs --record"));
  const char *window[] = { scene, "--record", clip_d, NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_program (window, &err), ==, 2);
  g_assert_nonnull (strstr (err, "add --headless"));
  for (const char *const *p = (const char *const[]){ clip_a, clip_b, clip_d, NULL }; *p != NULL;
       p++)
    g_unlink (*p);
  g_rmdir (dir);
}

/* The dam break's fluid after two steps, drawn from the command line with the elements
 * overlay: --view particle_field=pressure colours its particles otherwise than the default
 * density error, which colours them otherwise than the body's own colour (no overlay); a
 * field that is none exits 2 naming the choices. */
static void
test_cli_screenshot_particles (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cwb-particles-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "fluid.png", NULL);
  const char *density[] = { "--size", "160x120", "--overlays", "elements", NULL };
  const char *pressure[] = { "--size", "160x120", "--overlays", "elements", "--view",
                             "particle_field=pressure", NULL };
  const char *plain[] = { "--size", "160x120", "--overlays", "none", NULL };
  const char *const *runs[3] = { density, pressure, plain };
  GBytes *pixels[3];
  for (int k = 0; k < 3; k++)
    {
      g_autofree char *err = NULL;
      g_assert_cmpint (screenshot_of ("fluid-dam-break.yaml", "2", png, runs[k], &err), ==, 0);
      int w, h;
      pixels[k] = png_pixels (png, &w, &h);
    }
  for (int k = 0; k < 3; k++)
    g_assert_false (g_bytes_equal (pixels[k], pixels[(k + 1) % 3]));
  for (int k = 0; k < 3; k++)
    g_bytes_unref (pixels[k]);
  const char *bad[] = { "--view", "particle_field=temperature", NULL };
  g_autofree char *err = NULL;
  g_assert_cmpint (screenshot_of ("fluid-dam-break.yaml", "0", png, bad, &err), ==, 2);
  g_assert_nonnull (strstr (err, "particle_field: expected one of density, pressure, speed"));
  g_remove (png);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/overlays/counts", test_overlay_counts);
  g_test_add_func ("/render/overlays/scales", test_overlay_scales);
  g_test_add_func ("/render/overlays/ghost", test_overlay_ghost);
  g_test_add_func ("/render/overlays/volume-inspection", test_overlay_volume_inspection);
  g_test_add_func ("/render/overlays/elements", test_overlay_elements);
  g_test_add_func ("/render/overlays/element-values", test_element_values);
  g_test_add_func ("/render/overlays/element-colors", test_element_colors);
  g_test_add_func ("/render/overlays/clipped", test_overlay_clipped);
  g_test_add_func ("/render/annotations/legend", test_legend);
  g_test_add ("/render/annotations/draw", Scene, NULL, scene_setup, test_annotate,
              scene_teardown);
  g_test_add ("/render/offscreen/not-blank", Scene, NULL, scene_setup, test_frame_not_blank,
              scene_teardown);
  g_test_add ("/render/offscreen/overlay-region", Scene, NULL, scene_setup,
              test_overlays_change_expected_region, scene_teardown);
  g_test_add ("/render/offscreen/body-looks", Scene, NULL, scene_setup, test_body_looks,
              scene_teardown);
  g_test_add_func ("/render/offscreen/particles", test_particles_drawn);
  g_test_add_func ("/render/view-settings", test_view_settings);
  g_test_add_func ("/render/cli/screenshot", test_cli_screenshot);
  g_test_add_func ("/render/cli/screenshot-view", test_cli_screenshot_view);
  g_test_add_func ("/render/cli/screenshot-particles", test_cli_screenshot_particles);
  g_test_add_func ("/render/cli/record", test_cli_record);
  return g_test_run ();
}
