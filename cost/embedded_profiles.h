#pragma once
// The profiles the build compiles in (cost/CMakeLists.txt generates them from
// cost/profiles/*.json): the reference host profile's JSON text, and every
// other profile (other CPUs' and GPUs') by file name.
namespace smelt::cost {

extern const char* const kHostProfileJson;  // cost/profiles/host.json
struct EmbeddedProfile {
  const char* file;
  const char* json;
};
extern const EmbeddedProfile kShippedProfiles[];  // the others; ends with {nullptr, nullptr}

}  // namespace smelt::cost
