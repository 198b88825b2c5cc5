/* Property editors generated from parameter schemas (see property_editor.h).
 *
 * Every committed value goes through the scene's own reading of a --set value
 * (cwb_scene_node_parse, then cwb_param_value_from_node against the spec), so the editor
 * accepts exactly what the document will accept, says why it refuses anything else (the
 * "error" style class and the parser's message as tooltip) and emits only values that read
 * back. Numbers are shown and emitted in the shortest text that reads back as the same double
 * (cwb_param_value_to_text), so a panel holds a stiffness of 1e5 and a tolerance of 1e-9
 * side by side, and leaving a field untouched never turns its value into a rounded one. */
#include "property_editor.h"

#include <math.h>

#include "param_bind.h"
#include "param_parse.h"

/* An INT spin button holds its value as a double, which holds every integer up to 2^53
 * exactly: the widest range an unbounded INT field can offer without rounding values. */
#define INT_FIELD_LIMIT 9007199254740992.0

/* Width of a number entry in characters: "-1.2345678e-09" fits, which covers the values
 * people type; longer texts scroll. */
#define NUMBER_WIDTH_CHARS 12
#define VEC3_WIDTH_CHARS 8

typedef struct Field {
  CwbPropertyEditor *editor;  /* the owner, which frees the field before it goes */
  CwbParamSpec spec;          /* a copy with its own strings: the schema may belong to a
                               * plugin that is unloaded while the panel still shows it */
  char *key;                  /* "KEY_PREFIX.NAME" */
  char *tooltip;              /* help, range and default; restored when an error clears */
  char *committed;            /* canonical text of the value shown (cwb_param_value_to_text);
                               * NULL when the scene's value is invalid, so that any valid
                               * commit counts as a change */
  GtkWidget *widget;          /* what cwb_property_editor_find returns */
  GtkLabel *hint;             /* beside the field: what an automatic value resolved to */
  GtkWidget *inputs[3];       /* DOUBLE, STRING: one entry; VEC3: three; else NULL */
  char *shown[3];             /* the text last put in each input, to tell user edits */
  GStrv choices;              /* ENUM: the words, in the drop-down's order */
  gboolean input_refused;     /* INT: the spin button's text was just refused */
  GPtrArray *connected;       /* objects with handlers bound to this field, borrowed */
} Field;

struct _CwbPropertyEditor {
  GtkWidget parent_instance;
  GtkWidget *box;             /* vertical: a title label and a grid per section */
  GPtrArray *fields;          /* Field*, owned, in display order */
  GHashTable *by_key;         /* key (owned by its field) -> Field* */
  /* Sections taken out by clear, kept alive until the main loop is idle: the window rebuilds
   * the panel from inside "edited", that is inside a signal of one of these widgets, whose
   * emitter goes on using it after the handlers return (gtk_switch_set_active does). */
  GPtrArray *retired;
  guint retire_source;
  /* The field that had the keyboard focus when the panel was cleared, to give it back once
   * the panel is rebuilt (cwb_property_editor_restore_focus): its key, its parameter's name
   * and place (for a key renamed with its body), and which of its inputs. */
  char *refocus_key;
  char *refocus_name;
  guint refocus_index;
  int refocus_input;
};

G_DEFINE_FINAL_TYPE (CwbPropertyEditor, cwb_property_editor, GTK_TYPE_WIDGET)

