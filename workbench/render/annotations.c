/* Legends and labels over a frame (annotations.h). */
#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include <cwb/cwb.h>

#include "annotations.h"
#include "particle_fields.h"
#include "renderer.h"

#define LEGEND_FONT "Sans 9"
#define LABEL_FONT "Sans Bold 9"
#define LEGEND_MARGIN 8.0      /* px from the frame's edges */
#define LEGEND_PADDING 6.0     /* px inside the legend's box */
#define SWATCH_WIDTH 22.0
#define SWATCH_HEIGHT 9.0
#define LINE_GAP 3.0

double
cwb_render_nice_step (double span, int steps)
{
  if (!(span > 0) || !isfinite (span) || steps < 1)
    return 0;
  double raw = span / steps;
  double magnitude = pow (10, floor (log10 (raw)));
  double norm = raw / magnitude;
  return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
}

/* ---- the legend's lines ------------------------------------------------------------------ */

static CwbLegendEntry *
add (GArray *legend, const float color[4], const char *format, ...) G_GNUC_PRINTF (3, 4);

static CwbLegendEntry *
add (GArray *legend, const float color[4], const char *format, ...)
{
  CwbLegendEntry entry;
  memset (&entry, 0, sizeof entry);
  va_list args;
  va_start (args, format);
  g_vsnprintf (entry.text, sizeof entry.text, format, args);
  va_end (args);
  if (color != NULL)
    memcpy (entry.color, color, sizeof entry.color);
  g_array_append_val (legend, entry);
  return &g_array_index (legend, CwbLegendEntry, legend->len - 1);
}

static void
add_ramp (GArray *legend, const float from[4], const float middle[4], const float to[4],
          const char *text)
{
  CwbLegendEntry *e = add (legend, from, "%s", text);
  memcpy (e->middle, middle, sizeof e->middle);
  memcpy (e->end, to, sizeof e->end);
  e->ramp = TRUE;
}

/* A length in the unit that reads best: "5 cm", "2 m", "500 um". */
static void
format_length (char *out, size_t size, double metres)
{
  if (metres >= 1)
    g_snprintf (out, size, "%g m", metres);
  else if (metres >= 0.01)
    g_snprintf (out, size, "%g cm", metres * 100);
  else if (metres >= 0.001)
    g_snprintf (out, size, "%g mm", metres * 1000);
  else
    g_snprintf (out, size, "%g um", metres * 1e6);
}

static void
add_force_scale (GArray *legend, const CwbSnapshot *snapshot, const CwbOverlayOptions *o,
                 double force_scale)
{
  double size = cwb_snapshot_median_moving_size (snapshot);
  double length = cwb_render_nice_step (size > 0 ? size : 1, 2);
  char text[32];
  format_length (text, sizeof text, length);
  add (legend, NULL, "force: %s of arrow or cone = %.3g N%s", text, length / force_scale,
       o->force_scale > 0 ? "" : " (automatic, longest drawn at 1.5 bodies)");
}

static void
add_elements (GArray *legend, const CwbOverlayOptions *o, double scale)
{
  float low[4], zero[4], high[4];
  cwb_render_element_color (o->element_field, -scale, scale, low);
  cwb_render_element_color (o->element_field, 0, scale, zero);
  cwb_render_element_color (o->element_field, scale, scale, high);
  char text[160];
  const char *automatic = o->element_scale > 0 ? "" : " (largest in view)";
  switch (o->element_field)
    {
    case CWB_ELEMENT_VOLUME:
      g_snprintf (text, sizeof text, "FEM elements, volumetric strain: -%.3g %% (compressed) "
                  "to +%.3g %%%s", 100 * scale, 100 * scale, automatic);
      add_ramp (legend, low, zero, high, text);
      break;
    case CWB_ELEMENT_ROTATION:
      g_snprintf (text, sizeof text, "FEM elements, rotation from rest: 0 to %.3g deg%s",
                  scale * 180 / G_PI, automatic);
      add_ramp (legend, zero, (float[4]){ 0.5f * (zero[0] + high[0]), 0.5f * (zero[1] + high[1]),
                                          0.5f * (zero[2] + high[2]), 1 }, high, text);
      break;
    case CWB_ELEMENT_STRAIN:
    default:
      g_snprintf (text, sizeof text, "FEM elements, equivalent strain: 0 to %.3g %%%s",
                  100 * scale, automatic);
      add_ramp (legend, zero, (float[4]){ 0.5f * (zero[0] + high[0]), 0.5f * (zero[1] + high[1]),
                                          0.5f * (zero[2] + high[2]), 1 }, high, text);
      break;
    }
}

