#pragma once
// Bytes for documents that carry other bytes: gzip compression (zlib, fastest level, as pprof's
// .pb.gz and the HTML report's embedded tables use it) and base64 text.
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde {

Result<std::string> gzip(std::string_view bytes);
// RFC 4648 base64 with padding, no line breaks.
std::string base64(std::string_view bytes);

}  // namespace sonde
