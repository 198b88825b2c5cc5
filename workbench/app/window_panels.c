/* The window's panels (window_private.h): the bodies of the scene, the property editors
 * generated from the schemas, the picked contact's values, the body and contact tables
 * (body_table.h, contact_table.h), the history scrubber, the status line and the plots. */
#include <math.h>

#include <cwb/vecmath.h>

#include "particle_fields.h"
#include "window_private.h"

/* Panels that follow the run refresh at most this often, so that a fast simulation is never
 * slowed by its display (the plots throttle their own drawing as well). */
#define RUN_REFRESH_INTERVAL_US 100000

/* ---- schemas of the scene's fixed fields ---------------------------------------------- *
 * The property editor knows only parameter schemas; the world's and a body's own fields get
 * one here, with the ranges the scene format accepts. */

static const CwbParamSpec world_specs[] = {
  { "dt", CWB_PARAM_DOUBLE, "s", "0.01", 1e-7, 1, NULL,
    "Time step of the simulation." },
  { "gravity", CWB_PARAM_VEC3, "m/s^2", "[0, 0, -9.81]", 1, 0, NULL,
    "Gravitational acceleration, world frame (z up)." },
};

/* The view's own settings: not part of the scene, so not saved or undone. */
static const CwbParamSpec view_specs[] = {
  { "force_scale", CWB_PARAM_DOUBLE, "m/N", "0", 0, 10, NULL,
    "Length of force arrows and height of friction cones per newton of force; 0: automatic, "
    "the heaviest moving body's weight drawn half as long as a body is large." },
  { "vector_scale", CWB_PARAM_DOUBLE, "1", "1", 1e-6, 1e6, NULL,
    "Length factor of inspection vectors (penetration depths, volume and density gradients)." },
  { "element_field", CWB_PARAM_ENUM, "", "strain", 1, 0, "strain|volume|rotation",
    "What the FEM elements overlay colours each tetrahedron by: its equivalent (von Mises) "
    "strain (white none, red the scale), its volumetric strain (blue compressed, red "
    "expanded) or its rotation from rest (white none, purple the scale)." },
  { "element_scale", CWB_PARAM_DOUBLE, "1 or rad", "0", 0, 10, NULL,
    "The strain (1 = 100 %) or rotation (rad) drawn at full colour; 0: automatic, the "
    "largest in the frame." },
  { "particle_field", CWB_PARAM_ENUM, "", "density", 1, 0, "density|pressure|speed",
    "What the elements overlay colours a fluid's particles by: the density error rho/rho0 - 1 "
    "(blue rarefied, white at rest density, red compressed), the pressure (white none, red "
    "the scale) or the speed (white at rest, blue the scale)." },
  { "particle_scale", CWB_PARAM_DOUBLE, "1, Pa or m/s", "0", 0, 1e9, NULL,
    "The density error (1 = 100 %), pressure (Pa) or speed (m/s) drawn at full colour; 0: "
    "automatic, the largest in the frame (for the density error, the largest compression)." },
  { "particle_style", CWB_PARAM_ENUM, "", "particles", 1, 0, "particles|surface",
    "How a fluid is drawn: each particle as a small octahedron of its radius, or the surface "
    "around them all (the one the ldi contact model meets fluids with), smooth, coloured by "
    "particle_field under the elements overlay." },
  { "xray_opacity", CWB_PARAM_DOUBLE, "1", "0.3", 0.02, 1, NULL,
    "Opacity of every body under x-ray (View, x) and of translucent bodies (t)." },
  { "section_offset", CWB_PARAM_DOUBLE, "m", "0", -1e6, 1e6, NULL,
    "Where the section plane (View > Section plane) cuts: its distance along its normal "
    "from the centre of the moving bodies' box." },
};

/* "model" and "mapping" are ENUMs whose choices come from the registry: filled per use. The
 * shape's own fields follow, by kind (below). */
enum { BODY_SPEC_MODEL = 1, BODY_SPEC_MAPPING = 2, N_BODY_SPECS = 10, MAX_SHAPE_SPECS = 3 };
static const CwbParamSpec body_specs_template[N_BODY_SPECS] = {
  { "name", CWB_PARAM_STRING, "", "", 1, 0, NULL, "The body's name, unique in the scene." },
  { "model", CWB_PARAM_ENUM, "", "rigid", 1, 0, NULL, "Body-model plugin: the body's physics." },
  { "mapping", CWB_PARAM_ENUM, "", "rigid", 1, 0, NULL,
    "Mapping plugin: how the body's DOFs give the geometry contact models see." },
  { "fixed", CWB_PARAM_BOOL, "", "false", 1, 0, NULL, "A fixed body never moves." },
  { "position", CWB_PARAM_VEC3, "m", "[0, 0, 0]", 1, 0, NULL,
    "Initial position of the body's frame. Editing it during a run restarts this body there." },
  { "rotation", CWB_PARAM_VEC3, "deg", "[0, 0, 0]", -360, 360, NULL,
    "Initial orientation as rotations about x, then y, then z (world axes)." },
  { "linear_velocity", CWB_PARAM_VEC3, "m/s", "[0, 0, 0]", 1, 0, NULL,
    "Initial velocity of the centre of mass." },
  { "angular_velocity", CWB_PARAM_VEC3, "rad/s", "[0, 0, 0]", 1, 0, NULL,
    "Initial angular velocity, world frame." },
  { "density", CWB_PARAM_DOUBLE, "kg/m^3", "1000", 1e-6, 1e9, NULL, "Mass density." },
  { "friction", CWB_PARAM_DOUBLE, "1", "0.5", 0, 100, NULL,
    "Coulomb coefficient of the material; a pair uses the geometric mean." },
};