/* The particles' field: its name, unit and the value at full colour, as the elements' line
 * gives theirs. */
static void
add_particles (GArray *legend, const CwbOverlayOptions *o, double scale)
{
  CwbParticleField field = o->particle_field;
  float low[4], zero[4], high[4];
  cwb_render_particle_color (field, -scale, scale, low);
  cwb_render_particle_color (field, 0, scale, zero);
  cwb_render_particle_color (field, scale, scale, high);
  float middle[4] = { 0.5f * (zero[0] + high[0]), 0.5f * (zero[1] + high[1]),
                      0.5f * (zero[2] + high[2]), 1 };
  char text[160];
  const char *automatic = o->particle_scale > 0 ? "" : " (largest in view)";
  switch (field)
    {
    case CWB_PARTICLE_PRESSURE:
      g_snprintf (text, sizeof text, "particles, pressure: 0 to %.3g Pa%s", scale, automatic);
      add_ramp (legend, zero, middle, high, text);
      break;
    case CWB_PARTICLE_SPEED:
      g_snprintf (text, sizeof text, "particles, speed: 0 to %.3g m/s%s", scale, automatic);
      add_ramp (legend, zero, middle, high, text);
      break;
    case CWB_PARTICLE_DENSITY:
    default:
      g_snprintf (text, sizeof text, "particles, density error rho/rho0 - 1: -%.3g %% "
                  "(rarefied) to +%.3g %% (compressed)%s", 100 * scale, 100 * scale,
                  o->particle_scale > 0 ? "" : " (largest compression in view)");
      add_ramp (legend, low, zero, high, text);
      break;
    }
}

/* The visible particle bodies (fluids) drawn as surfaces (CWB_PARTICLES_SURFACE). */
static size_t
count_surfaces (const CwbSnapshot *snapshot, const CwbOverlayOptions *o)
{
  size_t n = 0;
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *g = &snapshot->bodies[b];
      n += g->kind == CWB_GEOMETRY_PARTICLES && g->radii != NULL
           && cwb_render_body_opacity (o, g->name) > 0;
    }
  return n;
}

static size_t
count_named (const char *const *list)
{
  size_t n = 0;
  for (; list != NULL && *list != NULL; list++)
    n++;
  return n;
}

