/* Particles coloured by their node values (particle_fields.h, ABI 1.22 inspect_nodes): the
 * colour maps, the automatic scale and the legend line against closed forms, and frames
 * drawn headless (EGL surfaceless) in which a moving fluid's particles take the speed's full
 * colour and a resting one's the white at zero, read back from the pixels. */
#include <math.h>
#include <string.h>

#include "annotations.h"
#include "offscreen.h"
#include "particle_fields.h"
#include "world_fixture.h"

#define WIDTH 320
#define HEIGHT 240

/* Two blocks of water of 0.1 m, 125 particles of 2 cm each, side by side in the air without
 * gravity: "moving" at 1 m/s along y, "still" at rest. Nothing is stepped: the captured
 * state is the built one, so the speeds are exactly 1 and 0. */
static const char *const two_blocks_yaml =
  "world: { dt: 0.002, gravity: [0, 0, 0] }\n"
  "bodies:\n"
  "  - name: moving\n"
  "    model: sph\n"
  "    mapping: particles\n"
  "    shape: { type: box, size: [0.1, 0.1, 0.1] }\n"
  "    pose: { position: [-0.1, 0, 0] }\n"
  "    velocity: { linear: [0, 1, 0] }\n"
  "    model_params: { particle_spacing: 0.02 }\n"
  "  - name: still\n"
  "    model: sph\n"
  "    mapping: particles\n"
  "    shape: { type: box, size: [0.1, 0.1, 0.1] }\n"
  "    pose: { position: [0.1, 0, 0] }\n"
  "    model_params: { particle_spacing: 0.02 }\n";

static void
assert_rgb (const float rgba[4], float r, float g, float b)
{
  g_assert_cmpfloat_with_epsilon (rgba[0], r, 1e-6);
  g_assert_cmpfloat_with_epsilon (rgba[1], g, 1e-6);
  g_assert_cmpfloat_with_epsilon (rgba[2], b, 1e-6);
  g_assert_cmpfloat (rgba[3], ==, 1);
}

/* The ramps' ends and middles (the element overlay's white 0.97, red (0.8, 0.1, 0.1), blue
 * (0.1, 0.3, 0.85)): density error blue below rest, red above; pressure white to red;
 * speed white to blue; beyond the scale the end colour. */
static void
test_colors (void)
{
  float c[4];
  cwb_render_particle_color (CWB_PARTICLE_DENSITY, -0.02, 0.01, c);
  assert_rgb (c, 0.10f, 0.30f, 0.85f);
  cwb_render_particle_color (CWB_PARTICLE_DENSITY, 0, 0.01, c);
  assert_rgb (c, 0.97f, 0.97f, 0.97f);
  cwb_render_particle_color (CWB_PARTICLE_DENSITY, 0.01, 0.01, c);
  assert_rgb (c, 0.80f, 0.10f, 0.10f);
  cwb_render_particle_color (CWB_PARTICLE_PRESSURE, 500, 1000, c);
  assert_rgb (c, 0.885f, 0.535f, 0.535f);
  cwb_render_particle_color (CWB_PARTICLE_PRESSURE, 2000, 1000, c);
  assert_rgb (c, 0.80f, 0.10f, 0.10f);
  cwb_render_particle_color (CWB_PARTICLE_SPEED, 0, 2, c);
  assert_rgb (c, 0.97f, 0.97f, 0.97f);
  cwb_render_particle_color (CWB_PARTICLE_SPEED, 2, 2, c);
  assert_rgb (c, 0.10f, 0.30f, 0.85f);
}

/* The snapshot's node values coloured: the automatic speed scale is the moving block's 1
 * m/s, the pressure's its 1 Pa floor (no step: no pressure), the density error's the 0.1 %
 * floor (no particle compressed on its lattice); a set scale wins. The legend names the
 * field, its unit and the full-colour value; with the elements overlay off, no particle is
 * coloured and the line goes. */
