/* Scene description life cycle, source locations, error messages, typed node getters and
 * plugin parameter arrays. Parsing and saving are in scene_yaml.c, decoding in
 * scene_decode.c, --set overrides in scene_set.c. */
#include "scene.h"
#include "scene_private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (cwb-scene-error-quark, cwb_scene_error)

char *
cwb_source_loc_format (const CwbSourceLoc *loc)
{
  if (loc == NULL || loc->file == NULL)
    return g_strdup ("<unknown>");
  if (loc->line <= 0)
    return g_strdup (loc->file);
  return g_strdup_printf ("%s:%d:%d", loc->file, loc->line, loc->column);
}

void
cwb_scene_set_error (GError **error, CwbSceneError code, const CwbSourceLoc *loc,
                     const char *field, const char *format, ...)
{
  if (error == NULL)
    return;
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_autofree char *where = cwb_source_loc_format (loc);
  g_set_error (error, CWB_SCENE_ERROR, code, "%s: %s: %s", where, field != NULL ? field : "?",
               what);
}

/* ---- nodes ---------------------------------------------------------------------------- */

static CwbSceneNode *
node_alloc (CwbNodeKind kind, const CwbSourceLoc *loc)
{
  CwbSceneNode *node = g_new0 (CwbSceneNode, 1);
  node->kind = kind;
  if (loc != NULL)
    node->loc = *loc;
  if (node->loc.file != NULL)
    node->loc.file = g_intern_string (node->loc.file);
  if (kind != CWB_NODE_SCALAR)
    node->items = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_node_free);
  return node;
}

CwbSceneNode *
cwb_scene_node_new_scalar (const char *text, const CwbSourceLoc *loc)
{
  CwbSceneNode *node = node_alloc (CWB_NODE_SCALAR, loc);
  node->scalar = g_strdup (text != NULL ? text : "");
  return node;
}

CwbSceneNode *
cwb_scene_node_new_container (CwbNodeKind kind, const CwbSourceLoc *loc)
{
  g_return_val_if_fail (kind == CWB_NODE_SEQUENCE || kind == CWB_NODE_MAPPING, NULL);
  return node_alloc (kind, loc);
}

CwbSceneNode *
cwb_scene_node_copy (const CwbSceneNode *node)
{
  if (node == NULL)
    return NULL;
  CwbSceneNode *copy = node_alloc (node->kind, &node->loc);
  copy->scalar = g_strdup (node->scalar);
  copy->quoted = node->quoted;
  for (guint i = 0; node->items != NULL && i < node->items->len; i++)
    g_ptr_array_add (copy->items, cwb_scene_node_copy (node->items->pdata[i]));
  return copy;
}

void
cwb_scene_node_free (CwbSceneNode *node)
{
  if (node == NULL)
    return;
  g_free (node->scalar);
  if (node->items != NULL)
    g_ptr_array_unref (node->items);
  g_free (node);
}

/* Whether a plain scalar with this text reads as text (not as null, a number or a boolean):
 * then quoting it changes nothing. The emitter quotes such text where YAML cannot hold it
 * plain (": " inside a list, leading spaces), and a scene read back from it must still be
 * the same scene. */
static gboolean
plain_reads_as_text (const char *text)
{
  CwbSceneNode plain = { .kind = CWB_NODE_SCALAR, .scalar = (char *) text };
  double number;
  gboolean flag;
  return !cwb_scene_node_is_null (&plain) && !cwb_scene_node_get_double (&plain, NULL, &number, NULL)
         && !cwb_scene_node_get_bool (&plain, NULL, &flag, NULL);
}

gboolean
cwb_scene_node_equal (const CwbSceneNode *a, const CwbSceneNode *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->kind != b->kind)
    return FALSE;
  if (a->kind == CWB_NODE_SCALAR)
    {
      /* Nulls are equal whatever their spelling ("", "~", "null"). */
      gboolean a_null = cwb_scene_node_is_null (a), b_null = cwb_scene_node_is_null (b);
      if (a_null || b_null)
        return a_null && b_null;
      return g_strcmp0 (a->scalar, b->scalar) == 0
             && (a->quoted == b->quoted || plain_reads_as_text (a->scalar));
    }
  if (a->items->len != b->items->len)
    return FALSE;
  for (guint i = 0; i < a->items->len; i++)
    if (!cwb_scene_node_equal (a->items->pdata[i], b->items->pdata[i]))
      return FALSE;
  return TRUE;
}

