/* Choosing GTK's widget renderer (widget_renderer.h). */
#include <epoxy/gl.h>
#include <string.h>

#include "widget_renderer.h"

static gboolean
is_software_rasterizer (const char *gl_renderer)
{
  static const char *const software[] = { "llvmpipe", "softpipe", "swrast", "Software Rasterizer" };
  for (size_t k = 0; k < G_N_ELEMENTS (software); k++)
    if (strstr (gl_renderer, software[k]) != NULL)
      return TRUE;
  return FALSE;
}

void
cwb_app_choose_widget_renderer (GdkDisplay *display)
{
  if (g_getenv ("GSK_RENDERER") != NULL)
    return;   /* the user's choice */
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkGLContext) context = gdk_display_create_gl_context (display, &error);
  if (context == NULL || !gdk_gl_context_realize (context, &error))
    return;
  gdk_gl_context_make_current (context);
  const char *name = (const char *) glGetString (GL_RENDERER);
  gboolean software = name != NULL && is_software_rasterizer (name);
  gdk_gl_context_clear_current ();
  if (software)
    g_setenv ("GSK_RENDERER", "cairo", FALSE);
}

const char *
cwb_app_widget_renderer_name (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;
  return renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "none";
}