enum { SIGNAL_EDITED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- fields ---------------------------------------------------------------------------- */

static void
field_free (Field *f)
{
  g_free ((char *) f->spec.name);
  g_free ((char *) f->spec.unit);
  g_free ((char *) f->spec.default_value);
  g_free ((char *) f->spec.choices);
  g_free ((char *) f->spec.help);
  g_free (f->key);
  g_free (f->tooltip);
  g_free (f->committed);
  for (int k = 0; k < 3; k++)
    g_free (f->shown[k]);
  g_strfreev (f->choices);
  g_ptr_array_unref (f->connected);
  g_free (f);
}

static void
field_connect (Field *f, gpointer instance, const char *signal, GCallback callback)
{
  g_signal_connect (instance, signal, callback, f);
  g_ptr_array_add (f->connected, instance);
}

/* Cuts every handler bound to f, before its widgets go: removing a focused entry moves the
 * focus, and a drop-down or switch may notify while it is torn down, and none of that may
 * reach a field that is about to be freed. */
static void
field_disconnect (Field *f)
{
  for (guint i = 0; i < f->connected->len; i++)
    g_signal_handlers_disconnect_by_data (f->connected->pdata[i], f);
  g_ptr_array_set_size (f->connected, 0);
}

/* "name (unit)"; a dimensionless ("1") or unit-less parameter shows its name alone. */
static gboolean
unit_shown (const char *unit)
{
  return unit != NULL && unit[0] != '\0' && strcmp (unit, "1") != 0;
}

static char *
field_label_text (const CwbParamSpec *spec)
{
  if (unit_shown (spec->unit))
    return g_strdup_printf ("%s (%s)", spec->name, spec->unit);
  return g_strdup (spec->name);
}

static gboolean
spec_numeric (const CwbParamSpec *spec)
{
  return spec->type == CWB_PARAM_INT || spec->type == CWB_PARAM_DOUBLE
         || spec->type == CWB_PARAM_VEC3;
}

/* The help, then "Range [0, 1000000] N/m" (or the unit alone when unbounded) and the
 * default. Bounds print exactly, as the parser compares them. */
static char *
field_tooltip_text (const CwbParamSpec *spec)
{
  GString *s = g_string_new (spec->help != NULL ? spec->help : "");
  const char *unit = unit_shown (spec->unit) ? spec->unit : NULL;
  if (spec_numeric (spec) && spec->min <= spec->max)
    {
      char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf (s, "%sRange [%s, %s]%s%s", s->len > 0 ? "\n" : "",
                              cwb_scene_format_double (lo, spec->min),
                              cwb_scene_format_double (hi, spec->max), unit != NULL ? " " : "",
                              unit != NULL ? unit : "");
    }
  else if (unit != NULL)
    g_string_append_printf (s, "%sUnit: %s", s->len > 0 ? "\n" : "", unit);
  if (spec->default_value != NULL)
    g_string_append_printf (s, "%sDefault: %s", s->len > 0 ? "\n" : "", spec->default_value);
  return g_string_free (s, FALSE);
}

/* The location a committed value is read at: the window applies it as a --set override,
 * so its messages and ours name the same place. */
static const CwbSourceLoc *
edit_loc (void)
{
  static CwbSourceLoc loc = { NULL, 0, 0 };
  if (loc.file == NULL)
    loc.file = g_intern_static_string ("--set");
  return &loc;
}

/* Reads `text` as the document will (a YAML value, then the spec's checks): TRUE with the
 * value, or FALSE with one sentence for the tooltip. The message's "--set: " is dropped:
 * in the panel, the field itself is the place. */
static gboolean
value_read (const CwbParamSpec *spec, const char *key, const char *text, CwbParamValue *out,
            char **why)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (text, edit_loc (), &error);
  if (node != NULL && cwb_param_value_from_node (spec, node, key, out, &error))
    return TRUE;
  const char *message = error->message;
  if (g_str_has_prefix (message, "--set: "))
    message += strlen ("--set: ");
  *why = g_strdup (message);
  return FALSE;
}

/* A STRING as a scene file writes it: bare when YAML reads the bare text back as that very
 * string, else double-quoted with YAML's escapes ("a: b", "#x", "[1]", " padded"). */