GArray *
cwb_render_legend (const CwbSnapshot *snapshot, const CwbOverlayOptions *o,
                   const CwbOverlayGeometry *drawn)
{
  GArray *legend = g_array_new (FALSE, FALSE, sizeof (CwbLegendEntry));
  if (!o->legend)
    return legend;
  if ((o->contacts || o->cones) && snapshot->frames->len > 0)
    {
      static const char *const meanings[3] = { "open contact (no force)",
                                               "stick: force inside the friction cone",
                                               "slip: force on the cone, against the slip" };
      CwbContactState order[3] = { CWB_CONTACT_STICK, CWB_CONTACT_SLIP, CWB_CONTACT_OPEN };
      for (int k = 0; k < 3; k++)
        {
          float color[4];
          cwb_render_state_color (order[k], color);
          add (legend, color, "%s", meanings[order[k]]);
        }
      if (o->cones)
        add (legend, NULL, "cone: half-angle atan(mu), as tall as the normal force%s",
             snapshot->friction_law == CWB_FRICTION_PYRAMID ? " (pyramid)" : "");
      add_force_scale (legend, snapshot, o, drawn->force_scale);
    }
  static const float depth_color[4] = { 0.85f, 0.2f, 0.85f, 1 };
  static const float gradient_color[4] = { 1.0f, 0.6f, 0.1f, 1 };
  static const float span_color[4] = { 0.2f, 0.5f, 1.0f, 1 };
  static const float cell_color[4] = { 1.0f, 0.85f, 0.2f, 1 };
  static const float root_cell_color[4] = { 0.55f, 0.6f, 0.7f, 1 };
  static const float box_color[4] = { 0.3f, 0.8f, 0.9f, 1 };
  static const float grid_color[4] = { 0.45f, 0.45f, 0.5f, 1 };
  if (o->depth_vectors && drawn->n_vectors > 0)
    add (legend, depth_color, "penetration depth vectors (x%g)", o->vector_scale);
  if (o->gradients && drawn->n_vectors > 0)
    add (legend, gradient_color, "volume / density gradients (x%g)", o->vector_scale);
  if (o->spans && drawn->n_spans > 0)
    add (legend, span_color, "LDI intersection spans (%zu)", drawn->n_spans);
  if (o->cells && drawn->n_cells > 0)
    add (legend, cell_color, "multi-volume grid cells (%zu)", drawn->n_cells);
  if (o->cells && drawn->n_root_cells > 0)
    add (legend, root_cell_color, "coarse cells, one body in each (%zu)", drawn->n_root_cells);
  if (o->voxels && drawn->n_voxels > 0)
    add_ramp (legend, (float[4]){ 0, 0.3f, 1, 1 }, (float[4]){ 0.5f, 0.3f, 0.5f, 1 },
              (float[4]){ 1, 0.3f, 0, 1 }, "voxels: occupancy or density 0 to 1");
  if (o->elements && drawn->n_elements > 0)
    add_elements (legend, o, drawn->element_scale);
  if (o->elements && drawn->n_particles > 0)
    add_particles (legend, o, drawn->particle_scale);
  size_t surfaces = o->particle_style == CWB_PARTICLES_SURFACE ? count_surfaces (snapshot, o)
                                                                : 0;
  if (surfaces > 0)
    add (legend, NULL, "%zu particle bod%s drawn as the surface around the particles", surfaces,
         surfaces == 1 ? "y" : "ies");
  if (o->aabbs && drawn->n_aabbs > 0)
    add (legend, box_color, "bounding boxes");
  if (o->grid)
    add (legend, grid_color, "ground grid: 0.5 m squares");
  if (o->xray)
    add (legend, NULL, "x-ray: every body at %.0f %% opacity", 100 * o->xray_opacity);
  if (o->section != CWB_SECTION_NONE)
    add (legend, NULL, "section %s%s, %g m from the centre; dark: inside a body",
         o->section == CWB_SECTION_VIEW ? "facing the camera" : "across ",
         o->section == CWB_SECTION_VIEW ? "" : cwb_render_section_names[o->section],
         o->section_offset);
  size_t hidden = count_named (o->hidden_bodies);
  if (count_named (o->isolated_bodies) > 0)
    add (legend, NULL, "isolated: only %zu of %zu bodies shown", count_named (o->isolated_bodies),
         snapshot->n_bodies);
  else if (hidden > 0)
    add (legend, NULL, "%zu of %zu bodies hidden", hidden, snapshot->n_bodies);
  return legend;
}

