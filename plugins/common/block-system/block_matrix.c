/* The block sparse system matrix (block_matrix.h). */
#include <string.h>

#include "block_matrix.h"

static int
compare_u32 (gconstpointer a, gconstpointer b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* The index of block (row, col); the pattern always has it for nodes sharing an element. */
static size_t
find_block (const BlockMatrix *m, uint32_t row, uint32_t col)
{
  size_t lo = m->row_start[row], hi = m->row_start[row + 1];
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (m->cols[mid] == col)
        return mid;
      if (m->cols[mid] < col)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_assert_not_reached ();
}

BlockMatrix *
block_matrix_new (size_t n_nodes, const BlockElements *sets, size_t n_sets)
{
  /* Each node's neighbours (itself included), gathered per row, sorted and made unique. */
  g_autofree size_t *count = g_new0 (size_t, n_nodes + 1);
  for (size_t s = 0; s < n_sets; s++)
    {
      size_t k = sets[s].nodes_per_element;
      g_return_val_if_fail (k >= 1 && k <= BLOCK_MATRIX_MAX_ELEMENT_NODES, NULL);
      for (size_t e = 0; e < sets[s].n_elements; e++)
        for (size_t a = 0; a < k; a++)
          count[sets[s].nodes[k * e + a]] += k;
    }
  for (size_t i = 0; i < n_nodes; i++)
    count[i] += 1;   /* the diagonal, also for a node no element uses */
  g_autofree size_t *start = g_new0 (size_t, n_nodes + 1);
  for (size_t i = 0; i < n_nodes; i++)
    start[i + 1] = start[i] + count[i];
  g_autofree uint32_t *all = g_new (uint32_t, MAX (start[n_nodes], 1));
  g_autofree size_t *fill = g_memdup2 (start, MAX (n_nodes, 1) * sizeof (size_t));
  for (size_t i = 0; i < n_nodes; i++)
    all[fill[i]++] = (uint32_t) i;
  for (size_t s = 0; s < n_sets; s++)
    {
      size_t k = sets[s].nodes_per_element;
      for (size_t e = 0; e < sets[s].n_elements; e++)
        for (size_t a = 0; a < k; a++)
          for (size_t b = 0; b < k; b++)
            {
              uint32_t row = sets[s].nodes[k * e + a];
              all[fill[row]++] = sets[s].nodes[k * e + b];
            }
    }

  BlockMatrix *m = g_new0 (BlockMatrix, 1);
  m->n = n_nodes;
  m->row_start = g_new0 (size_t, n_nodes + 1);
  m->diagonal = g_new (size_t, MAX (n_nodes, 1));
  m->cols = g_new (uint32_t, MAX (start[n_nodes], 1));
  size_t out = 0;
  for (size_t i = 0; i < n_nodes; i++)
    {
      uint32_t *row = all + start[i];
      size_t len = start[i + 1] - start[i];
      qsort (row, len, sizeof *row, compare_u32);
      for (size_t k = 0; k < len; k++)
        if (k == 0 || row[k] != row[k - 1])
          {
            if (row[k] == i)
              m->diagonal[i] = out;
            m->cols[out++] = row[k];
          }
      m->row_start[i + 1] = out;
    }
  m->n_blocks = out;
  m->values = g_new0 (double, 9 * MAX (out, 1));
  m->n_sets = n_sets;
  m->set_first = g_new0 (size_t, n_sets + 1);
  m->set_nodes = g_new (size_t, MAX (n_sets, 1));
  for (size_t s = 0; s < n_sets; s++)
    {
      size_t k = sets[s].nodes_per_element;
      m->set_nodes[s] = k;
      m->set_first[s + 1] = m->set_first[s] + k * k * sets[s].n_elements;
    }
  m->element_blocks = g_new (size_t, MAX (m->set_first[n_sets], 1));
  for (size_t s = 0; s < n_sets; s++)
    {
      size_t k = sets[s].nodes_per_element;
      size_t *blocks = &m->element_blocks[m->set_first[s]];
      for (size_t e = 0; e < sets[s].n_elements; e++)
        for (size_t a = 0; a < k; a++)
          for (size_t b = 0; b < k; b++)
            blocks[k * k * e + k * a + b] = find_block (m, sets[s].nodes[k * e + a],
                                                        sets[s].nodes[k * e + b]);
    }
  return m;
}

void
block_matrix_free (BlockMatrix *m)
{
  if (m == NULL)
    return;
  g_free (m->row_start);
  g_free (m->cols);
  g_free (m->diagonal);
  g_free (m->values);
  g_free (m->element_blocks);
  g_free (m->set_first);
  g_free (m->set_nodes);
  g_free (m);
}

void
block_matrix_zero (BlockMatrix *m)
{
  memset (m->values, 0, 9 * m->n_blocks * sizeof (double));
}

void
block_matrix_add_element (BlockMatrix *m, size_t set, size_t element, const double *k,
                          double scale)
{
  size_t n = m->set_nodes[set], w = 3 * n;
  const size_t *blocks = &m->element_blocks[m->set_first[set] + n * n * element];
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      {
        double *v = &m->values[9 * blocks[n * a + b]];
        for (size_t r = 0; r < 3; r++)
          for (size_t c = 0; c < 3; c++)
            v[3 * r + c] += scale * k[w * (3 * a + r) + 3 * b + c];
      }
}

void
block_matrix_add_diagonal (BlockMatrix *m, const double *d, double scale)
{
  for (size_t i = 0; i < m->n; i++)
    {
      double *v = &m->values[9 * m->diagonal[i]];
      v[0] += scale * d[i];
      v[4] += scale * d[i];
      v[8] += scale * d[i];
    }
}

void
block_matrix_fix_nodes (BlockMatrix *m, const gboolean *fixed)
{
  for (size_t i = 0; i < m->n; i++)
    for (size_t k = m->row_start[i]; k < m->row_start[i + 1]; k++)
      if (fixed[i] || fixed[m->cols[k]])
        {
          double *v = &m->values[9 * k];
          memset (v, 0, 9 * sizeof (double));
          if (m->cols[k] == i)
            v[0] = v[4] = v[8] = 1;
        }
}

void
block_matrix_apply (const BlockMatrix *m, const double *x, double *y)
{
  for (size_t i = 0; i < m->n; i++)
    {
      double s0 = 0, s1 = 0, s2 = 0;
      for (size_t k = m->row_start[i]; k < m->row_start[i + 1]; k++)
        {
          const double *v = &m->values[9 * k];
          const double *xj = &x[3 * m->cols[k]];
          s0 += v[0] * xj[0] + v[1] * xj[1] + v[2] * xj[2];
          s1 += v[3] * xj[0] + v[4] * xj[1] + v[5] * xj[2];
          s2 += v[6] * xj[0] + v[7] * xj[1] + v[8] * xj[2];
        }
      y[3 * i] = s0;
      y[3 * i + 1] = s1;
      y[3 * i + 2] = s2;
    }
}