/* The shape fields a body's panel edits: a round primitive's resolution; a rectangle's two
 * extents (shape.size_x and shape.size_y stand for the two entries of its size [w, h]: the
 * editor has no two-number field; the window writes them back as shape.size) and its grid. */
static const CwbParamSpec round_shape_specs[] = {
  { "shape.resolution", CWB_PARAM_INT, "", "24", 3, 512, NULL,
    "Segments around a circle of a round primitive." },
};
static const CwbParamSpec rectangle_shape_specs[] = {
  { "shape.size_x", CWB_PARAM_DOUBLE, "m", "1", 1e-6, 1e6, NULL,
    "Extent of the rectangle along its x axis (w of its size [w, h])." },
  { "shape.size_y", CWB_PARAM_DOUBLE, "m", "1", 1e-6, 1e6, NULL,
    "Extent of the rectangle along its y axis (h of its size [w, h])." },
  { "shape.resolution", CWB_PARAM_INT, "", "16", 1, 512, NULL,
    "Grid cells along the rectangle's longer side (the other side gets as many as keep the "
    "cells closest to square)." },
};
G_STATIC_ASSERT (G_N_ELEMENTS (rectangle_shape_specs) <= MAX_SHAPE_SPECS);

static GPtrArray *
params_of (const char *const *names, const char *const *texts, size_t n)
{
  GPtrArray *params = cwb_scene_params_new ();
  for (size_t k = 0; k < n; k++)
    {
      CwbSceneNode *node = cwb_scene_node_parse (texts[k], NULL, NULL);
      if (node != NULL)
        cwb_scene_params_set (params, names[k], node, NULL);
    }
  return params;
}

