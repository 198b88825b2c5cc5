/* The contact set's blocks by body, and assembled per body (see the header). */
#include "contact_blocks.h"

#include <string.h>

typedef struct BodyAssembly {
  gboolean built;
  gboolean walked;       /* too many DOFs: no assembly */
  GArray *dofs;          /* uint32_t */
  GArray *matrix;        /* double */
  CwbAssembledBlocks view;
} BodyAssembly;

/* One nonzero of a point's J row. */
typedef struct JEntry {
  uint32_t local;        /* the DOF's index among the assembly's */
  double value;
} JEntry;

struct CwbContactBlocks {
  size_t dense_limit;    /* CWB_CONTACT_BLOCKS_DENSE_MAX unless a test set it */
  gboolean indexed;
  GArray *order[2];      /* guint */
  GArray *start[2];      /* guint, one per geometry + 1 */
  GArray *bodies[2];     /* BodyAssembly per geometry */
  /* Scratch of an assembly: */
  GArray *column;        /* double, nv: J^T of one unit force */
  GArray *local;         /* int per DOF: its index among the touched, or -1 */
  GHashTable *point_row; /* point + 1 -> 1 + index of its x row in row_start */
  GArray *row_start;     /* guint: each point's three rows' first entries, then the end */
  GArray *entries;       /* JEntry */
};

static void
clear_assembly (gpointer data)
{
  BodyAssembly *a = data;
  g_clear_pointer (&a->dofs, g_array_unref);
  g_clear_pointer (&a->matrix, g_array_unref);
}

CwbContactBlocks *
cwb_contact_blocks_new (void)
{
  CwbContactBlocks *blocks = g_new0 (CwbContactBlocks, 1);
  blocks->dense_limit = CWB_CONTACT_BLOCKS_DENSE_MAX;
  for (int k = 0; k < 2; k++)
    {
      blocks->order[k] = g_array_new (FALSE, FALSE, sizeof (guint));
      blocks->start[k] = g_array_new (FALSE, FALSE, sizeof (guint));
      blocks->bodies[k] = g_array_new (FALSE, TRUE, sizeof (BodyAssembly));
      g_array_set_clear_func (blocks->bodies[k], clear_assembly);
    }
  blocks->column = g_array_new (FALSE, FALSE, sizeof (double));
  blocks->local = g_array_new (FALSE, FALSE, sizeof (int));
  blocks->point_row = g_hash_table_new (NULL, NULL);
  blocks->row_start = g_array_new (FALSE, FALSE, sizeof (guint));
  blocks->entries = g_array_new (FALSE, FALSE, sizeof (JEntry));
  return blocks;
}

void
cwb_contact_blocks_free (CwbContactBlocks *blocks)
{
  if (blocks == NULL)
    return;
  for (int k = 0; k < 2; k++)
    {
      g_array_unref (blocks->order[k]);
      g_array_unref (blocks->start[k]);
      g_array_unref (blocks->bodies[k]);
    }
  g_array_unref (blocks->column);
  g_array_unref (blocks->local);
  g_hash_table_unref (blocks->point_row);
  g_array_unref (blocks->row_start);
  g_array_unref (blocks->entries);
  g_free (blocks);
}

void
cwb_contact_blocks_invalidate (CwbContactBlocks *blocks)
{
  blocks->indexed = FALSE;
}

void
cwb_contact_blocks_set_dense_limit (CwbContactBlocks *blocks, size_t max_dofs)
{
  blocks->dense_limit = max_dofs;
  blocks->indexed = FALSE;
}

static const GArray *
set_blocks (const CwbContactSet *set, int which)
{
  if (which == CWB_BLOCKS_STIFFNESS)
    return set->stiffness;
  return CWB_STRUCT_HAS (set, CwbContactSet, damping) ? set->damping : NULL;
}

