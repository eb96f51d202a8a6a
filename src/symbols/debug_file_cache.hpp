#pragma once
// Distribution debug files keep their DWARF sections zlib-compressed (libc6-dbg does), and
// every reader inflates them again: for libc that is half of a probe's time. The first use makes
// an uncompressed copy under <sonde cache>/debug/<build-id>.debug; later ones map it as is.
#include <string>

namespace sonde::symbols {

// The uncompressed copy of `path` (its build-id `build_id`), made now when missing; `path` itself
// when nothing in it is compressed, it has no build-id, or the copy cannot be made.
std::string uncompressed_debug_file(const std::string& path, const std::string& build_id);

}  // namespace sonde::symbols
