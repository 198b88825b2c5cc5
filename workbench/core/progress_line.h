/* One line of progress on a terminal (stderr), redrawn in place at most ten times a second so
 * that drawing never slows the work, and blanked or ended when the work is done. On anything
 * but a terminal it draws nothing: logs and pipes stay clean. */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct CwbProgressLine {
  FILE *out;
  gboolean terminal;   /* drawing at all: asked for, and `out` is a terminal */
  gint64 last_ns;      /* when it was last drawn (cwb_clock_ns), 0: never */
  int width;           /* characters of the line on screen, 0: none */
} CwbProgressLine;

/* Draws to `out` when `wanted` and `out` is a terminal. */
void cwb_progress_line_init (CwbProgressLine *line, FILE *out, gboolean wanted);
/* TRUE when a redraw is due now: the first, or a tenth of a second after the last; `final`
 * (the last state of the work) is always due. FALSE when not drawing at all. */
gboolean cwb_progress_line_due (CwbProgressLine *line, gboolean final);
/* Replaces the line on screen with the formatted text. */
void cwb_progress_line_draw (CwbProgressLine *line, const char *format, ...)
  G_GNUC_PRINTF (2, 3);
/* Blanks the line and puts the cursor back at its start (work done, nothing left to show). */
void cwb_progress_line_clear (CwbProgressLine *line);
/* Keeps the last line on screen and moves to the next (a summary worth keeping). */
void cwb_progress_line_end (CwbProgressLine *line);

G_END_DECLS