/* Orders `array` by the geometry of their first point (a counting sort, stable). */
static void
index_blocks (const GArray *array, size_t n_geometries, GArray *order, GArray *start)
{
  g_array_set_size (start, (guint) n_geometries + 1);
  guint *first = (guint *) start->data;
  memset (first, 0, start->len * sizeof (guint));
  for (guint k = 0; array != NULL && k < array->len; k++)
    {
      uint32_t g = g_array_index (array, CwbPointStiffness, k).geometry_a;
      if (g < n_geometries)
        first[g + 1]++;
    }
  for (size_t g = 0; g < n_geometries; g++)
    first[g + 1] += first[g];
  g_array_set_size (order, first[n_geometries]);
  g_autofree guint *fill = g_memdup2 (first, MAX (n_geometries, 1) * sizeof (guint));
  for (guint k = 0; array != NULL && k < array->len; k++)
    {
      uint32_t g = g_array_index (array, CwbPointStiffness, k).geometry_a;
      if (g < n_geometries)
        g_array_index (order, guint, fill[g]++) = k;
    }
}

static void
ensure_indexed (CwbContactBlocks *blocks, const CwbContactSet *set, size_t n_geometries)
{
  if (blocks->indexed)
    return;
  for (int k = 0; k < 2; k++)
    {
      index_blocks (set_blocks (set, k), n_geometries, blocks->order[k], blocks->start[k]);
      /* The assemblies keep their arrays from detection to detection. */
      g_array_set_size (blocks->bodies[k], (guint) n_geometries);
      for (size_t g = 0; g < n_geometries; g++)
        g_array_index (blocks->bodies[k], BodyAssembly, g).built = FALSE;
    }
  blocks->indexed = TRUE;
}

const guint *
cwb_contact_blocks_of (CwbContactBlocks *blocks, const CwbContactSet *set, size_t n_geometries,
                       int which, uint32_t g, guint *first, guint *last)
{
  ensure_indexed (blocks, set, n_geometries);
  const GArray *start = blocks->start[which];
  *first = *last = 0;
  if (g + 1 < start->len)
    {
      *first = g_array_index (start, guint, g);
      *last = g_array_index (start, guint, g + 1);
    }
  return (const guint *) blocks->order[which]->data;
}

/* The three rows of J at `point` (the DOFs a unit force there moves, through apply_jt),
 * their DOFs given local indices; the index of its x row in row_start. */
static guint
point_rows (CwbContactBlocks *blocks, uint32_t g, uint32_t point,
            const CwbMappingVTable *mapping, void *mapping_self, const double *q, size_t nv,
            size_t *n_touched, GArray *dofs)
{
  gpointer found = g_hash_table_lookup (blocks->point_row, GUINT_TO_POINTER (point + 1));
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  guint row = blocks->row_start->len;
  double *column = (double *) blocks->column->data;
  int *local = (int *) blocks->local->data;
  for (int c = 0; c < 3; c++)
    {
      g_array_append_val (blocks->row_start, blocks->entries->len);
      CwbPointWeight unit = { .geometry = g, .point = point };
      unit.w[c] = 1;
      memset (column, 0, nv * sizeof (double));
      mapping->apply_jt (mapping_self, q, &unit, 1, column);
      for (size_t d = 0; d < nv; d++)
        {
          if (column[d] == 0)
            continue;
          if (local[d] < 0)
            {
              local[d] = (int) (*n_touched)++;
              uint32_t dof = (uint32_t) d;
              g_array_append_val (dofs, dof);
            }
          JEntry e = { .local = (uint32_t) local[d], .value = column[d] };
          g_array_append_val (blocks->entries, e);
        }
    }
  g_hash_table_insert (blocks->point_row, GUINT_TO_POINTER (point + 1),
                       GUINT_TO_POINTER (row + 1));
  return row;
}

