/* The shared parts of a deformable body's implicit step (implicit_step.h). */
#include <string.h>

#include "implicit_step.h"

void
implicit_step_init (ImplicitStep *step, size_t n_nodes, const double *node_mass,
                    const gboolean *fixed)
{
  memset (step, 0, sizeof *step);
  step->n_nodes = n_nodes;
  step->node_mass = node_mass;
  step->fixed = fixed;
  size_t n = 3 * MAX (n_nodes, 1);
  step->rhs = g_new0 (double, n);
  step->kv = g_new0 (double, n);
  step->dv = g_new0 (double, n);
  step->scratch = g_new0 (double, n);
}

void
implicit_step_clear (ImplicitStep *step)
{
  g_free (step->rhs);
  g_free (step->kv);
  g_free (step->dv);
  g_free (step->scratch);
  memset (step, 0, sizeof *step);
}

void
implicit_step_rhs (ImplicitStep *step, const CwbFreeMotion *a)
{
  const double h = a->h;
  size_t n = 3 * step->n_nodes;
  for (size_t i = 0; i < step->n_nodes; i++)
    for (int c = 0; c < 3; c++)
      {
        size_t k = 3 * i + c;
        double f = step->rhs[k] + step->node_mass[i] * (a->gravity[c] - step->alpha * a->v[k]);
        if (a->f_ext != NULL)
          f += a->f_ext[k];
        step->rhs[k] = h * f - (h * h + h * step->beta) * step->kv[k];
      }
  if (a->k_ext != NULL)
    {
      /* + h^2 K_ext v with K_ext = d f_ext / dq. */
      memset (step->scratch, 0, n * sizeof (double));
      a->k_ext->apply (a->k_ext->data, a->v, step->scratch);
      for (size_t k = 0; k < n; k++)
        step->rhs[k] += h * h * step->scratch[k];
    }
}

gboolean
implicit_step_external (const CwbFreeMotion *a)
{
  return a->k_ext != NULL || a->b_ext != NULL;
}

static void
external_apply (void *data, const double *x, double *y)
{
  const CwbLinearOperator *op = data;
  op->apply (op->data, x, y);
}

void
implicit_step_solve_iterative (ImplicitStep *step, const CwbFreeMotion *a,
                               const BlockMatrix *system, int max_iterations, double tolerance,
                               const char *name)
{
  const double h = a->h;
  memset (step->dv, 0, 3 * step->n_nodes * sizeof (double));
  /* A - h^2 K_ext - h B_ext: the external derivatives enter with a minus sign. */
  LinearTerm terms[2];
  size_t n_terms = 0;
  if (a->k_ext != NULL)
    terms[n_terms++] = (LinearTerm) { external_apply, (void *) a->k_ext, -h * h };
  if (a->b_ext != NULL)
    terms[n_terms++] = (LinearTerm) { external_apply, (void *) a->b_ext, -h };
  CgResult result;
  block_cg_solve (system, terms, n_terms, step->fixed, step->rhs, step->dv, max_iterations,
                  tolerance, &result);
  /* A contact model's stiffness is not always symmetric (its one-body derivatives), and
   * there CG can stall or diverge: BiCGSTAB takes over from where it stopped. */
  if (!result.converged && n_terms > 0)
    block_bicgstab_solve (system, terms, n_terms, step->fixed, step->rhs, step->dv,
                          max_iterations, tolerance, &result);
  if (!result.converged)
    g_debug ("body '%s': CG stopped after %d iterations at relative residual %g", name,
             result.iterations, result.residual);
}

void
implicit_step_finish (const ImplicitStep *step, const CwbFreeMotion *a)
{
  for (size_t k = 0; k < 3 * step->n_nodes; k++)
    {
      a->v_free[k] = step->fixed[k / 3] ? 0 : a->v[k] + step->dv[k];
      a->q_free[k] = a->q[k] + a->h * a->v_free[k];
    }
}