static void
test_scale_and_legend (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, two_blocks_yaml);
  g_autoptr (CwbSnapshot) s = cwb_snapshot_capture (world, NULL);
  for (size_t b = 0; b < 2; b++)
    {
      g_assert_true (cwb_render_particles_colorable (&s->bodies[b]));
      g_assert_cmpuint (s->bodies[b].n_points, ==, 125);
    }
  CwbOverlayOptions o;
  cwb_render_overlay_options_default (&o);
  o.elements = TRUE;
  o.particle_field = CWB_PARTICLE_SPEED;
  g_assert_cmpfloat_with_epsilon (cwb_render_particle_scale (s, &o), 1.0, 1e-12);
  o.particle_field = CWB_PARTICLE_PRESSURE;
  g_assert_cmpfloat (cwb_render_particle_scale (s, &o), ==, 1.0);
  o.particle_field = CWB_PARTICLE_DENSITY;
  g_assert_cmpfloat (cwb_render_particle_scale (s, &o), ==, 1e-3);
  o.particle_scale = 0.05;
  g_assert_cmpfloat (cwb_render_particle_scale (s, &o), ==, 0.05);

  CwbOverlayGeometry g;
  cwb_render_overlay_init (&g);
  o.particle_field = CWB_PARTICLE_SPEED;
  o.particle_scale = 0;
  cwb_render_overlay_build (&g, s, &o);
  g_assert_cmpuint (g.n_particles, ==, 250);
  g_autoptr (GArray) legend = cwb_render_legend (s, &o, &g);
  const CwbLegendEntry *e = cwb_render_legend_find (legend, "particles, ");
  g_assert_nonnull (e);
  g_assert_cmpstr (e->text, ==, "particles, speed: 0 to 1 m/s (largest in view)");
  g_assert_true (e->ramp);
  float blue[4];
  cwb_render_particle_color (CWB_PARTICLE_SPEED, 1, 1, blue);
  g_assert_cmpmem (e->end, sizeof blue, blue, sizeof blue);

  o.particle_field = CWB_PARTICLE_PRESSURE;
  o.particle_scale = 2500;
  cwb_render_overlay_build (&g, s, &o);
  g_autoptr (GArray) pressure = cwb_render_legend (s, &o, &g);
  g_assert_nonnull (cwb_render_legend_find (pressure, "particles, pressure: 0 to 2.5e+03 Pa"));
  o.particle_field = CWB_PARTICLE_DENSITY;
  o.particle_scale = 0;
  cwb_render_overlay_build (&g, s, &o);
  g_autoptr (GArray) density = cwb_render_legend (s, &o, &g);
  g_assert_nonnull (cwb_render_legend_find (density, "particles, density error rho/rho0 - 1: -0.1 % "
                                          "(rarefied) to +0.1 % (compressed) (largest "
                                          "compression in view)"));

  const char *still[] = { "still", NULL };
  o.hidden_bodies = still;
  cwb_render_overlay_build (&g, s, &o);
  g_assert_cmpuint (g.n_particles, ==, 125);
  o.hidden_bodies = NULL;
  o.elements = FALSE;
  cwb_render_overlay_build (&g, s, &o);
  g_assert_cmpuint (g.n_particles, ==, 0);
  g_autoptr (GArray) off = cwb_render_legend (s, &o, &g);
  g_assert_null (cwb_render_legend_find (off, "particles, "));
  cwb_render_overlay_destroy (&g);
}

/* Mean of (blue - red) and (red - blue) over the pixels the body covers (those that change
 * when it is hidden), as shares of full intensity: the mesh shader scales a colour by its
 * lighting (0.35 to 1), so the difference of two channels keeps a colour's sign. */
typedef struct Tint {
  size_t pixels;
  double blue_minus_red;
} Tint;

