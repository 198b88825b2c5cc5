/* Overlay geometry from inspection data (overlays.h). */
#include <math.h>
#include <string.h>

#include <cwb/cwb.h>

#include "overlays.h"
#include "particle_fields.h"

/* Cones and rims are drawn with this many segments: smooth at any zoom a user would use. */
#define CONE_SEGMENTS 24
/* An open contact carries no normal force; its cone is still shown, this tall (m), so the
 * admissible directions stay visible. */
#define OPEN_CONE_HEIGHT 0.02
/* Half side of the box marking the contact the user picked (m). */
#define PICKED_MARK_HALF 0.015
#define CONE_ALPHA 0.3f
/* The automatic force scale: a body's weight drawn at this fraction of a body's size, and
 * the reference gravity for that weight (m/s^2). */
#define AUTO_FORCE_LENGTH 0.5
#define REFERENCE_GRAVITY 9.81
#define FALLBACK_FORCE_SCALE 0.01
/* ... and no arrow or cone longer than this many median bodies (an impact's force is many
 * times the weight: drawn at the same scale, it would reach past the scene). */
#define AUTO_LONGEST 1.5
/* The element overlay: each tetrahedron drawn shrunk to this fraction about its centroid, so
 * that neighbours' colours do not overlap; the automatic scale's floors (0.1 % strain, one
 * degree), below which a colour would show round-off. */
#define ELEMENT_SHRINK 0.75
#define ELEMENT_FACE_ALPHA 0.55f
#define MIN_AUTO_STRAIN 1e-3
#define MIN_AUTO_ROTATION (G_PI / 180)

/* The largest particle_scale a view accepts: 1e9 Pa is ten thousand atmospheres, past any
 * fluid's pressure a scene would hold (and past any speed or density error). */
#define PARTICLE_SCALE_MAX 1e9

/* X-ray's default opacity: faces still read as shapes, and a line behind two of them (the
 * near and far side of a body) keeps half its contrast. */
#define DEFAULT_XRAY_OPACITY 0.3

void
cwb_render_overlay_options_default (CwbOverlayOptions *options)
{
  *options = (CwbOverlayOptions){
    .grid = TRUE, .contacts = TRUE, .cones = TRUE,
    .force_scale = 0, .vector_scale = 1, .xray_opacity = DEFAULT_XRAY_OPACITY,
    .legend = TRUE,
  };
}

const char *const cwb_render_section_names[CWB_RENDER_SECTION_COUNT] = {
  "none", "x", "y", "z", "view",
};

static gboolean
named (const char *const *list, const char *name)
{
  for (; list != NULL && *list != NULL; list++)
    if (strcmp (*list, name) == 0)
      return TRUE;
  return FALSE;
}

double
cwb_render_body_opacity (const CwbOverlayOptions *options, const char *name)
{
  const char *const *isolated = options->isolated_bodies;
  if (named (options->hidden_bodies, name)
      || (isolated != NULL && *isolated != NULL && !named (isolated, name)))
    return 0;
  if (options->xray || named (options->translucent_bodies, name))
    return CLAMP (options->xray_opacity, 0, 1);
  return 1;
}

gboolean
cwb_render_body_names_check (const CwbOverlayOptions *options, const CwbSnapshot *snapshot,
                             GError **error)
{
  const char *const *lists[3] = { options->hidden_bodies, options->translucent_bodies,
                                  options->isolated_bodies };
  for (int l = 0; l < 3; l++)
    for (const char *const *name = lists[l]; name != NULL && *name != NULL; name++)
      {
        gboolean found = FALSE;
        for (size_t b = 0; b < snapshot->n_bodies && !found; b++)
          found = strcmp (snapshot->bodies[b].name, *name) == 0;
        if (!found)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "no body is named '%s'", *name);
            return FALSE;
          }
      }
  return TRUE;
}

static gboolean
parse_number (const char *key, const char *value, double lo, double hi, double *out,
              GError **error)
{
  char *end = NULL;
  double number = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || !isfinite (number) || number < lo || number > hi)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: expected a number from %g to %g, got '%s'", key, lo, hi, value);
      return FALSE;
    }
  *out = number;
  return TRUE;
}

