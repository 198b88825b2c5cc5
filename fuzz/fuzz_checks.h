/* The checks the scene and --set fuzz targets share: a refusal says why, in the scene's
 * error domain; a scene that loads is written as text that reads back as the same scene. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include "scene.h"

/* Aborts (a finding) unless `error` is a scene error; frees it. */
static inline void
fuzz_check_refusal (GError *error)
{
  if (error == NULL || error->domain != CWB_SCENE_ERROR)
    abort ();   /* refused without saying why */
  g_error_free (error);
}

/* Aborts (a finding) unless `scene`'s text reads back as the same scene; `what` prefixes the
 * report. */
static inline void
fuzz_check_reads_back (const CwbScene *scene, const char *what)
{
  GError *error = NULL;
  char *text = cwb_scene_to_yaml (scene);
  CwbScene *back = cwb_scene_load_from_data (text, -1, "back.yaml", &error);
  if (back == NULL || !cwb_scene_equal (scene, back))
    {
      fprintf (stderr, "%snot read back as the same scene (%s):\n%s\n", what,
               error != NULL ? error->message : "a value differs", text);
      abort ();
    }
  cwb_scene_free (back);
  g_free (text);
}
