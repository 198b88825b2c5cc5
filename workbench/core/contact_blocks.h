/* The contact set's stiffness and damping blocks (CwbPointStiffness: d f_a / d p_b or
 * d f_a / d v_b between two geometry points) as the step context applies them to one body
 * at a time: ordered by the geometry of their first point, and those within one body
 * assembled once into J^T K J over the DOFs their points move, so that an implicit solve,
 * which applies them at every iteration, does a small dense product instead of walking
 * every block through the mapping. Rebuilt lazily after each detection. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

enum { CWB_BLOCKS_STIFFNESS = 0, CWB_BLOCKS_DAMPING = 1 };

/* An assembly over more DOFs than this (11.5 MB of matrix) is left to the walk through the
 * blocks. */
#define CWB_CONTACT_BLOCKS_DENSE_MAX 1200

typedef struct CwbContactBlocks CwbContactBlocks;

/* One body's blocks assembled: matrix (n x n, row-major) over its DOFs dofs[0 .. n). */
typedef struct CwbAssembledBlocks {
  size_t n;
  const uint32_t *dofs;
  const double *matrix;
} CwbAssembledBlocks;

CwbContactBlocks *cwb_contact_blocks_new (void);
void cwb_contact_blocks_free (CwbContactBlocks *blocks);

/* Forgets the order and the assemblies: the set changed. */
void cwb_contact_blocks_invalidate (CwbContactBlocks *blocks);

/* The most DOFs an assembly may have (the tests set 0 to compare the walk); invalidates. */
void cwb_contact_blocks_set_dense_limit (CwbContactBlocks *blocks, size_t max_dofs);

/* The blocks of `set`'s array `which` whose first point lies on geometry g:
 * order[*first .. *last) into that array. */
const guint *cwb_contact_blocks_of (CwbContactBlocks *blocks, const CwbContactSet *set,
                                    size_t n_geometries, int which, uint32_t g, guint *first,
                                    guint *last);

/* The blocks of array `which` between points of geometry g, assembled in the DOFs of its
 * body (nv of them, through the mapping at configuration q); NULL when they touch more
 * DOFs than a dense assembly is worth (the caller walks them instead). */
const CwbAssembledBlocks *cwb_contact_blocks_assembled (CwbContactBlocks *blocks,
                                                        const CwbContactSet *set,
                                                        size_t n_geometries, int which,
                                                        uint32_t g,
                                                        const CwbMappingVTable *mapping,
                                                        void *mapping_self, const double *q,
                                                        size_t nv);

G_END_DECLS
