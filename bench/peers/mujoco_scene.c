/* MuJoCo peer of the box scenes: writes the box list that bench/peers/scene_to_boxes.py wrote
 * as MJCF text (a ground as a plane through its top face, as MuJoCo models grounds: infinite
 * for collision; other fixed boxes as world geoms; moving boxes as free bodies with one box
 * geom, mass from the density), compiles it through a virtual file, steps it STEPS steps and
 * prints one JSON line (bench/peers/peer_scene.h).
 *
 * Only the timestep and gravity are set: the solver is MuJoCo's default (Newton, 100
 * iterations, tolerance 1e-8, pyramidal cones, Euler integrator, default solref and solimp,
 * margin 0), condim 3 (sliding friction only). MuJoCo combines two geoms' friction as the
 * larger of the two; ours takes the geometric mean sqrt(mu_a mu_b) (cwb_friction_combine).
 * They agree where the two materials are equal, as in every peers scene; a scene whose
 * bodies differ gets a warning on stderr. The contacts counted are those that enter the
 * solver: MuJoCo also lists pairs at distance 0 or more, which it excludes.
 *
 * MuJoCo 2.2 sizes its contact and constraint arrays at compile time (<size nconmax njmax>),
 * in one buffer that holds an njmax x njmax matrix and whose size must fit an int (njmax about
 * 12 000 at most); the sizes here come from the scene's box count, njmax lowered until the
 * model compiles. A step whose contacts need more rows than njmax stops the run (MuJoCo
 * drops the rows past njmax with a warning and goes on) and the report says at which step.
 *
 * --option NAME=VALUE adds an attribute to MJCF's <option> (cone=elliptic,
 * noslip_iterations=10, ...): the settings printed are those the model compiled with.
 *
 * Usage: mujoco_scene SCENE.boxes STEPS [--nconmax N] [--njmax N] [--option NAME=VALUE]... */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */

#include <mujoco/mujoco.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_scene.h"

/* Contact points per moving box provisioned by default: a box of the flush pyramid touches
 * the ground or two boxes below and its two neighbours; the 10- and 20-row pyramids peak at
 * 11.4 and 12.1 points per box (measured), 14 leaves a margin. */
#define CONTACTS_PER_BOX 14
/* Rows per contact at condim 3: 2 (condim - 1) with the default pyramidal cone, condim with
 * an elliptic one. */
#define ROWS_PER_CONTACT 4
#define ROWS_PER_CONTACT_ELLIPTIC 3

typedef struct
{
  char *text;
  size_t len, cap;
} Text;

static void
text_append (Text *t, const char *format, ...)
{
  va_list ap;
  for (;;)
    {
      va_start (ap, format);
      int n = vsnprintf (t->text + t->len, t->cap - t->len, format, ap);
      va_end (ap);
      if (n >= 0 && t->len + (size_t) n < t->cap)
        {
          t->len += (size_t) n;
          return;
        }
      t->cap = t->cap ? 2 * t->cap + (size_t) n : 4096 + (size_t) n;
      t->text = realloc (t->text, t->cap);
    }
}

/* A ground slab as MuJoCo's plane (infinite for collision; the size only draws it): through
 * the top face, the box's centre moved half its thickness along its z axis. */
static void
plane_geom (Text *t, const PeerBox *b)
{
  double half[3] = { 0, 0, b->size[2] / 2 }, up[3];
  mju_rotVecQuat (up, half, b->q);
  text_append (t, "<geom name=\"%s\" type=\"plane\" size=\"%.17g %.17g 1\" "
               "friction=\"%.17g 0.005 0.0001\" pos=\"%.17g %.17g %.17g\" "
               "quat=\"%.17g %.17g %.17g %.17g\"/>\n", b->name,
               b->size[0] / 2, b->size[1] / 2, b->mu, b->centre[0] + up[0], b->centre[1] + up[1],
               b->centre[2] + up[2], b->q[0], b->q[1], b->q[2], b->q[3]);
}