const CwbLegendEntry *
cwb_render_legend_find (const GArray *legend, const char *start)
{
  for (guint k = 0; legend != NULL && k < legend->len; k++)
    if (g_str_has_prefix (g_array_index (legend, CwbLegendEntry, k).text, start))
      return &g_array_index (legend, CwbLegendEntry, k);
  return NULL;
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void
set_rgb (cairo_t *cr, const float c[4])
{
  cairo_set_source_rgb (cr, c[0], c[1], c[2]);
}

static void
draw_swatch (cairo_t *cr, const CwbLegendEntry *e, double x, double y)
{
  if (e->ramp)
    {
      cairo_pattern_t *ramp = cairo_pattern_create_linear (x, 0, x + SWATCH_WIDTH, 0);
      cairo_pattern_add_color_stop_rgb (ramp, 0, e->color[0], e->color[1], e->color[2]);
      cairo_pattern_add_color_stop_rgb (ramp, 0.5, e->middle[0], e->middle[1], e->middle[2]);
      cairo_pattern_add_color_stop_rgb (ramp, 1, e->end[0], e->end[1], e->end[2]);
      cairo_set_source (cr, ramp);
      cairo_rectangle (cr, x, y, SWATCH_WIDTH, SWATCH_HEIGHT);
      cairo_fill (cr);
      cairo_pattern_destroy (ramp);
    }
  else if (e->color[3] > 0)
    {
      set_rgb (cr, e->color);
      cairo_rectangle (cr, x, y + SWATCH_HEIGHT / 2 - 1.5, SWATCH_WIDTH, 3);
      cairo_fill (cr);
    }
}

static PangoLayout *
legend_layout (cairo_t *cr)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (LEGEND_FONT);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  return layout;
}

cairo_surface_t *
cwb_render_legend_image (const GArray *legend)
{
  if (legend->len == 0)
    return NULL;
  /* Measured on a scratch surface, then drawn on one of the box's size. */
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *measure = cairo_create (scratch);
  PangoLayout *layout = legend_layout (measure);
  double line_height = 0, text_width = 0;
  for (guint k = 0; k < legend->len; k++)
    {
      pango_layout_set_text (layout, g_array_index (legend, CwbLegendEntry, k).text, -1);
      int w, h;
      pango_layout_get_pixel_size (layout, &w, &h);
      line_height = MAX (line_height, h);
      text_width = MAX (text_width, w);
    }
  g_object_unref (layout);
  cairo_destroy (measure);
  cairo_surface_destroy (scratch);
  int box_w = (int) ceil (2 * LEGEND_PADDING + SWATCH_WIDTH + 6 + text_width);
  int box_h = (int) ceil (2 * LEGEND_PADDING + legend->len * (line_height + LINE_GAP) - LINE_GAP);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, box_w, box_h);
  cairo_t *cr = cairo_create (image);
  layout = legend_layout (cr);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.82);
  cairo_paint (cr);
  for (guint k = 0; k < legend->len; k++)
    {
      const CwbLegendEntry *e = &g_array_index (legend, CwbLegendEntry, k);
      double y = LEGEND_PADDING + k * (line_height + LINE_GAP);
      draw_swatch (cr, e, LEGEND_PADDING, y + (line_height - SWATCH_HEIGHT) / 2);
      cairo_set_source_rgb (cr, 0.12, 0.12, 0.14);
      cairo_move_to (cr, LEGEND_PADDING + SWATCH_WIDTH + 6, y);
      pango_layout_set_text (layout, e->text, -1);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_flush (image);
  return image;
}

gboolean
cwb_render_legend_equal (const GArray *a, const GArray *b)
{
  return a != NULL && b != NULL && a->len == b->len
         && (a->len == 0 || memcmp (a->data, b->data, a->len * sizeof (CwbLegendEntry)) == 0);
}

void
cwb_render_legend_place (int image_height, int height, double *x, double *y)
{
  *x = LEGEND_MARGIN;
  *y = height - LEGEND_MARGIN - image_height;
}