static gboolean
parse_name (const char *key, const char *value, const char *const *names, int n, int *out,
            GError **error)
{
  for (int k = 0; k < n; k++)
    if (strcmp (value, names[k]) == 0)
      {
        *out = k;
        return TRUE;
      }
  g_autofree char *expected = g_strjoinv (", ", (char **) names);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "%s: expected one of %s, got '%s'", key, expected, value);
  return FALSE;
}

gboolean
cwb_render_view_set (CwbOverlayOptions *o, const char *key, const char *value, GError **error)
{
  static const char *const booleans[] = { "false", "true", NULL };
  static const char *const fields[] = { "strain", "volume", "rotation", NULL };
  static const char *const particle_fields[] = { "density", "pressure", "speed", NULL };
  static const char *const particle_styles[] = { "particles", "surface", NULL };
  static const char *const sections[] = { "none", "x", "y", "z", "view", NULL };
  double number;
  int choice;
  if (strcmp (key, "force_scale") == 0)
    {
      if (!parse_number (key, value, 0, 10, &number, error))
        return FALSE;
      o->force_scale = number;
    }
  else if (strcmp (key, "vector_scale") == 0)
    {
      if (!parse_number (key, value, 1e-6, 1e6, &number, error))
        return FALSE;
      o->vector_scale = number;
    }
  else if (strcmp (key, "element_field") == 0)
    {
      if (!parse_name (key, value, fields, CWB_RENDER_ELEMENT_FIELD_COUNT, &choice, error))
        return FALSE;
      o->element_field = (CwbElementField) choice;
    }
  else if (strcmp (key, "element_scale") == 0)
    {
      if (!parse_number (key, value, 0, 10, &number, error))
        return FALSE;
      o->element_scale = number;
    }
  else if (strcmp (key, "particle_field") == 0)
    {
      if (!parse_name (key, value, particle_fields, CWB_RENDER_PARTICLE_FIELD_COUNT, &choice,
                       error))
        return FALSE;
      o->particle_field = (CwbParticleField) choice;
    }
  else if (strcmp (key, "particle_scale") == 0)
    {
      if (!parse_number (key, value, 0, PARTICLE_SCALE_MAX, &number, error))
        return FALSE;
      o->particle_scale = number;
    }
  else if (strcmp (key, "particle_style") == 0)
    {
      if (!parse_name (key, value, particle_styles, CWB_RENDER_PARTICLE_STYLE_COUNT, &choice,
                       error))
        return FALSE;
      o->particle_style = (CwbParticleStyle) choice;
    }
  else if (strcmp (key, "xray") == 0)
    {
      if (!parse_name (key, value, booleans, 2, &choice, error))
        return FALSE;
      o->xray = choice == 1;
    }
  else if (strcmp (key, "legend") == 0 || strcmp (key, "labels") == 0
           || strcmp (key, "contact_labels") == 0)
    {
      if (!parse_name (key, value, booleans, 2, &choice, error))
        return FALSE;
      *(strcmp (key, "legend") == 0   ? &o->legend
        : strcmp (key, "labels") == 0 ? &o->body_labels
                                      : &o->contact_labels) = choice == 1;
    }
  else if (strcmp (key, "xray_opacity") == 0)
    {
      if (!parse_number (key, value, 0.02, 1, &number, error))
        return FALSE;
      o->xray_opacity = number;
    }
  else if (strcmp (key, "section") == 0)
    {
      if (!parse_name (key, value, sections, CWB_RENDER_SECTION_COUNT, &choice, error))
        return FALSE;
      o->section = (CwbSectionAxis) choice;
    }
  else if (strcmp (key, "section_offset") == 0)
    {
      if (!parse_number (key, value, -1e6, 1e6, &number, error))
        return FALSE;
      o->section_offset = number;
    }
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown view setting '%s' (expected force_scale, vector_scale, "
                   "element_field, element_scale, particle_field, particle_scale, "
                   "particle_style, xray, xray_opacity, section, section_offset, legend, labels "
                   "or contact_labels)", key);
      return FALSE;
    }
  return TRUE;
}