static char *
string_scene_text (const char *raw)
{
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (raw, edit_loc (), NULL);
  if (node != NULL && node->kind == CWB_NODE_SCALAR && strcmp (node->scalar, raw) == 0)
    return g_strdup (raw);
  GString *s = g_string_new ("\"");
  for (const char *p = raw; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (s, "\\%c", *p);
      else if (*p == '\n')
        g_string_append (s, "\\n");
      else if (*p == '\t')
        g_string_append (s, "\\t");
      else if ((unsigned char) *p < 0x20)
        g_string_append_printf (s, "\\x%02x", (unsigned) (unsigned char) *p);
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

static void
widget_set_error (GtkWidget *widget, const char *why)
{
  gtk_widget_add_css_class (widget, "error");
  gtk_widget_set_tooltip_text (widget, why);
}

static void
field_clear_error (Field *f)
{
  gtk_widget_remove_css_class (f->widget, "error");
  gtk_widget_set_tooltip_text (f->widget, f->tooltip);
  for (int k = 0; k < 3; k++)
    if (f->inputs[k] != NULL && f->inputs[k] != f->widget)
      {
        gtk_widget_remove_css_class (f->inputs[k], "error");
        gtk_widget_set_tooltip_text (f->inputs[k], f->tooltip);
      }
}

static void
field_set_input_text (Field *f, int k, const char *text)
{
  g_free (f->shown[k]);
  f->shown[k] = g_strdup (text);
  gtk_editable_set_text (GTK_EDITABLE (f->inputs[k]), text);
}

/* Shows a value (canonical text of a valid value) in the field's widgets; called before the
 * field's handlers are connected, or for entries, whose handlers do not listen to changes. */
static void
field_show (Field *f, const CwbParamValue *value, const char *canonical)
{
  switch (f->spec.type)
    {
    case CWB_PARAM_BOOL:
      gtk_switch_set_active (GTK_SWITCH (f->widget), value->b);
      break;
    case CWB_PARAM_INT:
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (f->widget),
                                 CLAMP ((double) value->i, -INT_FIELD_LIMIT, INT_FIELD_LIMIT));
      break;
    case CWB_PARAM_ENUM:
      gtk_drop_down_set_selected (GTK_DROP_DOWN (f->widget), (guint) value->i);
      break;
    case CWB_PARAM_DOUBLE:
    case CWB_PARAM_STRING:
      field_set_input_text (f, 0, canonical);
      break;
    case CWB_PARAM_VEC3:
      for (int k = 0; k < 3; k++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          field_set_input_text (f, k, cwb_scene_format_double (buf, value->v3[k]));
        }
      break;
    default:
      break;
    }
}

/* The end of every commit: `text` is the value in scene syntax, already read into `value`.
 * Emits when the value differs from the one shown: numbers as their shortest exact text
 * ("2e5" typed goes out as 200000), strings as `text` (quoted where YAML needs it). The
 * emission comes last because a handler may rebuild the panel, which frees f. */
static void
field_commit_value (Field *f, const CwbParamValue *value, const char *text)
{
  field_clear_error (f);
  g_autofree char *canonical = cwb_param_value_to_text (&f->spec, value);
  g_autofree char *emitted = g_strdup (f->spec.type == CWB_PARAM_STRING ? text : canonical);
  /* "1e5" typed over 100000 reads as the same value: show it the one way, emit nothing. */
  if (f->spec.type != CWB_PARAM_BOOL && f->spec.type != CWB_PARAM_INT
      && f->spec.type != CWB_PARAM_ENUM)
    field_show (f, value, canonical);
  if (g_strcmp0 (canonical, f->committed) == 0)
    return;
  g_free (f->committed);
  f->committed = g_steal_pointer (&canonical);
  CwbPropertyEditor *editor = f->editor;
  g_autofree char *key = g_strdup (f->key);
  g_signal_emit (editor, signals[SIGNAL_EDITED], 0, key, emitted);
}

/* Reads and commits `text` (scene syntax), or marks `where` with the reason it is refused. */
static void
field_commit_text (Field *f, const char *text, GtkWidget *where)
{
  CwbParamValue value;
  g_autofree char *why = NULL;
  if (!value_read (&f->spec, f->key, text, &value, &why))
    {
      widget_set_error (where, why);
      return;
    }
  field_commit_value (f, &value, text);
}

static void
field_commit_string (Field *f)
{
  const char *raw = gtk_editable_get_text (GTK_EDITABLE (f->inputs[0]));
  g_autofree char *text = string_scene_text (raw);
  CwbParamValue value;
  g_autofree char *why = NULL;
  if (!value_read (&f->spec, f->key, text, &value, &why))
    {
      widget_set_error (f->inputs[0], why);
      return;
    }
  field_commit_value (f, &value, text);
}

/* Each component is read on its own first (as a DOUBLE of the same range), so the error
 * marks the component at fault, and a component such as "1, 2" cannot pass for two. */
static void
field_commit_vec3 (Field *f)
{
  CwbParamSpec component = f->spec;
  component.type = CWB_PARAM_DOUBLE;
  char parts[3][G_ASCII_DTOSTR_BUF_SIZE];
  gboolean ok = TRUE;
  for (int k = 0; k < 3; k++)
    {
      const char *text = gtk_editable_get_text (GTK_EDITABLE (f->inputs[k]));
      g_autofree char *field = g_strdup_printf ("%s[%d]", f->key, k);
      CwbParamValue value;
      g_autofree char *why = NULL;
      if (value_read (&component, field, text, &value, &why))
        {
          cwb_scene_format_double (parts[k], value.d);
          gtk_widget_remove_css_class (f->inputs[k], "error");
          gtk_widget_set_tooltip_text (f->inputs[k], f->tooltip);
        }
      else
        {
          widget_set_error (f->inputs[k], why);
          ok = FALSE;
        }
    }
  if (!ok)
    return;
  g_autofree char *text = g_strdup_printf ("[%s, %s, %s]", parts[0], parts[1], parts[2]);
  field_commit_text (f, text, f->widget);
}

static void
field_commit_inputs (Field *f)
{
  switch (f->spec.type)
    {
    case CWB_PARAM_DOUBLE:
      field_commit_text (f, gtk_editable_get_text (GTK_EDITABLE (f->inputs[0])), f->inputs[0]);
      break;
    case CWB_PARAM_STRING:
      field_commit_string (f);
      break;
    case CWB_PARAM_VEC3:
      field_commit_vec3 (f);
      break;
    default:
      break;
    }
}

/* ---- handlers -------------------------------------------------------------------------- */

static void
on_entry_activate (GtkWidget *entry, Field *f)
{
  field_commit_inputs (f);
}

/* Leaving the field commits, but only text the user changed: tabbing through a panel must
 * not emit, even for a field marked invalid. For VEC3 the controller sits on the box, so
 * moving between the components of one vector is not yet a commit. */
static void
on_focus_leave (GtkEventControllerFocus *controller, Field *f)
{
  for (int k = 0; k < 3; k++)
    if (f->inputs[k] != NULL
        && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (f->inputs[k])), f->shown[k]) != 0)
      {
        field_commit_inputs (f);
        return;
      }
}

