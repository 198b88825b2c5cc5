/* Particles shown to the LDI as reconstructed surfaces (fluid_surfaces.h).
 *
 * A fluid's particles move every step and its surface is built anew at every detection, its
 * vertices and triangles changing in number: the model treats a fluid as moved at every
 * detection (ldi_model.c) and keeps no vertex's position from one detection to the next. The
 * rows' entries on its vertices are mapped to the particles at once, so nothing downstream
 * (solver, host, warm starts) ever sees a vertex index. */
#include "fluid_surfaces.h"

#include <math.h>
#include <string.h>

void
fluid_surfaces_init (FluidSurfaces *fluids)
{
  memset (fluids, 0, sizeof *fluids);
  fluids->geometries = g_array_new (FALSE, FALSE, sizeof (CwbGeometry));
  fluids->surfaces = g_ptr_array_new ();
  fluids->weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  fluids->slot = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  fluids->slot_first = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  fluids->built_points = g_array_new (FALSE, TRUE, sizeof (size_t));
}

static void
surfaces_free (GPtrArray *surfaces)
{
  for (guint g = 0; g < surfaces->len; g++)
    if (surfaces->pdata[g] != NULL)
      {
        particle_surface_clear (surfaces->pdata[g]);
        g_free (surfaces->pdata[g]);
      }
  g_ptr_array_set_size (surfaces, 0);
}

void
fluid_surfaces_clear (FluidSurfaces *fluids)
{
  if (fluids->surfaces != NULL)
    surfaces_free (fluids->surfaces);
  g_clear_pointer (&fluids->surfaces, g_ptr_array_unref);
  g_clear_pointer (&fluids->geometries, g_array_unref);
  g_clear_pointer (&fluids->weights, g_array_unref);
  g_clear_pointer (&fluids->slot, g_array_unref);
  g_clear_pointer (&fluids->slot_first, g_array_unref);
  g_clear_pointer (&fluids->built_points, g_array_unref);
}

/* Geometry g as the LDI sees its particles' surface. */
static CwbGeometry
surface_geometry (const CwbGeometry *particles, const ParticleSurface *surface)
{
  CwbGeometry geometry = *particles;
  geometry.kind = CWB_GEOMETRY_SURFACE;
  geometry.n_points = particle_surface_n_vertices (surface);
  geometry.positions = (double *) (void *) surface->positions->data;
  geometry.velocities = (double *) (void *) surface->velocities->data;
  geometry.triangles = (const uint32_t *) (void *) surface->triangles->data;
  geometry.n_triangles = particle_surface_n_triangles (surface);
  geometry.closed = TRUE;
  geometry.radii = NULL;
  geometry.masses = NULL;
  return geometry;
}

const CwbContactQuery *
fluid_surfaces_query (FluidSurfaces *fluids, const CwbContactQuery *query,
                      FluidSurfacesUpdate update)
{
  fluids->any = FALSE;
  for (size_t g = 0; g < query->n_geometries; g++)
    fluids->any = fluids->any || query->geometries[g].kind == CWB_GEOMETRY_PARTICLES;
  if (!fluids->any)
    {
      surfaces_free (fluids->surfaces);
      return query;
    }
  if (fluids->surfaces->len != query->n_geometries)
    {
      surfaces_free (fluids->surfaces);
      g_ptr_array_set_size (fluids->surfaces, (guint) query->n_geometries);
      update = FLUID_SURFACES_BUILD;
    }
  g_array_set_size (fluids->built_points, (guint) query->n_geometries);
  g_array_set_size (fluids->geometries, (guint) query->n_geometries);
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &query->geometries[g];
      ParticleSurface *surface = fluids->surfaces->pdata[g];
      if (geometry->kind != CWB_GEOMETRY_PARTICLES)
        {
          if (surface != NULL)
            {
              particle_surface_clear (surface);
              g_clear_pointer (&fluids->surfaces->pdata[g], g_free);
            }
          g_array_index (fluids->geometries, CwbGeometry, g) = *geometry;
          continue;
        }
      if (surface == NULL)
        {
          surface = g_new (ParticleSurface, 1);
          particle_surface_init (surface);
          fluids->surfaces->pdata[g] = surface;
          update = FLUID_SURFACES_BUILD;
        }
      size_t *built = &g_array_index (fluids->built_points, size_t, g);
      if (update == FLUID_SURFACES_FOLLOW && *built == geometry->n_points)
        particle_surface_follow (surface, geometry);
      else if (update != FLUID_SURFACES_KEEP || *built != geometry->n_points)
        {
          particle_surface_build (surface, geometry);
          *built = geometry->n_points;
          if (surface->skipped > 0)
            g_debug ("body %u: %zu particles left out of the surface (not finite, or too far "
                     "from the others)", geometry->body, surface->skipped);
        }
      g_array_index (fluids->geometries, CwbGeometry, g) = surface_geometry (geometry, surface);
    }
  /* The slots of fluid_surfaces_map_set: one per particle of each particles geometry. */
  g_array_set_size (fluids->slot_first, (guint) query->n_geometries + 1);
  uint32_t *slot_first = (uint32_t *) (void *) fluids->slot_first->data;
  slot_first[0] = 0;
  for (size_t g = 0; g < query->n_geometries; g++)
    slot_first[g + 1] = slot_first[g]
                        + (query->geometries[g].kind == CWB_GEOMETRY_PARTICLES
                             ? (uint32_t) query->geometries[g].n_points : 0);
  if (fluids->slot->len != slot_first[query->n_geometries])
    {
      g_array_set_size (fluids->slot, slot_first[query->n_geometries]);
      memset (fluids->slot->data, 0xff, fluids->slot->len * sizeof (uint32_t));
    }
  /* A copy of the query as far as the host filled it in (struct_size says how far). */
  memset (&fluids->query, 0, sizeof fluids->query);
  memcpy (&fluids->query, query, MIN (query->struct_size, sizeof fluids->query));
  fluids->query.struct_size = MIN (query->struct_size, sizeof fluids->query);
  fluids->query.geometries = (const CwbGeometry *) (void *) fluids->geometries->data;
  return &fluids->query;
}

