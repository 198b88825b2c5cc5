/* The plugins window: every library the registry found, in search order, with its status
 * (loaded, or refused and the reason), kind, name, version, ABI, file and, for a loaded one,
 * its summary and parameter schema (name, type, unit, default, range, help). */
#pragma once

#include <gtk/gtk.h>

#include "registry.h"

G_BEGIN_DECLS

GtkWindow *cwb_plugins_window_new (GtkWindow *parent, const CwbRegistry *registry);

G_END_DECLS
