/* The viewport (viewport.h). */
#include <math.h>

#include <epoxy/gl.h>

#include <cwb/vecmath.h>

#include "annotations.h"
#include "picking.h"
#include "recorder.h"
#include "renderer.h"
#include "viewport.h"

/* The mouse spring's default natural frequency (for the grabbed body's whole mass) and its
 * damping ratio: firm enough to lift a body within a fraction of a second. The body model
 * integrates the spring implicitly (cwb_world_grab_free_motion), so any frequency is stable,
 * also on a light point of a deformable body. */
#define GRAB_DEFAULT_FREQUENCY_HZ 3.0
#define GRAB_DAMPING_RATIO 0.7
/* A click picks a contact whose point lies within this angle of the cursor's ray. */
#define PICK_CONTACT_ANGLE 0.012
/* Radians of orbit per pixel of drag, and zoom per wheel notch. */
#define ORBIT_PER_PIXEL 0.008
#define ZOOM_PER_NOTCH 1.12
/* The renderer's clear colour in 8 bits (renderer.c clears to 0.93, 0.94, 0.96). */
static const int background_rgb[3] = { 237, 240, 245 };

typedef enum DragMode {
  DRAG_NONE, DRAG_ORBIT, DRAG_PAN, DRAG_GRAB, DRAG_MOVE, DRAG_ROTATE
} DragMode;

struct _CwbAppViewport {
  GtkGLArea parent;
  CwbRenderer *renderer;
  char *error;
  char *gl_renderer;             /* GL_RENDERER of the context, for benchmark reports */
  CwbSimulation *simulation;     /* borrowed */
  guint64 revision;
  CwbSnapshot *snapshot;
  CwbCamera camera;
  gboolean framed;               /* the camera was framed on the first snapshot */
  CwbOverlayOptions overlays;
  /* Body looks by name (NULL-terminated, NULL when empty): drawn through the overlays'
   * hidden_bodies, translucent_bodies and isolated_bodies. */
  GStrv hidden, translucent;
  char *isolated;
  gboolean showing_stage;        /* snapshot is a stage's (cwb_app_viewport_show_stage) */
  GArray *legend_shown;          /* CwbLegendEntry: what legend_texture shows */
  GdkTexture *legend_texture;    /* redrawn only when the legend changes */

  DragMode drag;
  double drag_last_x, drag_last_y;
  CwbGrab grab;
  double grab_frequency;         /* Hz, the mouse spring's (cwb_app_viewport_set_grab_frequency) */
  double drag_anchor[3];         /* where the drag started on the body */
  double drag_pivot[3];          /* rotating: the body's centre of mass */
  double move_delta[3];          /* moving: the translation so far */
  double move_rotation[3];       /* rotating: the rotation vector so far, about drag_pivot */

  guint64 frames;
  double last_frame_ms;
  gboolean probe;
  gint64 probed_pixels;
  gboolean bench;
  gint64 input_us, last_frame_us;
  GArray *timings;               /* CwbAppViewportTiming */
  CwbAppRecorder *recorder;      /* Record: NULL when not recording */
};

G_DEFINE_FINAL_TYPE (CwbAppViewport, cwb_app_viewport, GTK_TYPE_GL_AREA)

enum { SIGNAL_PICKED, SIGNAL_BODY_MOVED, SIGNAL_FRAME_DRAWN, N_SIGNALS };
static guint signals[N_SIGNALS];

static double
aspect (CwbAppViewport *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  return (double) MAX (w, 1) / MAX (h, 1);
}

/* Widget coordinates to normalized device coordinates (y up). */
static void
to_ndc (CwbAppViewport *self, double x, double y, double *nx, double *ny)
{
  int w = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 1);
  int h = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 1);
  *nx = 2 * x / w - 1;
  *ny = 1 - 2 * y / h;
}

static void
ray_at (CwbAppViewport *self, double x, double y, double origin[3], double direction[3])
{
  double nx, ny;
  to_ndc (self, x, y, &nx, &ny);
  cwb_render_camera_ray (&self->camera, aspect (self), nx, ny, origin, direction);
}