static char *
vec_text (const double *v)
{
  return g_strdup_printf ("[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
}


/* The choices of an ENUM listing every loaded plugin of a kind ("rigid|fem"). */
static char *
plugin_choices (CwbRegistry *registry, CwbPluginKind kind)
{
  g_autoptr (GPtrArray) plugins = cwb_registry_list (registry, kind);
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint k = 0; k < plugins->len; k++)
    g_string_append_printf (s, "%s%s", k > 0 ? "|" : "",
                            ((const CwbPluginDesc *) plugins->pdata[k])->name);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Shows each automatic parameter of `derived` (CwbDerivedParam; NULL: none) beside its
 * field "SECTION.NAME". */
static void
show_derived (CwbPropertyEditor *properties, const char *section, const GArray *derived)
{
  for (guint k = 0; derived != NULL && k < derived->len; k++)
    {
      const CwbDerivedParam *d = &g_array_index (derived, CwbDerivedParam, k);
      g_autofree char *key = g_strdup_printf ("%s.%s", section, d->name);
      cwb_property_editor_show_derived (properties, key, d->value);
    }
}

static void
add_plugin_section (CwbAppWindow *self, const char *title, CwbPluginKind kind, const char *name,
                    const char *prefix, GPtrArray *values)
{
  const CwbPluginDesc *desc = name != NULL ? cwb_registry_find (self->registry, kind, name)
                                           : NULL;
  if (desc == NULL || desc->n_params == 0)
    return;
  g_autofree char *heading = g_strdup_printf ("%s: %s", title, desc->name);
  cwb_property_editor_add_section (self->properties, heading, prefix, desc->params,
                                   desc->n_params, values);
}

static void
add_body_sections (CwbAppWindow *self, const CwbBodyDesc *body)
{
  g_autofree char *models = plugin_choices (self->registry, CWB_PLUGIN_BODY_MODEL);
  g_autofree char *mappings = plugin_choices (self->registry, CWB_PLUGIN_MAPPING);
  CwbParamSpec specs[N_BODY_SPECS + MAX_SHAPE_SPECS];
  memcpy (specs, body_specs_template, sizeof body_specs_template);
  specs[BODY_SPEC_MODEL].choices = models;
  specs[BODY_SPEC_MAPPING].choices = mappings;

  double degrees[3];
  cwb_quat_to_euler_deg (degrees, body->orientation);
  g_autofree char *position = vec_text (body->position);
  g_autofree char *rotation = vec_text (degrees);
  g_autofree char *linear = vec_text (body->linear_velocity);
  g_autofree char *angular = vec_text (body->angular_velocity);
  g_autofree char *density = g_strdup_printf ("%.17g", body->density);
  g_autofree char *friction = g_strdup_printf ("%.17g", body->friction);
  g_autofree char *resolution = g_strdup_printf ("%d", body->shape.resolution);
  g_autofree char *size_x = g_strdup_printf ("%.17g", body->shape.size[0]);
  g_autofree char *size_y = g_strdup_printf ("%.17g", body->shape.size[1]);
  g_autofree char *quoted_name = g_strdup_printf ("'%s'", body->name);
  const char *names[N_BODY_SPECS + MAX_SHAPE_SPECS] = {
    "name", "model", "mapping", "fixed", "position", "rotation", "linear_velocity",
    "angular_velocity", "density", "friction",
  };
  const char *texts[N_BODY_SPECS + MAX_SHAPE_SPECS] = {
    quoted_name, body->model, body->mapping, body->fixed ? "true" : "false", position,
    rotation, linear, angular, density, friction,
  };
  /* Then the shape's fields: a round primitive's resolution, a rectangle's extents and
   * grid; the other shapes have none here. */
  size_t n = N_BODY_SPECS;
  CwbShapeKind kind = body->shape.kind;
  if (kind == CWB_SHAPE_SPHERE || kind == CWB_SHAPE_CYLINDER || kind == CWB_SHAPE_CAPSULE
      || kind == CWB_SHAPE_TORUS)
    {
      specs[n] = round_shape_specs[0];
      names[n] = specs[n].name;
      texts[n++] = resolution;
    }
  else if (kind == CWB_SHAPE_RECTANGLE)
    {
      const char *rectangle_texts[] = { size_x, size_y, resolution };
      G_STATIC_ASSERT (G_N_ELEMENTS (rectangle_texts) == G_N_ELEMENTS (rectangle_shape_specs));
      for (size_t k = 0; k < G_N_ELEMENTS (rectangle_shape_specs); k++, n++)
        {
          specs[n] = rectangle_shape_specs[k];
          names[n] = specs[n].name;
          texts[n] = rectangle_texts[k];
        }
    }
  g_autoptr (GPtrArray) values = params_of (names, texts, n);
  g_autofree char *prefix = g_strconcat ("bodies.", body->name, NULL);
  g_autofree char *heading = g_strdup_printf ("Body: %s", body->name);
  cwb_property_editor_add_section (self->properties, heading, prefix, specs, n, values);

  g_autofree char *model_prefix = g_strconcat (prefix, ".model_params", NULL);
  g_autofree char *mapping_prefix = g_strconcat (prefix, ".mapping_params", NULL);
  add_plugin_section (self, "Body model", CWB_PLUGIN_BODY_MODEL, body->model, model_prefix,
                      body->model_params);
  add_plugin_section (self, "Mapping", CWB_PLUGIN_MAPPING, body->mapping, mapping_prefix,
                      body->mapping_params);
}

static void
refresh_properties (CwbAppWindow *self)
{
  const CwbScene *scene = cwb_document_scene (self->document);
  cwb_property_editor_clear (self->properties);
  const CwbBodyDesc *body = self->selected_body != NULL
                              ? cwb_scene_find_body (scene, self->selected_body)
                              : NULL;
  if (body != NULL)
    add_body_sections (self, body);

  g_autofree char *dt = g_strdup_printf ("%.17g", scene->dt);
  g_autofree char *gravity = vec_text (scene->gravity);
  const char *names[] = { "dt", "gravity" };
  const char *texts[] = { dt, gravity };
  g_autoptr (GPtrArray) world = params_of (names, texts, 2);
  cwb_property_editor_add_section (self->properties, "World", "world", world_specs,
                                   G_N_ELEMENTS (world_specs), world);
  add_plugin_section (self, "Contact model", CWB_PLUGIN_CONTACT_MODEL, scene->contact_model,
                      "contact", scene->contact_params);
  add_plugin_section (self, "Solver", CWB_PLUGIN_SOLVER, scene->solver, "solver",
                      scene->solver_params);

  const CwbOverlayOptions *o = cwb_app_viewport_overlays (self->viewport);
  g_autofree char *force = g_strdup_printf ("%.17g", o->force_scale);
  g_autofree char *vector = g_strdup_printf ("%.17g", o->vector_scale);
  g_autofree char *element_scale = g_strdup_printf ("%.17g", o->element_scale);
  g_autofree char *particle_scale = g_strdup_printf ("%.17g", o->particle_scale);
  g_autofree char *xray_opacity = g_strdup_printf ("%.17g", o->xray_opacity);
  g_autofree char *section_offset = g_strdup_printf ("%.17g", o->section_offset);
  const char *view_names[] = { "force_scale", "vector_scale", "element_field", "element_scale",
                               "particle_field", "particle_scale", "particle_style",
                               "xray_opacity", "section_offset" };
  const char *view_texts[] = { force, vector,
                               cwb_render_element_field_names[o->element_field],
                               element_scale,
                               cwb_render_particle_field_names[o->particle_field],
                               particle_scale,
                               cwb_render_particle_style_names[o->particle_style],
                               xray_opacity, section_offset };
  g_autoptr (GPtrArray) view = params_of (view_names, view_texts, G_N_ELEMENTS (view_names));
  cwb_property_editor_add_section (self->properties, "View (not saved)", "view", view_specs,
                                   G_N_ELEMENTS (view_specs), view);
  /* Not left where GTK moved it when the focused field went (the first entry of the panel,
   * its text selected, where the next key would replace a body's name). */
  if (!cwb_property_editor_restore_focus (self->properties))
    gtk_widget_grab_focus (GTK_WIDGET (self->viewport));
}

/* ---- bodies list ---------------------------------------------------------------------- */

static void
body_row_selected (GtkListBox *list, GtkListBoxRow *row, CwbAppWindow *self)
{
  if (self->updating)
    return;
  const char *name = row != NULL ? g_object_get_data (G_OBJECT (row), "body") : NULL;
  cwb_app_window_select_body (self, name);
}

static void
eye_toggled (GtkToggleButton *eye, CwbAppWindow *self)
{
  if (self->updating)
    return;
  const char *name = g_object_get_data (G_OBJECT (eye), "body");
  cwb_app_window_set_body_look (self, name, gtk_toggle_button_get_active (eye)
                                              ? CWB_APP_BODY_SHOWN : CWB_APP_BODY_HIDDEN);
}

void
cwb_app_window_refresh_body_list (CwbAppWindow *self)
{
  const CwbScene *scene = cwb_document_scene (self->document);
  GtkWidget *child;
  gboolean was_updating = self->updating;
  self->updating = TRUE;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->body_list))) != NULL)
    gtk_list_box_remove (self->body_list, child);
  const char *isolated = cwb_app_viewport_isolated (self->viewport);
  for (guint i = 0; i < scene->bodies->len; i++)
    {
      const CwbBodyDesc *body = scene->bodies->pdata[i];
      CwbAppBodyLook look = cwb_app_viewport_body_look (self->viewport, body->name);
      const char *how = g_strcmp0 (isolated, body->name) == 0 ? ", isolated"
                        : isolated != NULL || look == CWB_APP_BODY_HIDDEN ? ", hidden"
                        : look == CWB_APP_BODY_TRANSLUCENT ? ", translucent" : "";
      GtkWidget *label = gtk_label_new (NULL);
      g_autofree char *escaped = g_markup_printf_escaped ("%s", body->name);
      g_autofree char *markup = g_strdup_printf ("%s  <span alpha='60%%'>%s%s%s</span>",
                                                 escaped, body->model,
                                                 body->fixed ? ", fixed" : "", how);
      gtk_label_set_markup (GTK_LABEL (label), markup);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_hexpand (label, TRUE);
      /* The eye: shows or hides the body in the view (not part of the scene). */
      GtkWidget *eye = gtk_toggle_button_new ();
      gboolean shown = look != CWB_APP_BODY_HIDDEN;
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (eye), shown);
      gtk_button_set_icon_name (GTK_BUTTON (eye), shown ? "view-reveal-symbolic"
                                                        : "view-conceal-symbolic");
      gtk_widget_add_css_class (eye, "flat");
      gtk_widget_set_focusable (eye, FALSE);
      gtk_widget_set_tooltip_text (eye, "Show or hide this body in the view (h)");
      g_object_set_data_full (G_OBJECT (eye), "body", g_strdup (body->name), g_free);
      g_signal_connect (eye, "toggled", G_CALLBACK (eye_toggled), self);
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      gtk_box_append (GTK_BOX (line), label);
      gtk_box_append (GTK_BOX (line), eye);
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), line);
      g_object_set_data_full (G_OBJECT (row), "body", g_strdup (body->name), g_free);
      gtk_list_box_append (self->body_list, row);
      if (g_strcmp0 (body->name, self->selected_body) == 0)
        gtk_list_box_select_row (self->body_list, GTK_LIST_BOX_ROW (row));
    }
  self->updating = was_updating;
}

