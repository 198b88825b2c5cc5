/* The property editor: one typed editor per declared parameter, labelled and explained, the
 * scene's values (or the defaults) shown, user edits emitted as ("KEY", "VALUE") in --set
 * form and nothing else emitted: no refused text, no unchanged value, no signal from a
 * cleared panel. Values typed as text must come back bit-identical through the scene's
 * own parser. Needs a display; without one every test is skipped. */
#include <string.h>

#include "param_bind.h"
#include "property_editor.h"

static gboolean have_display;

#define SKIP_WITHOUT_DISPLAY()                                                                \
  do                                                                                          \
    {                                                                                         \
      if (!have_display)                                                                      \
        {                                                                                     \
          g_test_skip ("no display: GTK cannot be initialised");                              \
          return;                                                                             \
        }                                                                                     \
    }                                                                                         \
  while (0)

/* Every type, bounded and unbounded numbers, a dimensionless unit ("1") and none (""). */
static const CwbParamSpec SPECS[] = {
  { "enabled", CWB_PARAM_BOOL, "", "true", 1, 0, NULL, "Whether the model acts at all." },
  { "iterations", CWB_PARAM_INT, "1", "50", 1, 1000, NULL, "Sweeps before giving up." },
  { "stiffness", CWB_PARAM_DOUBLE, "N/m", "100000", 0, 1e12, NULL, "Penalty stiffness." },
  { "tolerance", CWB_PARAM_DOUBLE, "1", "1e-9", 0, 1, NULL, "Relative residual to stop." },
  { "damping", CWB_PARAM_DOUBLE, "N s/m", "0", 1, 0, NULL, "Normal damping." },
  { "offset", CWB_PARAM_VEC3, "m", "[0, 0, -9.81]", -100, 100, NULL, "Shift of the frame." },
  { "method", CWB_PARAM_ENUM, "", "secant", 1, 0, "fixed_point|secant|newton",
    "Root finder." },
  { "label", CWB_PARAM_STRING, "", "contact", 1, 0, NULL, "Name in the plots." },
};

static const CwbParamSpec *
spec_named (const char *name)
{
  for (size_t k = 0; k < G_N_ELEMENTS (SPECS); k++)
    if (strcmp (SPECS[k].name, name) == 0)
      return &SPECS[k];
  g_assert_not_reached ();
}

typedef struct Fixture {
  CwbPropertyEditor *editor;
  GPtrArray *edits;   /* "KEY=VALUE" per emission */
} Fixture;

static void
on_edited (CwbPropertyEditor *editor, const char *key, const char *value, Fixture *fx)
{
  g_ptr_array_add (fx->edits, g_strdup_printf ("%s=%s", key, value));
}

static void
fixture_init (Fixture *fx, GPtrArray *values)
{
  fx->editor = CWB_PROPERTY_EDITOR (g_object_ref_sink (cwb_property_editor_new ()));
  fx->edits = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (fx->editor, "edited", G_CALLBACK (on_edited), fx);
  cwb_property_editor_add_section (fx->editor, "Contact", "contact", SPECS,
                                   G_N_ELEMENTS (SPECS), values);
}

static void
fixture_clear (Fixture *fx)
{
  g_object_unref (fx->editor);
  g_ptr_array_unref (fx->edits);
}

/* The emissions since the last call, joined with ";" ("" for none). */
static char *
take_edits (Fixture *fx)
{
  g_ptr_array_add (fx->edits, NULL);
  char *joined = g_strjoinv (";", (char **) fx->edits->pdata);
  g_ptr_array_set_size (fx->edits, 0);
  return joined;
}

#define ASSERT_EDITS(fx, expected)                                                            \
  do                                                                                          \
    {                                                                                         \
      g_autofree char *got_ = take_edits (fx);                                                \
      g_assert_cmpstr (got_, ==, expected);                                                   \
    }                                                                                         \
  while (0)