/* M += J_a^T K J_b for one block, rows row_a and row_b (each the x row of three). */
static void
add_block (CwbContactBlocks *blocks, const double k[9], guint row_a, guint row_b, size_t n,
           double *matrix)
{
  const guint *start = (const guint *) blocks->row_start->data;
  const JEntry *entries = (const JEntry *) blocks->entries->data;
  for (int r = 0; r < 3; r++)
    for (guint ea = start[row_a + r]; ea < start[row_a + r + 1]; ea++)
      for (int c = 0; c < 3; c++)
        {
          double scale = entries[ea].value * k[3 * r + c];
          if (scale == 0)
            continue;
          double *out = &matrix[entries[ea].local * n];
          for (guint eb = start[row_b + c]; eb < start[row_b + c + 1]; eb++)
            out[entries[eb].local] += scale * entries[eb].value;
        }
}

const CwbAssembledBlocks *
cwb_contact_blocks_assembled (CwbContactBlocks *blocks, const CwbContactSet *set,
                              size_t n_geometries, int which, uint32_t g,
                              const CwbMappingVTable *mapping, void *mapping_self,
                              const double *q, size_t nv)
{
  ensure_indexed (blocks, set, n_geometries);
  if (g >= blocks->bodies[which]->len)
    return NULL;
  BodyAssembly *a = &g_array_index (blocks->bodies[which], BodyAssembly, g);
  if (a->built)
    return a->walked ? NULL : &a->view;
  a->built = TRUE;
  if (a->dofs == NULL)
    {
      a->dofs = g_array_new (FALSE, FALSE, sizeof (uint32_t));
      a->matrix = g_array_new (FALSE, FALSE, sizeof (double));
    }
  g_array_set_size (a->dofs, 0);
  const GArray *array = set_blocks (set, which);
  guint first, last;
  const guint *order = cwb_contact_blocks_of (blocks, set, n_geometries, which, g, &first,
                                              &last);
  /* The rows of every point the body's own blocks join. */
  g_array_set_size (blocks->column, (guint) MAX (nv, 1));
  g_array_set_size (blocks->local, (guint) MAX (nv, 1));
  memset (blocks->local->data, 0xff, nv * sizeof (int));   /* -1 */
  g_hash_table_remove_all (blocks->point_row);
  g_array_set_size (blocks->row_start, 0);
  g_array_set_size (blocks->entries, 0);
  size_t n = 0;
  for (guint e = first; e < last; e++)
    {
      const CwbPointStiffness *block = &g_array_index (array, CwbPointStiffness, order[e]);
      if (block->geometry_b != g)
        continue;
      point_rows (blocks, g, block->point_a, mapping, mapping_self, q, nv, &n, a->dofs);
      point_rows (blocks, g, block->point_b, mapping, mapping_self, q, nv, &n, a->dofs);
      if (n > blocks->dense_limit)
        {
          a->walked = TRUE;
          return NULL;
        }
    }
  g_array_append_val (blocks->row_start, blocks->entries->len);
  a->walked = FALSE;
  g_array_set_size (a->matrix, (guint) MAX (n * n, 1));
  double *matrix = (double *) a->matrix->data;
  memset (matrix, 0, n * n * sizeof (double));
  for (guint e = first; e < last; e++)
    {
      const CwbPointStiffness *block = &g_array_index (array, CwbPointStiffness, order[e]);
      if (block->geometry_b != g)
        continue;
      guint row_a = GPOINTER_TO_UINT (g_hash_table_lookup (blocks->point_row,
                                                           GUINT_TO_POINTER (block->point_a + 1)))
                    - 1;
      guint row_b = GPOINTER_TO_UINT (g_hash_table_lookup (blocks->point_row,
                                                           GUINT_TO_POINTER (block->point_b + 1)))
                    - 1;
      add_block (blocks, block->k, row_a, row_b, n, matrix);
    }
  a->view = (CwbAssembledBlocks) { .n = n, .dofs = (const uint32_t *) a->dofs->data,
                                   .matrix = matrix };
  return &a->view;
}
