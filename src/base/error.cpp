#include "base/error.hpp"

#include <cstring>

namespace sonde {

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return fmt::format("{} ({})", name ? name : "E?", std::strerror(err));
}

}  // namespace sonde
