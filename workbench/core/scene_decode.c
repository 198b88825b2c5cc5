/* Decoding a scene's node tree into CwbScene: the fixed structure (world, contact, solver,
 * bodies) with its types, ranges and defaults. Plugin parameters stay nodes; world.c checks
 * them against their schemas. Every message is "FILE:LINE:COL: FIELD: what, expected what". */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "mesh.h"
#include "scene.h"
#include "scene_private.h"

/* Segments around a circle when a shape gives no resolution: a 24-gon has 98.9 % of the
 * circle's area (n sin(2 pi / n) / (2 pi)), plenty for contact tests at interactive cost. */
#define SHAPE_DEFAULT_RESOLUTION 24
/* Grid cells along a rectangle's longer side when it gives no resolution (the format's
 * default, docs/scene-format.md): a square of 16 x 16 cells, 512 triangles, 289 vertices. */
#define RECTANGLE_DEFAULT_RESOLUTION 16
/* Tessellations above this are almost surely typos (4096^2 / 2 triangles for a sphere would
 * take gigabytes), so they are rejected rather than attempted. */
#define SHAPE_MAX_RESOLUTION 4096
/* Orientations shorter than this are rejected rather than normalised: such a quaternion is
 * a typo ([0, 0, 0, 0]) or rounding noise, and its direction carries no intent. */
#define QUAT_MIN_NORM 1e-6
/* Orientations whose norm is this close to 1 are kept bit for bit: dividing by a norm of
 * 1 +- a few ulps would change the last bits on every load and break lossless round trips. */
#define QUAT_UNIT_TOLERANCE (4 * DBL_EPSILON)

static char *
field_join (const char *prefix, const char *key)
{
  return prefix != NULL && prefix[0] != '\0' ? g_strconcat (prefix, ".", key, NULL)
                                             : g_strdup (key);
}

/* The value of key in a mapping node, or NULL. */
static const CwbSceneNode *
mapping_get (const CwbSceneNode *map, const char *key, const CwbSceneNode **key_node)
{
  for (guint i = 0; i + 1 < map->items->len; i += 2)
    {
      const CwbSceneNode *k = map->items->pdata[i];
      if (strcmp (k->scalar, key) == 0)
        {
          if (key_node != NULL)
            *key_node = k;
          return map->items->pdata[i + 1];
        }
    }
  return NULL;
}

/* A mapping, or a null value standing for an empty one (`contact:` with nothing under it). */
static gboolean
expect_mapping (const CwbSceneNode *node, const char *field, gboolean *empty, GError **error)
{
  *empty = FALSE;
  if (node->kind == CWB_NODE_MAPPING)
    return TRUE;
  if (cwb_scene_node_is_null (node))
    return *empty = TRUE, TRUE;
  cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                       "expected a mapping of fields, got %s",
                       node->kind == CWB_NODE_SEQUENCE ? "a list" : "a scalar");
  return FALSE;
}

