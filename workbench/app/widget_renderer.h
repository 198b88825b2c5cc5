/* Which of GTK's renderers draws the widgets. On a software OpenGL (Mesa's llvmpipe, the
 * machines CI and many remote sessions have), GTK's GL renderer redraws the whole window
 * through the rasterizer each frame and halves the viewport's frame rate or worse
 * (docs/benchmarks.md); its cairo renderer composites the same window on the CPU in a
 * fraction of that. The viewport itself renders with OpenGL either way. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Sets GSK_RENDERER=cairo when the display's OpenGL is a software rasterizer and the user
 * has not chosen a renderer. Call before the first window is realized (GTK reads the
 * variable once). Without OpenGL it does nothing. */
void cwb_app_choose_widget_renderer (GdkDisplay *display);

/* The type name of the renderer drawing a realized window's widgets ("GskCairoRenderer"). */
const char *cwb_app_widget_renderer_name (GtkWidget *widget);

G_END_DECLS