static void
on_switch_active (GtkSwitch *sw, GParamSpec *pspec, Field *f)
{
  field_commit_text (f, gtk_switch_get_active (sw) ? "true" : "false", f->widget);
}

static void
on_drop_down_selected (GtkDropDown *drop_down, GParamSpec *pspec, Field *f)
{
  guint index = gtk_drop_down_get_selected (drop_down);
  if (index >= g_strv_length (f->choices))
    return;   /* GTK_INVALID_LIST_POSITION: nothing chosen, nothing to commit */
  field_commit_text (f, f->choices[index], f->widget);
}

/* The spin button's reading of its text, replaced by the shared parser's: a refused text
 * keeps the field's value, is marked with the reason, and emits nothing (the spin button's
 * IF_VALID policy restores the value's text). */
static int
on_spin_input (GtkSpinButton *spin, double *new_value, Field *f)
{
  CwbParamValue value;
  g_autofree char *why = NULL;
  if (!value_read (&f->spec, f->key, gtk_editable_get_text (GTK_EDITABLE (spin)), &value, &why))
    {
      widget_set_error (f->widget, why);
      f->input_refused = TRUE;
      return GTK_INPUT_ERROR;
    }
  field_clear_error (f);
  *new_value = (double) value.i;
  return TRUE;
}

/* Arrows, keys and accepted text all end here. A refused text also does (the spin button
 * re-announces the value it kept): that is no edit, and its mark stays. */
static void
on_spin_value_changed (GtkSpinButton *spin, Field *f)
{
  if (f->input_refused)
    {
      f->input_refused = FALSE;
      return;
    }
  char text[32];
  g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT,
              (gint64) llround (gtk_spin_button_get_value (spin)));
  field_commit_text (f, text, f->widget);
}

