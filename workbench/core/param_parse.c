/* Parameter values from text (see param_parse.h). */
#include <errno.h>
#include <math.h>

#include "param_parse.h"

static gboolean
bounded (const CwbParamSpec *spec)
{
  return spec->min <= spec->max;
}

static gboolean
parse_double (const char *text, double *out)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  if (trimmed[0] == '\0')
    return FALSE;
  char *end = NULL;
  errno = 0;
  double value = g_ascii_strtod (trimmed, &end);
  if (end == trimmed || *end != '\0' || errno == ERANGE || !isfinite (value))
    return FALSE;
  *out = value;
  return TRUE;
}

static char *
range_message (const CwbParamSpec *spec, const char *text)
{
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (lo, sizeof lo, "%.17g", spec->min);
  g_ascii_formatd (hi, sizeof hi, "%.17g", spec->max);
  return g_strdup_printf ("expected a value in [%s, %s], got %s", lo, hi, text);
}

/* A number of the spec's range: TRUE, or FALSE with *why set. */
static gboolean
check_range (const CwbParamSpec *spec, double value, const char *text, char **why)
{
  if (bounded (spec) && (value < spec->min || value > spec->max))
    {
      *why = range_message (spec, text);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_vec3 (const CwbParamSpec *spec, const char *text, double v[3], char **why)
{
  g_autofree char *body = g_strstrip (g_strdup (text));
  size_t len = strlen (body);
  if (len < 2 || body[0] != '[' || body[len - 1] != ']')
    {
      *why = g_strdup_printf ("expected a list of three numbers [x, y, z], got %s", text);
      return FALSE;
    }
  body[len - 1] = '\0';
  g_auto (GStrv) parts = g_strsplit (body + 1, ",", -1);
  if (g_strv_length (parts) != 3)
    {
      *why = g_strdup_printf ("expected a list of three numbers [x, y, z], got %s", text);
      return FALSE;
    }
  for (int k = 0; k < 3; k++)
    if (!parse_double (parts[k], &v[k]))
      {
        *why = g_strdup_printf ("expected a list of three numbers [x, y, z], got %s", text);
        return FALSE;
      }
  for (int k = 0; k < 3; k++)
    if (!check_range (spec, v[k], text, why))
      return FALSE;
  return TRUE;
}

gboolean
cwb_param_parse_text (const CwbParamSpec *spec, const char *text, CwbParamValue *out,
                      char **why)
{
  memset (out, 0, sizeof *out);
  out->type = spec->type;
  if (text == NULL)
    {
      *why = g_strdup ("no value");
      return FALSE;
    }
  switch (spec->type)
    {
    case CWB_PARAM_BOOL:
      if (g_str_equal (text, "true") || g_str_equal (text, "false"))
        {
          out->b = g_str_equal (text, "true");
          return TRUE;
        }
      *why = g_strdup_printf ("expected true or false, got %s", text);
      return FALSE;

    case CWB_PARAM_INT:
      {
        gint64 value;
        if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &value, NULL))
          {
            *why = g_strdup_printf ("expected an integer, got %s", text);
            return FALSE;
          }
        if (!check_range (spec, (double) value, text, why))
          return FALSE;
        out->i = value;
        out->d = (double) value;
        return TRUE;
      }

    case CWB_PARAM_DOUBLE:
      if (!parse_double (text, &out->d))
        {
          *why = g_strdup_printf ("expected a number, got %s", text);
          return FALSE;
        }
      return check_range (spec, out->d, text, why);

    case CWB_PARAM_ENUM:
      {
        g_auto (GStrv) choices = g_strsplit (spec->choices != NULL ? spec->choices : "", "|", -1);
        for (gint64 k = 0; choices[k] != NULL; k++)
          if (choices[k][0] != '\0' && g_str_equal (choices[k], text))
            {
              out->i = k;
              out->s = g_intern_string (text);
              return TRUE;
            }
        *why = g_strdup_printf ("expected one of %s, got %s",
                                spec->choices != NULL ? spec->choices : "(no choices)", text);
        return FALSE;
      }

    case CWB_PARAM_STRING:
      out->s = g_intern_string (text);
      return TRUE;

    case CWB_PARAM_VEC3:
      return parse_vec3 (spec, text, out->v3, why);

    default:
      *why = g_strdup_printf ("unknown parameter type %d", (int) spec->type);
      return FALSE;
    }
}
