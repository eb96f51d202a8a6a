#include "base/error.hpp"

#include <cstring>

namespace sonde {

tl::unexpected<Error> fail_errno(int err, std::string_view message) {
  return tl::unexpected<Error>(
      Error{fmt::format("{}: {}", message, errno_text(err)), Error::Kind::failed, err});
}

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return fmt::format("{} ({})", name ? name : "E?", std::strerror(err));
}

}  // namespace sonde