/* ---- building -------------------------------------------------------------------------- */

static GtkWidget *
number_entry_new (int width_chars)
{
  GtkWidget *entry = gtk_entry_new ();
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), width_chars);
  gtk_entry_set_input_purpose (GTK_ENTRY (entry), GTK_INPUT_PURPOSE_NUMBER);
  gtk_widget_set_hexpand (entry, TRUE);
  return entry;
}

/* The wheel over a spin button scrolls the panel that holds it instead of changing the
 * value: a user scrolling through the properties must not edit what passes under the
 * pointer (a FEM body's resolution went from 6 to 4 and the world was rebuilt). The arrows,
 * the keys and typed text still change the value. */
static gboolean
on_spin_scroll (GtkEventControllerScroll *controller, double dx, double dy, gpointer data)
{
  GtkWidget *spin = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *scrolled = gtk_widget_get_ancestor (spin, GTK_TYPE_SCROLLED_WINDOW);
  if (scrolled != NULL)
    {
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
      /* A wheel notch moves the page by page_size^(2/3), as GTK's scrolled window does. */
      double step = pow (gtk_adjustment_get_page_size (v), 2.0 / 3.0);
      if (gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_SURFACE)
        step = 1;
      gtk_adjustment_set_value (v, gtk_adjustment_get_value (v) + dy * step);
    }
  return TRUE;
}

static GtkWidget *
spin_new (const CwbParamSpec *spec)
{
  double lo = -INT_FIELD_LIMIT, hi = INT_FIELD_LIMIT;
  if (spec->min <= spec->max)
    {
      lo = MAX (ceil (spec->min), -INT_FIELD_LIMIT);
      hi = MIN (floor (spec->max), INT_FIELD_LIMIT);
    }
  /* Steps of 1 and pages of 10: INT parameters count things (iterations, segments). */
  GtkAdjustment *adjustment = gtk_adjustment_new (CLAMP (0, lo, hi), lo, hi, 1, 10, 0);
  GtkWidget *spin = gtk_spin_button_new (adjustment, 1, 0);
  /* Not numeric: every typed character reaches the parser, whose message says what is wrong
   * ("expected an integer, got 2.5") instead of the keys being silently dropped. */
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), FALSE);
  gtk_spin_button_set_update_policy (GTK_SPIN_BUTTON (spin), GTK_UPDATE_IF_VALID);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), NUMBER_WIDTH_CHARS);
  gtk_widget_set_hexpand (spin, TRUE);
  /* Before the spin button's own wheel handler, which it then never reaches. */
  GtkEventController *scroll
    = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_spin_scroll), NULL);
  gtk_widget_add_controller (spin, scroll);
  return spin;
}

/* The widgets of one field, unconnected. */
static void
field_build (Field *f)
{
  switch (f->spec.type)
    {
    case CWB_PARAM_BOOL:
      f->widget = gtk_switch_new ();
      gtk_widget_set_halign (f->widget, GTK_ALIGN_START);
      break;
    case CWB_PARAM_INT:
      f->widget = spin_new (&f->spec);
      break;
    case CWB_PARAM_DOUBLE:
      f->widget = f->inputs[0] = number_entry_new (NUMBER_WIDTH_CHARS);
      break;
    case CWB_PARAM_VEC3:
      f->widget = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      gtk_box_set_homogeneous (GTK_BOX (f->widget), TRUE);
      for (int k = 0; k < 3; k++)
        {
          f->inputs[k] = number_entry_new (VEC3_WIDTH_CHARS);
          gtk_box_append (GTK_BOX (f->widget), f->inputs[k]);
        }
      break;
    case CWB_PARAM_ENUM:
      f->choices = g_strsplit (f->spec.choices != NULL ? f->spec.choices : "", "|", -1);
      f->widget = gtk_drop_down_new_from_strings ((const char *const *) f->choices);
      break;
    case CWB_PARAM_STRING:
    default:
      f->widget = f->inputs[0] = gtk_entry_new ();
      gtk_widget_set_hexpand (f->widget, TRUE);
      break;
    }
}