/* ---- GL ------------------------------------------------------------------------------ */

static void
viewport_realize (GtkWidget *widget)
{
  CwbAppViewport *self = CWB_APP_VIEWPORT (widget);
  GTK_WIDGET_CLASS (cwb_app_viewport_parent_class)->realize (widget);
  gtk_gl_area_make_current (GTK_GL_AREA (widget));
  GError *gl_error = gtk_gl_area_get_error (GTK_GL_AREA (widget));
  if (gl_error != NULL)
    {
      self->error = g_strdup (gl_error->message);
      g_warning ("viewport: %s", self->error);
      return;
    }
  g_free (self->gl_renderer);
  self->gl_renderer = g_strdup ((const char *) glGetString (GL_RENDERER));
  g_autoptr (GError) error = NULL;
  self->renderer = cwb_render_renderer_new (&error);
  if (self->renderer == NULL)
    {
      self->error = g_strdup (error->message);
      g_warning ("viewport: %s", self->error);
    }
}

static void
viewport_unrealize (GtkWidget *widget)
{
  CwbAppViewport *self = CWB_APP_VIEWPORT (widget);
  gtk_gl_area_make_current (GTK_GL_AREA (widget));
  g_clear_pointer (&self->renderer, cwb_render_renderer_free);
  GTK_WIDGET_CLASS (cwb_app_viewport_parent_class)->unrealize (widget);
}

/* Pixels of the bound framebuffer that differ from the background (the probe). */
static gint64
count_drawn (int width, int height)
{
  g_autofree guint8 *pixels = g_malloc ((size_t) width * (size_t) height * 4);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  gint64 drawn = 0;
  for (size_t k = 0; k < (size_t) width * (size_t) height; k++)
    drawn += abs (pixels[4 * k] - background_rgb[0]) + abs (pixels[4 * k + 1] - background_rgb[1])
               + abs (pixels[4 * k + 2] - background_rgb[2])
             > 30;
  return drawn;
}

/* Waits until the frame's drawing is done: reading one pixel back waits for it. (glFinish
 * would do, but with Mesa's llvmpipe under GLX it was seen to block for good inside a
 * GtkGLArea's render.) */
static void
wait_for_gl (void)
{
  guint8 pixel[4];
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
}

/* The grabbed point as it stands in the snapshot, for the spring's line. */
static gboolean
grab_point (CwbAppViewport *self, double p[3])
{
  if (self->snapshot == NULL || self->grab.body >= self->snapshot->n_bodies)
    return FALSE;
  const CwbSnapshotBody *b = &self->snapshot->bodies[self->grab.body];
  cwb_v3_set (p, 0, 0, 0);
  for (int k = 0; k < 3; k++)
    if (self->grab.points[k] < b->n_points)
      cwb_v3_axpy (p, self->grab.weights[k], &b->positions[3 * self->grab.points[k]]);
  return TRUE;
}

/* The options a frame is drawn with: the view's overlays and the body looks by name
 * (`isolated` holds the isolated body's list). */
static void
frame_options (CwbAppViewport *self, CwbOverlayOptions *options, const char *isolated[2])
{
  *options = self->overlays;
  isolated[0] = self->isolated;
  isolated[1] = NULL;
  options->hidden_bodies = (const char *const *) self->hidden;
  options->translucent_bodies = (const char *const *) self->translucent;
  options->isolated_bodies = self->isolated != NULL ? isolated : NULL;
}