static GtkWidget *
find (Fixture *fx, const char *key)
{
  GtkWidget *widget = cwb_property_editor_find (fx->editor, key);
  g_assert_nonnull (widget);
  return widget;
}

/* The text of the label in the widget's grid row. */
static const char *
label_of (GtkWidget *widget)
{
  GtkGrid *grid = GTK_GRID (gtk_widget_get_parent (widget));
  int column, row, width, height;
  gtk_grid_query_child (grid, widget, &column, &row, &width, &height);
  g_assert_cmpint (column, ==, 1);
  return gtk_label_get_text (GTK_LABEL (gtk_grid_get_child_at (grid, 0, row)));
}

static GtkWidget *
vec3_component (GtkWidget *box, int k)
{
  GtkWidget *child = gtk_widget_get_first_child (box);
  for (int i = 0; i < k; i++)
    child = gtk_widget_get_next_sibling (child);
  g_assert_true (GTK_IS_ENTRY (child));
  return child;
}

static void
type_and_activate (GtkWidget *entry, const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "activate");
}

static const char *
text_of (GtkWidget *editable)
{
  return gtk_editable_get_text (GTK_EDITABLE (editable));
}

static void
assert_tooltip_contains (GtkWidget *widget, const char *part)
{
  const char *tooltip = gtk_widget_get_tooltip_text (widget);
  g_assert_nonnull (tooltip);
  if (strstr (tooltip, part) == NULL)
    g_error ("tooltip \"%s\" lacks \"%s\"", tooltip, part);
}

static void
test_widgets (void)
{
  SKIP_WITHOUT_DISPLAY ();
  Fixture fx;
  fixture_init (&fx, NULL);

  g_assert_true (GTK_IS_SWITCH (find (&fx, "contact.enabled")));
  g_assert_true (GTK_IS_SPIN_BUTTON (find (&fx, "contact.iterations")));
  g_assert_true (GTK_IS_ENTRY (find (&fx, "contact.stiffness")));
  g_assert_true (GTK_IS_ENTRY (find (&fx, "contact.tolerance")));
  g_assert_true (GTK_IS_ENTRY (find (&fx, "contact.damping")));
  GtkWidget *offset = find (&fx, "contact.offset");
  g_assert_true (GTK_IS_BOX (offset));
  g_assert_nonnull (vec3_component (offset, 2));
  g_assert_null (gtk_widget_get_next_sibling (vec3_component (offset, 2)));
  g_assert_true (GTK_IS_DROP_DOWN (find (&fx, "contact.method")));
  g_assert_true (GTK_IS_ENTRY (find (&fx, "contact.label")));
  g_assert_null (cwb_property_editor_find (fx.editor, "contact.nothing"));
  g_assert_null (cwb_property_editor_find (fx.editor, "stiffness"));

  /* Units in parentheses; none for "" and for the dimensionless "1". */
  g_assert_cmpstr (label_of (find (&fx, "contact.stiffness")), ==, "stiffness (N/m)");
  g_assert_cmpstr (label_of (find (&fx, "contact.offset")), ==, "offset (m)");
  g_assert_cmpstr (label_of (find (&fx, "contact.tolerance")), ==, "tolerance");
  g_assert_cmpstr (label_of (find (&fx, "contact.enabled")), ==, "enabled");

  /* Help, the exact range with its unit, the default. */
  GtkWidget *stiffness = find (&fx, "contact.stiffness");
  assert_tooltip_contains (stiffness, "Penalty stiffness.");
  assert_tooltip_contains (stiffness, "Range [0, 1000000000000] N/m");
  assert_tooltip_contains (stiffness, "Default: 100000");
  assert_tooltip_contains (find (&fx, "contact.tolerance"), "Range [0, 1]");
  assert_tooltip_contains (find (&fx, "contact.iterations"), "Range [1, 1000]");
  assert_tooltip_contains (offset, "Range [-100, 100] m");
  assert_tooltip_contains (vec3_component (offset, 1), "Shift of the frame.");
  assert_tooltip_contains (find (&fx, "contact.method"), "Root finder.");
  /* Unbounded: the unit, no range. */
  GtkWidget *damping = find (&fx, "contact.damping");
  assert_tooltip_contains (damping, "Unit: N s/m");
  const char *damping_tip = gtk_widget_get_tooltip_text (damping);
  g_assert_null (strstr (damping_tip, "Range"));

  /* Building the panel emits nothing. */
  ASSERT_EDITS (&fx, "");
  fixture_clear (&fx);
}