double
cwb_render_overlay_force_scale (const CwbSnapshot *snapshot, const CwbOverlayOptions *options)
{
  if (options->force_scale > 0)
    return options->force_scale;
  double heaviest = 0;
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    {
      const CwbSnapshotBody *b = &snapshot->bodies[i];
      if (!b->fixed && b->n_points > 0 && isfinite (b->summary.mass))
        heaviest = MAX (heaviest, b->summary.mass);
    }
  double size = cwb_snapshot_median_moving_size (snapshot);
  if (!(size > 0) || !(heaviest > 0))
    return FALLBACK_FORCE_SCALE;
  return AUTO_FORCE_LENGTH * size / (heaviest * REFERENCE_GRAVITY);
}

const char *const cwb_render_overlay_names[CWB_RENDER_OVERLAY_COUNT] = {
  "grid", "contacts", "cones", "depth", "gradients", "spans", "cells", "voxels", "wireframe",
  "aabbs", "elements",
};

gboolean *
cwb_render_overlay_flag (CwbOverlayOptions *o, const char *name)
{
  gboolean *flags[CWB_RENDER_OVERLAY_COUNT] = {
    &o->grid, &o->contacts, &o->cones, &o->depth_vectors, &o->gradients, &o->spans,
    &o->cells, &o->voxels, &o->wireframe, &o->aabbs, &o->elements,
  };
  for (size_t k = 0; k < CWB_RENDER_OVERLAY_COUNT; k++)
    if (strcmp (name, cwb_render_overlay_names[k]) == 0)
      return flags[k];
  return NULL;
}

gboolean
cwb_render_overlay_parse (CwbOverlayOptions *options, const char *list, GError **error)
{
  CwbOverlayOptions parsed = *options;
  for (size_t k = 0; k < CWB_RENDER_OVERLAY_COUNT; k++)
    *cwb_render_overlay_flag (&parsed, cwb_render_overlay_names[k]) = strcmp (list, "all") == 0;
  g_auto (GStrv) names = g_strsplit (list, ",", -1);
  for (char **name = names; *name != NULL; name++)
    {
      g_strstrip (*name);
      if (**name == '\0' || strcmp (*name, "all") == 0 || strcmp (*name, "none") == 0)
        continue;
      gboolean *flag = cwb_render_overlay_flag (&parsed, *name);
      if (flag == NULL)
        {
          g_autoptr (GString) known = g_string_new (NULL);
          for (size_t k = 0; k < CWB_RENDER_OVERLAY_COUNT; k++)
            g_string_append_printf (known, "%s, ", cwb_render_overlay_names[k]);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "unknown overlay '%s' (expected a comma-separated list of: %sall or "
                       "none)", *name, known->str);
          return FALSE;
        }
      *flag = TRUE;
    }
  *options = parsed;
  return TRUE;
}

void
cwb_render_overlay_options_all (CwbOverlayOptions *options)
{
  cwb_render_overlay_options_default (options);
  options->depth_vectors = options->gradients = options->spans = options->cells = TRUE;
  options->voxels = options->wireframe = options->aabbs = options->elements = TRUE;
}

void
cwb_render_state_color (CwbContactState state, float rgba[4])
{
  static const float colors[3][4] = {
    { 0.55f, 0.55f, 0.55f, 1 },   /* open */
    { 0.15f, 0.75f, 0.30f, 1 },   /* stick */
    { 0.90f, 0.25f, 0.20f, 1 },   /* slip */
  };
  memcpy (rgba, colors[state <= CWB_CONTACT_SLIP ? state : 0], 4 * sizeof (float));
}

void
cwb_render_overlay_init (CwbOverlayGeometry *geometry)
{
  memset (geometry, 0, sizeof *geometry);
  geometry->lines = g_array_new (FALSE, FALSE, sizeof (CwbOverlayVertex));
  geometry->triangles = g_array_new (FALSE, FALSE, sizeof (CwbOverlayVertex));
}

