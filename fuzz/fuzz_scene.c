/* libFuzzer target: scene text (cwb_scene_load_from_data). Any input either loads or is
 * refused with a located error; a scene that loads is written as text that reads back as the
 * same scene (saves are lossless: docs/scene-format.md). A crash, a sanitizer report, a hang
 * or a failed check is a finding. */
#include <stdint.h>

#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  CwbScene *scene = cwb_scene_load_from_data ((const char *) data, (gssize) size, "fuzz.yaml",
                                              &error);
  if (scene == NULL)
    {
      fuzz_check_refusal (error);
      return 0;
    }
  fuzz_check_reads_back (scene, "");
  cwb_scene_free (scene);
  return 0;
}