static void
set_param (GPtrArray *params, const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  CwbSceneNode *node = cwb_scene_node_parse (text, NULL, &error);
  g_assert_no_error (error);
  cwb_scene_params_set (params, name, node, NULL);
}

static void
test_values (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autoptr (GPtrArray) values = cwb_scene_params_new ();
  set_param (values, "enabled", "false");
  set_param (values, "iterations", "7");
  set_param (values, "stiffness", "2.5e6");
  set_param (values, "offset", "[1, 2.5, -3]");
  set_param (values, "method", "newton");
  set_param (values, "label", "'box: one'");
  Fixture fx;
  fixture_init (&fx, values);

  g_assert_false (gtk_switch_get_active (GTK_SWITCH (find (&fx, "contact.enabled"))));
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (find (&fx,
                                                                       "contact.iterations"))),
                     ==, 7);
  /* Numbers in their shortest exact form. */
  g_assert_cmpstr (text_of (find (&fx, "contact.stiffness")), ==, "2500000");
  GtkWidget *offset = find (&fx, "contact.offset");
  g_assert_cmpstr (text_of (vec3_component (offset, 0)), ==, "1");
  g_assert_cmpstr (text_of (vec3_component (offset, 1)), ==, "2.5");
  g_assert_cmpstr (text_of (vec3_component (offset, 2)), ==, "-3");
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (find (&fx, "contact.method"))),
                    ==, 2);
  g_assert_cmpstr (text_of (find (&fx, "contact.label")), ==, "box: one");
  /* Absent: the defaults. */
  g_assert_cmpstr (text_of (find (&fx, "contact.tolerance")), ==, "1e-09");
  g_assert_cmpstr (text_of (find (&fx, "contact.damping")), ==, "0");
  g_assert_false (gtk_widget_has_css_class (find (&fx, "contact.stiffness"), "error"));
  ASSERT_EDITS (&fx, "");

  /* A scene value the schema refuses shows the default, marked with the reason. */
  g_autoptr (GPtrArray) bad = cwb_scene_params_new ();
  set_param (bad, "stiffness", "-5");
  cwb_property_editor_add_section (fx.editor, "Refused", "bad", SPECS, G_N_ELEMENTS (SPECS),
                                   bad);
  GtkWidget *refused = find (&fx, "bad.stiffness");
  g_assert_cmpstr (text_of (refused), ==, "100000");
  g_assert_true (gtk_widget_has_css_class (refused, "error"));
  assert_tooltip_contains (refused, "expected a value in [0, 1000000000000], got -5");
  /* Accepting the default shown replaces the refused value. */
  g_signal_emit_by_name (refused, "activate");
  ASSERT_EDITS (&fx, "bad.stiffness=100000");
  g_assert_false (gtk_widget_has_css_class (refused, "error"));
  fixture_clear (&fx);
}

static GtkEventController *
focus_controller (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_FOCUS (controller))
        return GTK_EVENT_CONTROLLER (controller);   /* the widget keeps it */
    }
  g_assert_not_reached ();
}