static const char *
node_kind_word (const CwbSceneNode *node)
{
  switch (node->kind)
    {
    case CWB_NODE_SEQUENCE: return "a list";
    case CWB_NODE_MAPPING: return "a mapping";
    case CWB_NODE_SCALAR: default: return node->quoted ? "a quoted string" : "a scalar";
    }
}

gboolean
cwb_scene_node_get_double (const CwbSceneNode *node, const char *field, double *out,
                           GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind != CWB_NODE_SCALAR || node->quoted)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                           "expected a number, got %s", node_kind_word (node));
      return FALSE;
    }
  const char *text = node->scalar;
  char *end = NULL;
  double value = g_ascii_strtod (text, &end);
  /* Whole text consumed, something consumed, and finite: "inf", "nan", "1e999" and "0x1p3"
   * are not scene numbers (g_ascii_strtod accepts hexadecimal, YAML floats do not). */
  if (end == text || *end != '\0' || !isfinite (value) || strpbrk (text, "xX") != NULL)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                           "expected a finite number, got '%s'", text);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

gboolean
cwb_scene_node_get_int (const CwbSceneNode *node, const char *field, gint64 *out,
                        GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  gint64 value = 0;
  if (node->kind != CWB_NODE_SCALAR || node->quoted
      || !g_ascii_string_to_signed (node->scalar, 10, G_MININT64, G_MAXINT64, &value, NULL))
    {
      if (node->kind == CWB_NODE_SCALAR && !node->quoted)
        cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                             "expected an integer, got '%s'", node->scalar);
      else
        cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                             "expected an integer, got %s", node_kind_word (node));
      return FALSE;
    }
  *out = value;
  return TRUE;
}

gboolean
cwb_scene_node_get_bool (const CwbSceneNode *node, const char *field, gboolean *out,
                         GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind == CWB_NODE_SCALAR && !node->quoted)
    {
      if (strcmp (node->scalar, "true") == 0)
        return *out = TRUE, TRUE;
      if (strcmp (node->scalar, "false") == 0)
        return *out = FALSE, TRUE;
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                           "expected true or false, got '%s'", node->scalar);
      return FALSE;
    }
  cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                       "expected true or false, got %s", node_kind_word (node));
  return FALSE;
}

gboolean
cwb_scene_node_get_string (const CwbSceneNode *node, const char *field, const char **out,
                           GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind != CWB_NODE_SCALAR)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                           "expected a name, got %s", node_kind_word (node));
      return FALSE;
    }
  *out = node->scalar;
  return TRUE;
}

gboolean
cwb_scene_node_get_vec (const CwbSceneNode *node, const char *field, double *out, size_t n,
                        GError **error)
{
  g_return_val_if_fail (node != NULL, FALSE);
  if (node->kind != CWB_NODE_SEQUENCE || node->items->len != n)
    {
      if (node->kind == CWB_NODE_SEQUENCE)
        cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                             "expected a list of %zu numbers, got %u", n, node->items->len);
      else
        cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                             "expected a list of %zu numbers, got %s", n,
                             node_kind_word (node));
      return FALSE;
    }
  double values[16];
  g_return_val_if_fail (n <= G_N_ELEMENTS (values), FALSE);
  for (size_t i = 0; i < n; i++)
    {
      g_autofree char *item = g_strdup_printf ("%s[%zu]", field, i);
      if (!cwb_scene_node_get_double (node->items->pdata[i], item, &values[i], error))
        return FALSE;
    }
  memcpy (out, values, n * sizeof (double));
  return TRUE;
}

/* ---- parameters ----------------------------------------------------------------------- */

void
cwb_scene_param_free (CwbSceneParam *param)
{
  if (param == NULL)
    return;
  g_free (param->name);
  cwb_scene_node_free (param->value);
  g_free (param);
}

GPtrArray *
cwb_scene_params_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_param_free);
}

static gboolean
params_index (GPtrArray *params, const char *name, guint *index)
{
  for (guint i = 0; params != NULL && i < params->len; i++)
    if (strcmp (((CwbSceneParam *) params->pdata[i])->name, name) == 0)
      return *index = i, TRUE;
  return FALSE;
}

CwbSceneParam *
cwb_scene_params_find (GPtrArray *params, const char *name)
{
  guint i;
  return params_index (params, name, &i) ? params->pdata[i] : NULL;
}

