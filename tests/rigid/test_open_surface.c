/* A free rigid body needs a closed surface for its mass properties: an open one is refused
 * with a message naming the body and the mesh; a fixed body needs none and is accepted. */
#include "test_plugin.h"

static void
test_open_refused (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (1, 1, 1);
  test_shape_open (box);
  CwbBodyCreateInfo info = test_body_info ("lidless-crate", box, 1000, FALSE, NULL);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_null (body);
  g_assert_nonnull (error);
  g_assert_cmpstr (g_quark_to_string (error->domain), ==, "cwb-rigid-error-quark");
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "lidless-crate"));
  g_assert_nonnull (strstr (error->message, box->source));
}

static void
test_open_fixed_accepted (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (1, 1, 1);
  test_shape_open (box);
  CwbBodyCreateInfo info = test_body_info ("open-floor", box, 0, TRUE, NULL);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_no_error (error);
  g_assert_nonnull (body);
  CwbBodyInfo bi;
  vt->get_info (body, &bi);
  g_assert_false (bi.reference_surface->closed);
  g_assert_cmpuint (bi.reference_surface->n_triangles, ==, box->surface.n_triangles);
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/open-surface/refused", test_open_refused);
  g_test_add_func ("/rigid/open-surface/fixed-accepted", test_open_fixed_accepted);
  return g_test_run ();
}
