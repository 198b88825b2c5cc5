/* Building a world from a scene, stepping it, swapping its contact model or solver, and live
 * parameter edits. */
#include <stdatomic.h>

#include "clock.h"
#include "world_private.h"

G_DEFINE_QUARK (cwb-world-error-quark, cwb_world_error)

static const char *const phase_names[CWB_PHASE_COUNT] = {
  "collision_detection", "contact_modeling", "mechanical_motion", "constraint_solver",
};

const char *
cwb_phase_name (CwbPhase phase)
{
  return phase < CWB_PHASE_COUNT ? phase_names[phase] : NULL;
}

/* ---- plugins by name ----------------------------------------------------------------- */

static char *
loaded_names (CwbRegistry *registry, CwbPluginKind kind)
{
  g_autoptr (GPtrArray) list = cwb_registry_list (registry, kind);
  if (list->len == 0)
    return g_strdup ("none is loaded");
  g_autoptr (GString) s = g_string_new ("loaded: ");
  for (guint i = 0; i < list->len; i++)
    {
      const CwbPluginDesc *d = g_ptr_array_index (list, i);
      g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", d->name);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static const CwbPluginDesc *
find_plugin (CwbRegistry *registry, CwbPluginKind kind, const char *name,
             const CwbSourceLoc *loc, const char *field, GError **error)
{
  const CwbPluginDesc *desc = cwb_registry_find (registry, kind, name);
  if (desc == NULL)
    {
      g_autofree char *names = loaded_names (registry, kind);
      cwb_scene_set_error (error, CWB_SCENE_ERROR_UNKNOWN_PLUGIN, loc, field,
                           "no %s plugin named '%s' (%s)", cwb_plugin_kind_name (kind), name,
                           names);
    }
  return desc;
}

/* A plugin's own failure, located at the scene value that asked for it. */
static void
prefix_plugin_error (GError **error, const CwbSourceLoc *loc, const char *field,
                     GError *plugin_error)
{
  cwb_scene_set_error (error, CWB_SCENE_ERROR_REFUSED, loc, field, "%s",
                       plugin_error != NULL ? plugin_error->message : "refused (no reason given)");
  g_clear_error (&plugin_error);
}

/* What the plugins being made belong to ("body 'beam'"), which a cancel's message names;
 * NULL format: nothing. */
static void
set_being_made (CwbWorld *world, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
set_being_made (CwbWorld *world, const char *format, ...)
{
  g_clear_pointer (&world->being_made, g_free);
  if (format == NULL)
    return;
  va_list args;
  va_start (args, format);
  world->being_made = g_strdup_vprintf (format, args);
  va_end (args);
}

/* A plugin's failure, located at the scene value that asked for it (plugin_error taken). A
 * cancel stays a cancel (G_IO_ERROR_CANCELLED, which callers tell from a refusal), naming
 * what was being made: the plugin's own (it stopped at a progress report) or the user's,
 * noticed when the plugin returned. */
static void
plugin_failure (CwbWorld *world, const CwbSourceLoc *loc, const char *field,
                GError *plugin_error, GError **error)
{
  if (!cwb_world_cancelled (world)
      && !g_error_matches (plugin_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      prefix_plugin_error (error, loc, field, plugin_error);
      return;
    }
  g_autofree char *why = plugin_error != NULL ? g_strdup_printf (" (%s)", plugin_error->message)
                                              : g_strdup ("");
  if (world->building)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                 "loading cancelled while %s was being built%s", world->being_made, why);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                 "cancelled while %s was being created; the previous one stays%s",
                 world->being_made, why);
  g_clear_error (&plugin_error);
}

/* After a plugin's create or attach: FALSE with the error when it failed, and also when a
 * cancel came meanwhile, even from a plugin that finished or never asks, so that a cancel
 * always leaves what was there before (the caller destroys a `self` it got). */
static gboolean
plugin_created (CwbWorld *world, const void *self, GError *plugin_error,
                const CwbSourceLoc *loc, const char *field, GError **error)
{
  if (self != NULL && !cwb_world_cancelled (world))
    return TRUE;
  plugin_failure (world, loc, field, plugin_error, error);
  return FALSE;
}

/* ---- bodies -------------------------------------------------------------------------- */

static gboolean
spec_has (const CwbPluginDesc *desc, const char *name)
{
  for (size_t k = 0; k < desc->n_params; k++)
    if (strcmp (desc->params[k].name, name) == 0)
      return TRUE;
  return FALSE;
}

/* --set bodies.NAME.PARAM stores PARAM with the body model's parameters because the scene
 * does not know the schemas; here, where they are known, a name only the mapping declares
 * moves to the mapping's parameters. */
static void
split_body_params (const CwbBodyDesc *desc, const CwbPluginDesc *model,
                   const CwbPluginDesc *mapping, GPtrArray *model_params,
                   GPtrArray *mapping_params)
{
  for (guint i = 0; desc->model_params != NULL && i < desc->model_params->len; i++)
    {
      CwbSceneParam *p = g_ptr_array_index (desc->model_params, i);
      gboolean to_mapping = !spec_has (model, p->name) && spec_has (mapping, p->name);
      g_ptr_array_add (to_mapping ? mapping_params : model_params, p);
    }
  for (guint i = 0; desc->mapping_params != NULL && i < desc->mapping_params->len; i++)
    g_ptr_array_add (mapping_params, g_ptr_array_index (desc->mapping_params, i));
}

static void
body_destroy (CwbWorldBody *b)
{
  if (b->mapping_self != NULL)
    b->mapping->destroy (b->mapping_self);
  if (b->model_self != NULL)
    b->model->destroy (b->model_self);
  cwb_param_binding_free (b->model_params);
  cwb_param_binding_free (b->mapping_params);
  cwb_mesh_free (b->mesh);
  g_free (b->name);
}

/* A body's mesh file import reports as the plugins do (host services' progress), so that a
 * large file shows how far it got and a cancel (the GUI's Cancel, Ctrl-C) stops the build. */
typedef struct MeshImport {
  CwbWorld *world;
  const char *body;
} MeshImport;

static gboolean
mesh_import_progress (const char *what, double fraction, void *data)
{
  const MeshImport *import = data;
  g_autofree char *text = g_strdup_printf ("body '%s': %s", import->body, what);
  return import->world->services.progress (import->world, text, fraction);
}

static gboolean
body_build (CwbWorld *world, const CwbScene *scene, const CwbBodyDesc *desc, CwbWorldBody *b,
            CwbGeometry *geometry, GError **error)
{
  g_autofree char *field = g_strdup_printf ("bodies.%s", desc->name);
  set_being_made (world, "body '%s'", desc->name);
  b->name = g_strdup (desc->name);
  b->friction = desc->friction;

  g_autofree char *model_field = g_strdup_printf ("%s.model", field);
  g_autofree char *mapping_field = g_strdup_printf ("%s.mapping", field);
  b->model_desc = find_plugin (world->registry, CWB_PLUGIN_BODY_MODEL, desc->model,
                               &desc->model_loc, model_field, error);
  if (b->model_desc == NULL)
    return FALSE;
  b->mapping_desc = find_plugin (world->registry, CWB_PLUGIN_MAPPING, desc->mapping,
                                 &desc->mapping_loc, mapping_field, error);
  if (b->mapping_desc == NULL)
    return FALSE;
  b->model = b->model_desc->vtable;
  b->mapping = b->mapping_desc->vtable;

  g_autoptr (GPtrArray) model_params = g_ptr_array_new ();
  g_autoptr (GPtrArray) mapping_params = g_ptr_array_new ();
  split_body_params (desc, b->model_desc, b->mapping_desc, model_params, mapping_params);
  g_autofree char *mp_field = g_strdup_printf ("%s.model_params", field);
  g_autofree char *pp_field = g_strdup_printf ("%s.mapping_params", field);
  b->model_params = cwb_param_binding_new (b->model_desc->params, b->model_desc->n_params,
                                           model_params, mp_field, error);
  if (b->model_params == NULL)
    return FALSE;
  b->mapping_params = cwb_param_binding_new (b->mapping_desc->params,
                                             b->mapping_desc->n_params, mapping_params,
                                             pp_field, error);
  if (b->mapping_params == NULL)
    return FALSE;

  g_autofree char *scene_dir = scene->path != NULL ? g_path_get_dirname (scene->path)
                                                   : g_get_current_dir ();
  MeshImport import = { world, desc->name };
  CwbMeshProgress progress = { mesh_import_progress, &import };
  b->mesh = cwb_mesh_from_shape_with_progress (&desc->shape, scene_dir, &progress, error);
  if (b->mesh == NULL)
    return FALSE;

  CwbSurfaceMesh surface;
  cwb_mesh_as_surface (b->mesh, &surface);
  CwbBodyCreateInfo info = {
    .struct_size = sizeof info,
    .name = desc->name,
    .params = &b->model_params->set,
    .surface = &surface,
    .density = desc->density,
    .fixed = desc->fixed,
    .dt = world->h,
  };
  memcpy (info.position, desc->position, sizeof info.position);
  memcpy (info.orientation, desc->orientation, sizeof info.orientation);
  memcpy (info.linear_velocity, desc->linear_velocity, sizeof info.linear_velocity);
  memcpy (info.angular_velocity, desc->angular_velocity, sizeof info.angular_velocity);
  GError *plugin_error = NULL;
  b->model_self = b->model->create (&info, &world->services, &plugin_error);
  if (!plugin_created (world, b->model_self, plugin_error, &desc->loc, field, error))
    return FALSE;

  CwbBodyInfo body_info = { .struct_size = sizeof body_info };
  b->model->get_info (b->model_self, &body_info);
  b->slot = (CwbBodySlot){
    .nq = body_info.nq, .nv = body_info.nv,
    .q_offset = world->nq, .v_offset = world->nv,
    .fixed = body_info.fixed, .mass = body_info.mass,
  };
  world->nq += body_info.nq;
  world->nv += body_info.nv;

  CwbMappingCreateInfo map_info = {
    .struct_size = sizeof map_info,
    .name = desc->name,
    .params = &b->mapping_params->set,
    .body = &body_info,
  };
  b->mapping_self = b->mapping->create (&map_info, &world->services, &plugin_error);
  if (!plugin_created (world, b->mapping_self, plugin_error, &desc->loc, field, error))
    return FALSE;
  CwbGeometryLayout layout = { .struct_size = sizeof layout };
  b->mapping->get_layout (b->mapping_self, &layout);
  *geometry = (CwbGeometry){
    .struct_size = sizeof (CwbGeometry),
    .kind = layout.kind,
    .n_points = layout.n_points,
    .positions = g_new0 (double, 3 * MAX (layout.n_points, 1)),
    .velocities = g_new0 (double, 3 * MAX (layout.n_points, 1)),
    .triangles = layout.triangles,
    .n_triangles = layout.n_triangles,
    .closed = layout.closed,
    .radii = layout.radii,
    .masses = layout.masses,
  };
  return TRUE;
}

/* ---- contact model and solver -------------------------------------------------------- */

/* The scene section of a kind's parameters, the prefix of their messages' fields. */
static const char *
plugin_section (CwbPluginKind kind)
{
  return kind == CWB_PLUGIN_CONTACT_MODEL ? "contact" : "solver";
}

static CwbWorldPlugin *
plugin_slot (CwbWorld *world, CwbPluginKind kind)
{
  return kind == CWB_PLUGIN_CONTACT_MODEL ? &world->contact : &world->solver;
}

static void
plugin_destroy (CwbWorldPlugin *p)
{
  if (p->self != NULL)
    {
      if (p->desc->kind == CWB_PLUGIN_CONTACT_MODEL)
        ((const CwbContactModelVTable *) p->desc->vtable)->destroy (p->self);
      else
        ((const CwbSolverVTable *) p->desc->vtable)->destroy (p->self);
    }
  cwb_param_binding_free (p->params);
  memset (p, 0, sizeof *p);
}

/* Nothing of a contact model's contacts outlives it, nor a state left behind: the set and
 * inspection are cleared and H is rebuilt from the next detection. */
static void
contacts_reset (CwbWorld *world)
{
  cwb_contact_set_clear (&world->contacts);
  cwb_inspection_clear (&world->inspection);
  world->dof_rows_valid = FALSE;
  cwb_contact_blocks_invalidate (world->contact_blocks);
}

/* ---- pairing a contact model with a solver (ABI 1.9) ------------------------------------- */

/* What a contact model instance returns (CwbContactOutput bits); 0 when it does not say. */
static uint32_t
model_outputs (const CwbPluginDesc *desc, void *self)
{
  const CwbContactModelVTable *vt = desc->vtable;
  if (!CWB_STRUCT_HAS (vt, CwbContactModelVTable, outputs) || vt->outputs == NULL)
    return 0;
  return vt->outputs (self);
}

/* What a solver solves; 0 when it does not say. */
static uint32_t
solver_solves (const CwbPluginDesc *desc)
{
  const CwbSolverVTable *vt = desc->vtable;
  return CWB_STRUCT_HAS (vt, CwbSolverVTable, solves) ? vt->solves : 0;
}

uint32_t
cwb_world_solver_solves (const CwbWorld *world)
{
  return world->solver.desc != NULL ? solver_solves (world->solver.desc) : 0;
}

gboolean
cwb_world_solver_forces_implicit (const CwbWorld *world)
{
  if (world->solver.desc == NULL)
    return FALSE;
  const CwbSolverVTable *vt = world->solver.desc->vtable;
  return CWB_STRUCT_HAS (vt, CwbSolverVTable, contact_forces_implicit)
         && vt->contact_forces_implicit != NULL && vt->contact_forces_implicit (world->solver.self);
}

static void
append_outputs (GString *out, uint32_t bits)
{
  const char *names[] = { "constraint rows", "penalty forces" };
  gboolean first = TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    if (bits & (1u << k))
      {
        g_string_append_printf (out, "%s%s", first ? "" : " and ", names[k]);
        first = FALSE;
      }
}

/* Tells the solver what the contact model now declares (ABI 1.19), where it listens. */
static void
tell_solver_outputs (CwbWorld *world)
{
  if (world->solver.desc == NULL)
    return;
  const CwbSolverVTable *vt = world->solver.desc->vtable;
  if (!CWB_STRUCT_HAS (vt, CwbSolverVTable, contact_outputs_changed)
      || vt->contact_outputs_changed == NULL)
    return;
  uint32_t outputs = world->contact.desc != NULL
                       ? model_outputs (world->contact.desc, world->contact.self)
                       : 0;
  vt->contact_outputs_changed (world->solver.self, outputs);
}

/* FALSE, with a message located at `loc` and `field`, when the solver does not solve all that
 * the contact model returns; TRUE when either is absent or does not declare it. */
static gboolean
check_pair (CwbWorld *world, const CwbPluginDesc *contact, void *contact_self,
            const CwbPluginDesc *solver, const CwbSourceLoc *loc, const char *field,
            GError **error)
{
  if (contact == NULL || solver == NULL)
    return TRUE;
  /* The hint (CWB_CONTACT_OUTPUT_IMPLICIT_FORCES) is not something to solve. */
  uint32_t outputs = model_outputs (contact, contact_self) & ~CWB_CONTACT_OUTPUT_IMPLICIT_FORCES;
  uint32_t solves = solver_solves (solver);
  if (outputs == 0 || solves == 0 || (outputs & ~solves) == 0)
    return TRUE;
  g_autoptr (GString) what = g_string_new (NULL);
  append_outputs (what, outputs & ~solves);
  g_autoptr (GString) able = g_string_new (NULL);
  g_autoptr (GPtrArray) solvers = cwb_registry_list (world->registry, CWB_PLUGIN_SOLVER);
  for (guint i = 0; i < solvers->len; i++)
    {
      const CwbPluginDesc *d = solvers->pdata[i];
      if ((solver_solves (d) & outputs) == outputs)
        g_string_append_printf (able, "%s%s", able->len > 0 ? ", " : "", d->name);
    }
  cwb_scene_set_error (error, CWB_SCENE_ERROR_REFUSED, loc, field,
                       "the solver '%s' cannot solve the %s that the contact model '%s' "
                       "returns; %s%s", solver->name, what->str, contact->name,
                       able->len > 0 ? "solvers that can: " : "no loaded solver can",
                       able->str);
  return FALSE;
}

/* Creates (and for a contact model attaches, at the current state) an instance of `desc`
 * reading `binding`; NULL with the plugin's own reason when it refuses. */
static void *
plugin_create (CwbWorld *world, const CwbPluginDesc *desc, const CwbParamBinding *binding,
               GError **plugin_error)
{
  if (desc->kind == CWB_PLUGIN_SOLVER)
    {
      const CwbSolverVTable *vt = desc->vtable;
      CwbSolverCreateInfo info = { .struct_size = sizeof info, .params = &binding->set };
      return vt->create (&info, &world->services, plugin_error);
    }
  const CwbContactModelVTable *vt = desc->vtable;
  CwbContactModelCreateInfo info = { .struct_size = sizeof info, .params = &binding->set };
  void *self = vt->create (&info, &world->services, plugin_error);
  if (self == NULL)
    return NULL;
  cwb_world_map_geometries (world, world->q, world->v);
  memcpy (world->q_detect, world->q, world->nq * sizeof (double));
  world->q_detect_serial++;
  CwbContactQuery query = cwb_world_contact_query (world, CWB_CONTACT_PASS_VELOCITY);
  if (!vt->attach (self, &query, plugin_error))
    {
      vt->destroy (self);
      return NULL;
    }
  return self;
}

/* Puts a new instance of `desc` over `binding` (taken) in place of the world's contact model
 * or solver: the one path of loading, swapping, re-creating after a parameter edit and
 * restoring. When the plugin refuses, the previous instance stays and the error, located at
 * `loc` and `field`, says why. A new contact model starts from an empty contact set. */
static gboolean
plugin_replace (CwbWorld *world, const CwbPluginDesc *desc, CwbParamBinding *binding,
                const CwbSourceLoc *loc, const char *field, GError **error)
{
  g_autoptr (CwbParamBinding) owned = binding;
  GError *plugin_error = NULL;
  world->edits++;
  set_being_made (world, "%s '%s'", cwb_plugin_kind_name (desc->kind),
                                  desc->name);
  void *self = plugin_create (world, desc, owned, &plugin_error);
  gboolean ok = plugin_created (world, self, plugin_error, loc, field, error);
  set_being_made (world, NULL);
  /* A pair that cannot run together is refused now, not at the first step. */
  if (ok && desc->kind == CWB_PLUGIN_CONTACT_MODEL)
    ok = check_pair (world, desc, self, world->solver.desc, loc, field, error);
  else if (ok)
    ok = check_pair (world, world->contact.desc, world->contact.self, desc, loc, field, error);
  if (!ok)
    {
      CwbWorldPlugin made = { .desc = desc, .self = self };
      plugin_destroy (&made);
      return FALSE;
    }
  CwbWorldPlugin *slot = plugin_slot (world, desc->kind);
  plugin_destroy (slot);
  *slot = (CwbWorldPlugin){ .desc = desc, .self = self, .params = g_steal_pointer (&owned) };
  if (desc->kind == CWB_PLUGIN_CONTACT_MODEL)
    contacts_reset (world);
  tell_solver_outputs (world);
  return TRUE;
}

/* Finds the plugin `name` of `kind`, binds `params` to its schema and puts an instance in
 * place (plugin_replace); on any failure the previous plugin stays. */
static gboolean
plugin_instantiate (CwbWorld *world, CwbPluginKind kind, const char *name, GPtrArray *params,
                    const CwbSourceLoc *loc, GError **error)
{
  const char *section = plugin_section (kind);
  g_autofree char *name_field = g_strdup_printf ("%s.%s", section,
                                                 kind == CWB_PLUGIN_CONTACT_MODEL ? "model" : "name");
  const CwbPluginDesc *desc = find_plugin (world->registry, kind, name, loc, name_field, error);
  if (desc == NULL)
    return FALSE;
  CwbParamBinding *binding = cwb_param_binding_new (desc->params, desc->n_params, params,
                                                    section, error);
  if (binding == NULL)
    return FALSE;
  return plugin_replace (world, desc, binding, loc, name_field, error);
}

gboolean
cwb_world_set_contact_model (CwbWorld *world, const char *name, GPtrArray *params,
                             GError **error)
{
  CwbSourceLoc loc = { g_intern_static_string ("contact model"), 0, 0 };
  if (name != NULL)
    return plugin_instantiate (world, CWB_PLUGIN_CONTACT_MODEL, name, params, &loc, error);
  plugin_destroy (&world->contact);
  contacts_reset (world);
  world->edits++;
  return TRUE;
}

gboolean
cwb_world_set_solver (CwbWorld *world, const char *name, GPtrArray *params, GError **error)
{
  CwbSourceLoc loc = { g_intern_static_string ("solver"), 0, 0 };
  return plugin_instantiate (world, CWB_PLUGIN_SOLVER, name, params, &loc, error);
}

gboolean
cwb_world_set_pair (CwbWorld *world, const char *contact_model, GPtrArray *contact_params,
                    const char *solver, GPtrArray *solver_params, GPtrArray *old_solver_params,
                    GError **error)
{
  g_return_val_if_fail (solver != NULL, FALSE);
  gboolean new_model = g_strcmp0 (contact_model, cwb_world_contact_model_name (world)) != 0;
  gboolean new_solver = strcmp (solver, cwb_world_solver_name (world)) != 0;
  if (!new_solver)
    return !new_model || cwb_world_set_contact_model (world, contact_model, contact_params,
                                                      error);
  if (!new_model)
    return cwb_world_set_solver (world, solver, solver_params, error);
  /* Both change: the new pair is what must fit. The contact model goes first, unless the old
   * solver refuses it; then the solver first, and back if the new model still refuses. When
   * the new solver cannot take the old model either, the model's refusal is the one named:
   * the solver's is about the old model, which the user is leaving (a cloth's open surface
   * refused by eulerian, not predictor-corrector's refusal of proximity's rows). */
  g_autoptr (GError) model_error = NULL;
  if (cwb_world_set_contact_model (world, contact_model, contact_params, &model_error))
    return cwb_world_set_solver (world, solver, solver_params, error);
  g_autofree char *old_solver = g_strdup (cwb_world_solver_name (world));
  if (!cwb_world_set_solver (world, solver, solver_params, NULL))
    {
      g_propagate_error (error, g_steal_pointer (&model_error));
      return FALSE;
    }
  if (cwb_world_set_contact_model (world, contact_model, contact_params, error))
    return TRUE;
  cwb_world_set_solver (world, old_solver, old_solver_params, NULL);
  return FALSE;
}

gboolean
cwb_world_renew_contact_model (CwbWorld *world, GError **error)
{
  if (world->contact.desc == NULL)
    {
      contacts_reset (world);
      return TRUE;
    }
  CwbSourceLoc loc = { g_intern_static_string ("contact model"), 0, 0 };
  return plugin_replace (world, world->contact.desc,
                         cwb_param_binding_copy (world->contact.params), &loc, "contact.model",
                         error);
}

gboolean
cwb_world_set_plugin_params (CwbWorld *world, CwbPluginKind kind, GPtrArray *params,
                             GError **error)
{
  g_return_val_if_fail (kind == CWB_PLUGIN_CONTACT_MODEL || kind == CWB_PLUGIN_SOLVER, FALSE);
  CwbWorldPlugin *slot = plugin_slot (world, kind);
  if (slot->desc == NULL)
    {
      g_set_error_literal (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT,
                           "contact parameters: the world has no contact model");
      return FALSE;
    }
  const char *section = plugin_section (kind);
  CwbParamBinding *binding = cwb_param_binding_new (slot->desc->params, slot->desc->n_params,
                                                    params, section, error);
  if (binding == NULL)
    return FALSE;

  /* params_changed is part of the ABI 1.0 vtables, which the registry checks every loaded
   * plugin's vtable reaches (registry.c), so it is read without CWB_STRUCT_HAS. */
  void (*params_changed) (void *self, const CwbParamSet *params)
    = kind == CWB_PLUGIN_CONTACT_MODEL
        ? ((const CwbContactModelVTable *) slot->desc->vtable)->params_changed
        : ((const CwbSolverVTable *) slot->desc->vtable)->params_changed;
  if (params_changed == NULL)
    {
      CwbSourceLoc loc = { g_intern_static_string ("parameter edit"), 0, 0 };
      return plugin_replace (world, slot->desc, binding, &loc, section, error);
    }
  /* The plugin may keep pointers into the set it was given until this call replaces it, so
   * the old binding is freed only after. */
  params_changed (slot->self, &binding->set);
  /* A contact model's outputs may follow its parameters: an edit that leaves the solver
   * unable to solve them is taken back. */
  if (kind == CWB_PLUGIN_CONTACT_MODEL)
    {
      CwbSourceLoc loc = { g_intern_static_string ("parameter edit"), 0, 0 };
      if (!check_pair (world, slot->desc, slot->self, world->solver.desc, &loc, section, error))
        {
          params_changed (slot->self, &slot->params->set);
          cwb_param_binding_free (binding);
          return FALSE;
        }
    }
  world->edits++;
  cwb_param_binding_free (slot->params);
  slot->params = binding;
  if (kind == CWB_PLUGIN_CONTACT_MODEL)
    tell_solver_outputs (world);
  return TRUE;
}

/* ---- life cycle ---------------------------------------------------------------------- */

/* World serials come from one process-wide counter. It is an id generator, not simulation
 * state: worlds are built on whichever thread (the GUI's, the simulation worker's), so the
 * increment is atomic, and a 64-bit count never wraps in practice. */
static guint64
next_serial (void)
{
  static atomic_uint_fast64_t counter = 0;
  return (guint64) atomic_fetch_add (&counter, 1) + 1;
}

CwbWorld *
cwb_world_new (const CwbScene *scene, CwbRegistry *registry, GError **error)
{
  return cwb_world_new_full (scene, registry, NULL, error);
}

/* The most DOFs a point of a points-apart body may list: a particle's three, with room. */
#define POINTS_APART_DOFS_MAX 8

/* Whether a force at one of body b's points moves that point alone (CwbContactQuery.
 * points_apart, ABI 1.21): the model answers a diagonal compliance at q and the mapping lists
 * each point's DOFs, no DOF belonging to two points. */
static gboolean
points_apart (const CwbWorldBody *b, const double *q, double h)
{
  if (!CWB_STRUCT_HAS (b->model, CwbBodyModelVTable, compliance_diagonal)
      || b->model->compliance_diagonal == NULL
      || !CWB_STRUCT_HAS (b->mapping, CwbMappingVTable, point_dofs)
      || b->mapping->point_dofs == NULL || b->slot.nv == 0)
    return FALSE;
  g_autofree double *diagonal = g_new (double, b->slot.nv);
  if (!b->model->compliance_diagonal (b->model_self, q, h, CWB_COMPLIANCE_EXACT, diagonal))
    return FALSE;
  CwbGeometryLayout layout = { .struct_size = sizeof layout };
  b->mapping->get_layout (b->mapping_self, &layout);
  g_autofree gboolean *owned = g_new0 (gboolean, b->slot.nv);
  for (uint32_t point = 0; point < layout.n_points; point++)
    {
      uint32_t dofs[POINTS_APART_DOFS_MAX];
      size_t n = b->mapping->point_dofs (b->mapping_self, point, dofs, POINTS_APART_DOFS_MAX);
      if (n > POINTS_APART_DOFS_MAX)
        return FALSE;
      for (size_t k = 0; k < n; k++)
        {
          if (dofs[k] >= b->slot.nv || owned[dofs[k]])
            return FALSE;
          owned[dofs[k]] = TRUE;
        }
    }
  return TRUE;
}

/* The part of cwb_world_new_full that makes the plugins, between setting the build options
 * and clearing them. */
static gboolean
world_build (CwbWorld *world, const CwbScene *scene, GError **error)
{
  size_t n = scene->bodies->len;
  world->geometries = g_new0 (CwbGeometry, MAX (n, 1));
  world->friction = g_new0 (double, MAX (n, 1));
  for (size_t i = 0; i < n; i++)
    {
      const CwbBodyDesc *desc = g_ptr_array_index (scene->bodies, i);
      CwbWorldBody body = { 0 };
      gboolean ok = body_build (world, scene, desc, &body, &world->geometries[i], error);
      set_being_made (world, NULL);
      g_array_append_val (world->bodies, body);   /* kept even on failure, for cleanup */
      if (!ok)
        return FALSE;
      world->geometries[i].body = (uint32_t) i;
      world->friction[i] = desc->friction;
    }

  world->slots = g_new0 (CwbBodySlot, MAX (n, 1));
  world->body_fixed = g_new0 (gboolean, MAX (n, 1));
  world->body_mass = g_new0 (double, MAX (n, 1));
  world->points_apart = g_new0 (gboolean, MAX (n, 1));
  world->q = g_new0 (double, MAX (world->nq, 1));
  world->v = g_new0 (double, MAX (world->nv, 1));
  world->q_prev = g_new0 (double, MAX (world->nq, 1));
  world->v_prev = g_new0 (double, MAX (world->nv, 1));
  world->q_detect = g_new0 (double, MAX (world->nq, 1));
  for (size_t i = 0; i < n; i++)
    {
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, i);
      world->slots[i] = b->slot;
      world->body_fixed[i] = b->slot.fixed;
      b->model->init_state (b->model_self, world->q + b->slot.q_offset,
                            world->v + b->slot.v_offset);
      CwbBodySummary summary = { .struct_size = sizeof summary };
      cwb_world_body_summary (world, i, &summary);
      world->body_mass[i] = summary.mass;
      world->points_apart[i] = points_apart (b, world->q + b->slot.q_offset, scene->dt);
    }
  memcpy (world->q_detect, world->q, world->nq * sizeof (double));
  world->q_detect_serial++;

  if (scene->contact_model == NULL && scene->contact_params != NULL
      && scene->contact_params->len > 0)
    {
      /* Nothing would read them: say so rather than run as if they applied. */
      const CwbSceneParam *param = scene->contact_params->pdata[0];
      g_autofree char *field = g_strconcat ("contact.", param->name, NULL);
      cwb_scene_set_error (error, CWB_SCENE_ERROR_MISSING, &param->key_loc, field,
                           "a contact parameter, but the scene names no contact model "
                           "(expected contact.model as well)");
      return FALSE;
    }
  if (scene->contact_model != NULL
      && !plugin_instantiate (world, CWB_PLUGIN_CONTACT_MODEL, scene->contact_model,
                              scene->contact_params, &scene->contact_model_loc, error))
    return FALSE;
  const char *solver = scene->solver != NULL ? scene->solver : CWB_SCENE_DEFAULT_SOLVER;
  return plugin_instantiate (world, CWB_PLUGIN_SOLVER, solver, scene->solver_params,
                             &scene->solver_loc, error);
}

CwbWorld *
cwb_world_new_full (const CwbScene *scene, CwbRegistry *registry,
                    const CwbWorldBuildOptions *options, GError **error)
{
  g_autoptr (CwbWorld) world = g_new0 (CwbWorld, 1);
  world->serial = next_serial ();
  world->registry = registry;
  cwb_world_init_services (world);
  world->h = scene->dt;
  cwb_v3_copy (world->gravity, scene->gravity);
  world->bodies = g_array_new (FALSE, TRUE, sizeof (CwbWorldBody));
  cwb_contact_set_init (&world->contacts);
  cwb_inspection_init (&world->inspection);
  world->dof_row_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  world->dof_entries = g_array_new (FALSE, FALSE, sizeof (CwbDofEntry));
  world->scratch_weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  world->contact_blocks = cwb_contact_blocks_new ();
  world->scratch_r = g_array_new (FALSE, FALSE, sizeof (double));
  world->residual_history = g_array_new (FALSE, FALSE, sizeof (double));
  world->solver_derived = g_array_new (FALSE, TRUE, sizeof (CwbDerivedParam));
  world->grab_dofs = g_array_new (FALSE, TRUE, sizeof (double));
  world->grab_f_ext = g_array_new (FALSE, TRUE, sizeof (double));
  world->grab_scratch = g_array_new (FALSE, TRUE, sizeof (double));
  world->summaries = g_array_new (FALSE, TRUE, sizeof (CwbBodySummary));
  cwb_energy_guard_init (&world->energy_guard);
  cwb_response_scratch_init (&world->response);

  /* The caller's sink and cancellable serve this build only: a plugin that keeps the
   * services table and reports later (during a step) reaches no sink that may be gone. */
  cwb_world_set_build_options (world, options);
  world->building = TRUE;
  gboolean ok = world_build (world, scene, error);
  world->building = FALSE;
  cwb_world_set_build_options (world, NULL);
  if (!ok)
    return NULL;

  cwb_world_init_step_context (world);
  cwb_world_map_geometries (world, world->q, world->v);
  world->stats = (CwbStepStats){
    .intersection_volume = NAN, .max_penetration = NAN,
    .solver_iterations = -1, .solver_residual = NAN, .solver_converged = -1,
    .stabilization_passes = -1, .stabilization_violation = NAN,
  };
  return g_steal_pointer (&world);
}

void
cwb_world_free (CwbWorld *world)
{
  if (world == NULL)
    return;
  plugin_destroy (&world->solver);
  plugin_destroy (&world->contact);
  for (guint i = 0; world->bodies != NULL && i < world->bodies->len; i++)
    {
      body_destroy (&g_array_index (world->bodies, CwbWorldBody, i));
      g_free (world->geometries[i].positions);
      g_free (world->geometries[i].velocities);
    }
  g_clear_pointer (&world->bodies, g_array_unref);
  cwb_contact_set_destroy (&world->contacts);
  cwb_inspection_destroy (&world->inspection);
  g_clear_pointer (&world->dof_row_start, g_array_unref);
  g_clear_pointer (&world->dof_entries, g_array_unref);
  g_clear_pointer (&world->scratch_weights, g_array_unref);
  g_clear_pointer (&world->contact_blocks, cwb_contact_blocks_free);
  g_clear_pointer (&world->scratch_r, g_array_unref);
  g_clear_pointer (&world->residual_history, g_array_unref);
  g_clear_pointer (&world->solver_derived, g_array_unref);
  g_clear_pointer (&world->grab_dofs, g_array_unref);
  g_clear_pointer (&world->grab_f_ext, g_array_unref);
  g_clear_pointer (&world->grab_scratch, g_array_unref);
  g_clear_pointer (&world->summaries, g_array_unref);
  cwb_energy_guard_clear (&world->energy_guard);
  cwb_response_scratch_destroy (&world->response);
  g_free (world->geometries);
  g_free (world->friction);
  g_free (world->body_fixed);
  g_free (world->body_mass);
  g_free (world->points_apart);
  g_free (world->slots);
  g_free (world->q);
  g_free (world->v);
  g_free (world->q_prev);
  g_free (world->v_prev);
  g_free (world->q_detect);
  g_free (world->cache_dir);
  g_free (world->being_made);
  cwb_world_set_build_options (world, NULL);
  g_free (world);
}

/* ---- stepping ------------------------------------------------------------------------ */

/* Index of the first non-finite entry of a, or n when all are finite. */
static size_t
first_non_finite (const double *a, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (!isfinite (a[k]))
      return k;
  return n;
}

static const char *
body_owning (const CwbWorld *world, size_t index, gboolean velocity)
{
  for (guint i = 0; i < world->bodies->len; i++)
    {
      const CwbBodySlot *s = &world->slots[i];
      size_t off = velocity ? s->v_offset : s->q_offset, len = velocity ? s->nv : s->nq;
      if (index >= off && index < off + len)
        return g_array_index (world->bodies, CwbWorldBody, i).name;
    }
  return "?";
}

/* No body moves faster than light: a state beyond that bound (or with a kinetic energy that
 * overflows) came from a step that diverged, whatever its numbers still being finite. */
#define SPEED_OF_LIGHT 299792458.0

/* The energy guard over the summaries first_unphysical_body took (energy_guard.h): the
 * body of largest kinetic energy when the step ended above the budget, -1 otherwise. */
static int
energy_grew (CwbWorld *world, char **why)
{
  size_t n = world->bodies->len;
  /* The sizes (a pass over every mapped point) only when the budget starts over, not every
   * step. */
  g_autofree double *sizes = NULL;
  if (cwb_energy_guard_starting (&world->energy_guard, world->edits, n))
    {
      sizes = g_new0 (double, MAX (n, 1));
      for (size_t i = 0; i < n; i++)
        sizes[i] = cwb_geometry_size (&world->geometries[i]);
    }
  double spring = 0, point[3];
  if (world->grabbing && cwb_world_grab_point (world, point))
    {
      double d[3];
      cwb_v3_sub (d, world->grab.target, point);
      spring = 0.5 * world->grab.stiffness * cwb_v3_dot (d, d);
    }
  int body = -1;
  if (cwb_energy_guard_check (&world->energy_guard,
                              (const CwbBodySummary *) (void *) world->summaries->data, sizes,
                              world->body_fixed, n, world->gravity, spring, world->edits, &body,
                              why))
    return -1;
  world->energy_guard.started = FALSE;   /* the state goes back: start again from it */
  return body;
}

/* The first body whose state is beyond physical bounds, with why in *why; -1 when none,
 * with the bodies' total kinetic energy in *kinetic_energy (the step's statistic, taken
 * here from the same summaries). A body's mean speed sqrt (2 KE / m) counts its spin and its
 * deformation too. */
static int
first_unphysical_body (CwbWorld *world, char **why, double *kinetic_energy)
{
  *kinetic_energy = 0;
  g_array_set_size (world->summaries, world->bodies->len);
  for (guint i = 0; i < world->bodies->len; i++)
    {
      CwbBodySummary *sum = &g_array_index (world->summaries, CwbBodySummary, i);
      cwb_world_body_summary (world, i, sum);
      if (!isfinite (sum->kinetic_energy))
        {
          *why = g_strdup ("a kinetic energy too large to represent");
          return (int) i;
        }
      double speed = cwb_v3_norm (sum->linear_velocity);
      double mean_speed = sum->mass > 0 ? sqrt (2 * sum->kinetic_energy / sum->mass) : 0;
      if (speed > SPEED_OF_LIGHT || mean_speed > SPEED_OF_LIGHT)
        {
          *why = g_strdup_printf ("a speed of %.3g m/s (mean over its mass: %.3g m/s), beyond "
                                  "the speed of light", speed, mean_speed);
          return (int) i;
        }
      *kinetic_energy += sum->kinetic_energy;
    }
  return energy_grew (world, why);
}

static void
restore_state (CwbWorld *world)
{
  memcpy (world->q, world->q_prev, world->nq * sizeof (double));
  memcpy (world->v, world->v_prev, world->nv * sizeof (double));
  cwb_world_map_geometries (world, world->q, world->v);
}

static void
update_stats (CwbWorld *world, gint64 total_ns, double kinetic_energy)
{
  CwbStepStats *s = &world->stats;
  gint64 others = 0;
  for (int p = 0; p < CWB_PHASE_CONSTRAINT_SOLVER; p++)
    others += world->phase_ns[p];
  /* What the solver spent outside the host-timed phases: assembly, solve, corrections. */
  world->phase_ns[CWB_PHASE_CONSTRAINT_SOLVER] = MAX (total_ns - others, 0);
  for (int p = 0; p < CWB_PHASE_COUNT; p++)
    s->phase_ms[p] = world->phase_ns[p] * 1e-6;
  s->compliance_ms = world->compliance_ns * 1e-6;
  s->time = world->time;
  s->contacts = world->contacts.frames->len;
  /* After a post-stabilization, the end-of-step measure ctx_report_stabilization stored. */
  if (s->stabilization_passes < 0)
    {
      s->intersection_volume = world->contacts.intersection_volume;
      s->max_penetration = world->contacts.max_penetration;
    }
  s->kinetic_energy = kinetic_energy;
}

gboolean
cwb_world_step (CwbWorld *world, GError **error)
{
  memcpy (world->q_prev, world->q, world->nq * sizeof (double));
  memcpy (world->v_prev, world->v, world->nv * sizeof (double));
  memset (world->phase_ns, 0, sizeof world->phase_ns);
  world->compliance_ns = 0;
  world->stats.solver_iterations = -1;
  world->stats.solver_residual = NAN;
  world->stats.solver_converged = -1;
  world->stats.stabilization_passes = -1;
  world->stats.stabilization_violation = NAN;
  g_array_set_size (world->residual_history, 0);
  g_array_set_size (world->solver_derived, 0);
  world->contacts_fresh = FALSE;

  CwbStepContext *ctx = &world->ctx;
  ctx->h = world->h;
  ctx->time = world->time;
  cwb_v3_copy (ctx->gravity, world->gravity);
  ctx->n_bodies = world->bodies->len;
  ctx->bodies = world->slots;
  ctx->nq = world->nq;
  ctx->nv = world->nv;
  ctx->q = world->q;
  ctx->v = world->v;
  ctx->edits = world->edits;

  cwb_world_grab_begin_step (world);
  const CwbSolverVTable *solver = world->solver.desc->vtable;
  GError *solver_error = NULL;
  gint64 t0 = cwb_clock_ns ();
  gboolean ok = solver->step (world->solver.self, ctx, &solver_error);
  gint64 total = cwb_clock_ns () - t0;
  world->grab_in_step = FALSE;
  if (!ok)
    {
      restore_state (world);
      g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_STEP_FAILED,
                   "step %" G_GUINT64_FORMAT " (t = %g s) failed in solver '%s': %s; the last "
                   "good state is kept", world->steps + 1, world->time, world->solver.desc->name,
                   solver_error != NULL ? solver_error->message : "no reason given");
      g_clear_error (&solver_error);
      return FALSE;
    }
  size_t bad_q = first_non_finite (world->q, world->nq);
  size_t bad_v = first_non_finite (world->v, world->nv);
  if (bad_q < world->nq || bad_v < world->nv)
    {
      const char *who = bad_q < world->nq ? body_owning (world, bad_q, FALSE)
                                          : body_owning (world, bad_v, TRUE);
      restore_state (world);
      g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP,
                   "numerical blow-up at step %" G_GUINT64_FORMAT " (t = %g s): body '%s' has a "
                   "non-finite %s; the last good state is kept (try a smaller world.dt)",
                   world->steps + 1, world->time, who, bad_q < world->nq ? "position" : "velocity");
      return FALSE;
    }
  g_autofree char *why = NULL;
  double kinetic_energy;
  int unphysical = first_unphysical_body (world, &why, &kinetic_energy);
  if (unphysical >= 0)
    {
      const char *who = g_array_index (world->bodies, CwbWorldBody, unphysical).name;
      restore_state (world);
      g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP,
                   "numerical blow-up at step %" G_GUINT64_FORMAT " (t = %g s): body '%s' has "
                   "%s; the last good state is kept (try a smaller world.dt)",
                   world->steps + 1, world->time, who, why);
      return FALSE;
    }

  world->time += world->h;
  world->steps++;
  if (!world->contacts_fresh)
    {
      /* The solver did not detect this step: the old contacts are stale. */
      cwb_contact_set_clear (&world->contacts);
      cwb_inspection_clear (&world->inspection);
    }
  cwb_contact_results_fill (&world->contacts, world->geometries);
  if (world->contact.desc != NULL)
    {
      const CwbContactModelVTable *vt = world->contact.desc->vtable;
      if (vt->feedback != NULL)
        vt->feedback (world->contact.self, &world->contacts);
    }
  cwb_world_map_geometries (world, world->q, world->v);
  update_stats (world, total, kinetic_energy);
  return TRUE;
}