static gboolean
key_allowed (const char *key, const char *const *allowed)
{
  for (size_t i = 0; allowed[i] != NULL; i++)
    if (strcmp (key, allowed[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
set_unknown_field (GError **error, const CwbSourceLoc *loc, const char *prefix,
                   const char *key, const char *const *allowed, const char *context)
{
  g_autofree char *field = field_join (prefix, key);
  g_autofree char *expected = g_strjoinv (", ", (char **) allowed);
  cwb_scene_set_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, loc, field,
                       "unknown field%s, expected one of %s", context, expected);
}

/* Every key of map is one of allowed (NULL-terminated). */
static gboolean
check_keys (const CwbSceneNode *map, const char *prefix, const char *const *allowed,
            GError **error)
{
  for (guint i = 0; i + 1 < map->items->len; i += 2)
    {
      const CwbSceneNode *key = map->items->pdata[i];
      if (!key_allowed (key->scalar, allowed))
        {
          set_unknown_field (error, &key->loc, prefix, key->scalar, allowed, "");
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
get_name (const CwbSceneNode *node, const char *field, char **out, GError **error)
{
  const char *text;
  if (!cwb_scene_node_get_string (node, field, &text, error))
    return FALSE;
  if (text[0] == '\0')
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, field,
                           "empty, expected a name");
      return FALSE;
    }
  g_free (*out);
  *out = g_strdup (text);
  return TRUE;
}

/* A number with value > min (or >= min when inclusive). */
static gboolean
get_bounded (const CwbSceneNode *node, const char *field, double min, gboolean inclusive,
             double *out, GError **error)
{
  double value;
  if (!cwb_scene_node_get_double (node, field, &value, error))
    return FALSE;
  if (inclusive ? !(value >= min) : !(value > min))
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, &node->loc, field,
                           "%s is out of range, expected a number %s %g", node->scalar,
                           inclusive ? ">=" : ">", min);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

static gboolean
params_decode (GPtrArray *params, const CwbSceneNode *map, gboolean skip_first_key,
               const char *skip_key, GError **error)
{
  for (guint i = 0; i + 1 < map->items->len; i += 2)
    {
      const CwbSceneNode *key = map->items->pdata[i];
      if (skip_first_key && strcmp (key->scalar, skip_key) == 0)
        continue;
      cwb_scene_params_set (params, key->scalar, cwb_scene_node_copy (map->items->pdata[i + 1]),
                            &key->loc);
    }
  return TRUE;
}

/* ---- shapes --------------------------------------------------------------------------- */

static const char *const shape_types[] = {
  [CWB_SHAPE_BOX] = "box", [CWB_SHAPE_SPHERE] = "sphere", [CWB_SHAPE_CYLINDER] = "cylinder",
  [CWB_SHAPE_CAPSULE] = "capsule", [CWB_SHAPE_TORUS] = "torus", [CWB_SHAPE_GROUND] = "ground",
  [CWB_SHAPE_MESH] = "mesh", [CWB_SHAPE_RECTANGLE] = "rectangle", NULL,
};

const char *
cwb_scene_shape_type_name (CwbShapeKind kind)
{
  g_return_val_if_fail ((size_t) kind < G_N_ELEMENTS (shape_types) - 1, "shape");
  return shape_types[kind];
}

static const char *const *
shape_fields (CwbShapeKind kind)
{
  static const char *const box[] = { "type", "size", NULL };
  static const char *const sphere[] = { "type", "radius", "resolution", NULL };
  static const char *const cylinder[] = { "type", "radius", "height", "resolution", NULL };
  static const char *const torus[] = { "type", "major_radius", "minor_radius", "resolution",
                                       NULL };
  static const char *const mesh[] = { "type", "file", "scale", NULL };
  static const char *const rectangle[] = { "type", "size", "resolution", NULL };
  switch (kind)
    {
    case CWB_SHAPE_RECTANGLE: return rectangle;
    case CWB_SHAPE_BOX: case CWB_SHAPE_GROUND: return box;
    case CWB_SHAPE_SPHERE: return sphere;
    case CWB_SHAPE_CYLINDER: case CWB_SHAPE_CAPSULE: return cylinder;
    case CWB_SHAPE_TORUS: return torus;
    case CWB_SHAPE_MESH: default: return mesh;
    }
}

/* Ground slab extents when none are given: 20 m square, 1 m thick. */
static const double ground_default_size[3] = { 20, 20, 1 };

static void
shape_reset (CwbShapeDesc *shape, CwbShapeKind kind)
{
  shape->kind = kind;
  memset (shape->size, 0, sizeof shape->size);
  shape->radius = shape->height = shape->major_radius = shape->minor_radius = 0;
  shape->resolution = kind == CWB_SHAPE_SPHERE || kind == CWB_SHAPE_CYLINDER
                      || kind == CWB_SHAPE_CAPSULE || kind == CWB_SHAPE_TORUS
                      ? SHAPE_DEFAULT_RESOLUTION
                      : kind == CWB_SHAPE_RECTANGLE ? RECTANGLE_DEFAULT_RESOLUTION : 0;
  g_clear_pointer (&shape->mesh_file, g_free);
  shape->scale = 1.0;
  if (kind == CWB_SHAPE_GROUND)
    memcpy (shape->size, ground_default_size, sizeof shape->size);
}

gboolean
cwb_scene_decode_shape_field (CwbShapeDesc *shape, const char *key, const CwbSceneNode *value,
                              const char *field, GError **error)
{
  if (strcmp (key, "type") == 0)
    {
      const char *type;
      if (!cwb_scene_node_get_string (value, field, &type, error))
        return FALSE;
      for (int k = 0; shape_types[k] != NULL; k++)
        if (strcmp (type, shape_types[k]) == 0)
          {
            shape_reset (shape, (CwbShapeKind) k);
            return TRUE;
          }
      g_autofree char *expected = g_strjoinv (", ", (char **) shape_types);
      cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, &value->loc, field,
                           "unknown shape type '%s', expected one of %s", type, expected);
      return FALSE;
    }
  if (!key_allowed (key, shape_fields (shape->kind)))
    {
      g_autofree char *expected = g_strjoinv (", ", (char **) shape_fields (shape->kind));
      cwb_scene_set_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, &value->loc, field,
                           "unknown field for a %s, expected one of %s",
                           shape_types[shape->kind], expected);
      return FALSE;
    }
  if (strcmp (key, "size") == 0)
    {
      /* A rectangle is flat: two extents, and a third (a thickness) is refused by name
       * rather than dropped, so that a box's size pasted in is not silently flattened. */
      int n = shape->kind == CWB_SHAPE_RECTANGLE ? 2 : 3;
      double size[3] = { 0, 0, 0 };
      if (n == 2 && value->kind == CWB_NODE_SEQUENCE && value->items->len != 2)
        {
          guint len = value->items->len;
          cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &value->loc, field,
                               "expected [w, h], the rectangle's extents along x and y, got %u "
                               "value%s%s", len, len == 1 ? "" : "s",
                               len == 3 ? " (a rectangle is flat: it has no thickness)" : "");
          return FALSE;
        }
      if (!cwb_scene_node_get_vec (value, field, size, (size_t) n, error))
        return FALSE;
      for (int i = 0; i < n; i++)
        if (!(size[i] > 0))
          {
            cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, &value->loc, field,
                                 "size[%d] = %g is out of range, expected extents > 0", i,
                                 size[i]);
            return FALSE;
          }
      memcpy (shape->size, size, sizeof size);
      return TRUE;
    }
  if (strcmp (key, "radius") == 0)
    return get_bounded (value, field, 0, FALSE, &shape->radius, error);
  if (strcmp (key, "height") == 0)   /* a capsule of height 0 is a sphere: allowed */
    return get_bounded (value, field, 0, shape->kind == CWB_SHAPE_CAPSULE, &shape->height,
                        error);
  if (strcmp (key, "major_radius") == 0)
    return get_bounded (value, field, 0, FALSE, &shape->major_radius, error);
  if (strcmp (key, "minor_radius") == 0)
    return get_bounded (value, field, 0, FALSE, &shape->minor_radius, error);
  if (strcmp (key, "scale") == 0)
    return get_bounded (value, field, 0, FALSE, &shape->scale, error);
  if (strcmp (key, "file") == 0)
    {
      if (!get_name (value, field, &shape->mesh_file, error))
        return FALSE;
      shape->file_loc = value->loc;
      return TRUE;
    }
  if (strcmp (key, "resolution") == 0)
    {
      gint64 n;
      if (!cwb_scene_node_get_int (value, field, &n, error))
        return FALSE;
      /* A rectangle's resolution counts grid cells, of which one is enough; a circle
       * needs at least a triangle's three segments. */
      gboolean grid = shape->kind == CWB_SHAPE_RECTANGLE;
      int min = grid ? 1 : 3;
      if (n < min || n > SHAPE_MAX_RESOLUTION)
        {
          cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, &value->loc, field,
                               "%" G_GINT64_FORMAT " is out of range, expected %d to %d %s", n,
                               min, SHAPE_MAX_RESOLUTION,
                               grid ? "grid cells along the rectangle's longer side"
                                    : "segments around a circle");
          return FALSE;
        }
      shape->resolution = (int) n;
      return TRUE;
    }
  g_assert_not_reached ();
}