static void
field_connect_all (Field *f)
{
  switch (f->spec.type)
    {
    case CWB_PARAM_BOOL:
      field_connect (f, f->widget, "notify::active", G_CALLBACK (on_switch_active));
      break;
    case CWB_PARAM_INT:
      field_connect (f, f->widget, "input", G_CALLBACK (on_spin_input));
      field_connect (f, f->widget, "value-changed", G_CALLBACK (on_spin_value_changed));
      break;
    case CWB_PARAM_ENUM:
      field_connect (f, f->widget, "notify::selected", G_CALLBACK (on_drop_down_selected));
      break;
    case CWB_PARAM_DOUBLE:
    case CWB_PARAM_STRING:
    case CWB_PARAM_VEC3:
    default:
      {
        for (int k = 0; k < 3; k++)
          if (f->inputs[k] != NULL)
            field_connect (f, f->inputs[k], "activate", G_CALLBACK (on_entry_activate));
        GtkEventController *focus = gtk_event_controller_focus_new ();
        gtk_widget_add_controller (f->widget, focus);
        field_connect (f, focus, "leave", G_CALLBACK (on_focus_leave));
        break;
      }
    }
}

/* The value to show: the scene's when it has one, else the schema default. A scene value
 * the schema refuses (the world would not build with it) shows the default, marked with
 * the reason, and leaves nothing committed, so that any valid value the user commits
 * replaces it. */
static void
field_show_initial (Field *f, GPtrArray *values)
{
  const CwbSceneParam *param = values != NULL ? cwb_scene_params_find (values, f->spec.name)
                                              : NULL;
  CwbParamValue value;
  g_autoptr (GError) error = NULL;
  gboolean scene_ok = param == NULL
                      || cwb_param_value_from_node (&f->spec, param->value, f->key, &value,
                                                    &error);
  if (param == NULL || !scene_ok)
    {
      g_autofree char *why = NULL;
      /* The registry refuses plugins whose defaults do not parse, and the window's own
       * schemas are tested, so a failure here is a programmer error. */
      if (!cwb_param_parse_text (&f->spec, f->spec.default_value, &value, &why))
        {
          g_critical ("default of parameter '%s' does not parse: %s", f->key, why);
          return;
        }
    }
  g_autofree char *canonical = cwb_param_value_to_text (&f->spec, &value);
  field_show (f, &value, canonical);
  if (scene_ok)
    f->committed = g_steal_pointer (&canonical);
  else
    {
      g_autofree char *why = g_strdup_printf ("The scene's value is refused (%s); showing "
                                              "the default.", error->message);
      widget_set_error (f->widget, why);
    }
}

static Field *
field_new (CwbPropertyEditor *editor, const char *key_prefix, const CwbParamSpec *spec)
{
  Field *f = g_new0 (Field, 1);
  f->editor = editor;
  f->spec = (CwbParamSpec) {
    .name = g_strdup (spec->name),
    .type = spec->type,
    .unit = g_strdup (spec->unit),
    .default_value = g_strdup (spec->default_value),
    .min = spec->min,
    .max = spec->max,
    .choices = g_strdup (spec->choices),
    .help = g_strdup (spec->help),
  };
  f->key = key_prefix != NULL && key_prefix[0] != '\0'
             ? g_strconcat (key_prefix, ".", spec->name, NULL)
             : g_strdup (spec->name);
  f->tooltip = field_tooltip_text (spec);
  f->connected = g_ptr_array_new ();
  field_build (f);
  gtk_widget_set_tooltip_text (f->widget, f->tooltip);
  for (int k = 0; k < 3; k++)
    if (f->inputs[k] != NULL && f->inputs[k] != f->widget)
      gtk_widget_set_tooltip_text (f->inputs[k], f->tooltip);
  return f;
}

/* ---- the editor ------------------------------------------------------------------------ */

static gboolean
release_retired (gpointer data)
{
  CwbPropertyEditor *editor = data;
  editor->retire_source = 0;
  g_ptr_array_set_size (editor->retired, 0);
  return G_SOURCE_REMOVE;
}