static void
test_edits (void)
{
  SKIP_WITHOUT_DISPLAY ();
  Fixture fx;
  fixture_init (&fx, NULL);

  /* Numbers go out in their shortest exact form, and the entry shows it. */
  GtkWidget *stiffness = find (&fx, "contact.stiffness");
  type_and_activate (stiffness, "2e5");
  ASSERT_EDITS (&fx, "contact.stiffness=200000");
  g_assert_cmpstr (text_of (stiffness), ==, "200000");
  type_and_activate (find (&fx, "contact.tolerance"), "1e-12");
  ASSERT_EDITS (&fx, "contact.tolerance=1e-12");

  gtk_switch_set_active (GTK_SWITCH (find (&fx, "contact.enabled")), FALSE);
  ASSERT_EDITS (&fx, "contact.enabled=false");
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find (&fx, "contact.method")), 0);
  ASSERT_EDITS (&fx, "contact.method=fixed_point");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find (&fx, "contact.iterations")), 42);
  ASSERT_EDITS (&fx, "contact.iterations=42");

  GtkWidget *offset = find (&fx, "contact.offset");
  type_and_activate (vec3_component (offset, 1), "5e-1");
  ASSERT_EDITS (&fx, "contact.offset=[0, 0.5, -9.81]");
  g_assert_cmpstr (text_of (vec3_component (offset, 1)), ==, "0.5");

  /* Strings: bare when YAML reads them back as themselves, quoted otherwise. */
  GtkWidget *label = find (&fx, "contact.label");
  type_and_activate (label, "box one");
  ASSERT_EDITS (&fx, "contact.label=box one");
  type_and_activate (label, "a: \"b\"");
  ASSERT_EDITS (&fx, "contact.label=\"a: \\\"b\\\"\"");
  g_assert_cmpstr (text_of (label), ==, "a: \"b\"");

  /* Refused text: nothing emitted, the field marked with the parser's reason. */
  type_and_activate (stiffness, "-1");
  ASSERT_EDITS (&fx, "");
  g_assert_true (gtk_widget_has_css_class (stiffness, "error"));
  assert_tooltip_contains (stiffness, "expected a value in [0, 1000000000000], got -1");
  type_and_activate (stiffness, "stiff");
  ASSERT_EDITS (&fx, "");
  g_assert_true (gtk_widget_has_css_class (stiffness, "error"));
  assert_tooltip_contains (stiffness, "expected a number, got stiff");
  type_and_activate (stiffness, "3");
  ASSERT_EDITS (&fx, "contact.stiffness=3");
  g_assert_false (gtk_widget_has_css_class (stiffness, "error"));
  assert_tooltip_contains (stiffness, "Penalty stiffness.");

  /* A refused component is the one marked; "1, 2" cannot pass for two components. */
  type_and_activate (vec3_component (offset, 2), "1, 2");
  ASSERT_EDITS (&fx, "");
  g_assert_true (gtk_widget_has_css_class (vec3_component (offset, 2), "error"));
  g_assert_false (gtk_widget_has_css_class (vec3_component (offset, 0), "error"));
  type_and_activate (vec3_component (offset, 2), "101");
  ASSERT_EDITS (&fx, "");
  assert_tooltip_contains (vec3_component (offset, 2), "expected a value in [-100, 100]");
  type_and_activate (vec3_component (offset, 2), "-9.81");
  ASSERT_EDITS (&fx, "");   /* back to the value committed: no change */
  g_assert_false (gtk_widget_has_css_class (vec3_component (offset, 2), "error"));

  /* The spin button's text goes through the same parser: refused, the value stays. */
  GtkSpinButton *iterations = GTK_SPIN_BUTTON (find (&fx, "contact.iterations"));
  gtk_editable_set_text (GTK_EDITABLE (iterations), "5000");
  gtk_spin_button_update (iterations);
  ASSERT_EDITS (&fx, "");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (iterations), "error"));
  assert_tooltip_contains (GTK_WIDGET (iterations), "expected a value in [1, 1000], got 5000");
  g_assert_cmpfloat (gtk_spin_button_get_value (iterations), ==, 42);
  gtk_editable_set_text (GTK_EDITABLE (iterations), "many");
  gtk_spin_button_update (iterations);
  ASSERT_EDITS (&fx, "");
  gtk_editable_set_text (GTK_EDITABLE (iterations), "2.5");
  gtk_spin_button_update (iterations);
  ASSERT_EDITS (&fx, "");
  assert_tooltip_contains (GTK_WIDGET (iterations), "expected an integer, got 2.5");
  gtk_editable_set_text (GTK_EDITABLE (iterations), "12");
  gtk_spin_button_update (iterations);
  ASSERT_EDITS (&fx, "contact.iterations=12");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (iterations), "error"));

  /* Unchanged values emit nothing, however they are written. */
  type_and_activate (stiffness, "3.0");
  type_and_activate (stiffness, "3e0");
  g_assert_cmpstr (text_of (stiffness), ==, "3");
  type_and_activate (label, "a: \"b\"");
  gtk_switch_set_active (GTK_SWITCH (find (&fx, "contact.enabled")), FALSE);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find (&fx, "contact.method")), 0);
  gtk_spin_button_set_value (iterations, 12);
  g_signal_emit_by_name (vec3_component (offset, 0), "activate");
  ASSERT_EDITS (&fx, "");

  /* Focus leaving commits edited text only. */
  GtkWidget *damping = find (&fx, "contact.damping");
  g_signal_emit_by_name (focus_controller (damping), "leave");
  ASSERT_EDITS (&fx, "");
  gtk_editable_set_text (GTK_EDITABLE (damping), "7");
  g_signal_emit_by_name (focus_controller (damping), "leave");
  ASSERT_EDITS (&fx, "contact.damping=7");
  gtk_editable_set_text (GTK_EDITABLE (vec3_component (offset, 0)), "1");
  g_signal_emit_by_name (focus_controller (offset), "leave");
  ASSERT_EDITS (&fx, "contact.offset=[1, 0.5, -9.81]");
  fixture_clear (&fx);
}

