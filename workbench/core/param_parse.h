/* The one parser of parameter values: scene values, --set values and schema defaults all go
 * through cwb_param_parse_text, so a value means the same wherever it is written. */
#pragma once

#include <cwb/params.h>

G_BEGIN_DECLS

/* Parses `text` (flow form: "0.5", "true", "secant", "[0, 0, -9.81]") for `spec` into `out`.
 * On failure returns FALSE and sets *why to one sentence; a value of the right type outside
 * the spec's range says "expected a value in [min, max], got ...", the only messages that
 * contain "in [", so callers can tell a range error from a type error. ENUM and STRING
 * values point to interned strings, valid for the life of the process. */
gboolean cwb_param_parse_text (const CwbParamSpec *spec, const char *text, CwbParamValue *out,
                               char **why);

G_END_DECLS