static void
cwb_property_editor_dispose (GObject *object)
{
  CwbPropertyEditor *editor = CWB_PROPERTY_EDITOR (object);
  if (editor->fields != NULL)
    cwb_property_editor_clear (editor);
  g_clear_handle_id (&editor->retire_source, g_source_remove);
  g_clear_pointer (&editor->retired, g_ptr_array_unref);
  g_clear_pointer (&editor->box, gtk_widget_unparent);
  g_clear_pointer (&editor->by_key, g_hash_table_unref);
  g_clear_pointer (&editor->fields, g_ptr_array_unref);
  g_clear_pointer (&editor->refocus_key, g_free);
  g_clear_pointer (&editor->refocus_name, g_free);
  G_OBJECT_CLASS (cwb_property_editor_parent_class)->dispose (object);
}

static void
cwb_property_editor_class_init (CwbPropertyEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = cwb_property_editor_dispose;

  /* The strings are copied for the handlers (no G_SIGNAL_TYPE_STATIC_SCOPE): a handler that
   * rebuilds the panel frees the field they came from. */
  signals[SIGNAL_EDITED] = g_signal_new ("edited", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                         2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "propertyeditor");
}

static void
cwb_property_editor_init (CwbPropertyEditor *editor)
{
  editor->fields = g_ptr_array_new_with_free_func ((GDestroyNotify) field_free);
  editor->by_key = g_hash_table_new (g_str_hash, g_str_equal);
  editor->retired = g_ptr_array_new_with_free_func (g_object_unref);
  editor->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_parent (editor->box, GTK_WIDGET (editor));
}

GtkWidget *
cwb_property_editor_new (void)
{
  return g_object_new (CWB_TYPE_PROPERTY_EDITOR, NULL);
}

/* Remembers the field that holds the keyboard focus, if one does. */
static void
remember_focus (CwbPropertyEditor *editor)
{
  g_clear_pointer (&editor->refocus_key, g_free);
  g_clear_pointer (&editor->refocus_name, g_free);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (editor));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (editor)))
    return;
  for (guint i = 0; i < editor->fields->len; i++)
    {
      Field *f = g_ptr_array_index (editor->fields, i);
      if (focus != f->widget && !gtk_widget_is_ancestor (focus, f->widget))
        continue;
      editor->refocus_key = g_strdup (f->key);
      editor->refocus_name = g_strdup (f->spec.name);
      editor->refocus_index = i;
      editor->refocus_input = 0;
      for (int k = 0; k < 3; k++)
        if (f->inputs[k] != NULL
            && (focus == f->inputs[k] || gtk_widget_is_ancestor (focus, f->inputs[k])))
          editor->refocus_input = k;
      return;
    }
}

gboolean
cwb_property_editor_restore_focus (CwbPropertyEditor *editor)
{
  g_return_val_if_fail (CWB_IS_PROPERTY_EDITOR (editor), TRUE);
  if (editor->refocus_key == NULL)
    return TRUE;
  Field *f = g_hash_table_lookup (editor->by_key, editor->refocus_key);
  if (f == NULL && editor->refocus_index < editor->fields->len)
    {
      Field *same_place = g_ptr_array_index (editor->fields, editor->refocus_index);
      if (strcmp (same_place->spec.name, editor->refocus_name) == 0)
        f = same_place;
    }
  g_clear_pointer (&editor->refocus_key, g_free);
  g_clear_pointer (&editor->refocus_name, g_free);
  if (f == NULL)
    return FALSE;
  GtkWidget *input = f->inputs[editor->refocus_input];
  if (input != NULL && GTK_IS_ENTRY (input))
    {
      /* The cursor at the end, nothing selected: a key typed next adds to the text. */
      if (!gtk_entry_grab_focus_without_selecting (GTK_ENTRY (input)))
        return FALSE;
      gtk_editable_set_position (GTK_EDITABLE (input), -1);
      return TRUE;
    }
  if (!gtk_widget_grab_focus (f->widget))
    return FALSE;
  if (GTK_IS_EDITABLE (f->widget))
    gtk_editable_select_region (GTK_EDITABLE (f->widget), -1, -1);
  return TRUE;
}