void
cwb_render_overlay_destroy (CwbOverlayGeometry *geometry)
{
  g_clear_pointer (&geometry->lines, g_array_unref);
  g_clear_pointer (&geometry->triangles, g_array_unref);
}

static void
vertex (GArray *to, const double p[3], const float rgba[4])
{
  CwbOverlayVertex v = { { (float) p[0], (float) p[1], (float) p[2] },
                         { rgba[0], rgba[1], rgba[2], rgba[3] } };
  g_array_append_val (to, v);
}

static void
segment (CwbOverlayGeometry *g, const double a[3], const double b[3], const float rgba[4])
{
  vertex (g->lines, a, rgba);
  vertex (g->lines, b, rgba);
}

/* An arrow from `from` along `vector`, with a small head. */
static void
arrow (CwbOverlayGeometry *g, const double from[3], const double vector[3], const float rgba[4])
{
  double to[3], length = cwb_v3_norm (vector);
  cwb_v3_add (to, from, vector);
  segment (g, from, to, rgba);
  if (length == 0)
    return;
  double dir[3], side[3], other[3];
  cwb_v3_scale (dir, vector, 1 / length);
  cwb_v3_tangents (dir, side, other);
  for (int k = 0; k < 2; k++)
    {
      double head[3];
      cwb_v3_copy (head, to);
      cwb_v3_axpy (head, -0.2 * length, dir);
      cwb_v3_axpy (head, (k == 0 ? 0.08 : -0.08) * length, side);
      segment (g, to, head, rgba);
    }
}

static void
box_edges (CwbOverlayGeometry *g, const double lo[3], const double hi[3], const float rgba[4])
{
  for (int axis = 0; axis < 3; axis++)
    for (int k = 0; k < 4; k++)
      {
        double a[3], b[3];
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        a[axis] = lo[axis];
        b[axis] = hi[axis];
        a[u] = b[u] = (k & 1) ? hi[u] : lo[u];
        a[v] = b[v] = (k & 2) ? hi[v] : lo[v];
        segment (g, a, b, rgba);
      }
}

/* The friction cone of a frame: apex at the contact, axis along the normal, half-angle
 * atan(mu), as tall as the normal force (scaled): the tangential force lies inside it when
 * the contact sticks and on its surface when it slips. For the pyramid of Allard 2010
 * eq. 9-10 (|f_t1| + |f_t2| <= mu f_n, cwb/coulomb.h) the rim is the square through
 * +-mu h t1 and +-mu h t2: the same loop with 4 segments. */
static void
cone (CwbOverlayGeometry *g, const CwbContactFrame *frame, CwbFrictionLaw law, double height)
{
  float rgba[4];
  cwb_render_state_color (frame->state, rgba);
  float fill[4] = { rgba[0], rgba[1], rgba[2], CONE_ALPHA };
  double radius = frame->mu * height;
  double centre[3], previous[3] = { 0, 0, 0 };
  cwb_v3_copy (centre, frame->origin);
  cwb_v3_axpy (centre, height, frame->normal);
  int segments = law == CWB_FRICTION_PYRAMID ? 4 : CONE_SEGMENTS;
  for (int k = 0; k <= segments; k++)
    {
      double angle = 2 * G_PI * k / segments, rim[3];
      cwb_v3_copy (rim, centre);
      cwb_v3_axpy (rim, radius * cos (angle), frame->t1);
      cwb_v3_axpy (rim, radius * sin (angle), frame->t2);
      if (k > 0)
        {
          vertex (g->triangles, frame->origin, fill);
          vertex (g->triangles, previous, fill);
          vertex (g->triangles, rim, fill);
          segment (g, previous, rim, rgba);
        }
      cwb_v3_copy (previous, rim);
    }
  g->n_cones++;
}

/* An arrow or cone cut to `longest` (m): an impact's force drawn at the resting scale would
 * reach far past the scene. A cut arrow ends in a bar across its tip. */
