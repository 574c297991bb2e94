#include "sim/trace.hpp"

namespace shareq::sim {

void Trace::skip(const std::string& reason) {
  for (Skipped& s : skipped) {
    if (s.reason == reason) {
      ++s.count;
      return;
    }
  }
  skipped.push_back({reason, 1});
}

}  // namespace shareq::sim