/* ---- choosers, title ------------------------------------------------------------------ */

static void
select_in_chooser (GtkDropDown *chooser, GPtrArray *names, const char *name)
{
  for (guint k = 0; k < names->len; k++)
    if (strcmp (names->pdata[k], name != NULL ? name : "") == 0)
      gtk_drop_down_set_selected (chooser, k);
}

static void
refresh_title (CwbAppWindow *self)
{
  g_autofree char *name = cwb_document_display_name (self->document);
  g_autofree char *title = g_strdup_printf ("%s%s — Contact Workbench",
                                            cwb_document_is_dirty (self->document) ? "• " : "",
                                            name);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
refresh_undo_actions (CwbAppWindow *self)
{
  /* While long work runs every edit waits for it (window_jobs.c). */
  gboolean idle = !cwb_app_window_busy (self, NULL);
  GAction *undo = g_action_map_lookup_action (G_ACTION_MAP (self), "undo");
  GAction *redo = g_action_map_lookup_action (G_ACTION_MAP (self), "redo");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (undo),
                               idle && cwb_document_can_undo (self->document));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (redo),
                               idle && cwb_document_can_redo (self->document));
  GAction *body_actions[] = {
    g_action_map_lookup_action (G_ACTION_MAP (self), "delete-body"),
    g_action_map_lookup_action (G_ACTION_MAP (self), "duplicate-body"),
  };
  for (size_t k = 0; k < G_N_ELEMENTS (body_actions); k++)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (body_actions[k]),
                                 idle && self->selected_body != NULL);
}