static void
clipped_arrow (CwbOverlayGeometry *g, const double from[3], const double vector[3],
               double longest, const float rgba[4])
{
  double length = cwb_v3_norm (vector);
  if (!(length > longest))
    {
      arrow (g, from, vector, rgba);
      return;
    }
  double cut[3], tip[3], dir[3], side[3], other[3];
  cwb_v3_scale (cut, vector, longest / length);
  arrow (g, from, cut, rgba);
  cwb_v3_add (tip, from, cut);
  cwb_v3_scale (dir, vector, 1 / length);
  cwb_v3_tangents (dir, side, other);
  double a[3], b[3];
  cwb_v3_copy (a, tip);
  cwb_v3_copy (b, tip);
  cwb_v3_axpy (a, 0.15 * longest, side);
  cwb_v3_axpy (b, -0.15 * longest, side);
  segment (g, a, b, rgba);
  g->n_clipped++;
}

static void
add_contacts (CwbOverlayGeometry *g, const GArray *frames, CwbFrictionLaw law,
              const CwbOverlayOptions *o, double force_scale, double longest)
{
  for (guint f = 0; f < frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (frames, CwbContactFrame, f);
      if (o->cones)
        {
          double height = frame->force[0] > 0 ? force_scale * frame->force[0] : OPEN_CONE_HEIGHT;
          if (height > longest)
            {
              height = longest;
              g->n_clipped++;
            }
          cone (g, frame, law, height);
        }
      if (o->contacts)
        {
          float rgba[4];
          cwb_render_state_color (frame->state, rgba);
          double force[3] = { 0, 0, 0 };
          cwb_v3_axpy (force, frame->force[0], frame->normal);
          cwb_v3_axpy (force, frame->force[1], frame->t1);
          cwb_v3_axpy (force, frame->force[2], frame->t2);
          cwb_v3_scale (force, force, force_scale);
          clipped_arrow (g, frame->origin, force, longest, rgba);
          g->n_force_arrows++;
        }
      if (o->highlight_contact && o->picked_contact == f)
        {
          /* A box around the picked contact, so the inspector's numbers have a place. */
          static const float picked[4] = { 1.0f, 0.75f, 0.0f, 1 };
          double lo[3], hi[3];
          for (int i = 0; i < 3; i++)
            {
              lo[i] = frame->origin[i] - PICKED_MARK_HALF;
              hi[i] = frame->origin[i] + PICKED_MARK_HALF;
            }
          box_edges (g, lo, hi, picked);
        }
    }
}

static void
add_inspection (CwbOverlayGeometry *g, const CwbInspection *in, const CwbOverlayOptions *o)
{
  static const float depth_color[4] = { 0.85f, 0.2f, 0.85f, 1 };
  static const float gradient_color[4] = { 1.0f, 0.6f, 0.1f, 1 };
  static const float span_color[4] = { 0.2f, 0.5f, 1.0f, 1 };
  static const float cell_color[4] = { 1.0f, 0.85f, 0.2f, 1 };
  static const float root_cell_color[4] = { 0.55f, 0.6f, 0.7f, 1 };
  for (guint k = 0; k < in->vectors->len; k++)
    {
      const CwbInspectVector *v = &g_array_index (in->vectors, CwbInspectVector, k);
      gboolean depth = v->kind == CWB_VECTOR_DEPTH;
      gboolean gradient = v->kind == CWB_VECTOR_VOLUME_GRADIENT
                          || v->kind == CWB_VECTOR_DENSITY_GRADIENT;
      if ((depth && !o->depth_vectors) || (gradient && !o->gradients) || (!depth && !gradient))
        continue;
      double scaled[3];
      cwb_v3_scale (scaled, v->vector, o->vector_scale);
      arrow (g, v->origin, scaled, depth ? depth_color : gradient_color);
      g->n_vectors++;
    }
  for (guint k = 0; o->spans && k < in->spans->len; k++)
    {
      const CwbInspectSpan *s = &g_array_index (in->spans, CwbInspectSpan, k);
      double end[3];
      cwb_v3_copy (end, s->start);
      end[s->axis % 3] += s->length;
      segment (g, s->start, end, span_color);
      g->n_spans++;
    }
  for (guint k = 0; o->cells && k < in->cells->len; k++)
    {
      const CwbInspectCell *c = &g_array_index (in->cells, CwbInspectCell, k);
      /* A coarse cell one body alone is in (inspection.h). */
      gboolean alone = c->body_b == CWB_NO_BODY;
      box_edges (g, c->min, c->max, alone ? root_cell_color : cell_color);
      if (alone)
        g->n_root_cells++;
      else
        g->n_cells++;
    }
  for (guint k = 0; o->voxels && k < in->voxels->len; k++)
    {
      const CwbInspectVoxel *v = &g_array_index (in->voxels, CwbInspectVoxel, k);
      double lo[3], hi[3];
      for (int i = 0; i < 3; i++)
        {
          lo[i] = v->center[i] - 0.5 * v->size[i];
          hi[i] = v->center[i] + 0.5 * v->size[i];
        }
      float value = (float) CLAMP (v->value, 0, 1);
      float rgba[4] = { value, 0.3f, 1 - value, 1 };
      box_edges (g, lo, hi, rgba);
      g->n_voxels++;
    }
}

