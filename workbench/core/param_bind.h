/* Binding scene values to a plugin's declared parameters: every value is checked against the
 * schema (unknown name, wrong type, out of range: an error naming file:line:column and the
 * field), absent ones take the schema default. The result is the CwbParamSet a plugin reads. */
#pragma once

#include <cwb/params.h>

#include "scene.h"

G_BEGIN_DECLS

typedef struct CwbParamBinding {
  CwbParamSet set;           /* what the plugin sees; points into values */
  CwbParamValue *values;     /* n, schema order */
} CwbParamBinding;

/* `field_prefix` names the section in messages ("contact", "bodies.box.model_params").
 * `params` may be NULL (all defaults). */
CwbParamBinding *cwb_param_binding_new (const CwbParamSpec *specs, size_t n_specs,
                                        GPtrArray *params, const char *field_prefix,
                                        GError **error);
/* A copy with the same values (ENUM and STRING words are interned, so shared). */
CwbParamBinding *cwb_param_binding_copy (const CwbParamBinding *binding);
void cwb_param_binding_free (CwbParamBinding *binding);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbParamBinding, cwb_param_binding_free)

/* Converts one scene value for one spec; FALSE with a located message on error. */
gboolean cwb_param_value_from_node (const CwbParamSpec *spec, const CwbSceneNode *node,
                                    const char *field, CwbParamValue *out, GError **error);

/* Text of a value as a scene file would write it ("0.5", "[0, 0, 1]", "secant"), numbers in
 * the shortest form that reads back exactly (cwb_scene_format_double). */
char *cwb_param_value_to_text (const CwbParamSpec *spec, const CwbParamValue *value);

G_END_DECLS