static gboolean
shape_missing (GError **error, const CwbSourceLoc *loc, const char *field, const char *key,
               const char *expected)
{
  g_autofree char *f = field_join (field, key);
  cwb_scene_set_error (error, CWB_SCENE_ERROR_MISSING, loc, f, "missing, expected %s",
                       expected);
  return FALSE;
}

static gboolean
shape_fields_check (const CwbShapeDesc *s, const CwbSourceLoc *loc, const char *field,
                    GError **error)
{
  switch (s->kind)
    {
    case CWB_SHAPE_BOX:
      if (s->size[0] == 0)
        return shape_missing (error, loc, field, "size", "full extents [x, y, z] of the box");
      return TRUE;
    case CWB_SHAPE_GROUND:
      return TRUE;
    case CWB_SHAPE_RECTANGLE:
      if (s->size[0] == 0)
        return shape_missing (error, loc, field, "size",
                              "extents [w, h] of the rectangle along x and y");
      return TRUE;
    case CWB_SHAPE_SPHERE:
      if (s->radius == 0)
        return shape_missing (error, loc, field, "radius", "a radius > 0");
      return TRUE;
    case CWB_SHAPE_CYLINDER:
    case CWB_SHAPE_CAPSULE:
      if (s->radius == 0)
        return shape_missing (error, loc, field, "radius", "a radius > 0");
      if (s->kind == CWB_SHAPE_CYLINDER && s->height == 0)
        return shape_missing (error, loc, field, "height", "a height > 0");
      return TRUE;
    case CWB_SHAPE_TORUS:
      if (s->major_radius == 0)
        return shape_missing (error, loc, field, "major_radius", "a radius > 0");
      if (s->minor_radius == 0)
        return shape_missing (error, loc, field, "minor_radius", "a radius > 0");
      if (!(s->minor_radius < s->major_radius))
        {
          g_autofree char *f = field_join (field, "minor_radius");
          cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, loc, f,
                               "%g is out of range, expected less than major_radius %g (the "
                               "tube would cross the axis)", s->minor_radius, s->major_radius);
          return FALSE;
        }
      return TRUE;
    case CWB_SHAPE_MESH:
      if (s->mesh_file == NULL)
        return shape_missing (error, loc, field, "file",
                              "a mesh file (OBJ, PLY, STL) relative to the scene");
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

/* A primitive's triangles against the format's limit, counted before any is made (a torus
 * at resolution 4096 took 3.2 GB and 30 s to build); past it, the largest resolution that
 * fits is named. */
static gboolean
primitive_size_check (const CwbShapeDesc *s, const CwbSourceLoc *loc, const char *field,
                      GError **error)
{
  guint64 triangles = cwb_primitive_triangle_count (s);
  if (triangles <= CWB_SCENE_MAX_PRIMITIVE_TRIANGLES)
    return TRUE;
  /* The count grows with the resolution: bisect for the largest that fits. */
  CwbShapeDesc probe = *s;
  int lo = 3, hi = s->resolution;
  while (hi - lo > 1)
    {
      probe.resolution = lo + (hi - lo) / 2;
      if (cwb_primitive_triangle_count (&probe) <= CWB_SCENE_MAX_PRIMITIVE_TRIANGLES)
        lo = probe.resolution;
      else
        hi = probe.resolution;
    }
  g_autofree char *f = field_join (field, "resolution");
  cwb_scene_set_error (error, CWB_SCENE_ERROR_LIMIT, loc, f,
                       "%d makes %" G_GUINT64_FORMAT " triangles, more than the %d a primitive "
                       "may have (the scene format's limit); expected at most %d for this shape",
                       s->resolution, triangles, CWB_SCENE_MAX_PRIMITIVE_TRIANGLES, lo);
  return FALSE;
}

gboolean
cwb_scene_shape_check (const CwbShapeDesc *s, const CwbSourceLoc *loc, const char *field,
                       GError **error)
{
  return shape_fields_check (s, loc, field, error) && primitive_size_check (s, loc, field, error);
}

static gboolean
shape_decode (CwbShapeDesc *shape, const CwbSceneNode *node, const char *field, GError **error)
{
  gboolean empty;
  if (!expect_mapping (node, field, &empty, error))
    return FALSE;
  const CwbSceneNode *type = empty ? NULL : mapping_get (node, "type", NULL);
  if (type == NULL)
    return shape_missing (error, &node->loc, field, "type",
                          "one of box, sphere, cylinder, capsule, torus, ground, mesh, "
                          "rectangle");
  g_autofree char *type_field = field_join (field, "type");
  if (!cwb_scene_decode_shape_field (shape, "type", type, type_field, error))
    return FALSE;
  shape->loc = node->loc;
  g_free (shape->field);
  shape->field = g_strdup (field);
  for (guint i = 0; i + 1 < node->items->len; i += 2)
    {
      const CwbSceneNode *key = node->items->pdata[i];
      if (strcmp (key->scalar, "type") == 0)
        continue;
      if (!key_allowed (key->scalar, shape_fields (shape->kind)))
        {
          g_autofree char *context = g_strdup_printf (" for a %s", shape_types[shape->kind]);
          set_unknown_field (error, &key->loc, field, key->scalar,
                             shape_fields (shape->kind), context);
          return FALSE;
        }
      g_autofree char *f = field_join (field, key->scalar);
      if (!cwb_scene_decode_shape_field (shape, key->scalar, node->items->pdata[i + 1], f,
                                         error))
        return FALSE;
    }
  return cwb_scene_shape_check (shape, &node->loc, field, error);
}

/* ---- bodies --------------------------------------------------------------------------- */

static const char *const body_leaves[] = {
  "model", "mapping", "fixed", "position", "orientation", "linear_velocity",
  "angular_velocity", "density", "friction", NULL,
};

gboolean
cwb_scene_body_leaf_known (const char *leaf)
{
  return key_allowed (leaf, body_leaves);
}

static gboolean
orientation_decode (double q[4], const CwbSceneNode *value, const char *field, GError **error)
{
  double r[4];
  if (!cwb_scene_node_get_vec (value, field, r, 4, error))
    return FALSE;
  double norm = sqrt (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
  if (norm < QUAT_MIN_NORM)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, &value->loc, field,
                           "quaternion of norm %g, expected a rotation [w, x, y, z] of norm 1 "
                           "(others are normalised)", norm);
      return FALSE;
    }
  if (fabs (norm - 1) > QUAT_UNIT_TOLERANCE)
    cwb_quat_normalize (r);
  memcpy (q, r, sizeof r);
  return TRUE;
}

