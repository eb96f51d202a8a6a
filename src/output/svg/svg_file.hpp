#pragma once
// Writing a finished SVG or HTML document: to stdout, or through base's replace_file (a temporary
// file renamed over the target once complete), so an interrupted run never leaves half a picture.
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::output {

// `path` "-" or empty writes stdout.
Result<void> write_document(const std::string& path, std::string_view content);

}  // namespace sonde::output