static gboolean
viewport_render (GtkGLArea *area, GdkGLContext *context)
{
  CwbAppViewport *self = CWB_APP_VIEWPORT (area);
  if (self->renderer == NULL || self->snapshot == NULL)
    {
      glClearColor (0.93f, 0.94f, 0.96f, 1);
      glClear (GL_COLOR_BUFFER_BIT);
      return TRUE;
    }
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (area));
  int width = gtk_widget_get_width (GTK_WIDGET (area)) * scale;
  int height = gtk_widget_get_height (GTK_WIDGET (area)) * scale;
  gint64 start = g_get_monotonic_time ();
  CwbOverlayOptions options;
  const char *isolated[2];
  frame_options (self, &options, isolated);
  options.grab = self->drag == DRAG_GRAB && grab_point (self, options.grab_point);
  if (options.grab)
    cwb_v3_copy (options.grab_target, self->grab.target);
  if (self->drag == DRAG_MOVE || self->drag == DRAG_ROTATE)
    {
      /* Show where the body goes: its edges at the new pose, and a line from where the drag
       * started to the cursor. */
      options.ghost = TRUE;
      options.ghost_body = self->grab.body;
      cwb_v3_copy (options.ghost_pivot, self->drag_pivot);
      cwb_v3_copy (options.ghost_rotation, self->move_rotation);
      cwb_v3_copy (options.ghost_translation, self->move_delta);
      options.grab = self->drag == DRAG_MOVE;
      cwb_v3_copy (options.grab_point, self->drag_anchor);
      cwb_v3_add (options.grab_target, self->drag_anchor, self->move_delta);
    }
  cwb_render_frame (self->renderer, self->snapshot, &self->camera, &options, width, height);
  if (self->probe)
    self->probed_pixels = count_drawn (width, height);
  if (self->recorder != NULL
      && cwb_app_recorder_wants (self->recorder, self->snapshot->time))
    {
      /* The clip shows the legend and labels the view shows. */
      guint8 *pixels = cwb_render_read_pixels (width, height);
      cwb_render_annotate_rgba (pixels, width, height, self->snapshot, &self->camera, &options,
                                cwb_render_last_overlays (self->renderer));
      cwb_app_recorder_take (self->recorder, pixels, width, height, self->snapshot->time);
    }
  if (self->bench)
    {
      wait_for_gl ();
      gint64 end = g_get_monotonic_time ();
      CwbAppViewportTiming t = {
        .render_ms = (double) (end - start) * 1e-3,
        .latency_ms = self->input_us > 0 ? (double) (end - self->input_us) * 1e-3 : NAN,
        .interval_ms = self->last_frame_us > 0 ? (double) (end - self->last_frame_us) * 1e-3 : NAN,
      };
      self->last_frame_us = end;
      self->input_us = 0;
      g_array_append_val (self->timings, t);
    }
  self->last_frame_ms = (double) (g_get_monotonic_time () - start) * 1e-3;
  self->frames++;
  g_signal_emit (self, signals[SIGNAL_FRAME_DRAWN], 0);
  return TRUE;
}

/* ---- following the simulation -------------------------------------------------------- */

static void
take_snapshot (CwbAppViewport *self, CwbSnapshot *snapshot)
{
  g_clear_pointer (&self->snapshot, cwb_snapshot_unref);
  self->snapshot = snapshot;
  if (!self->framed && snapshot != NULL)
    {
      cwb_app_viewport_frame_all (self);
      self->framed = TRUE;
    }
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CwbAppViewport *self = CWB_APP_VIEWPORT (widget);
  if (self->bench && self->input_us == 0)
    {
      /* A synthetic orbit, as a user's drag would do. */
      self->input_us = g_get_monotonic_time ();
      cwb_render_camera_orbit (&self->camera, 0.01, 0);
      gtk_gl_area_queue_render (GTK_GL_AREA (self));
    }
  if (self->probe)
    gtk_gl_area_queue_render (GTK_GL_AREA (self));   /* probing draws every tick */
  if (self->simulation == NULL)
    return G_SOURCE_CONTINUE;
  guint64 revision = cwb_simulation_revision (self->simulation);
  if (!self->showing_stage && (revision != self->revision || self->snapshot == NULL))
    {
      self->revision = revision;
      take_snapshot (self, cwb_simulation_latest (self->simulation));
    }
  return G_SOURCE_CONTINUE;
}

/* ---- mouse --------------------------------------------------------------------------- */