gboolean
cwb_scene_decode_body_leaf (CwbBodyDesc *body, const char *leaf, const CwbSceneNode *value,
                            const char *field, GError **error)
{
  if (strcmp (leaf, "model") == 0)
    {
      if (!get_name (value, field, &body->model, error))
        return FALSE;
      body->model_loc = value->loc;
      return TRUE;
    }
  if (strcmp (leaf, "mapping") == 0)
    {
      if (!get_name (value, field, &body->mapping, error))
        return FALSE;
      body->mapping_loc = value->loc;
      return TRUE;
    }
  if (strcmp (leaf, "fixed") == 0)
    return cwb_scene_node_get_bool (value, field, &body->fixed, error);
  if (strcmp (leaf, "position") == 0)
    return cwb_scene_node_get_vec (value, field, body->position, 3, error);
  if (strcmp (leaf, "orientation") == 0)
    return orientation_decode (body->orientation, value, field, error);
  if (strcmp (leaf, "linear_velocity") == 0)
    return cwb_scene_node_get_vec (value, field, body->linear_velocity, 3, error);
  if (strcmp (leaf, "angular_velocity") == 0)
    return cwb_scene_node_get_vec (value, field, body->angular_velocity, 3, error);
  /* A massless dynamic body cannot be integrated, so density must be positive; friction 0 is
   * a frictionless material. */
  if (strcmp (leaf, "density") == 0)
    return get_bounded (value, field, 0, FALSE, &body->density, error);
  if (strcmp (leaf, "friction") == 0)
    return get_bounded (value, field, 0, TRUE, &body->friction, error);
  g_return_val_if_reached (FALSE);
}