void
cwb_scene_params_set (GPtrArray *params, const char *name, CwbSceneNode *value,
                      const CwbSourceLoc *loc)
{
  g_return_if_fail (params != NULL && name != NULL && value != NULL);
  CwbSceneParam *param = cwb_scene_params_find (params, name);
  if (param == NULL)
    {
      param = g_new0 (CwbSceneParam, 1);
      param->name = g_strdup (name);
      g_ptr_array_add (params, param);
    }
  cwb_scene_node_free (param->value);
  param->value = value;
  if (loc != NULL)
    param->key_loc = *loc;
  if (param->key_loc.file != NULL)
    param->key_loc.file = g_intern_string (param->key_loc.file);
}

gboolean
cwb_scene_params_move (GPtrArray *from, GPtrArray *to, const char *name)
{
  guint i;
  if (!params_index (from, name, &i))
    return FALSE;
  CwbSceneParam *param = g_ptr_array_steal_index (from, i);
  guint j;
  if (params_index (to, name, &j))
    g_ptr_array_remove_index (to, j);
  g_ptr_array_add (to, param);
  return TRUE;
}

static gboolean
params_equal (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const CwbSceneParam *pa = a->pdata[i], *pb = b->pdata[i];
      if (strcmp (pa->name, pb->name) != 0 || !cwb_scene_node_equal (pa->value, pb->value))
        return FALSE;
    }
  return TRUE;
}

/* ---- bodies and scenes ---------------------------------------------------------------- */

/* Bodies' material defaults, as docs/scene-format.md states them. */
#define DEFAULT_DENSITY 1000.0   /* kg/m^3, water */
#define DEFAULT_FRICTION 0.5

CwbBodyDesc *
cwb_scene_body_new (void)
{
  CwbBodyDesc *body = g_new0 (CwbBodyDesc, 1);
  body->model = g_strdup ("rigid");
  body->mapping = g_strdup ("rigid");
  body->shape.kind = CWB_SHAPE_BOX;
  body->shape.size[0] = body->shape.size[1] = body->shape.size[2] = 1.0;
  body->shape.scale = 1.0;
  body->orientation[0] = 1.0;
  body->density = DEFAULT_DENSITY;
  body->friction = DEFAULT_FRICTION;
  body->model_params = cwb_scene_params_new ();
  body->mapping_params = cwb_scene_params_new ();
  return body;
}

void
cwb_scene_body_free (CwbBodyDesc *body)
{
  if (body == NULL)
    return;
  g_free (body->name);
  g_free (body->model);
  g_free (body->mapping);
  g_free (body->shape.mesh_file);
  g_free (body->shape.field);
  g_ptr_array_unref (body->model_params);
  g_ptr_array_unref (body->mapping_params);
  g_free (body);
}

static GPtrArray *
params_copy (GPtrArray *params)
{
  GPtrArray *copy = cwb_scene_params_new ();
  for (guint i = 0; i < params->len; i++)
    {
      const CwbSceneParam *param = params->pdata[i];
      CwbSceneParam *p = g_new0 (CwbSceneParam, 1);
      p->name = g_strdup (param->name);
      p->value = cwb_scene_node_copy (param->value);
      p->key_loc = param->key_loc;   /* file is interned: shared, not copied */
      g_ptr_array_add (copy, p);
    }
  return copy;
}

CwbBodyDesc *
cwb_scene_body_copy (const CwbBodyDesc *body)
{
  g_return_val_if_fail (body != NULL, NULL);
  CwbBodyDesc *copy = g_new (CwbBodyDesc, 1);
  *copy = *body;   /* numbers and locations; every pointer is replaced below */
  copy->name = g_strdup (body->name);
  copy->model = g_strdup (body->model);
  copy->mapping = g_strdup (body->mapping);
  copy->shape.mesh_file = g_strdup (body->shape.mesh_file);
  copy->shape.field = g_strdup (body->shape.field);
  copy->model_params = params_copy (body->model_params);
  copy->mapping_params = params_copy (body->mapping_params);
  return copy;
}

CwbScene *
cwb_scene_new (void)
{
  CwbScene *scene = g_new0 (CwbScene, 1);
  scene->dt = 0.01;
  scene->gravity[2] = -9.81;
  scene->contact_params = cwb_scene_params_new ();
  scene->solver_params = cwb_scene_params_new ();
  scene->contact_kept = cwb_scene_params_new ();
  scene->solver_kept = cwb_scene_params_new ();
  scene->bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_body_free);
  return scene;
}

