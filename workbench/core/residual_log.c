/* The residual CSV of a headless run (residual_log.h). Rows are kept as text: that is what
 * is written, and at ~30 bytes a row it is no larger than the numbers would be. */
#include "residual_log.h"

#include "scene.h"

static const char residual_header[] = "step,iteration,residual\n";

struct CwbResidualLog {
  GString *rows;
};

CwbResidualLog *
cwb_residual_log_new (void)
{
  CwbResidualLog *log = g_new0 (CwbResidualLog, 1);
  log->rows = g_string_new (NULL);
  return log;
}

void
cwb_residual_log_free (CwbResidualLog *log)
{
  if (log == NULL)
    return;
  g_string_free (log->rows, TRUE);
  g_free (log);
}

void
cwb_residual_log_add_step (CwbResidualLog *log, const CwbWorld *world)
{
  g_return_if_fail (log != NULL);
  size_t n = 0;
  const double *history = cwb_world_residual_history (world, &n);
  guint64 step = cwb_world_step_count (world);
  for (size_t k = 0; k < n; k++)
    {
      /* The shortest text that reads back to the same double, in the C locale. */
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf (log->rows, "%" G_GUINT64_FORMAT ",%zu,%s\n", step, k + 1,
                              cwb_scene_format_double (buf, history[k]));
    }
}

gboolean
cwb_residual_log_write (const CwbResidualLog *log, const char *path, GError **error)
{
  g_return_val_if_fail (log != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_autoptr (GString) text = g_string_sized_new (sizeof residual_header + log->rows->len);
  g_string_append (text, residual_header);
  g_string_append_len (text, log->rows->str, (gssize) log->rows->len);
  return g_file_set_contents_full (path, text->str, (gssize) text->len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
}