/* A block of leaves: pose {position, orientation} and the like. `names` maps the block's
 * keys to leaf names, pairwise, NULL-terminated. */
static gboolean
leaf_block_decode (CwbBodyDesc *body, const CwbSceneNode *node, const char *field,
                   const char *const *keys, const char *const *leaves, GError **error)
{
  gboolean empty;
  if (!expect_mapping (node, field, &empty, error))
    return FALSE;
  if (empty)
    return TRUE;
  if (!check_keys (node, field, keys, error))
    return FALSE;
  for (guint i = 0; i + 1 < node->items->len; i += 2)
    {
      const CwbSceneNode *key = node->items->pdata[i];
      size_t k = 0;
      while (strcmp (keys[k], key->scalar) != 0)
        k++;
      g_autofree char *f = field_join (field, key->scalar);
      if (!cwb_scene_decode_body_leaf (body, leaves[k], node->items->pdata[i + 1], f, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
body_params_decode (GPtrArray *params, const CwbSceneNode *node, const char *field,
                    GError **error)
{
  gboolean empty;
  if (!expect_mapping (node, field, &empty, error))
    return FALSE;
  return empty || params_decode (params, node, FALSE, NULL, error);
}

static const char *const body_keys[] = {
  "name", "model", "mapping", "shape", "pose", "velocity", "material", "fixed",
  "model_params", "mapping_params", NULL,
};

static gboolean
body_decode (CwbScene *scene, const CwbSceneNode *node, guint index, GError **error)
{
  g_autofree char *at = g_strdup_printf ("bodies[%u]", index);
  if (node->kind != CWB_NODE_MAPPING)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, at,
                           "expected a body (a mapping with name, shape, ...), got %s",
                           node->kind == CWB_NODE_SEQUENCE ? "a list" : "a scalar");
      return FALSE;
    }
  g_autoptr (CwbBodyDesc) body = cwb_scene_body_new ();
  body->loc = body->model_loc = body->mapping_loc = node->loc;

  /* The name first: every later message names the body by it. */
  const CwbSceneNode *name = mapping_get (node, "name", NULL);
  g_autofree char *name_field = field_join (at, "name");
  if (name == NULL)
    {
      cwb_scene_set_error (error, CWB_SCENE_ERROR_MISSING, &node->loc, name_field,
                           "missing, expected a body name");
      return FALSE;
    }
  if (!get_name (name, name_field, &body->name, error))
    return FALSE;
  const CwbBodyDesc *other = cwb_scene_find_body (scene, body->name);
  if (other != NULL)
    {
      g_autofree char *first = cwb_source_loc_format (&other->loc);
      cwb_scene_set_error (error, CWB_SCENE_ERROR_DUPLICATE, &name->loc, name_field,
                           "duplicate body name '%s', expected a unique name (first at %s)",
                           body->name, first);
      return FALSE;
    }
  g_autofree char *prefix = g_strconcat ("bodies.", body->name, NULL);
  if (!check_keys (node, prefix, body_keys, error))
    return FALSE;

  static const char *const pose_keys[] = { "position", "orientation", NULL };
  static const char *const velocity_keys[] = { "linear", "angular", NULL };
  static const char *const velocity_leaves[] = { "linear_velocity", "angular_velocity", NULL };
  static const char *const material_keys[] = { "density", "friction", NULL };

  gboolean have_shape = FALSE;
  for (guint i = 0; i + 1 < node->items->len; i += 2)
    {
      const char *key = ((const CwbSceneNode *) node->items->pdata[i])->scalar;
      const CwbSceneNode *value = node->items->pdata[i + 1];
      g_autofree char *f = field_join (prefix, key);
      gboolean ok = TRUE;
      if (strcmp (key, "name") == 0)
        continue;
      else if (strcmp (key, "shape") == 0)
        ok = have_shape = shape_decode (&body->shape, value, f, error);
      else if (strcmp (key, "pose") == 0)
        ok = leaf_block_decode (body, value, f, pose_keys, pose_keys, error);
      else if (strcmp (key, "velocity") == 0)
        ok = leaf_block_decode (body, value, f, velocity_keys, velocity_leaves, error);
      else if (strcmp (key, "material") == 0)
        ok = leaf_block_decode (body, value, f, material_keys, material_keys, error);
      else if (strcmp (key, "model_params") == 0)
        ok = body_params_decode (body->model_params, value, f, error);
      else if (strcmp (key, "mapping_params") == 0)
        ok = body_params_decode (body->mapping_params, value, f, error);
      else
        ok = cwb_scene_decode_body_leaf (body, key, value, f, error);
      if (!ok)
        return FALSE;
    }
  if (!have_shape)
    {
      g_autofree char *f = field_join (prefix, "shape");
      cwb_scene_set_error (error, CWB_SCENE_ERROR_MISSING, &node->loc, f,
                           "missing, expected a shape such as {type: box, size: [1, 1, 1]}");
      return FALSE;
    }
  g_ptr_array_add (scene->bodies, g_steal_pointer (&body));
  return TRUE;
}

/* ---- sections ------------------------------------------------------------------------- */

static gboolean
world_decode (CwbScene *scene, const CwbSceneNode *node, GError **error)
{
  static const char *const keys[] = { "dt", "gravity", NULL };
  gboolean empty;
  if (!expect_mapping (node, "world", &empty, error))
    return FALSE;
  if (empty)
    return TRUE;
  if (!check_keys (node, "world", keys, error))
    return FALSE;
  const CwbSceneNode *dt = mapping_get (node, "dt", NULL);
  if (dt != NULL && !get_bounded (dt, "world.dt", 0, FALSE, &scene->dt, error))
    return FALSE;
  const CwbSceneNode *gravity = mapping_get (node, "gravity", NULL);
  return gravity == NULL
         || cwb_scene_node_get_vec (gravity, "world.gravity", scene->gravity, 3, error);
}

/* other_models: {PLUGIN: {PARAM: VALUE ...} ...}, read from the section's parameters into
 * `kept` (scene.h): a mapping of mappings, none for the plugin in use (`in_use`), which keeps
 * its parameters in the section itself. */
static gboolean
kept_decode (GPtrArray *params, GPtrArray *kept, const char *section, const char *in_use,
             GError **error)
{
  const CwbSceneParam *param = cwb_scene_params_find (params, "other_models");
  if (param == NULL)
    return TRUE;
  g_autofree char *field = field_join (section, "other_models");
  gboolean empty;
  if (!expect_mapping (param->value, field, &empty, error))
    return FALSE;
  for (guint i = 0; !empty && i + 1 < param->value->items->len; i += 2)
    {
      const CwbSceneNode *key = param->value->items->pdata[i];
      const CwbSceneNode *value = param->value->items->pdata[i + 1];
      g_autofree char *plugin_field = field_join (field, key->scalar);
      gboolean none;
      if (!expect_mapping (value, plugin_field, &none, error))
        return FALSE;
      if (g_strcmp0 (key->scalar, in_use) == 0)
        {
          cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &key->loc, plugin_field,
                               "%s is the plugin in use: its parameters go in %s itself, "
                               "not in other_models", key->scalar, section);
          return FALSE;
        }
      if (!none)
        cwb_scene_params_set (kept, key->scalar, cwb_scene_node_copy (value), &key->loc);
    }
  guint i = 0;
  while (strcmp (((const CwbSceneParam *) params->pdata[i])->name, "other_models") != 0)
    i++;
  g_ptr_array_remove_index (params, i);
  return TRUE;
}

/* contact: {model: NAME, PARAM: VALUE ..., other_models: ...} and solver: {name: NAME, ...}. */
static gboolean
plugin_section_decode (const CwbSceneNode *node, const char *section, const char *name_key,
                       char **name, CwbSourceLoc *name_loc, GPtrArray *params,
                       GPtrArray *kept, GError **error)
{
  gboolean empty;
  if (!expect_mapping (node, section, &empty, error))
    return FALSE;
  if (empty)
    return TRUE;
  const CwbSceneNode *value = mapping_get (node, name_key, NULL);
  if (value != NULL)
    {
      g_autofree char *f = field_join (section, name_key);
      if (!get_name (value, f, name, error))
        return FALSE;
      *name_loc = value->loc;
    }
  if (!params_decode (params, node, TRUE, name_key, error))
    return FALSE;
  return kept_decode (params, kept, section, *name, error);
}

gboolean
cwb_scene_decode (CwbScene *scene, const CwbSceneNode *root, GError **error)
{
  static const char *const keys[] = { "world", "contact", "solver", "bodies", NULL };
  gboolean empty;
  if (!expect_mapping (root, "scene", &empty, error))
    return FALSE;
  if (empty)
    return TRUE;
  if (!check_keys (root, "", keys, error))
    return FALSE;

  const CwbSceneNode *node;
  if ((node = mapping_get (root, "world", NULL)) != NULL && !world_decode (scene, node, error))
    return FALSE;
  if ((node = mapping_get (root, "contact", NULL)) != NULL
      && !plugin_section_decode (node, "contact", "model", &scene->contact_model,
                                 &scene->contact_model_loc, scene->contact_params,
                                 scene->contact_kept, error))
    return FALSE;
  if ((node = mapping_get (root, "solver", NULL)) != NULL
      && !plugin_section_decode (node, "solver", "name", &scene->solver, &scene->solver_loc,
                                 scene->solver_params, scene->solver_kept, error))
    return FALSE;
  if ((node = mapping_get (root, "bodies", NULL)) != NULL && !cwb_scene_node_is_null (node))
    {
      if (node->kind != CWB_NODE_SEQUENCE)
        {
          cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, &node->loc, "bodies",
                               "expected a list of bodies (- name: ...), got %s",
                               node->kind == CWB_NODE_MAPPING ? "a mapping" : "a scalar");
          return FALSE;
        }
      for (guint i = 0; i < node->items->len; i++)
        if (!body_decode (scene, node->items->pdata[i], i, error))
          return FALSE;
    }
  return TRUE;
}