void
cwb_scene_free (CwbScene *scene)
{
  if (scene == NULL)
    return;
  g_free (scene->path);
  g_free (scene->contact_model);
  g_free (scene->solver);
  g_ptr_array_unref (scene->contact_params);
  g_ptr_array_unref (scene->solver_params);
  g_ptr_array_unref (scene->contact_kept);
  g_ptr_array_unref (scene->solver_kept);
  g_ptr_array_unref (scene->bodies);
  g_free (scene);
}

CwbScene *
cwb_scene_copy (const CwbScene *scene)
{
  g_return_val_if_fail (scene != NULL, NULL);
  CwbScene *copy = g_new (CwbScene, 1);
  *copy = *scene;   /* numbers and locations; every pointer is replaced below */
  copy->path = g_strdup (scene->path);
  copy->contact_model = g_strdup (scene->contact_model);
  copy->solver = g_strdup (scene->solver);
  copy->contact_params = params_copy (scene->contact_params);
  copy->solver_params = params_copy (scene->solver_params);
  copy->contact_kept = params_copy (scene->contact_kept);
  copy->solver_kept = params_copy (scene->solver_kept);
  copy->bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_body_free);
  for (guint i = 0; i < scene->bodies->len; i++)
    g_ptr_array_add (copy->bodies, cwb_scene_body_copy (scene->bodies->pdata[i]));
  return copy;
}

CwbBodyDesc *
cwb_scene_find_body (const CwbScene *scene, const char *name)
{
  for (guint i = 0; i < scene->bodies->len; i++)
    {
      CwbBodyDesc *body = scene->bodies->pdata[i];
      if (g_strcmp0 (body->name, name) == 0)
        return body;
    }
  return NULL;
}

/* Bit-identical comparison: round trips must be lossless, not merely close. */
static gboolean
doubles_identical (const double *a, const double *b, size_t n)
{
  return memcmp (a, b, n * sizeof (double)) == 0;
}

static gboolean
shape_equal (const CwbShapeDesc *a, const CwbShapeDesc *b)
{
  return a->kind == b->kind && doubles_identical (a->size, b->size, 3)
         && doubles_identical (&a->radius, &b->radius, 1)
         && doubles_identical (&a->height, &b->height, 1)
         && doubles_identical (&a->major_radius, &b->major_radius, 1)
         && doubles_identical (&a->minor_radius, &b->minor_radius, 1)
         && a->resolution == b->resolution && g_strcmp0 (a->mesh_file, b->mesh_file) == 0
         && doubles_identical (&a->scale, &b->scale, 1);
}

static gboolean
body_equal (const CwbBodyDesc *a, const CwbBodyDesc *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && g_strcmp0 (a->model, b->model) == 0
         && g_strcmp0 (a->mapping, b->mapping) == 0 && shape_equal (&a->shape, &b->shape)
         && doubles_identical (a->position, b->position, 3)
         && doubles_identical (a->orientation, b->orientation, 4)
         && doubles_identical (a->linear_velocity, b->linear_velocity, 3)
         && doubles_identical (a->angular_velocity, b->angular_velocity, 3)
         && doubles_identical (&a->density, &b->density, 1)
         && doubles_identical (&a->friction, &b->friction, 1) && a->fixed == b->fixed
         && params_equal (a->model_params, b->model_params)
         && params_equal (a->mapping_params, b->mapping_params);
}

gboolean
cwb_scene_equal (const CwbScene *a, const CwbScene *b)
{
  if (!doubles_identical (&a->dt, &b->dt, 1) || !doubles_identical (a->gravity, b->gravity, 3)
      || g_strcmp0 (a->contact_model, b->contact_model) != 0
      || g_strcmp0 (a->solver, b->solver) != 0
      || !params_equal (a->contact_params, b->contact_params)
      || !params_equal (a->solver_params, b->solver_params)
      || !params_equal (a->contact_kept, b->contact_kept)
      || !params_equal (a->solver_kept, b->solver_kept)
      || a->bodies->len != b->bodies->len)
    return FALSE;
  for (guint i = 0; i < a->bodies->len; i++)
    if (!body_equal (a->bodies->pdata[i], b->bodies->pdata[i]))
      return FALSE;
  return TRUE;
}