double
fluid_surfaces_body_cell (const FluidSurfaces *fluids, uint32_t body)
{
  double cell = 0;
  for (guint g = 0; fluids->any && g < fluids->surfaces->len; g++)
    if (fluids->surfaces->pdata[g] != NULL
        && g_array_index (fluids->geometries, CwbGeometry, g).body == body)
      cell = fmax (cell, ((const ParticleSurface *) fluids->surfaces->pdata[g])->cell_size);
  return cell;
}

/* The particle with the largest weight of vertex v. */
static uint32_t
heaviest (const ParticleSurface *surface, uint32_t v)
{
  uint32_t first = g_array_index (surface->weight_start, uint32_t, v);
  uint32_t end = g_array_index (surface->weight_start, uint32_t, v + 1);
  const ParticleSurfaceWeight *w = &g_array_index (surface->weights, ParticleSurfaceWeight, 0);
  uint32_t best = first;
  for (uint32_t k = first + 1; k < end; k++)
    if (w[k].w > w[best].w)
      best = k;
  return w[best].particle;
}

void
fluid_surfaces_map_set (FluidSurfaces *fluids, CwbContactSet *set, CwbInspection *inspection)
{
  if (!fluids->any)
    return;
  /* One slot per particle of every fluid geometry (slot_first, from fluid_surfaces_query):
   * where the current row's entry on that particle lies in the new weights, valid while it
   * lies at or after the row's first entry and names that particle (a stale slot from an
   * earlier row points before the row, or at another entry). */
  guint n_geometries = fluids->surfaces->len;
  const uint32_t *slot_first = (const uint32_t *) (void *) fluids->slot_first->data;
  uint32_t *slot = (uint32_t *) (void *) fluids->slot->data;
  GArray *out = fluids->weights;
  g_array_set_size (out, 0);
  const CwbPointWeight *in = (const CwbPointWeight *) (void *) set->weights->data;
  for (guint r = 0; r < set->rows->len; r++)
    {
      CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, r);
      guint first = out->len;
      for (uint32_t k = 0; k < row->n_weights; k++)
        {
          const CwbPointWeight *entry = &in[row->first_weight + k];
          const ParticleSurface *surface = entry->geometry < n_geometries
                                             ? fluids->surfaces->pdata[entry->geometry] : NULL;
          if (surface == NULL)
            {
              g_array_append_val (out, *entry);
              continue;
            }
          uint32_t begin = g_array_index (surface->weight_start, uint32_t, entry->point);
          uint32_t end = g_array_index (surface->weight_start, uint32_t, entry->point + 1);
          for (uint32_t j = begin; j < end; j++)
            {
              const ParticleSurfaceWeight *w
                = &g_array_index (surface->weights, ParticleSurfaceWeight, j);
              /* Merged with the row's entry on the same particle, if there is one. */
              uint32_t *at = &slot[slot_first[entry->geometry] + w->particle];
              CwbPointWeight *same = NULL;
              if (*at >= first && *at < out->len)
                {
                  CwbPointWeight *e = &g_array_index (out, CwbPointWeight, *at);
                  if (e->geometry == entry->geometry && e->point == w->particle)
                    same = e;
                }
              if (same == NULL)
                {
                  CwbPointWeight mapped = { .geometry = entry->geometry,
                                            .point = w->particle };
                  *at = out->len;
                  g_array_append_val (out, mapped);
                  same = &g_array_index (out, CwbPointWeight, out->len - 1);
                }
              for (int c = 0; c < 3; c++)
                same->w[c] += w->w * entry->w[c];
            }
        }
      row->first_weight = first;
      row->n_weights = out->len - first;
    }
  /* The new weights become the set's; the old array is kept as the next scratch. */
  GArray *old = set->weights;
  g_array_set_size (old, 0);
  g_array_append_vals (old, out->data, out->len);
  for (guint k = 0; inspection != NULL && k < inspection->vectors->len; k++)
    {
      CwbInspectVector *vector = &g_array_index (inspection->vectors, CwbInspectVector, k);
      const ParticleSurface *surface = vector->geometry < n_geometries
                                         ? fluids->surfaces->pdata[vector->geometry] : NULL;
      if (surface != NULL)
        vector->point = heaviest (surface, vector->point);
    }
}