void
cwb_app_window_refresh_document (CwbAppWindow *self)
{
  const CwbScene *scene = cwb_document_scene (self->document);
  if (self->selected_body != NULL && cwb_scene_find_body (scene, self->selected_body) == NULL)
    g_clear_pointer (&self->selected_body, g_free);
  self->updating = TRUE;
  guint64 revision = cwb_document_revision (self->document);
  if (revision != self->shown_revision)
    {
      cwb_app_window_refresh_body_list (self);
      refresh_properties (self);
      self->shown_revision = revision;
    }
  select_in_chooser (self->contact_chooser, self->contact_names, scene->contact_model);
  select_in_chooser (self->solver_chooser, self->solver_names, scene->solver);
  GAction *contact = g_action_map_lookup_action (G_ACTION_MAP (self), "contact-model");
  g_simple_action_set_state (G_SIMPLE_ACTION (contact),
                             g_variant_new_string (scene->contact_model != NULL
                                                     ? scene->contact_model : ""));
  GAction *solver = g_action_map_lookup_action (G_ACTION_MAP (self), "solver");
  g_simple_action_set_state (G_SIMPLE_ACTION (solver),
                             g_variant_new_string (scene->solver != NULL ? scene->solver : ""));
  self->updating = FALSE;
  refresh_title (self);
  refresh_undo_actions (self);
}

/* The selected body's index in the world (the scene's order), the viewport's way of
 * naming it; -1 for none. */
static gssize
selected_body_index (CwbAppWindow *self)
{
  const CwbScene *scene = cwb_document_scene (self->document);
  for (guint i = 0; self->selected_body != NULL && i < scene->bodies->len; i++)
    if (strcmp (((CwbBodyDesc *) scene->bodies->pdata[i])->name, self->selected_body) == 0)
      return (gssize) i;
  return -1;
}

void
cwb_app_window_select_body (CwbAppWindow *self, const char *name)
{
  if (g_strcmp0 (name, self->selected_body) == 0)
    return;
  g_free (self->selected_body);
  self->selected_body = g_strdup (name);
  cwb_app_viewport_select (self->viewport, selected_body_index (self), self->picked_contact);
  cwb_app_body_table_select (self->body_table, name);
  self->shown_revision = G_MAXUINT64;   /* the properties show another body */
  cwb_app_window_refresh_document (self);
}

/* ---- inspector ------------------------------------------------------------------------ */

static const char *
state_name (CwbContactState state)
{
  switch (state)
    {
    case CWB_CONTACT_STICK:
      return "stick (inside the cone)";
    case CWB_CONTACT_SLIP:
      return "slip (on the cone, opposing the slip)";
    case CWB_CONTACT_OPEN:
    default:
      return "open (no force)";
    }
}

static void
inspector_row (GtkGrid *grid, int row, const char *name, const char *value)
{
  GtkWidget *label = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "dim-label");
  GtkWidget *text = gtk_label_new (value);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_label_set_selectable (GTK_LABEL (text), TRUE);
  gtk_grid_attach (grid, label, 0, row, 1, 1);
  gtk_grid_attach (grid, text, 1, row, 1, 1);
}