static void
box_geom (Text *t, const PeerBox *b, int with_pose)
{
  text_append (t, "<geom type=\"box\" size=\"%.17g %.17g %.17g\" "
               "friction=\"%.17g 0.005 0.0001\"",
               b->size[0] / 2, b->size[1] / 2, b->size[2] / 2, b->mu);
  if (with_pose)
    text_append (t, " pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\"", b->centre[0],
                 b->centre[1], b->centre[2], b->q[0], b->q[1], b->q[2], b->q[3]);
  else
    text_append (t, " density=\"%.17g\"", b->density);
  text_append (t, "/>\n");
}

/* OPTIONS: NAME=VALUE strings, written as <option> attributes. */
static char *
scene_mjcf (const PeerScene *scene, int nconmax, int njmax, char **options, int n_options)
{
  Text t = { 0 };
  text_append (&t, "<mujoco model=\"peers\">\n"
               "<option timestep=\"%.17g\" gravity=\"%.17g %.17g %.17g\"",
               scene->dt, scene->gravity[0], scene->gravity[1], scene->gravity[2]);
  for (int i = 0; i < n_options; i++)
    {
      const char *eq = strchr (options[i], '=');
      text_append (&t, " %.*s=\"%s\"", (int) (eq - options[i]), options[i], eq + 1);
    }
  text_append (&t, "/>\n");
  text_append (&t, "<size nconmax=\"%d\" njmax=\"%d\"/>\n<worldbody>\n", nconmax, njmax);
  for (int i = 0; i < scene->n; i++)
    {
      const PeerBox *b = &scene->boxes[i];
      if (b->ground)
        plane_geom (&t, b);
      else if (b->fixed)
        box_geom (&t, b, 1);
      else
        {
          text_append (&t, "<body name=\"%s\" pos=\"%.17g %.17g %.17g\" "
                       "quat=\"%.17g %.17g %.17g %.17g\"><freejoint/>", b->name, b->centre[0],
                       b->centre[1], b->centre[2], b->q[0], b->q[1], b->q[2], b->q[3]);
          box_geom (&t, b, 0);
          text_append (&t, "</body>\n");
        }
    }
  text_append (&t, "</worldbody>\n</mujoco>\n");
  return t.text;
}

/* The model compiled from SCENE's MJCF, with njmax lowered by a quarter each time its data
 * cannot be allocated (the compiler makes one mjData to test the model and says "could not
 * create mjData"); NULL with ERROR set on any other error or below 64 rows. */
static mjModel *
load_model (const PeerScene *scene, int nconmax, int njmax, char **options, int n_options,
            char *error, int error_size)
{
  mjVFS *vfs = malloc (sizeof *vfs);
  mjModel *m = NULL;

  while (!m && njmax >= 64)
    {
      char *xml = scene_mjcf (scene, nconmax, njmax, options, n_options);
      int len = (int) strlen (xml);
      mj_defaultVFS (vfs);
      if (mj_makeEmptyFileVFS (vfs, "peers.xml", len) != 0)
        {
          snprintf (error, (size_t) error_size, "cannot make the virtual file");
          free (xml);
          break;
        }
      memcpy (vfs->filedata[mj_findFileVFS (vfs, "peers.xml")], xml, (size_t) len);
      m = mj_loadXML ("peers.xml", vfs, error, error_size);
      mj_deleteVFS (vfs);
      free (xml);
      if (!m && !strstr (error, "could not create mjData"))
        break;
      njmax = 3 * njmax / 4;
    }
  free (vfs);
  return m;
}

/* Contacts that entered the constraints (exclude 0: not in the margin's gap, not fused). */
static int
active_contacts (const mjData *d)
{
  int n = 0;
  for (int i = 0; i < d->ncon; i++)
    n += d->contact[i].exclude == 0;
  return n;
}

/* Translational plus rotational: 1/2 m v.v + 1/2 w . I w with a free joint's angular
 * velocity in the body's frame, which is a box's principal frame (its inertia's iquat is the
 * identity). */
