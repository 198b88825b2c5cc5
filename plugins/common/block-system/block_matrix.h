/* A deformable body's assembled system matrix: symmetric, sparse, in 3 x 3 blocks by node
 * (block compressed rows, both triangles stored), with the pattern of the body's elements:
 * node i's row holds a block for every node sharing an element with it. The elements come in
 * sets of one size each (the FEM body's tetrahedra; the cloth's triangles and bending
 * hinges). The pattern is built once; each step refills the values (the FEM body's A = M (1 +
 * h alpha) + K(q) (h^2 + h beta), fem_body.c).
 *
 * Fixed nodes are projected out as SOFA's FixedConstraint does: their block rows and columns
 * are zeroed and the diagonal block set to the identity, so A stays symmetric positive
 * definite and a right-hand side that is zero on them gives a solution that is zero there. */
#pragma once

#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct BlockMatrix {
  size_t n;              /* block rows (nodes); the matrix is 3n x 3n */
  size_t *row_start;     /* n + 1 */
  uint32_t *cols;        /* block column of each block, sorted within a row */
  size_t *diagonal;      /* index of each row's diagonal block */
  double *values;        /* 9 per block, row-major */
  size_t n_blocks;
  /* For each element of each set, the k^2 block indices of (node a, node b), a-major (k its
   * set's nodes per element): elements add their 3k x 3k matrices without searching. */
  size_t *element_blocks;
  size_t n_sets;
  size_t *set_first;     /* n_sets + 1: each set's first entry in element_blocks */
  size_t *set_nodes;     /* n_sets: each set's nodes per element */
} BlockMatrix;

/* One set of elements of the same size: `n_elements` of `nodes_per_element` node indices
 * each (at most BLOCK_MATRIX_MAX_ELEMENT_NODES). */
typedef struct BlockElements {
  const uint32_t *nodes;
  size_t nodes_per_element;
  size_t n_elements;
} BlockElements;

#define BLOCK_MATRIX_MAX_ELEMENT_NODES 8

/* The pattern of the `n_sets` element sets on `n_nodes` nodes; values zero. */
BlockMatrix *block_matrix_new (size_t n_nodes, const BlockElements *sets, size_t n_sets);
void block_matrix_free (BlockMatrix *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BlockMatrix, block_matrix_free)

void block_matrix_zero (BlockMatrix *m);

/* Adds scale * k (3 k_nodes x 3 k_nodes, row-major, node-major 3 x 3 blocks, k_nodes the
 * set's nodes per element) for element `element` of set `set`. */
void block_matrix_add_element (BlockMatrix *m, size_t set, size_t element, const double *k,
                               double scale);

/* Adds scale * d[i] * I to each diagonal block (a lumped mass). */
void block_matrix_add_diagonal (BlockMatrix *m, const double *d, double scale);

/* Projects out the nodes with fixed[i] set (see above). */
void block_matrix_fix_nodes (BlockMatrix *m, const gboolean *fixed);

/* y = A x (3n each; y may not alias x). */
void block_matrix_apply (const BlockMatrix *m, const double *x, double *y);

G_END_DECLS