/* A double typed as text comes back bit-identical through the scene's parser. */
static void
assert_round_trip (Fixture *fx, const char *typed, const char *expected_text)
{
  type_and_activate (find (fx, "contact.damping"), typed);
  g_assert_cmpuint (fx->edits->len, ==, 1);
  const char *edit = g_ptr_array_index (fx->edits, 0);
  g_assert_true (g_str_has_prefix (edit, "contact.damping="));
  const char *value_text = edit + strlen ("contact.damping=");
  g_assert_cmpstr (value_text, ==, expected_text);

  g_autoptr (GError) error = NULL;
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (value_text, NULL, &error);
  g_assert_no_error (error);
  CwbParamValue value;
  g_assert_true (cwb_param_value_from_node (spec_named ("damping"), node, "damping", &value,
                                            &error));
  double typed_value = g_ascii_strtod (typed, NULL);
  g_assert_cmpmem (&value.d, sizeof value.d, &typed_value, sizeof typed_value);
  g_ptr_array_set_size (fx->edits, 0);
}

static void
test_round_trip (void)
{
  SKIP_WITHOUT_DISPLAY ();
  Fixture fx;
  fixture_init (&fx, NULL);
  assert_round_trip (&fx, "0.1", "0.1");
  assert_round_trip (&fx, "1e-9", "1e-09");
  assert_round_trip (&fx, "123456.789", "123456.789");
  assert_round_trip (&fx, "1e5", "100000");
  assert_round_trip (&fx, "0.30000000000000004", "0.30000000000000004");
  assert_round_trip (&fx, "-2.2250738585072014e-308", "-2.2250738585072014e-308");
  assert_round_trip (&fx, "1.7976931348623157e308", "1.7976931348623157e+308");
  fixture_clear (&fx);
}