static double
kinetic_energy (const mjModel *m, const mjData *d)
{
  double e = 0;
  for (int j = 0; j < m->njnt; j++)
    {
      int b = m->jnt_bodyid[j];
      const double *v = d->qvel + m->jnt_dofadr[j], *inertia = m->body_inertia + 3 * b;
      e += 0.5 * m->body_mass[b] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
           + 0.5 * (inertia[0] * v[3] * v[3] + inertia[1] * v[4] * v[4]
                    + inertia[2] * v[5] * v[5]);
    }
  return e;
}

/* MuJoCo prints its warnings (a bad acceleration, a full contact list) on stdout by default,
 * where they would break the JSON line: they go to stderr. */
static void
warn_on_stderr (const char *message)
{
  fprintf (stderr, "MuJoCo: warning: %s\n", message);
}

/* v rotated by the conjugate of the unit quaternion q (w, x, y, z): world to body frame. */
static void
rotate_inverse (const double q[4], const double v[3], double out[3])
{
  double qc[4] = { q[0], -q[1], -q[2], -q[3] };
  mju_rotVecQuat (out, v, qc);
}

int
main (int argc, char **argv)
{
  PeerScene scene;
  int nconmax = -1, njmax = -1, n_options = 0;
  char **options = calloc ((size_t) argc, sizeof *options);

  if (argc < 3)
    {
      fprintf (stderr, "usage: %s SCENE.boxes STEPS [--nconmax N] [--njmax N] "
               "[--option NAME=VALUE]...\n", argv[0]);
      return 2;
    }
  for (int i = 3; i + 1 < argc; i += 2)
    {
      if (strcmp (argv[i], "--nconmax") == 0)
        nconmax = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--njmax") == 0)
        njmax = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--option") == 0 && strchr (argv[i + 1], '=')
               && !strpbrk (argv[i + 1], "\"<>&"))
        options[n_options++] = argv[i + 1];
      else
        {
          fprintf (stderr, "unknown option %s\n", argv[i]);
          return 2;
        }
    }
  int steps = atoi (argv[2]);
  if (steps < 0 || peer_scene_load (argv[1], &scene) != 0)
    return 2;

  int moving = 0;
  for (int i = 0; i < scene.n; i++)
    moving += !scene.boxes[i].fixed;
  if (nconmax < 0)
    nconmax = CONTACTS_PER_BOX * moving + 64;
  if (njmax < 0)
    njmax = ROWS_PER_CONTACT * nconmax;
  for (int i = 1; i < scene.n; i++)
    if (scene.boxes[i].mu != scene.boxes[0].mu)
      {
        fprintf (stderr, "warning: unequal friction: MuJoCo takes the larger of two, ours the "
                 "geometric mean\n");
        break;
      }

  mju_user_warning = warn_on_stderr;
  double t0 = peer_now ();
  char error[1000] = "";
  mjModel *m = load_model (&scene, nconmax, njmax, options, n_options, error, sizeof error);
  if (!m)
    {
      fprintf (stderr, "MuJoCo: %s\n", error);
      return 1;
    }
  if (m->njmax < njmax)
    fprintf (stderr, "MuJoCo: njmax lowered from %d to %d to fit its buffer\n", njmax, m->njmax);
  mjData *d = mj_makeData (m);
  if (!d)
    {
      fprintf (stderr, "MuJoCo: cannot allocate the data (njmax %d)\n", m->njmax);
      return 1;
    }
  /* A free joint's velocity: linear in the world frame, angular in the body's frame. */
  for (int i = 0, j = 0; i < scene.n; i++)
    {
      const PeerBox *b = &scene.boxes[i];
      if (b->fixed)
        continue;
      int adr = m->jnt_dofadr[j++];
      memcpy (d->qvel + adr, b->v, sizeof b->v);
      rotate_inverse (b->q, b->w, d->qvel + adr + 3);
    }
  double setup_s = peer_now () - t0;

  /* A step whose contacts need more rows than njmax loses some (MuJoCo warns and goes on):
   * the run stops there and says so, its result is not the scene's. */
  int rows = m->opt.cone == mjCONE_ELLIPTIC ? ROWS_PER_CONTACT_ELLIPTIC : ROWS_PER_CONTACT;
  double step_s = 0, contacts_sum = 0, energy_max = 0;
  int contacts = 0, contacts_max = 0, done = 0, rows_full = 0;
  for (; done < steps && !rows_full; done++)
    {
      double t = peer_now ();
      mj_step (m, d);
      step_s += peer_now () - t;
      contacts = active_contacts (d);
      contacts_sum += contacts;
      contacts_max = contacts > contacts_max ? contacts : contacts_max;
      energy_max = fmax (energy_max, kinetic_energy (m, d));
      rows_full = d->nefc < rows * contacts;
    }
  if (rows_full)
    fprintf (stderr, "MuJoCo: step %d: %d contacts need %d rows, njmax is %d: stopped\n", done,
             contacts, rows * contacts, m->njmax);

  double (*centre)[3] = calloc ((size_t) scene.n, sizeof *centre);
  double (*velocity)[3] = calloc ((size_t) scene.n, sizeof *velocity);
  double (*orientation)[4] = calloc ((size_t) scene.n, sizeof *orientation);
  for (int i = 0, j = 0; i < scene.n; i++)
    {
      if (scene.boxes[i].fixed)
        continue;
      memcpy (centre[i], d->qpos + m->jnt_qposadr[j], sizeof centre[i]);
      memcpy (orientation[i], d->qpos + m->jnt_qposadr[j] + 3, sizeof orientation[i]);
      memcpy (velocity[i], d->qvel + m->jnt_dofadr[j], sizeof velocity[i]);
      j++;
    }

  static const char *solvers[] = { "PGS", "CG", "Newton" };
  static const char *cones[] = { "pyramidal", "elliptic" };
  static const char *integrators[] = { "Euler", "RK4", "implicit" };
  char settings[1024];
  snprintf (settings, sizeof settings,
            "{\"solver\": \"%s\", \"iterations\": %d, \"tolerance\": %g, \"cone\": \"%s\", "
            "\"integrator\": \"%s\", \"jacobian\": %d, \"noslip_iterations\": %d, "
            "\"condim\": %d, \"solref\": [%g, %g], \"solimp\": [%g, %g, %g, %g, %g], "
            "\"margin\": %g, \"nconmax\": %d, \"njmax\": %d, \"friction\": \"mu per geom, max\", "
            "\"rows_full_at_step\": %d, "
            "\"warnings\": {\"contacts_full\": %d, \"constraints_full\": %d, \"bad_qacc\": %d}}",
            solvers[m->opt.solver], m->opt.iterations, m->opt.tolerance, cones[m->opt.cone],
            integrators[m->opt.integrator], m->opt.jacobian, m->opt.noslip_iterations,
            m->geom_condim[0], m->geom_solref[0], m->geom_solref[1], m->geom_solimp[0],
            m->geom_solimp[1], m->geom_solimp[2], m->geom_solimp[3], m->geom_solimp[4],
            m->geom_margin[0], m->nconmax, m->njmax, rows_full ? done : 0,
            d->warning[mjWARN_CONTACTFULL].number, d->warning[mjWARN_CNSTRFULL].number,
            d->warning[mjWARN_BADQACC].number);
  char engine[64];
  snprintf (engine, sizeof engine, "mujoco %s", mj_versionString ());
  peer_print_report (stdout, engine, settings, &scene, done, step_s, setup_s, energy_max,
                     done ? contacts_sum / done : 0.0, contacts_max, contacts,
                     (const double (*)[3]) centre, (const double (*)[3]) velocity,
                     (const double (*)[4]) orientation);

  free (centre);
  free (velocity);
  free (orientation);
  mj_deleteData (d);
  mj_deleteModel (m);
  free (scene.boxes);
  free (options);
  return 0;
}