/* ---- accessors ----------------------------------------------------------------------- */

guint64 cwb_world_serial (const CwbWorld *world) { return world->serial; }
double cwb_world_time (const CwbWorld *world) { return world->time; }
double cwb_world_dt (const CwbWorld *world) { return world->h; }
guint64 cwb_world_step_count (const CwbWorld *world) { return world->steps; }
const CwbStepStats *cwb_world_last_stats (const CwbWorld *world) { return &world->stats; }
size_t cwb_world_n_bodies (const CwbWorld *world) { return world->bodies->len; }
const CwbContactSet *cwb_world_contacts (const CwbWorld *world) { return &world->contacts; }
gboolean cwb_world_contacts_detected (const CwbWorld *world) { return world->contacts_fresh; }
const CwbInspection *cwb_world_inspection (const CwbWorld *world) { return &world->inspection; }

const GArray *
cwb_world_solver_derived (const CwbWorld *world)
{
  return world->solver_derived;
}

const double *
cwb_world_residual_history (const CwbWorld *world, size_t *n)
{
  *n = world->residual_history->len;
  return (const double *) world->residual_history->data;
}

const char *
cwb_world_body_name (const CwbWorld *world, size_t body)
{
  return g_array_index (world->bodies, CwbWorldBody, body).name;
}