static Tint
tint_of (const guint8 *frame, const guint8 *without)
{
  Tint t = { 0, 0 };
  for (size_t p = 0; p < (size_t) WIDTH * HEIGHT; p++)
    {
      const guint8 *a = &frame[4 * p], *b = &without[4 * p];
      if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2])
        continue;
      t.pixels++;
      t.blue_minus_red += (a[2] - a[0]) / 255.0;
    }
  if (t.pixels > 0)
    t.blue_minus_red /= (double) t.pixels;
  return t;
}

/* Drawn with the speed field, as octahedra or as the surface around the particles (its
 * vertices coloured by their particles' values, fluid_surfaces.h): the moving block's
 * particles are the full blue (blue minus
 * red 0.75 before lighting, at least 0.26 lit; measured 0.60), the still one's are white (0
 * before lighting; measured 0.000; its body colour, the palette's light blue, gave 0.42 and
 * the moving one's orange -0.52). Each body covers at least 2 % of the frame (measured
 * about 5000 pixels of 76800), so the means are over thousands of pixels. */
#define FULL_COLOR_MIN 0.2
#define WHITE_MAX 0.02

static void
test_frame_colors (gconstpointer data)
{
  CwbParticleStyle style = GPOINTER_TO_INT (data);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbOffscreen) offscreen = cwb_render_offscreen_new (WIDTH, HEIGHT, &error);
  g_assert_no_error (error);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, two_blocks_yaml);
  g_autoptr (CwbSnapshot) s = cwb_snapshot_capture (world, NULL);
  CwbCamera camera;
  cwb_render_camera_framing (s, NULL, 1, &camera);
  const char *moving[] = { "moving", NULL }, *still[] = { "still", NULL };
  Tint tint[2][2];   /* [elements off, on][moving, still] */
  for (int on = 0; on < 2; on++)
    {
      CwbOverlayOptions o = { .vector_scale = 1, .xray_opacity = 0.3, .elements = on,
                              .particle_field = CWB_PARTICLE_SPEED, .particle_style = style };
      g_autofree guint8 *frame = cwb_render_offscreen_frame (offscreen, s, &camera, &o);
      o.hidden_bodies = moving;
      g_autofree guint8 *no_moving = cwb_render_offscreen_frame (offscreen, s, &camera, &o);
      o.hidden_bodies = still;
      g_autofree guint8 *no_still = cwb_render_offscreen_frame (offscreen, s, &camera, &o);
      tint[on][0] = tint_of (frame, no_moving);
      tint[on][1] = tint_of (frame, no_still);
      for (int b = 0; b < 2; b++)
        {
          g_test_message ("%s, elements %s, %s: %zu pixels, blue - red %.3f",
                          cwb_render_particle_style_names[style], on ? "on" : "off",
                          b == 0 ? "moving" : "still", tint[on][b].pixels,
                          tint[on][b].blue_minus_red);
          g_assert_cmpuint (tint[on][b].pixels, >, WIDTH * HEIGHT / 50);
        }
    }
  /* Off: the bodies' own colours, orange and light blue. */
  g_assert_cmpfloat (tint[0][0].blue_minus_red, <, -FULL_COLOR_MIN);
  g_assert_cmpfloat (tint[0][1].blue_minus_red, >, FULL_COLOR_MIN);
  /* On: the moving block at the speed's full blue, the still one white. */
  g_assert_cmpfloat (tint[1][0].blue_minus_red, >, FULL_COLOR_MIN);
  g_assert_cmpfloat (fabs (tint[1][1].blue_minus_red), <, WHITE_MAX);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/particles/colors", test_colors);
  g_test_add_func ("/render/particles/scale-and-legend", test_scale_and_legend);
  g_test_add_data_func ("/render/particles/frame-colors",
                        GINT_TO_POINTER (CWB_PARTICLES_OCTAHEDRA), test_frame_colors);
  g_test_add_data_func ("/render/particles/frame-colors/surface",
                        GINT_TO_POINTER (CWB_PARTICLES_SURFACE), test_frame_colors);
  return g_test_run ();
}
