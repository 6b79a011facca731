/* Plays a character through sinew's C ABI and writes every frame's world matrices.
 *
 *   play MODEL (MOTION.vmd | --clip N) FRAMES PHYSICS OUT
 *
 * MODEL: a PMX, PMD, glTF or GLB file; the motion a VMD for an MMD model or a glTF clip index;
 * FRAMES frames of 1/30 s; PHYSICS 1 or 0; OUT gets FRAMES x bones x 16 floats (column-major
 * 4x4 world matrices, the skeleton's order). Errors print sinew's one-line message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

static int fail(const char *what) {
  fprintf(stderr, "play: %s: %s\n", what, sinew_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 6 && !(argc == 7 && strcmp(argv[2], "--clip") == 0)) {
    fprintf(stderr, "usage: play MODEL (MOTION.vmd | --clip N) FRAMES PHYSICS OUT\n");
    return 2;
  }
  int clip = argc == 7;
  long frames = strtol(argv[3 + clip], NULL, 10);
  int physics = atoi(argv[4 + clip]);
  const char *out_path = argv[5 + clip];

  SinewModel model;
  if (sinew_model_load(argv[1], &model) != SINEW_STATUS_OK) return fail("model");
  SinewMotion motion;
  SinewStatus s = clip ? sinew_motion_clip(model, (size_t)atol(argv[3]), &motion)
                       : sinew_motion_load(model, argv[2], &motion);
  if (s != SINEW_STATUS_OK) return fail("motion");

  size_t bones = 0;
  if (sinew_model_count(model, SINEW_COUNT_BONES, &bones) != SINEW_STATUS_OK) return fail("bones");
  char name[256];
  size_t len = 0;
  if (sinew_model_name(model, SINEW_COUNT_BONES, 0, name, sizeof name, &len) != SINEW_STATUS_OK)
    return fail("bone name");

  SinewCharacter character;
  if (sinew_character_new(model, &character) != SINEW_STATUS_OK) return fail("character");
  if (sinew_character_play(character, motion) != SINEW_STATUS_OK) return fail("play");
  if (physics && sinew_character_set_physics(character, 1) != SINEW_STATUS_OK)
    return fail("physics");

  /* A short buffer is refused, not overrun. */
  float one[16];
  if (sinew_character_world_matrices(character, one, 16) != SINEW_STATUS_BUFFER_TOO_SHORT &&
      bones > 1) {
    fprintf(stderr, "play: a short buffer was accepted\n");
    return 1;
  }

  size_t floats = bones * 16;
  float *world = malloc(floats * sizeof *world);
  FILE *out = fopen(out_path, "wb");
  if (!world || !out) {
    fprintf(stderr, "play: cannot open %s\n", out_path);
    return 1;
  }
  for (long f = 0; f < frames; ++f) {
    if (sinew_character_advance(character, 1.0f / 30.0f) != SINEW_STATUS_OK) return fail("advance");
    if (sinew_character_world_matrices(character, world, floats) != SINEW_STATUS_OK)
      return fail("world matrices");
    fwrite(world, sizeof *world, floats, out);
  }
  fclose(out);
  free(world);
  printf("%zu bones (the first \"%s\"), %ld frames\n", bones, name, frames);

  sinew_character_free(character);
  sinew_motion_free(motion);
  sinew_model_free(model);
  /* A freed handle is refused. */
  if (sinew_character_advance(character, 0.0f) != SINEW_STATUS_INVALID_HANDLE) {
    fprintf(stderr, "play: a freed character was accepted\n");
    return 1;
  }
  return 0;
}