void
cwb_app_window_refresh_inspector (CwbAppWindow *self)
{
  GtkGrid *grid = GTK_GRID (self->inspector);
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))) != NULL)
    gtk_grid_remove (grid, child);
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  if (s == NULL || self->picked_contact < 0 || (guint) self->picked_contact >= s->frames->len)
    {
      inspector_row (grid, 0, "Contact", "none picked: click a contact point in the view");
      return;
    }
  const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, self->picked_contact);
  double ft = hypot (f->force[1], f->force[2]);
  double fn = f->force[0];
  const char *a = f->body_a < s->n_bodies ? s->bodies[f->body_a].name : "environment";
  const char *b = f->body_b < s->n_bodies ? s->bodies[f->body_b].name : "environment";
  g_autofree char *id = g_strdup_printf ("#%zd of %u", self->picked_contact, s->frames->len);
  g_autofree char *bodies = g_strdup_printf ("%s on %s", a, b);
  g_autofree char *normal = g_strdup_printf ("%.6g N", fn);
  g_autofree char *tangent = g_strdup_printf ("%.6g N", ft);
  g_autofree char *mu = g_strdup_printf ("%.4g", f->mu);
  /* The friction set's gauge over mu f_n (|f_t| for the cone, |f_t1| + |f_t2| for the
   * pyramid, cwb/coulomb.h): 1 on its boundary (slip), below inside it (stick). */
  gboolean pyramid = s->friction_law == CWB_FRICTION_PYRAMID;
  double gauge = cwb_friction_gauge (s->friction_law, &f->force[1]);
  g_autofree char *ratio = fn > 0 && f->mu > 0 ? g_strdup_printf ("%.4f", gauge / (f->mu * fn))
                                               : g_strdup ("—");
  g_autofree char *gap = g_strdup_printf ("%.6g m", f->gap);
  g_autofree char *volume = f->volume > 0 ? g_strdup_printf ("%.6g m^3", f->volume)
                                          : g_strdup ("—");
  g_autofree char *origin = g_strdup_printf ("[%.4f, %.4f, %.4f]", f->origin[0], f->origin[1],
                                             f->origin[2]);
  g_autofree char *n = g_strdup_printf ("[%.4f, %.4f, %.4f]", f->normal[0], f->normal[1],
                                        f->normal[2]);
  const char *rows[][2] = {
    { "Contact", id }, { "Bodies", bodies }, { "Normal force f_n", normal },
    { "Tangential force |f_t|", tangent }, { "Friction mu", mu },
    { pyramid ? "(|f_t1| + |f_t2|) / (mu f_n)" : "|f_t| / (mu f_n)", ratio },
    { "State", state_name (f->state) }, { "Gap", gap },
    { "Volume", volume }, { "Point", origin }, { "Normal", n },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (rows); k++)
    inspector_row (grid, (int) k, rows[k][0], rows[k][1]);
}

/* ---- body and contact tables ------------------------------------------------------------ */

static void
body_table_picked (CwbAppBodyTable *table, const char *name, CwbAppWindow *self)
{
  cwb_app_window_select_body (self, name);
}

/* A contact picked in the Contacts tab is picked as a click in the view picks it (the body
 * selection kept), and the view turns to it: its point becomes the camera's target, at the
 * distance the user zoomed to, so that Previous and Next walk the view from one to the
 * next. */
static void
contact_table_picked (CwbAppContactTable *table, gint64 contact, CwbAppWindow *self)
{
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  if (s == NULL || contact < 0 || (guint64) contact >= s->frames->len)
    return;
  cwb_app_window_pick (self, selected_body_index (self), (gssize) contact);
  const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, contact);
  cwb_v3_copy (cwb_app_viewport_camera (self->viewport)->target, f->origin);
  cwb_app_viewport_queue_draw (self->viewport);
}

/* ---- transport and status ------------------------------------------------------------- */

static void
scrubbed (GtkRange *range, CwbAppWindow *self)
{
  if (self->updating)
    return;
  cwb_app_window_end_phases (self);
  double value = gtk_range_get_value (range);
  GAction *play = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
  g_simple_action_set_state (G_SIMPLE_ACTION (play), g_variant_new_boolean (FALSE));
  cwb_simulation_seek (self->simulation, (size_t) MAX (value, 0));
  cwb_app_window_compare_seek (self);
}