/* The legend at the frame's bottom-left corner. */
static void
draw_legend (cairo_t *cr, const GArray *legend, int width, int height)
{
  cairo_surface_t *image = cwb_render_legend_image (legend);
  if (image == NULL)
    return;
  double x, y;
  cwb_render_legend_place (cairo_image_surface_get_height (image), height, &x, &y);
  cairo_save (cr);
  cairo_rectangle (cr, x, y, MIN (cairo_image_surface_get_width (image), width - 2 * x),
                   cairo_image_surface_get_height (image));
  cairo_clip (cr);
  cairo_set_source_surface (cr, image, x, y);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (image);
}

/* Where a world point lands on the frame (pixels, top row 0); FALSE behind the eye. */
static gboolean
project (const float vp[16], const double p[3], int width, int height, double *x, double *y)
{
  double clip[4];
  for (int r = 0; r < 4; r++)
    clip[r] = vp[r] * p[0] + vp[4 + r] * p[1] + vp[8 + r] * p[2] + vp[12 + r];
  if (clip[3] <= 1e-9)
    return FALSE;
  *x = (clip[0] / clip[3] * 0.5 + 0.5) * width;
  *y = (1 - (clip[1] / clip[3] * 0.5 + 0.5)) * height;
  return *x >= 0 && *x <= width && *y >= 0 && *y <= height;
}

typedef struct LabelBox {
  double x0, y0, x1, y1;
} LabelBox;

/* Text with a light halo, centred on x, its bottom at y, so it reads over any colour; not
 * drawn where it would cover a label already drawn (`placed`, which it joins). */
static void
draw_label (cairo_t *cr, PangoLayout *layout, GArray *placed, const char *text,
            const float color[4], double x, double y)
{
  pango_layout_set_text (layout, text, -1);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  LabelBox box = { x - w / 2.0, y - h, x + w / 2.0, y };
  for (guint k = 0; k < placed->len; k++)
    {
      const LabelBox *other = &g_array_index (placed, LabelBox, k);
      if (box.x0 < other->x1 && other->x0 < box.x1 && box.y0 < other->y1 && other->y0 < box.y1)
        return;
    }
  g_array_append_val (placed, box);
  cairo_move_to (cr, box.x0, box.y0);
  pango_cairo_layout_path (cr, layout);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
  cairo_set_line_width (cr, 3);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
  cairo_move_to (cr, box.x0, box.y0);
  cairo_set_source_rgb (cr, color[0], color[1], color[2]);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_body_labels (cairo_t *cr, PangoLayout *layout, GArray *placed, const CwbSnapshot *snapshot,
                  const CwbOverlayOptions *o, const float vp[16], int width, int height)
{
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *body = &snapshot->bodies[b];
      double lo[3], hi[3], top[3], x, y;
      if (cwb_render_body_opacity (o, body->name) <= 0
          || !cwb_snapshot_body_bounds (body, lo, hi))
        continue;
      /* Above the middle of the body's box; a fixed body (often a large ground) at its
       * centre, where it is in view. */
      for (int k = 0; k < 3; k++)
        top[k] = 0.5 * (lo[k] + hi[k]);
      if (!body->fixed)
        top[2] = hi[2];
      if (!project (vp, top, width, height, &x, &y))
        continue;
      float color[4];
      cwb_render_body_color (b, body->fixed, color);
      /* The body's colour darkened, so the text keeps contrast on its halo. */
      for (int k = 0; k < 3; k++)
        color[k] *= 0.55f;
      draw_label (cr, layout, placed, body->name, color, x, y - 2);
    }
}

static int
larger_force_first (gconstpointer x, gconstpointer y, gpointer data)
{
  const GArray *frames = data;
  double a = g_array_index (frames, CwbContactFrame, *(const guint *) x).force[0];
  double b = g_array_index (frames, CwbContactFrame, *(const guint *) y).force[0];
  return (a < b) - (a > b);
}

