/* Declared parameters (SOFA's Data<> idea, MuJoCo's plugin attributes): each plugin states
 * its parameters once; the host validates scene values against the schema, the GUI builds
 * property editors from it and --list-plugins prints it. Plugins never parse text. */
#pragma once

#include <string.h>

#include <cwb/abi.h>

G_BEGIN_DECLS

typedef enum CwbParamType {
  CWB_PARAM_BOOL = 1,
  CWB_PARAM_INT = 2,
  CWB_PARAM_DOUBLE = 3,
  CWB_PARAM_ENUM = 4,   /* one of the '|'-separated words of CwbParamSpec.choices */
  CWB_PARAM_STRING = 5,
  CWB_PARAM_VEC3 = 6,
} CwbParamType;

/* One declared parameter. min/max bound INT, DOUBLE and each VEC3 component (inclusive);
 * set min > max for "unbounded". The default is written as it would be in a scene file
 * ("0.5", "true", "secant", "[0, 0, -9.81]"). */
struct CwbParamSpec {
  const char *name;
  CwbParamType type;
  const char *unit;         /* "m", "kg/m^3", "1" (dimensionless), "" for none */
  const char *default_value;
  double min, max;
  const char *choices;      /* ENUM only: "fixed_point|secant" */
  const char *help;         /* one or two sentences for tooltips and --list-plugins */
};

/* A validated value. For ENUM, `i` is the index of the choice and `s` its word. */
typedef struct CwbParamValue {
  CwbParamType type;
  gboolean b;
  gint64 i;
  double d;
  const char *s;
  double v3[3];
} CwbParamValue;

/* The values of one plugin instance, in schema order (values[k] belongs to specs[k]).
 * Owned by the host; valid for the lifetime of the instance, and replaced (with a call of
 * the vtable's params_changed) when the user edits a value. */
typedef struct CwbParamSet {
  size_t struct_size;
  const CwbParamSpec *specs;
  const CwbParamValue *values;
  size_t n;
} CwbParamSet;

/* Looks a value up by name; NULL when the schema has no such parameter (a programmer error
 * in the plugin, since it declared the schema). Linear search: read values once at create. */
static inline const CwbParamValue *
cwb_param_find (const CwbParamSet *set, const char *name)
{
  for (size_t k = 0; set != NULL && k < set->n; k++)
    if (strcmp (set->specs[k].name, name) == 0)
      return &set->values[k];
  return NULL;
}

static inline double
cwb_param_double (const CwbParamSet *set, const char *name, double fallback)
{
  const CwbParamValue *v = cwb_param_find (set, name);
  return v != NULL ? (v->type == CWB_PARAM_INT ? (double) v->i : v->d) : fallback;
}

static inline gint64
cwb_param_int (const CwbParamSet *set, const char *name, gint64 fallback)
{
  const CwbParamValue *v = cwb_param_find (set, name);
  return v != NULL ? v->i : fallback;
}

static inline gboolean
cwb_param_bool (const CwbParamSet *set, const char *name, gboolean fallback)
{
  const CwbParamValue *v = cwb_param_find (set, name);
  return v != NULL ? v->b : fallback;
}

/* ENUM and STRING values; for ENUM compare the word or use cwb_param_int for the index. */
static inline const char *
cwb_param_string (const CwbParamSet *set, const char *name, const char *fallback)
{
  const CwbParamValue *v = cwb_param_find (set, name);
  return v != NULL && v->s != NULL ? v->s : fallback;
}

G_END_DECLS