void
cwb_app_window_refresh_run (CwbAppWindow *self)
{
  gint64 now = g_get_monotonic_time ();
  if (now - self->last_panel_update_us < RUN_REFRESH_INTERVAL_US)
    return;
  self->last_panel_update_us = now;

  /* Plots: every step since the last refresh. A resume from the history goes back in time. */
  g_array_set_size (self->stats_buffer, 0);
  cwb_simulation_stats_since (self->simulation, &self->stats_cursor, self->stats_buffer);
  for (guint k = 0; k < self->stats_buffer->len; k++)
    {
      const CwbStepStats *st = &g_array_index (self->stats_buffer, CwbStepStats, k);
      cwb_plot_panel_truncate (self->plots, st->time - 1e-12);
      cwb_plot_panel_push (self->plots, st);
    }
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  if (s == NULL)
    return;
  cwb_plot_panel_set_residuals (self->plots, (const double *) (void *) s->residuals->data,
                                s->residuals->len);

  self->updating = TRUE;
  size_t len = cwb_simulation_history_len (self->simulation);
  gssize at = cwb_simulation_history_position (self->simulation);
  gtk_range_set_range (GTK_RANGE (self->scrubber), 0, MAX ((double) len - 1, 1));
  gtk_range_set_value (GTK_RANGE (self->scrubber), at >= 0 ? (double) at : (double) len - 1);
  self->updating = FALSE;
  /* The plots mark the state the scrubber went back to. */
  cwb_plot_panel_set_cursor (self->plots, at >= 0 ? s->time : NAN);

  g_autofree char *time = g_strdup_printf ("t = %.4f s   step %" G_GUINT64_FORMAT "%s", s->time,
                                           s->steps, at >= 0 ? "   (history)" : "");
  gtk_label_set_text (self->time_label, time);
  /* The solve's sweeps, and loudly when it stopped at its cap above its tolerance. */
  g_autofree char *solve = NULL;
  if (s->stats.solver_iterations >= 0)
    solve = s->stats.solver_converged == 0
              ? g_strdup_printf ("   solver CAPPED at %d sweeps (residual %.3g m)",
                                 s->stats.solver_iterations, s->stats.solver_residual)
              : g_strdup_printf ("   %d sweeps", s->stats.solver_iterations);
  /* The kinetic energy of the state shown (a step's statistic is zero before the first step
   * and after a rebuild); the contacts once a step has detected at this state. */
  double kinetic_energy = 0;
  for (size_t b = 0; b < s->n_bodies; b++)
    kinetic_energy += s->bodies[b].summary.kinetic_energy;
  g_autofree char *contacts = s->contacts_detected || s->contact_model == NULL
                                ? g_strdup_printf ("%u contacts", s->frames->len)
                                : g_strdup ("contacts at the next step");
  g_autofree char *status = g_strdup_printf (
    "%s%s   %s   KE %.4g J%s   %s / %s   frame %.1f ms",
    cwb_app_viewport_recording (self->viewport) ? "\u25cf REC   " : "",
    cwb_simulation_is_playing (self->simulation) ? "running" : "paused", contacts,
    kinetic_energy, solve != NULL ? solve : "",
    s->contact_model != NULL ? s->contact_model : "no contact model",
    s->solver, cwb_app_viewport_last_frame_ms (self->viewport));
  gtk_label_set_text (self->status_label, status);
  /* What the contact model's and the solver's automatic parameters resolved to, beside
   * their fields. */
  show_derived (self->properties, "contact", s->inspection.derived);
  show_derived (self->properties, "solver", s->solver_derived);
  const CwbOverlayOptions *overlays = cwb_app_viewport_overlays (self->viewport);
  if (overlays->force_scale == 0)
    cwb_property_editor_show_derived (self->properties, "view.force_scale",
                                      cwb_render_overlay_force_scale (s, overlays));
  if (overlays->elements && overlays->element_scale == 0)
    cwb_property_editor_show_derived (self->properties, "view.element_scale",
                                      cwb_render_element_scale (s, overlays));
  if (overlays->elements && overlays->particle_scale == 0)
    cwb_property_editor_show_derived (self->properties, "view.particle_scale",
                                      cwb_render_particle_scale (s, overlays));

  g_autofree char *failure = cwb_simulation_take_error (self->simulation);
  if (failure != NULL)
    {
      GAction *play = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
      g_simple_action_set_state (G_SIMPLE_ACTION (play), g_variant_new_boolean (FALSE));
      /* The failure says what happened and that the last good state is kept. */
      g_autofree char *message = g_strdup_printf ("The run stopped: %s", failure);
      cwb_app_window_show_error (self, message);
    }
  if (s->steps != self->shown_snapshot_steps)
    {
      self->shown_snapshot_steps = s->steps;
      cwb_app_window_refresh_inspector (self);
    }
  /* Outside the test above: a rebuilt world (a body added) can show the same step. The
   * tables skip a state they show already, and update their rows in place; a tab not shown
   * is not updated (thousands of contacts would cost every refresh) until it is. */
  if (gtk_widget_get_mapped (GTK_WIDGET (self->body_table)))
    cwb_app_body_table_show (self->body_table, s);
  if (gtk_widget_get_mapped (GTK_WIDGET (self->contact_table)))
    cwb_app_contact_table_show (self->contact_table, s);
}

/* A table's tab opened: it shows the state the view shows. */
static void
table_mapped (GtkWidget *table, CwbAppWindow *self)
{
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  if (s == NULL)
    return;
  if (table == GTK_WIDGET (self->body_table))
    cwb_app_body_table_show (self->body_table, s);
  else
    cwb_app_contact_table_show (self->contact_table, s);
}

/* ---- construction --------------------------------------------------------------------- */

