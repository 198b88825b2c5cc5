/* The run report (ARCHITECTURE.md, "Command line and report contract"), written with
 * json-glib. Every documented field is present; a field that does not apply is null. */
#pragma once

#include <json-glib/json-glib.h>

#include "compare.h"
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

/* Makes the report one side of an A/B compare (--compare): `role` "a" or "b", `other` the
 * other side's report path (NULL when it writes none), `changes` the "KEY=VALUE" that made B
 * (NULL-terminated). Its "compare" member is null otherwise. */
void cwb_report_set_compare (CwbReport *report, const char *role, const char *other,
                             char *const *changes);

/* Records the difference after a step that both sides made; `farthest` names the body of
 * measure->farthest (NULL when none is matched). */
void cwb_report_add_compare_step (CwbReport *report, double time,
                                  const CwbCompareMeasure *measure, const char *farthest);

/* The report as JSON, with the final body states of `world` and the measured wall time. */
JsonNode *cwb_report_build (const CwbReport *report, const CwbWorld *world, double wall_ms,
                            const char *failure);

/* Writes atomically (temporary file, then rename). */
gboolean cwb_report_write (const CwbReport *report, const CwbWorld *world, double wall_ms,
                           const char *failure, const char *path, GError **error);

G_END_DECLS