static void
test_clear (void)
{
  SKIP_WITHOUT_DISPLAY ();
  Fixture fx;
  fixture_init (&fx, NULL);
  GtkWidget *old_stiffness = g_object_ref (find (&fx, "contact.stiffness"));
  cwb_property_editor_clear (fx.editor);
  g_assert_null (cwb_property_editor_find (fx.editor, "contact.stiffness"));
  g_assert_null (cwb_property_editor_find (fx.editor, "contact.offset"));
  GtkWidget *box = gtk_widget_get_first_child (GTK_WIDGET (fx.editor));
  g_assert_null (gtk_widget_get_first_child (box));

  /* A widget of the cleared panel, kept alive elsewhere, edits nothing. */
  type_and_activate (old_stiffness, "9");
  ASSERT_EDITS (&fx, "");
  g_object_unref (old_stiffness);

  cwb_property_editor_add_section (fx.editor, "Solver", "solver", SPECS, G_N_ELEMENTS (SPECS),
                                   NULL);
  g_assert_null (cwb_property_editor_find (fx.editor, "contact.stiffness"));
  type_and_activate (find (&fx, "solver.stiffness"), "9");
  ASSERT_EDITS (&fx, "solver.stiffness=9");

  /* Cleared widgets outlive the clear (it may run inside one of their signals) until the
   * main loop is idle, not longer. */
  GtkWidget *old_label = find (&fx, "solver.label");
  g_object_add_weak_pointer (G_OBJECT (old_label), (gpointer *) &old_label);
  cwb_property_editor_clear (fx.editor);
  g_assert_nonnull (old_label);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (old_label);
  fixture_clear (&fx);
}

/* What the window does: apply the edit, then rebuild the panel from the new scene, inside
 * the emission. The field that emitted is freed under the signal; nothing may touch it. */
static void
on_edited_rebuild (CwbPropertyEditor *editor, const char *key, const char *value,
                   GPtrArray *values)
{
  g_autoptr (GError) error = NULL;
  CwbSceneNode *node = cwb_scene_node_parse (value, NULL, &error);
  g_assert_no_error (error);
  cwb_scene_params_set (values, key + strlen ("contact."), node, NULL);
  cwb_property_editor_clear (editor);
  cwb_property_editor_add_section (editor, "Contact", "contact", SPECS, G_N_ELEMENTS (SPECS),
                                   values);
}

static void
test_rebuild_in_handler (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autoptr (GPtrArray) values = cwb_scene_params_new ();
  Fixture fx;
  fixture_init (&fx, values);
  g_signal_connect (fx.editor, "edited", G_CALLBACK (on_edited_rebuild), values);

  type_and_activate (find (&fx, "contact.stiffness"), "42");
  ASSERT_EDITS (&fx, "contact.stiffness=42");
  g_assert_cmpstr (text_of (find (&fx, "contact.stiffness")), ==, "42");
  gtk_switch_set_active (GTK_SWITCH (find (&fx, "contact.enabled")), FALSE);
  ASSERT_EDITS (&fx, "contact.enabled=false");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (find (&fx, "contact.enabled"))));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (find (&fx, "contact.method")), 2);
  ASSERT_EDITS (&fx, "contact.method=newton");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find (&fx, "contact.iterations")), 3);
  ASSERT_EDITS (&fx, "contact.iterations=3");
  type_and_activate (vec3_component (find (&fx, "contact.offset"), 0), "2");
  ASSERT_EDITS (&fx, "contact.offset=[2, 0, -9.81]");
  g_assert_cmpuint (values->len, ==, 5);
  fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* These widgets are never drawn, so the test opens the display without OpenGL: Mesa's
   * driver, loaded and unloaded again while GDK probes GL, keeps an allocation whose stack
   * LeakSanitizer's fast unwinder cannot attribute to any library, so no suppression could
   * name it. A GDK_DEBUG set by whoever runs the test is left alone. */
  g_setenv ("GDK_DEBUG", "gl-disable", FALSE);
  have_display = gtk_init_check ();
  g_test_add_func ("/app/property-editor/widgets", test_widgets);
  g_test_add_func ("/app/property-editor/values", test_values);
  g_test_add_func ("/app/property-editor/edits", test_edits);
  g_test_add_func ("/app/property-editor/round-trip", test_round_trip);
  g_test_add_func ("/app/property-editor/clear", test_clear);
  g_test_add_func ("/app/property-editor/rebuild-in-handler", test_rebuild_in_handler);
  return g_test_run ();
}
