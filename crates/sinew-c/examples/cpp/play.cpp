// Plays a character through sinew's C ABI from C++, with the handles owned by RAII wrappers,
// and writes every frame's world matrices (the same arguments and output as play.c).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sinew.h"

namespace {

void check(SinewStatus status, const char *what) {
  if (status != SINEW_STATUS_OK) throw std::runtime_error(std::string(what) + ": " + sinew_last_error());
}

struct Model {
  SinewModel handle{};
  explicit Model(const char *path) { check(sinew_model_load(path, &handle), "model"); }
  ~Model() { sinew_model_free(handle); }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  size_t count(SinewCount what) const {
    size_t n = 0;
    check(sinew_model_count(handle, what, &n), "count");
    return n;
  }
};

struct Motion {
  SinewMotion handle{};
  Motion(const Model &model, const char *vmd) { check(sinew_motion_load(model.handle, vmd, &handle), "motion"); }
  Motion(const Model &model, size_t clip) { check(sinew_motion_clip(model.handle, clip, &handle), "clip"); }
  ~Motion() { sinew_motion_free(handle); }
  Motion(const Motion &) = delete;
  Motion &operator=(const Motion &) = delete;
};

struct Character {
  SinewCharacter handle{};
  std::vector<float> world;
  explicit Character(const Model &model) : world(model.count(SINEW_COUNT_BONES) * 16) {
    check(sinew_character_new(model.handle, &handle), "character");
  }
  ~Character() { sinew_character_free(handle); }
  Character(const Character &) = delete;
  Character &operator=(const Character &) = delete;
  const std::vector<float> &advance(float dt) {
    check(sinew_character_advance(handle, dt), "advance");
    check(sinew_character_world_matrices(handle, world.data(), world.size()), "world matrices");
    return world;
  }
};

}  // namespace

int main(int argc, char **argv) {
  bool clip = argc == 7 && std::strcmp(argv[2], "--clip") == 0;
  if (argc != 6 && !clip) {
    std::fprintf(stderr, "usage: play_cpp MODEL (MOTION.vmd | --clip N) FRAMES PHYSICS OUT\n");
    return 2;
  }
  try {
    Model model(argv[1]);
    Motion motion = clip ? Motion(model, std::stoul(argv[3])) : Motion(model, argv[2]);
    long frames = std::stol(argv[3 + clip]);
    Character character(model);
    check(sinew_character_play(character.handle, motion.handle), "play");
    if (std::stoi(argv[4 + clip]) != 0) check(sinew_character_set_physics(character.handle, 1), "physics");
    std::ofstream out(argv[5 + clip], std::ios::binary);
    for (long f = 0; f < frames; ++f) {
      const auto &world = character.advance(1.0f / 30.0f);
      out.write(reinterpret_cast<const char *>(world.data()), std::streamsize(world.size() * sizeof(float)));
    }
    std::printf("%zu bones, %ld frames\n", model.count(SINEW_COUNT_BONES), frames);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "play_cpp: %s\n", e.what());
    return 1;
  }
  return 0;
}