static void
draw_contact_labels (cairo_t *cr, PangoLayout *layout, GArray *placed,
                     const CwbSnapshot *snapshot,
                     const float vp[16], int width, int height)
{
  GArray *frames = snapshot->frames;
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), frames->len);
  for (guint f = 0; f < frames->len; f++)
    g_array_append_val (order, f);
  g_array_sort_with_data (order, larger_force_first, frames);
  guint n = MIN (order->len, CWB_RENDER_MAX_CONTACT_LABELS);
  for (guint k = 0; k < n; k++)
    {
      guint f = g_array_index (order, guint, k);
      const CwbContactFrame *frame = &g_array_index (frames, CwbContactFrame, f);
      double x, y;
      if (!project (vp, frame->origin, width, height, &x, &y))
        continue;
      float color[4];
      cwb_render_state_color (frame->state, color);
      for (int c = 0; c < 3; c++)
        color[c] *= 0.6f;
      char text[48];
      g_snprintf (text, sizeof text, "#%u %.3g N", f, frame->force[0]);
      draw_label (cr, layout, placed, text, color, x, y - 4);
    }
}

void
cwb_render_annotate (cairo_t *cr, const CwbSnapshot *snapshot, const CwbCamera *camera,
                     const CwbOverlayOptions *options, const CwbOverlayGeometry *drawn,
                     int width, int height)
{
  cwb_render_labels (cr, snapshot, camera, options, width, height);
  g_autoptr (GArray) legend = cwb_render_legend (snapshot, options, drawn);
  draw_legend (cr, legend, width, height);
}

void
cwb_render_labels (cairo_t *cr, const CwbSnapshot *snapshot, const CwbCamera *camera,
                   const CwbOverlayOptions *options, int width, int height)
{
  if (options->body_labels || options->contact_labels)
    {
      float vp[16];
      double eye[3];
      cwb_render_camera_matrices (camera, (double) width / MAX (height, 1), vp, eye);
      PangoLayout *layout = pango_cairo_create_layout (cr);
      PangoFontDescription *font = pango_font_description_from_string (LABEL_FONT);
      pango_layout_set_font_description (layout, font);
      pango_font_description_free (font);
      g_autoptr (GArray) placed = g_array_new (FALSE, FALSE, sizeof (LabelBox));
      cairo_save (cr);
      if (options->body_labels)
        draw_body_labels (cr, layout, placed, snapshot, options, vp, width, height);
      if (options->contact_labels)
        draw_contact_labels (cr, layout, placed, snapshot, vp, width, height);
      cairo_restore (cr);
      g_object_unref (layout);
    }
}

void
cwb_render_annotate_rgba (guint8 *rgba, int width, int height, const CwbSnapshot *snapshot,
                          const CwbCamera *camera, const CwbOverlayOptions *options,
                          const CwbOverlayGeometry *drawn)
{
  if (!options->legend && !options->body_labels && !options->contact_labels)
    return;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  /* Cairo's RGB24 pixels are native-endian 0x00RRGGBB words. */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const guint8 *p = &rgba[4 * ((size_t) y * (size_t) width + (size_t) x)];
        guint32 word = ((guint32) p[0] << 16) | ((guint32) p[1] << 8) | p[2];
        memcpy (data + (size_t) y * (size_t) stride + 4 * (size_t) x, &word, 4);
      }
  cairo_surface_mark_dirty (surface);
  cairo_t *cr = cairo_create (surface);
  cwb_render_annotate (cr, snapshot, camera, options, drawn, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint32 word;
        memcpy (&word, data + (size_t) y * (size_t) stride + 4 * (size_t) x, 4);
        guint8 *p = &rgba[4 * ((size_t) y * (size_t) width + (size_t) x)];
        p[0] = (guint8) (word >> 16);
        p[1] = (guint8) (word >> 8);
        p[2] = (guint8) word;
        p[3] = 255;
      }
  cairo_surface_destroy (surface);
}
