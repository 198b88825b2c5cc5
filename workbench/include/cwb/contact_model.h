/* Contact models: read geometries, detect contact and model it (Allard 2010 LDI volumes,
 * Faure 2007 Eulerian densities, Spillmann 2007 / Lazarevych penalty). They see geometries
 * only, never body models or solvers. The host times detect as "collision detection" and
 * model as "contact modeling" (Allard 2010 Table 1). */
#pragma once

#include <cwb/contact.h>
#include <cwb/host.h>
#include <cwb/inspection.h>
#include <cwb/params.h>

G_BEGIN_DECLS

typedef struct CwbContactModelCreateInfo {
  size_t struct_size;
  const CwbParamSet *params;
} CwbContactModelCreateInfo;

typedef enum CwbContactPass {
  CWB_CONTACT_PASS_VELOCITY = 0,  /* the step's main detection */
  CWB_CONTACT_PASS_POSITION = 1,  /* a post-stabilization re-detection (Allard 2010 Alg. 1,
                                   * lines 4 and 8): friction rows are not needed */
} CwbContactPass;

/* The world as a contact model sees it. */
typedef struct CwbContactQuery {
  size_t struct_size;
  const CwbGeometry *geometries;
  size_t n_geometries;
  const double *friction;     /* per body: the material's Coulomb coefficient */
  size_t n_bodies;
  double h;                   /* the time step */
  double time;
  CwbContactPass pass;
} CwbContactQuery;

typedef struct CwbContactModelVTable {
  size_t struct_size;

  void *(*create) (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                   GError **error);
  void (*destroy) (void *self);

  /* Called once when the model is attached to a world (at load or on a runtime swap) with
   * the geometries' layouts: a model that cannot handle them (an open surface for a volume
   * method, a geometry kind it does not know) refuses with a message naming the body. */
  gboolean (*attach) (void *self, const CwbContactQuery *query, GError **error);

  /* Collision detection: find pairs, rasterize, hash... keeps its results inside self. */
  gboolean (*detect) (void *self, const CwbContactQuery *query, GError **error);

  /* Contact modelling: fill the (cleared) contact set and inspection from the detection. */
  gboolean (*model) (void *self, const CwbContactQuery *query, CwbContactSet *contacts,
                     CwbInspection *inspection, GError **error);

  /* Optional: the solved set (multipliers and frame forces filled), for models that keep
   * per-contact state from step to step (time-coherent static friction). */
  void (*feedback) (void *self, const CwbContactSet *solved);
  void (*params_changed) (void *self, const CwbParamSet *params);
} CwbContactModelVTable;

G_END_DECLS
