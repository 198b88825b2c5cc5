/* Bullet peer of the box scenes: builds the box list that bench/peers/scene_to_boxes.py wrote
 * as a btDiscreteDynamicsWorld with Bullet's defaults (btDefaultCollisionConfiguration with its
 * box-box detector, btDbvtBroadphase, btSequentialImpulseConstraintSolver: 10 iterations,
 * warm start, split impulse), steps it STEPS fixed steps of the scene's dt and prints one JSON
 * line (bench/peers/peer_scene.h). Bullet combines two bodies' friction as the product
 * f_a f_b; our engine takes the geometric mean sqrt(mu_a mu_b) (cwb_friction_combine), so each
 * body gets f = sqrt(mu): the product is then sqrt(mu_a mu_b), ours, for any two materials.
 * Bodies never sleep unless --sleep is given (ours and MuJoCo 2.2 have no sleeping: every
 * engine then computes every body at every step).
 *
 * Usage: bullet_scene SCENE.boxes STEPS [--sleep] */
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "peer_scene.h"

static int
count_contacts (btCollisionDispatcher &dispatcher)
{
  int n = 0;
  for (int i = 0; i < dispatcher.getNumManifolds (); i++)
    n += dispatcher.getManifoldByIndexInternal (i)->getNumContacts ();
  return n;
}

/* Translational plus rotational: 1/2 m v.v + 1/2 w_b . I_b w_b, w_b the angular velocity in
 * the body's principal frame (a box's own). */
static double
kinetic_energy (const std::vector<std::unique_ptr<btRigidBody>> &bodies)
{
  double e = 0;
  for (const auto &body : bodies)
    {
      if (body->getInvMass () == 0)
        continue;
      btVector3 w = body->getAngularVelocity () * body->getWorldTransform ().getBasis ();
      btVector3 inertia = body->getLocalInertia ();
      e += 0.5 * body->getLinearVelocity ().length2 () / body->getInvMass ()
           + 0.5 * (inertia.x () * w.x () * w.x () + inertia.y () * w.y () * w.y ()
                    + inertia.z () * w.z () * w.z ());
    }
  return e;
}

int
main (int argc, char **argv)
{
  PeerScene scene;
  bool sleep = argc == 4 && std::strcmp (argv[3], "--sleep") == 0;

  if (argc < 3 || argc > 4 || (argc == 4 && !sleep))
    {
      std::fprintf (stderr, "usage: %s SCENE.boxes STEPS [--sleep]\n", argv[0]);
      return 2;
    }
  int steps = std::atoi (argv[2]);
  if (steps < 0 || peer_scene_load (argv[1], &scene) != 0)
    return 2;

  double t0 = peer_now ();
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher (&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world (&dispatcher, &broadphase, &solver, &config);
  world.setGravity (btVector3 (scene.gravity[0], scene.gravity[1], scene.gravity[2]));

  std::vector<std::unique_ptr<btBoxShape>> shapes;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  for (int i = 0; i < scene.n; i++)
    {
      const PeerBox &b = scene.boxes[i];
      btVector3 half (b.size[0] / 2, b.size[1] / 2, b.size[2] / 2);
      shapes.emplace_back (new btBoxShape (half));
      btScalar mass = b.fixed ? 0 : b.density * b.size[0] * b.size[1] * b.size[2];
      btVector3 inertia (0, 0, 0);
      if (!b.fixed)
        shapes.back ()->calculateLocalInertia (mass, inertia);
      btRigidBody::btRigidBodyConstructionInfo info (mass, nullptr, shapes.back ().get (), inertia);
      info.m_startWorldTransform = btTransform (btQuaternion (b.q[1], b.q[2], b.q[3], b.q[0]),
                                                btVector3 (b.centre[0], b.centre[1], b.centre[2]));
      info.m_friction = std::sqrt (b.mu); /* product rule: sqrt(mu_a) sqrt(mu_b) */
      bodies.emplace_back (new btRigidBody (info));
      btRigidBody *body = bodies.back ().get ();
      if (!b.fixed)
        {
          body->setLinearVelocity (btVector3 (b.v[0], b.v[1], b.v[2]));
          body->setAngularVelocity (btVector3 (b.w[0], b.w[1], b.w[2]));
          if (!sleep)
            body->setActivationState (DISABLE_DEACTIVATION);
        }
      world.addRigidBody (body);
    }
  double setup_s = peer_now () - t0;

  /* maxSubSteps 0: one step of exactly dt per call, no interpolation. Only the calls are
   * timed; the contact count and the energy between them are not. */
  double step_s = 0, contacts_sum = 0, energy_max = 0;
  int contacts = 0, contacts_max = 0;
  for (int s = 0; s < steps; s++)
    {
      double t = peer_now ();
      world.stepSimulation (scene.dt, 0);
      step_s += peer_now () - t;
      contacts = count_contacts (dispatcher);
      contacts_sum += contacts;
      contacts_max = contacts > contacts_max ? contacts : contacts_max;
      energy_max = std::fmax (energy_max, kinetic_energy (bodies));
    }

  std::vector<double> centre (3 * scene.n), velocity (3 * scene.n), orientation (4 * scene.n);
  for (int i = 0; i < scene.n; i++)
    {
      const btVector3 &p = bodies[i]->getCenterOfMassPosition ();
      const btVector3 &v = bodies[i]->getLinearVelocity ();
      btQuaternion q = bodies[i]->getOrientation ();
      orientation[4 * i] = q.w ();
      orientation[4 * i + 1] = q.x ();
      orientation[4 * i + 2] = q.y ();
      orientation[4 * i + 3] = q.z ();
      for (int k = 0; k < 3; k++)
        {
          centre[3 * i + k] = p[k];
          velocity[3 * i + k] = v[k];
        }
    }

  const btContactSolverInfo &si = world.getSolverInfo ();
  char settings[1024];
  std::snprintf (settings, sizeof settings,
                 "{\"precision\": \"%s\", \"solver\": \"btSequentialImpulseConstraintSolver\", "
                 "\"iterations\": %d, \"erp2\": %g, \"split_impulse\": %d, "
                 "\"split_impulse_threshold\": %g, \"warmstarting_factor\": %g, "
                 "\"solver_mode\": %d, \"box_margin\": %g, \"friction\": \"sqrt(mu) per body, "
                 "product\", \"sleep\": %s}",
                 sizeof (btScalar) == 8 ? "double" : "float", si.m_numIterations,
                 (double) si.m_erp2, si.m_splitImpulse,
                 (double) si.m_splitImpulsePenetrationThreshold, (double) si.m_warmstartingFactor,
                 si.m_solverMode, (double) shapes[0]->getMargin (), sleep ? "true" : "false");
  char engine[64];
  std::snprintf (engine, sizeof engine, "bullet %d.%02d", btGetVersion () / 100,
                 btGetVersion () % 100);
  peer_print_report (stdout, engine, settings, &scene, steps, step_s, setup_s, energy_max,
                     steps ? contacts_sum / steps : 0.0, contacts_max, contacts,
                     reinterpret_cast<const double (*)[3]> (centre.data ()),
                     reinterpret_cast<const double (*)[3]> (velocity.data ()),
                     reinterpret_cast<const double (*)[4]> (orientation.data ()));

  for (int i = scene.n - 1; i >= 0; i--)
    world.removeRigidBody (bodies[i].get ());
  std::free (scene.boxes);
  return 0;
}
