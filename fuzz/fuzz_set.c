/* libFuzzer target: --set KEY=VALUE (cwb_scene_apply_set) on a scene with every section.
 * The input is KEY=VALUE (the first '=' splits it). Either it applies, and the scene still
 * reads back as itself, or it is refused with an error naming the --set. */
#include <stdint.h>
#include <string.h>

#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char base_scene[] =
  "world: {dt: 0.01, gravity: [0, 0, -9.81]}\n"
  "contact: {model: proximity, margin: 0.001}\n"
  "solver: {name: constraint, iterations: 50}\n"
  "bodies:\n"
  "  - name: box\n"
  "    shape: {type: box, size: [1, 1, 1]}\n"
  "  - name: ball\n"
  "    shape: {type: sphere, radius: 0.5, resolution: 12}\n"
  "    model_params: {stiffness: 3}\n"
  "  - name: K\\u00fcgel\n"
  "    shape: {type: torus, major_radius: 1, minor_radius: 0.25}\n"
  "    fixed: true\n";

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *input = g_strndup ((const char *) data, size);   /* up to a NUL, as argv would be */
  char *eq = strchr (input, '=');
  if (eq == NULL || eq == input)
    {
      g_free (input);
      return 0;
    }
  *eq = '\0';
  GError *error = NULL;
  CwbScene *scene = cwb_scene_load_from_data (base_scene, -1, "base.yaml", &error);
  if (scene == NULL)
    abort ();
  if (!cwb_scene_apply_set (scene, input, eq + 1, &error))
    fuzz_check_refusal (error);
  else
    {
      char *what = g_strdup_printf ("--set %s=%s: ", input, eq + 1);
      fuzz_check_reads_back (scene, what);
      g_free (what);
    }
  cwb_scene_free (scene);
  g_free (input);
  return 0;
}
