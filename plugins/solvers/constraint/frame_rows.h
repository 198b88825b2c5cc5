/* Where a contact frame's rows are: the block the solver solves together (a normal row and
 * up to two tangent rows after it), found the same way by the Gauss-Seidel blocks and the
 * warm start. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* rows[0] is the frame's normal row, rows[1] and rows[2] its tangent rows (-1 where
 * missing); returns the number of tangent rows, or -1 when the frame does not lie within the
 * n_rows rows or does not start with a normal row (all of rows -1 then). */
static inline int
frame_block_rows (const CwbConstraintRow *all, size_t n_rows, const CwbContactFrame *frame,
                  int rows[3])
{
  rows[0] = rows[1] = rows[2] = -1;
  size_t first = frame->first_row, n = frame->n_rows;
  if (n == 0 || first + n > n_rows || all[first].kind != CWB_ROW_NORMAL)
    return -1;
  rows[0] = (int) first;
  int tangents = 0;
  for (size_t k = 1; k < n && tangents < 2 && all[first + k].kind == CWB_ROW_TANGENT; k++)
    rows[1 + tangents++] = (int) (first + k);
  return tangents;
}

G_END_DECLS