static GtkWidget *
scrolled (GtkWidget *child)
{
  GtkWidget *sw = gtk_scrolled_window_new ();
  /* Never sideways: the panel is as wide as its widest row needs, so no field (the third
   * component of a vector) hides past its right edge behind a scrollbar. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (sw), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (sw), child);
  gtk_widget_set_vexpand (sw, TRUE);
  return sw;
}

static GtkWidget *
scene_tab (CwbAppWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *add = gtk_menu_button_new ();
  gtk_menu_button_set_label (GTK_MENU_BUTTON (add), "Add");
  GMenu *menu = g_menu_new ();
  const char *shapes[][2] = { { "Box", "box" }, { "Sphere", "sphere" }, { "Cylinder", "cylinder" },
                              { "Capsule", "capsule" }, { "Torus", "torus" },
                              { "Rectangle", "rectangle" } };
  for (size_t k = 0; k < G_N_ELEMENTS (shapes); k++)
    {
      g_autofree char *detailed = g_strdup_printf ("win.add-body::%s", shapes[k][1]);
      g_menu_append (menu, shapes[k][0], detailed);
    }
  g_menu_append (menu, "Mesh file…", "win.add-mesh");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (add), G_MENU_MODEL (menu));
  g_object_unref (menu);
  gtk_box_append (GTK_BOX (buttons), add);
  const char *actions[][2] = { { "Duplicate", "win.duplicate-body" },
                               { "Delete", "win.delete-body" } };
  for (size_t k = 0; k < G_N_ELEMENTS (actions); k++)
    {
      GtkWidget *b = gtk_button_new_with_label (actions[k][0]);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (b), actions[k][1]);
      gtk_box_append (GTK_BOX (buttons), b);
    }
  gtk_box_append (GTK_BOX (box), buttons);
  self->body_list = GTK_LIST_BOX (gtk_list_box_new ());
  g_signal_connect (self->body_list, "row-selected", G_CALLBACK (body_row_selected), self);
  gtk_box_append (GTK_BOX (box), scrolled (GTK_WIDGET (self->body_list)));
  GtkWidget *hint = gtk_label_new ("Click selects · double click frames · ctrl+drag pulls "
                                   "a body with a spring · shift+drag moves it · alt+drag "
                                   "(or shift+right-drag) turns it");
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_box_append (GTK_BOX (box), hint);
  return box;
}

void
cwb_app_window_build_panels (CwbAppWindow *self, GtkWidget *sidebar, GtkWidget *bottom)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (sidebar);
  gtk_notebook_append_page (notebook, scene_tab (self), gtk_label_new ("Scene"));
  self->properties = CWB_PROPERTY_EDITOR (cwb_property_editor_new ());
  gtk_notebook_append_page (notebook, scrolled (GTK_WIDGET (self->properties)),
                            gtk_label_new ("Properties"));
  self->inspector = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->inspector), 12);
  gtk_grid_set_row_spacing (GTK_GRID (self->inspector), 4);
  gtk_notebook_append_page (notebook, scrolled (self->inspector), gtk_label_new ("Inspector"));
  self->body_table = CWB_APP_BODY_TABLE (cwb_app_body_table_new ());
  g_signal_connect (self->body_table, "body-picked", G_CALLBACK (body_table_picked), self);
  gtk_notebook_append_page (notebook, GTK_WIDGET (self->body_table), gtk_label_new ("Bodies"));
  self->contact_table = CWB_APP_CONTACT_TABLE (cwb_app_contact_table_new ());
  g_signal_connect (self->contact_table, "contact-picked", G_CALLBACK (contact_table_picked),
                    self);
  gtk_notebook_append_page (notebook, GTK_WIDGET (self->contact_table),
                            gtk_label_new ("Contacts"));
  g_signal_connect (self->body_table, "map", G_CALLBACK (table_mapped), self);
  g_signal_connect (self->contact_table, "map", G_CALLBACK (table_mapped), self);

  GtkWidget *transport = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *back = gtk_button_new_from_icon_name ("go-previous-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (back), "win.history-back");
  gtk_widget_set_tooltip_text (back, "One state back in the history (Left)");
  GtkWidget *forward = gtk_button_new_from_icon_name ("go-next-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (forward), "win.history-forward");
  gtk_widget_set_tooltip_text (forward, "One state forward in the history (Right)");
  self->scrubber = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1));
  gtk_scale_set_draw_value (self->scrubber, FALSE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->scrubber), TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->scrubber),
                               "History: drag back to see earlier states; play or step resumes "
                               "from the one shown");
  g_signal_connect (self->scrubber, "value-changed", G_CALLBACK (scrubbed), self);
  self->time_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_box_append (GTK_BOX (transport), back);
  gtk_box_append (GTK_BOX (transport), GTK_WIDGET (self->scrubber));
  gtk_box_append (GTK_BOX (transport), forward);
  gtk_box_append (GTK_BOX (transport), GTK_WIDGET (self->time_label));
  gtk_box_append (GTK_BOX (bottom), transport);
  self->phase_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->phase_label, 0);
  gtk_label_set_wrap (self->phase_label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->phase_label), "heading");
  gtk_widget_set_visible (GTK_WIDGET (self->phase_label), FALSE);
  gtk_box_append (GTK_BOX (bottom), GTK_WIDGET (self->phase_label));
  self->status_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->status_label, 0);
  gtk_box_append (GTK_BOX (bottom), GTK_WIDGET (self->status_label));
  self->plots = CWB_PLOT_PANEL (cwb_plot_panel_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->plots), TRUE);
  gtk_box_append (GTK_BOX (bottom), GTK_WIDGET (self->plots));
  cwb_app_window_refresh_inspector (self);
}