static void
add_bodies (CwbOverlayGeometry *g, const CwbSnapshot *snapshot, const CwbOverlayOptions *o)
{
  static const float wire_color[4] = { 0.1f, 0.1f, 0.1f, 1 };
  static const float selected_color[4] = { 1.0f, 0.75f, 0.0f, 1 };
  static const float box_color[4] = { 0.3f, 0.8f, 0.9f, 1 };
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *geom = &snapshot->bodies[b];
      if (cwb_render_body_opacity (o, geom->name) <= 0)
        continue;
      gboolean selected = o->highlight_body && o->selected_body == b;
      const uint32_t *triangles = geom->triangles != NULL
                                    ? g_bytes_get_data (geom->triangles, NULL) : NULL;
      if ((o->wireframe || selected) && triangles != NULL)
        for (size_t t = 0; t < geom->n_triangles; t++)
          for (int e = 0; e < 3; e++)
            segment (g, &geom->positions[3 * triangles[3 * t + e]],
                     &geom->positions[3 * triangles[3 * t + (e + 1) % 3]],
                     selected ? selected_color : wire_color);
      double lo[3], hi[3];
      if (o->aabbs && cwb_snapshot_body_bounds (geom, lo, hi))
        {
          box_edges (g, lo, hi, box_color);
          g->n_aabbs++;
        }
    }
}

const char *const cwb_render_element_field_names[CWB_RENDER_ELEMENT_FIELD_COUNT] = {
  "strain", "volume", "rotation",
};

double
cwb_render_element_value (CwbElementField field, const CwbSnapshotBody *body, size_t e)
{
  if (field == CWB_ELEMENT_ROTATION)
    return body->element_rotation[e];
  const double *strain = &body->element_strain[6 * e];
  double trace = strain[0] + strain[1] + strain[2];
  if (field == CWB_ELEMENT_VOLUME)
    return trace;
  /* dev e : dev e, the off-diagonal terms counted twice. */
  double deviatoric = 0;
  for (int k = 0; k < 3; k++)
    deviatoric += (strain[k] - trace / 3) * (strain[k] - trace / 3)
                  + 2 * strain[3 + k] * strain[3 + k];
  return sqrt (2.0 / 3.0 * deviatoric);
}

double
cwb_render_element_scale (const CwbSnapshot *snapshot, const CwbOverlayOptions *options)
{
  if (options->element_scale > 0)
    return options->element_scale;
  double largest = options->element_field == CWB_ELEMENT_ROTATION ? MIN_AUTO_ROTATION
                                                                  : MIN_AUTO_STRAIN;
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    {
      const CwbSnapshotBody *b = &snapshot->bodies[i];
      for (size_t e = 0; b->tetrahedra != NULL && e < b->n_tetrahedra; e++)
        {
          double value = cwb_render_element_value (options->element_field, b, e);
          if (isfinite (value))
            largest = MAX (largest, fabs (value));
        }
    }
  return largest;
}