void
cwb_property_editor_clear (CwbPropertyEditor *editor)
{
  g_return_if_fail (CWB_IS_PROPERTY_EDITOR (editor));
  remember_focus (editor);
  for (guint i = 0; i < editor->fields->len; i++)
    field_disconnect (g_ptr_array_index (editor->fields, i));
  g_hash_table_remove_all (editor->by_key);
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (editor->box)) != NULL)
    {
      g_ptr_array_add (editor->retired, g_object_ref (child));
      gtk_box_remove (GTK_BOX (editor->box), child);
    }
  if (editor->retired->len > 0 && editor->retire_source == 0)
    editor->retire_source = g_idle_add (release_retired, editor);
  g_ptr_array_set_size (editor->fields, 0);
}

void
cwb_property_editor_add_section (CwbPropertyEditor *editor, const char *title,
                                 const char *key_prefix, const CwbParamSpec *specs,
                                 size_t n_specs, GPtrArray *values)
{
  g_return_if_fail (CWB_IS_PROPERTY_EDITOR (editor));
  g_return_if_fail (specs != NULL || n_specs == 0);

  GtkWidget *heading = gtk_label_new (NULL);
  g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", title != NULL ? title : "");
  gtk_label_set_markup (GTK_LABEL (heading), markup);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_box_append (GTK_BOX (editor->box), heading);

  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_box_append (GTK_BOX (editor->box), grid);
  if (n_specs == 0)
    {
      GtkWidget *none = gtk_label_new ("No parameters");
      gtk_widget_add_css_class (none, "dim-label");
      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_grid_attach (GTK_GRID (grid), none, 0, 0, 2, 1);
      return;
    }

  for (size_t k = 0; k < n_specs; k++)
    {
      Field *f = field_new (editor, key_prefix, &specs[k]);
      g_autofree char *label_text = field_label_text (&specs[k]);
      GtkWidget *label = gtk_label_new (label_text);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_tooltip_text (label, f->tooltip);
      gtk_grid_attach (GTK_GRID (grid), label, 0, (int) k, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), f->widget, 1, (int) k, 1, 1);
      f->hint = GTK_LABEL (gtk_label_new (NULL));
      gtk_label_set_xalign (f->hint, 0);
      gtk_widget_add_css_class (GTK_WIDGET (f->hint), "dim-label");
      gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (f->hint), 2, (int) k, 1, 1);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (f->widget),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL, -1);

      field_show_initial (f, values);
      field_connect_all (f);   /* after the first value: showing it is not an edit */
      g_ptr_array_add (editor->fields, f);
      /* A key given twice (two sections with one prefix) edits the same value; find
       * returns the later widget. */
      g_hash_table_replace (editor->by_key, f->key, f);
    }
}

GtkWidget *
cwb_property_editor_find (CwbPropertyEditor *editor, const char *key)
{
  g_return_val_if_fail (CWB_IS_PROPERTY_EDITOR (editor), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  Field *f = g_hash_table_lookup (editor->by_key, key);
  return f != NULL ? f->widget : NULL;
}

gboolean
cwb_property_editor_show_derived (CwbPropertyEditor *editor, const char *key, double value)
{
  g_return_val_if_fail (CWB_IS_PROPERTY_EDITOR (editor), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  Field *f = g_hash_table_lookup (editor->by_key, key);
  if (f == NULL || f->hint == NULL)
    return FALSE;
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (number, sizeof number, "%.4g", value);
  g_autofree char *text = unit_shown (f->spec.unit)
                            ? g_strdup_printf ("auto: %s %s", number, f->spec.unit)
                            : g_strdup_printf ("auto: %s", number);
  if (g_strcmp0 (gtk_label_get_text (f->hint), text) != 0)
    gtk_label_set_text (f->hint, text);
  return TRUE;
}

const char *
cwb_property_editor_hint (CwbPropertyEditor *editor, const char *key)
{
  g_return_val_if_fail (CWB_IS_PROPERTY_EDITOR (editor), NULL);
  Field *f = g_hash_table_lookup (editor->by_key, key);
  return f != NULL && f->hint != NULL ? gtk_label_get_text (f->hint) : NULL;
}
