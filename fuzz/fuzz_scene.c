/* libFuzzer target: scene text (cwb_scene_load_from_data). Any input either loads or is
 * refused with a located error; a scene that loads is written as text that reads back as the
 * same scene (saves are lossless: docs/scene-format.md). A crash, a sanitizer report, a hang
 * or a failed check is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "scene.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  CwbScene *scene = cwb_scene_load_from_data ((const char *) data, (gssize) size, "fuzz.yaml",
                                              &error);
  if (scene == NULL)
    {
      if (error == NULL || error->domain != CWB_SCENE_ERROR)
        abort ();   /* refused without saying why */
      g_error_free (error);
      return 0;
    }
  char *text = cwb_scene_to_yaml (scene);
  CwbScene *back = cwb_scene_load_from_data (text, -1, "back.yaml", &error);
  if (back == NULL || !cwb_scene_equal (scene, back))
    {
      fprintf (stderr, "not read back as the same scene (%s):\n%s\n",
               error != NULL ? error->message : "a value differs", text);
      abort ();
    }
  cwb_scene_free (back);
  g_free (text);
  cwb_scene_free (scene);
  return 0;
}