const char *
cwb_world_body_model_name (const CwbWorld *world, size_t body)
{
  return g_array_index (world->bodies, CwbWorldBody, body).model_desc->name;
}

void
cwb_world_body_summary (const CwbWorld *world, size_t body, CwbBodySummary *out)
{
  cwb_world_body_summary_at (world, body, world->q, world->v, out);
}

void
cwb_world_body_summary_at (const CwbWorld *world, size_t body, const double *q,
                           const double *v, CwbBodySummary *out)
{
  const CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
  memset (out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  b->model->summary (b->model_self, q + b->slot.q_offset, v + b->slot.v_offset, out);
}

const CwbBodySlot *
cwb_world_body_slot (const CwbWorld *world, size_t body)
{
  return &world->slots[body];
}

double *
cwb_world_q (CwbWorld *world, size_t *nq)
{
  if (nq != NULL)
    *nq = world->nq;
  return world->q;
}

double *
cwb_world_v (CwbWorld *world, size_t *nv)
{
  if (nv != NULL)
    *nv = world->nv;
  return world->v;
}

const char *
cwb_world_contact_model_name (const CwbWorld *world)
{
  return world->contact.desc != NULL ? world->contact.desc->name : NULL;
}

const char *
cwb_world_solver_name (const CwbWorld *world)
{
  return world->solver.desc->name;
}

const CwbGeometry *
cwb_world_geometries (const CwbWorld *world, size_t *n)
{
  if (n != NULL)
    *n = world->bodies->len;
  return world->geometries;
}

/* FNV-1a over the bytes of one array. */
static guint64
fnv1a (guint64 hash, const void *data, size_t size)
{
  const guint8 *bytes = data;
  for (size_t k = 0; k < size; k++)
    {
      hash ^= bytes[k];
      hash *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return hash;
}

guint64
cwb_state_hash (const double *q, size_t nq, const double *v, size_t nv)
{
  guint64 hash = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  hash = fnv1a (hash, q, nq * sizeof (double));
  return fnv1a (hash, v, nv * sizeof (double));
}

guint64
cwb_world_state_hash (const CwbWorld *world)
{
  return cwb_state_hash (world->q, world->nq, world->v, world->nv);
}