void
cwb_render_element_color (CwbElementField field, double value, double scale, float rgba[4])
{
  double t = scale > 0 && isfinite (value) ? CLAMP (value / scale, -1.0, 1.0) : 0;
  static const float white[3] = { 0.97f, 0.97f, 0.97f };
  static const float red[3] = { 0.80f, 0.10f, 0.10f }, blue[3] = { 0.10f, 0.30f, 0.85f };
  static const float purple[3] = { 0.50f, 0.10f, 0.65f };
  const float *end = field == CWB_ELEMENT_ROTATION ? purple : (t < 0 ? blue : red);
  float w = (float) fabs (t);
  for (int k = 0; k < 3; k++)
    rgba[k] = (1 - w) * white[k] + w * end[k];
  rgba[3] = 1;
}

/* Each tetrahedron of the deformable bodies, shrunk about its centroid: its edges and
 * translucent faces in the colour of its strain or rotation. */
static void
add_elements (CwbOverlayGeometry *g, const CwbSnapshot *snapshot, const CwbOverlayOptions *o)
{
  static const int faces[4][3] = { { 1, 2, 3 }, { 0, 3, 2 }, { 0, 1, 3 }, { 0, 2, 1 } };
  g->element_scale = cwb_render_element_scale (snapshot, o);
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *body = &snapshot->bodies[b];
      if (body->tetrahedra == NULL || cwb_render_body_opacity (o, body->name) <= 0)
        continue;
      const uint32_t *tets = g_bytes_get_data (body->tetrahedra, NULL);
      for (size_t e = 0; e < body->n_tetrahedra; e++)
        {
          double corner[4][3], centroid[3] = { 0, 0, 0 };
          for (int k = 0; k < 4; k++)
            cwb_v3_axpy (centroid, 0.25, &body->nodes[3 * tets[4 * e + k]]);
          for (int k = 0; k < 4; k++)
            {
              double arm[3];
              cwb_v3_sub (arm, &body->nodes[3 * tets[4 * e + k]], centroid);
              cwb_v3_copy (corner[k], centroid);
              cwb_v3_axpy (corner[k], ELEMENT_SHRINK, arm);
            }
          float rgba[4];
          cwb_render_element_color (o->element_field,
                                    cwb_render_element_value (o->element_field, body, e),
                                    g->element_scale, rgba);
          float fill[4] = { rgba[0], rgba[1], rgba[2], ELEMENT_FACE_ALPHA };
          for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
              segment (g, corner[i], corner[j], rgba);
          for (int f = 0; f < 4; f++)
            for (int k = 0; k < 3; k++)
              vertex (g->triangles, corner[faces[f][k]], fill);
          g->n_elements++;
        }
    }
}

/* The dragged body's edges at the pose the drag gives it: p -> pivot + R (p - pivot) + t. */
static void
add_ghost (CwbOverlayGeometry *g, const CwbSnapshot *snapshot, const CwbOverlayOptions *o)
{
  static const float color[4] = { 0.95f, 0.2f, 0.6f, 1 };
  if (o->ghost_body >= snapshot->n_bodies)
    return;
  const CwbSnapshotBody *body = &snapshot->bodies[o->ghost_body];
  if (body->triangles == NULL)
    return;
  const uint32_t *triangles = g_bytes_get_data (body->triangles, NULL);
  double q[4];
  cwb_quat_from_rotvec (q, o->ghost_rotation);
  g_autofree double *moved = g_new (double, 3 * body->n_points);
  for (size_t p = 0; p < body->n_points; p++)
    {
      double arm[3];
      cwb_v3_sub (arm, &body->positions[3 * p], o->ghost_pivot);
      cwb_quat_rotate (&moved[3 * p], q, arm);
      cwb_v3_add (&moved[3 * p], &moved[3 * p], o->ghost_pivot);
      cwb_v3_add (&moved[3 * p], &moved[3 * p], o->ghost_translation);
    }
  for (size_t t = 0; t < body->n_triangles; t++)
    for (int e = 0; e < 3; e++)
      {
        segment (g, &moved[3 * triangles[3 * t + e]], &moved[3 * triangles[3 * t + (e + 1) % 3]],
                 color);
        g->n_ghost_edges++;
      }
}

