/* A progress line on a terminal (progress_line.h). */
#include <unistd.h>

#include "clock.h"
#include "progress_line.h"

#define PROGRESS_INTERVAL_NS 100000000   /* 10 updates per second: reads as live, costs nothing */

void
cwb_progress_line_init (CwbProgressLine *line, FILE *out, gboolean wanted)
{
  *line = (CwbProgressLine){ .out = out, .terminal = wanted && isatty (fileno (out)) };
}

gboolean
cwb_progress_line_due (CwbProgressLine *line, gboolean final)
{
  if (!line->terminal)
    return FALSE;
  return final || line->last_ns == 0 || cwb_clock_ns () - line->last_ns >= PROGRESS_INTERVAL_NS;
}

void
cwb_progress_line_draw (CwbProgressLine *line, const char *format, ...)
{
  if (!line->terminal)
    return;
  va_list args;
  va_start (args, format);
  g_autofree char *text = g_strdup_vprintf (format, args);
  va_end (args);
  /* Padded to the previous line's width, so that a shorter text leaves none of it behind. */
  int width = (int) g_utf8_strlen (text, -1);
  fprintf (line->out, "\r%s%*s", text, MAX (line->width - width, 0), "");
  fflush (line->out);
  line->width = width;
  line->last_ns = cwb_clock_ns ();
}

void
cwb_progress_line_clear (CwbProgressLine *line)
{
  if (!line->terminal || line->width == 0)
    return;
  fprintf (line->out, "\r%*s\r", line->width, "");
  fflush (line->out);
  line->width = 0;
}

void
cwb_progress_line_end (CwbProgressLine *line)
{
  if (!line->terminal || line->width == 0)
    return;
  fputc ('\n', line->out);
  fflush (line->out);
  line->width = 0;
}