static void
start_grab (CwbAppViewport *self, const CwbPickHit *hit)
{
  const CwbSnapshotBody *body = &self->snapshot->bodies[hit->body];
  double omega = 2 * G_PI * self->grab_frequency;
  double mass = body->summary.mass > 0 ? body->summary.mass : 1;
  self->grab = (CwbGrab){
    .body = (uint32_t) hit->body,
    .points = { hit->points[0], hit->points[1], hit->points[2] },
    .weights = { hit->weights[0], hit->weights[1], hit->weights[2] },
    .stiffness = mass * omega * omega,
    .damping = 2 * GRAB_DAMPING_RATIO * mass * omega,
  };
  cwb_v3_copy (self->grab.target, hit->position);
  cwb_v3_copy (self->drag_anchor, hit->position);
  if (self->simulation != NULL)
    cwb_simulation_set_grab (self->simulation, &self->grab);
}

static void
drag_begin (GtkGestureDrag *gesture, double x, double y, CwbAppViewport *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  /* A press in the view gives it the keyboard, so that its shortcuts (space plays) act next
   * and not the button or field that had the focus. */
  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->drag_last_x = x;
  self->drag_last_y = y;
  self->drag = DRAG_ORBIT;
  if (button == GDK_BUTTON_MIDDLE || button == GDK_BUTTON_SECONDARY)
    self->drag = DRAG_PAN;
  if (self->snapshot == NULL)
    return;
  /* Primary: ctrl pulls with the spring, shift moves, alt turns; shift with the secondary
   * button turns too, for desktops whose window manager takes alt+drag. */
  gboolean shift = (state & GDK_SHIFT_MASK) != 0;
  gboolean primary = button == GDK_BUTTON_PRIMARY;
  gboolean grab = primary && (state & GDK_CONTROL_MASK) != 0;
  gboolean move = primary && shift;
  gboolean rotate = (primary && (state & GDK_ALT_MASK) != 0)
                    || (button == GDK_BUTTON_SECONDARY && shift);
  if (!grab && !move && !rotate)
    return;
  double origin[3], direction[3];
  ray_at (self, x, y, origin, direction);
  CwbPickHit hit;
  CwbOverlayOptions drawn;
  const char *isolated[2];
  frame_options (self, &drawn, isolated);
  if (!cwb_render_pick_body (self->snapshot, &drawn, origin, direction, &hit)
      || self->snapshot->bodies[hit.body].fixed)
    return;
  if (grab)
    {
      self->drag = DRAG_GRAB;
      start_grab (self, &hit);
    }
  else
    {
      self->drag = move ? DRAG_MOVE : DRAG_ROTATE;
      self->grab.body = (uint32_t) hit.body;
      cwb_v3_copy (self->drag_anchor, hit.position);
      cwb_v3_copy (self->drag_pivot, self->snapshot->bodies[hit.body].summary.centroid);
      cwb_v3_set (self->move_delta, 0, 0, 0);
      cwb_v3_set (self->move_rotation, 0, 0, 0);
    }
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
drag_update (GtkGestureDrag *gesture, double dx, double dy, CwbAppViewport *self)
{
  double sx, sy;
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  double x = sx + dx, y = sy + dy;
  double ddx = x - self->drag_last_x, ddy = y - self->drag_last_y;
  self->drag_last_x = x;
  self->drag_last_y = y;
  int height = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 1);
  double nx, ny, point[3];
  switch (self->drag)
    {
    case DRAG_ORBIT:
      cwb_render_camera_orbit (&self->camera, -ddx * ORBIT_PER_PIXEL, ddy * ORBIT_PER_PIXEL);
      break;
    case DRAG_PAN:
      cwb_render_camera_pan (&self->camera, 2 * ddx / height, -2 * ddy / height);
      break;
    case DRAG_GRAB:
      to_ndc (self, x, y, &nx, &ny);
      cwb_render_camera_view_plane_point (&self->camera, aspect (self), nx, ny,
                                          self->drag_anchor, self->grab.target);
      if (self->simulation != NULL)
        cwb_simulation_set_grab (self->simulation, &self->grab);
      break;
    case DRAG_MOVE:
      to_ndc (self, x, y, &nx, &ny);
      cwb_render_camera_view_plane_point (&self->camera, aspect (self), nx, ny,
                                          self->drag_anchor, point);
      cwb_v3_sub (self->move_delta, point, self->drag_anchor);
      break;
    case DRAG_ROTATE:
      {
        /* About the view axis through the centre of mass (camera.h). */
        double nsx, nsy;
        to_ndc (self, sx, sy, &nsx, &nsy);
        to_ndc (self, x, y, &nx, &ny);
        cwb_render_camera_turn (&self->camera, aspect (self), self->drag_pivot, nsx, nsy, nx, ny,
                                self->move_rotation);
      }
      break;
    case DRAG_NONE:
      break;
    }
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
drag_end (GtkGestureDrag *gesture, double dx, double dy, CwbAppViewport *self)
{
  if (self->drag == DRAG_GRAB && self->simulation != NULL)
    cwb_simulation_set_grab (self->simulation, NULL);
  if ((self->drag == DRAG_MOVE || self->drag == DRAG_ROTATE)
      && (cwb_v3_norm (self->move_delta) > 0 || cwb_v3_norm (self->move_rotation) > 0))
    g_signal_emit (self, signals[SIGNAL_BODY_MOVED], 0, (gint64) self->grab.body,
                   self->move_delta[0], self->move_delta[1], self->move_delta[2],
                   self->move_rotation[0], self->move_rotation[1], self->move_rotation[2]);
  self->drag = DRAG_NONE;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
pick_at (CwbAppViewport *self, double x, double y, gint64 *body, gint64 *contact)
{
  *body = *contact = -1;
  if (self->snapshot == NULL)
    return;
  double origin[3], direction[3];
  ray_at (self, x, y, origin, direction);
  CwbPickHit hit;
  CwbOverlayOptions drawn;
  const char *isolated[2];
  frame_options (self, &drawn, isolated);
  gboolean hit_body = cwb_render_pick_body (self->snapshot, &drawn, origin, direction, &hit);
  /* A contact hidden behind a body is still pickable when it lies just under its surface
   * (contacts are at the surface): allow a little beyond the body's hit. */
  double reach = hit_body ? hit.distance * 1.05 + 0.02 : INFINITY;
  *contact = cwb_render_pick_contact (self->snapshot, origin, direction, PICK_CONTACT_ANGLE,
                                      reach);
  if (hit_body)
    *body = (gint64) hit.body;
}

static void
click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                CwbAppViewport *self)
{
  gint64 body, contact;
  pick_at (self, x, y, &body, &contact);
  if (n_press == 2)
    {
      cwb_app_viewport_select (self, body, contact);
      cwb_app_viewport_frame_selected (self);
    }
  g_signal_emit (self, signals[SIGNAL_PICKED], 0, body, contact);
}

static gboolean
scrolled (GtkEventControllerScroll *controller, double dx, double dy, CwbAppViewport *self)
{
  cwb_render_camera_zoom (&self->camera, pow (ZOOM_PER_NOTCH, dy));
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  return TRUE;
}

/* ---- object -------------------------------------------------------------------------- */

static void
viewport_dispose (GObject *object)
{
  CwbAppViewport *self = CWB_APP_VIEWPORT (object);
  g_clear_pointer (&self->snapshot, cwb_snapshot_unref);
  g_clear_pointer (&self->hidden, g_strfreev);
  g_clear_pointer (&self->translucent, g_strfreev);
  g_clear_pointer (&self->isolated, g_free);
  g_clear_object (&self->legend_texture);
  g_clear_pointer (&self->legend_shown, g_array_unref);
  g_clear_pointer (&self->recorder, cwb_app_recorder_discard);
  self->simulation = NULL;
  G_OBJECT_CLASS (cwb_app_viewport_parent_class)->dispose (object);
}

static void
viewport_finalize (GObject *object)
{
  g_free (CWB_APP_VIEWPORT (object)->error);
  g_free (CWB_APP_VIEWPORT (object)->gl_renderer);
  g_array_unref (CWB_APP_VIEWPORT (object)->timings);
  G_OBJECT_CLASS (cwb_app_viewport_parent_class)->finalize (object);
}

/* The legend and labels, over the GL picture (cairo, in widget coordinates). */
static void
viewport_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  GTK_WIDGET_CLASS (cwb_app_viewport_parent_class)->snapshot (widget, snapshot);
  CwbAppViewport *self = CWB_APP_VIEWPORT (widget);
  if (self->renderer == NULL || self->snapshot == NULL)
    return;
  CwbOverlayOptions options;
  const char *isolated[2];
  frame_options (self, &options, isolated);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  if (options.body_labels || options.contact_labels)
    {
      cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                               &GRAPHENE_RECT_INIT (0, 0, width, height));
      cwb_render_labels (cr, self->snapshot, &self->camera, &options, width, height);
      cairo_destroy (cr);
    }
  /* The legend as a texture, drawn again only when what it says changes: text layout every
   * frame cost the view its frame rate on a slow machine. */
  g_autoptr (GArray) legend = cwb_render_legend (self->snapshot, &options,
                                                 cwb_render_last_overlays (self->renderer));
  if (legend->len == 0)
    return;
  if (self->legend_texture == NULL || !cwb_render_legend_equal (legend, self->legend_shown))
    {
      cairo_surface_t *image = cwb_render_legend_image (legend);
      int w = cairo_image_surface_get_width (image), h = cairo_image_surface_get_height (image);
      /* Cairo's ARGB32 is GDK's default memory format (premultiplied, native order). */
      g_autoptr (GBytes) bytes = g_bytes_new (cairo_image_surface_get_data (image),
                                              (gsize) cairo_image_surface_get_stride (image)
                                                * (gsize) h);
      g_clear_object (&self->legend_texture);
      self->legend_texture = gdk_memory_texture_new (w, h, GDK_MEMORY_DEFAULT, bytes,
                                                     (gsize) cairo_image_surface_get_stride (image));
      cairo_surface_destroy (image);
      g_clear_pointer (&self->legend_shown, g_array_unref);
      self->legend_shown = g_array_ref (legend);
    }
  int w = gdk_texture_get_width (self->legend_texture);
  int h = gdk_texture_get_height (self->legend_texture);
  double x, y;
  cwb_render_legend_place (h, height, &x, &y);
  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gtk_snapshot_append_texture (snapshot, self->legend_texture, &GRAPHENE_RECT_INIT (x, y, w, h));
  gtk_snapshot_pop (snapshot);
}