/* A 10 m grid of 0.5 m squares at z = 0, under the ground's top face. */
static void
add_grid (CwbOverlayGeometry *g)
{
  static const float color[4] = { 0.45f, 0.45f, 0.5f, 1 };
  const double half = 5, step = 0.5, z = 0.0005;
  for (double x = -half; x <= half + 1e-9; x += step)
    {
      double a[3] = { x, -half, z }, b[3] = { x, half, z };
      segment (g, a, b, color);
      double c[3] = { -half, x, z }, d[3] = { half, x, z };
      segment (g, c, d, color);
    }
}

/* The mouse spring: a line from the grabbed point to its target, with a small cross there. */
static void
add_grab (CwbOverlayGeometry *g, const CwbOverlayOptions *o)
{
  static const float color[4] = { 0.95f, 0.2f, 0.6f, 1 };
  segment (g, o->grab_point, o->grab_target, color);
  for (int axis = 0; axis < 3; axis++)
    {
      double a[3], b[3];
      cwb_v3_copy (a, o->grab_target);
      cwb_v3_copy (b, o->grab_target);
      a[axis] -= 0.02;
      b[axis] += 0.02;
      segment (g, a, b, color);
    }
}

double
cwb_render_overlay_line_length (const CwbOverlayGeometry *g)
{
  double sum = 0;
  for (guint k = 0; k + 1 < g->lines->len; k += 2)
    {
      const CwbOverlayVertex *a = &g_array_index (g->lines, CwbOverlayVertex, k);
      double d[3] = { a[1].position[0] - a->position[0], a[1].position[1] - a->position[1],
                      a[1].position[2] - a->position[2] };
      sum += cwb_v3_norm (d);
    }
  return sum;
}

void
cwb_render_overlay_build (CwbOverlayGeometry *geometry, const CwbSnapshot *snapshot,
                          const CwbOverlayOptions *options)
{
  g_array_set_size (geometry->lines, 0);
  g_array_set_size (geometry->triangles, 0);
  geometry->n_force_arrows = geometry->n_cones = geometry->n_vectors = 0;
  geometry->n_spans = geometry->n_cells = geometry->n_voxels = geometry->n_aabbs = 0;
  geometry->n_ghost_edges = geometry->n_elements = geometry->n_clipped = 0;
  geometry->n_root_cells = 0;
  geometry->element_scale = geometry->particle_scale = 0;
  geometry->n_particles = 0;
  geometry->force_scale = cwb_render_overlay_force_scale (snapshot, options);
  if (options->grid)
    add_grid (geometry);
  /* With the automatic scale, no arrow or cone longer than AUTO_LONGEST bodies. */
  double size = cwb_snapshot_median_moving_size (snapshot);
  double longest = options->force_scale > 0 || !(size > 0) ? INFINITY : AUTO_LONGEST * size;
  add_contacts (geometry, snapshot->frames, snapshot->friction_law, options,
                geometry->force_scale, longest);
  if (options->elements)
    {
      add_elements (geometry, snapshot, options);
      /* The particles are bodies, coloured where the renderer draws them (renderer.c). */
      geometry->particle_scale = cwb_render_particle_scale (snapshot, options);
      geometry->n_particles = cwb_render_particles_colored (snapshot, options);
    }
  add_inspection (geometry, &snapshot->inspection, options);
  add_bodies (geometry, snapshot, options);
  if (options->grab)
    add_grab (geometry, options);
  if (options->ghost)
    add_ghost (geometry, snapshot, options);
}
