/* Internal interface between the scene files (scene_yaml.c, scene_decode.c, scene_set.c) and
 * the document (document.c), which checks its edits with the decoder's own rules; not for
 * use outside workbench/core. */
#pragma once

#include "scene.h"

G_BEGIN_DECLS

/* Parses one YAML document into a node tree. Locations come from libyaml's marks (made
 * 1-based) in `file`, or are all `fixed_loc` when it is not NULL (a --set value). An empty
 * document gives an empty plain scalar. */
CwbSceneNode *cwb_scene_yaml_parse (const char *data, gssize length, const char *file,
                                    const CwbSourceLoc *fixed_loc, GError **error);

/* A plain scalar the YAML core schema reads as null ("", "~", "null"). */
gboolean cwb_scene_node_is_null (const CwbSceneNode *node);

/* Decodes a whole document (the root node) into scene, which holds the defaults. */
gboolean cwb_scene_decode (CwbScene *scene, const CwbSceneNode *root, GError **error);

/* The body fields --set reaches by one word: model, mapping, fixed, position, orientation,
 * linear_velocity, angular_velocity, density, friction. */
gboolean cwb_scene_body_leaf_known (const char *leaf);
/* Type- and range-checks value and stores it; `field` names it in messages. */
gboolean cwb_scene_decode_body_leaf (CwbBodyDesc *body, const char *leaf,
                                     const CwbSceneNode *value, const char *field,
                                     GError **error);

/* One key of a shape mapping ("type", "radius", ...): checks that the shape's type has it,
 * its type and range, and stores it. "type" resets the other fields to that type's
 * defaults. */
gboolean cwb_scene_decode_shape_field (CwbShapeDesc *shape, const char *key,
                                       const CwbSceneNode *value, const char *field,
                                       GError **error);
/* The word a scene file uses for a shape's type ("box", "sphere", ...). */
const char *cwb_scene_shape_type_name (CwbShapeKind kind);
/* Every field the shape's type requires is set (reported at loc as `field`). */
gboolean cwb_scene_shape_check (const CwbShapeDesc *shape, const CwbSourceLoc *loc,
                                const char *field, GError **error);

G_END_DECLS