static void
cwb_app_viewport_class_init (CwbAppViewportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->dispose = viewport_dispose;
  object_class->finalize = viewport_finalize;
  widget_class->realize = viewport_realize;
  widget_class->unrealize = viewport_unrealize;
  widget_class->snapshot = viewport_snapshot;
  GTK_GL_AREA_CLASS (klass)->render = viewport_render;
  signals[SIGNAL_PICKED] = g_signal_new ("picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT64,
                                         G_TYPE_INT64);
  signals[SIGNAL_BODY_MOVED] = g_signal_new ("body-moved", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 7, G_TYPE_INT64, G_TYPE_DOUBLE,
                                             G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                             G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  signals[SIGNAL_FRAME_DRAWN] = g_signal_new ("frame-drawn", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 0);
}

static void
cwb_app_viewport_init (CwbAppViewport *self)
{
  gtk_gl_area_set_required_version (GTK_GL_AREA (self), 3, 3);
  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  cwb_render_camera_default (&self->camera);
  cwb_render_overlay_options_default (&self->overlays);
  self->grab_frequency = GRAB_DEFAULT_FREQUENCY_HZ;
  self->probed_pixels = -1;
  self->timings = g_array_new (FALSE, FALSE, sizeof (CwbAppViewportTiming));

  GtkGesture *drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "released", G_CALLBACK (click_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  GtkEventController *scroll = gtk_event_controller_scroll_new (
    GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (scrolled), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  gtk_widget_add_tick_callback (GTK_WIDGET (self), tick, NULL, NULL);
}

GtkWidget *
cwb_app_viewport_new (void)
{
  return g_object_new (CWB_APP_TYPE_VIEWPORT, NULL);
}

void
cwb_app_viewport_set_simulation (CwbAppViewport *self, CwbSimulation *simulation)
{
  self->simulation = simulation;
  self->revision = 0;
  take_snapshot (self, simulation != NULL ? cwb_simulation_latest (simulation) : NULL);
}

CwbSnapshot *
cwb_app_viewport_snapshot (CwbAppViewport *self)
{
  return self->snapshot;
}

void
cwb_app_viewport_set_grab_frequency (CwbAppViewport *self, double hz)
{
  g_return_if_fail (hz > 0);
  self->grab_frequency = hz;
}

double
cwb_app_viewport_grab_frequency (CwbAppViewport *self)
{
  return self->grab_frequency;
}

CwbOverlayOptions *
cwb_app_viewport_overlays (CwbAppViewport *self)
{
  return &self->overlays;
}

/* `list` without `name` (and with it when `add`). */
static GStrv
names_with (GStrv list, const char *name, gboolean add)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  for (char **n = list; n != NULL && *n != NULL; n++)
    if (strcmp (*n, name) != 0)
      g_strv_builder_add (builder, *n);
  if (add)
    g_strv_builder_add (builder, name);
  g_strfreev (list);
  GStrv result = g_strv_builder_end (builder);
  if (result[0] == NULL)
    g_clear_pointer (&result, g_strfreev);
  return result;
}

void
cwb_app_viewport_show_stage (CwbAppViewport *self, CwbSnapshot *stage)
{
  self->showing_stage = stage != NULL;
  if (stage != NULL)
    take_snapshot (self, cwb_snapshot_ref (stage));
  else
    self->revision = 0;   /* the next tick takes the simulation's newest state */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cwb_app_viewport_set_body_look (CwbAppViewport *self, const char *name, CwbAppBodyLook look)
{
  self->hidden = names_with (self->hidden, name, look == CWB_APP_BODY_HIDDEN);
  self->translucent = names_with (self->translucent, name, look == CWB_APP_BODY_TRANSLUCENT);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

CwbAppBodyLook
cwb_app_viewport_body_look (CwbAppViewport *self, const char *name)
{
  if (self->hidden != NULL && g_strv_contains ((const char *const *) self->hidden, name))
    return CWB_APP_BODY_HIDDEN;
  if (self->translucent != NULL
      && g_strv_contains ((const char *const *) self->translucent, name))
    return CWB_APP_BODY_TRANSLUCENT;
  return CWB_APP_BODY_SHOWN;
}

void
cwb_app_viewport_isolate (CwbAppViewport *self, const char *name)
{
  g_free (self->isolated);
  self->isolated = g_strdup (name);
  if (name == NULL)
    g_clear_pointer (&self->hidden, g_strfreev);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
cwb_app_viewport_isolated (CwbAppViewport *self)
{
  return self->isolated;
}

void
cwb_app_viewport_rename_body (CwbAppViewport *self, const char *from, const char *to)
{
  CwbAppBodyLook look = cwb_app_viewport_body_look (self, from);
  if (look != CWB_APP_BODY_SHOWN)
    {
      cwb_app_viewport_set_body_look (self, from, CWB_APP_BODY_SHOWN);
      cwb_app_viewport_set_body_look (self, to, look);
    }
  if (g_strcmp0 (self->isolated, from) == 0)
    cwb_app_viewport_isolate (self, to);
}

void
cwb_app_viewport_copy_looks (CwbAppViewport *to, CwbAppViewport *from)
{
  g_strfreev (to->hidden);
  g_strfreev (to->translucent);
  g_free (to->isolated);
  to->hidden = g_strdupv (from->hidden);
  to->translucent = g_strdupv (from->translucent);
  to->isolated = g_strdup (from->isolated);
  gtk_widget_queue_draw (GTK_WIDGET (to));
}

void
cwb_app_viewport_queue_draw (CwbAppViewport *self)
{
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
cwb_app_viewport_select (CwbAppViewport *self, gssize body, gssize contact)
{
  self->overlays.highlight_body = body >= 0;
  self->overlays.selected_body = body >= 0 ? (size_t) body : 0;
  self->overlays.highlight_contact = contact >= 0;
  self->overlays.picked_contact = contact >= 0 ? (size_t) contact : 0;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
frame_box (CwbAppViewport *self, const double lo[3], const double hi[3])
{
  cwb_render_camera_frame (&self->camera, lo, hi);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
cwb_app_viewport_frame_all (CwbAppViewport *self)
{
  double lo[3], hi[3];
  if (self->snapshot != NULL && cwb_snapshot_bounds (self->snapshot, TRUE, lo, hi))
    frame_box (self, lo, hi);
}

void
cwb_app_viewport_frame_selected (CwbAppViewport *self)
{
  const CwbSnapshot *s = self->snapshot;
  if (s == NULL)
    return;
  if (self->overlays.highlight_contact && self->overlays.picked_contact < s->frames->len)
    {
      const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame,
                                                 self->overlays.picked_contact);
      /* A contact: a 10 cm box around it. */
      double lo[3], hi[3];
      for (int k = 0; k < 3; k++)
        {
          lo[k] = f->origin[k] - 0.05;
          hi[k] = f->origin[k] + 0.05;
        }
      frame_box (self, lo, hi);
      return;
    }
  if (!self->overlays.highlight_body || self->overlays.selected_body >= s->n_bodies)
    {
      cwb_app_viewport_frame_all (self);
      return;
    }
  double lo[3], hi[3];
  if (cwb_snapshot_body_bounds (&s->bodies[self->overlays.selected_body], lo, hi))
    frame_box (self, lo, hi);
}

void
cwb_app_viewport_reset_camera (CwbAppViewport *self)
{
  cwb_render_camera_default (&self->camera);
  cwb_app_viewport_frame_all (self);
}

CwbCamera *
cwb_app_viewport_camera (CwbAppViewport *self)
{
  return &self->camera;
}

guint64
cwb_app_viewport_frames (CwbAppViewport *self)
{
  return self->frames;
}

double
cwb_app_viewport_last_frame_ms (CwbAppViewport *self)
{
  return self->last_frame_ms;
}

void
cwb_app_viewport_set_probe (CwbAppViewport *self, gboolean probe)
{
  self->probe = probe;
}

gint64
cwb_app_viewport_probed_pixels (CwbAppViewport *self)
{
  return self->probed_pixels;
}

const GArray *
cwb_app_viewport_legend (CwbAppViewport *self)
{
  return self->legend_shown;
}

const CwbOverlayGeometry *
cwb_app_viewport_overlay_geometry (CwbAppViewport *self)
{
  return self->renderer != NULL && self->frames > 0 ? cwb_render_last_overlays (self->renderer)
                                                    : NULL;
}

const char *
cwb_app_viewport_error (CwbAppViewport *self)
{
  return self->error;
}

gboolean
cwb_app_viewport_start_recording (CwbAppViewport *self, GError **error)
{
  g_return_val_if_fail (CWB_APP_IS_VIEWPORT (self), FALSE);
  if (self->recorder != NULL)
    return TRUE;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  self->recorder = cwb_app_recorder_new (gtk_widget_get_width (GTK_WIDGET (self)) * scale,
                                         gtk_widget_get_height (GTK_WIDGET (self)) * scale,
                                         error);
  /* The state shown now is the clip's first frame. */
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  return self->recorder != NULL;
}

gboolean
cwb_app_viewport_stop_recording (CwbAppViewport *self, const char *path, size_t *frames,
                                 GError **error)
{
  g_return_val_if_fail (CWB_APP_IS_VIEWPORT (self), FALSE);
  g_return_val_if_fail (self->recorder != NULL, FALSE);
  if (frames != NULL)
    *frames = cwb_app_recorder_frames (self->recorder);
  return cwb_app_recorder_finish (g_steal_pointer (&self->recorder), path, error);
}

gboolean
cwb_app_viewport_recording (CwbAppViewport *self)
{
  g_return_val_if_fail (CWB_APP_IS_VIEWPORT (self), FALSE);
  return self->recorder != NULL;
}

void
cwb_app_viewport_set_bench (CwbAppViewport *self, gboolean bench)
{
  self->bench = bench;
}

GArray *
cwb_app_viewport_timings (CwbAppViewport *self)
{
  return self->timings;
}

const char *
cwb_app_viewport_gl_renderer (CwbAppViewport *self)
{
  return self->gl_renderer != NULL ? self->gl_renderer : "unknown";
}
