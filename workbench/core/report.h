/* The run report (ARCHITECTURE.md, "Command line and report contract"), written with
 * json-glib. Every documented field is present; a field that does not apply is null. */
#pragma once

#include <json-glib/json-glib.h>

#include "world.h"

G_BEGIN_DECLS

typedef struct CwbReport CwbReport;

CwbReport *cwb_report_new (const char *scene_path);
void cwb_report_free (CwbReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbReport, cwb_report_free)

/* Records the world's last step (call after each successful cwb_world_step). */
void cwb_report_add_step (CwbReport *report, const CwbWorld *world);

/* Records a change made during the run after `step` steps ("KEY=VALUE", --at). */
void cwb_report_add_change (CwbReport *report, guint64 step, const char *change);

/* The report as JSON, with the final body states of `world` and the measured wall time. */
JsonNode *cwb_report_build (const CwbReport *report, const CwbWorld *world, double wall_ms,
                            const char *failure);

/* Writes atomically (temporary file, then rename). */
gboolean cwb_report_write (const CwbReport *report, const CwbWorld *world, double wall_ms,
                           const char *failure, const char *path, GError **error);

G_END_DECLS
