#include "symbols/debug_files.hpp"

#include <optional>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "symbols/buildid_cache.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::symbols {

std::vector<std::string> debug_file_candidates(const std::string& long_name, const std::string& build_id,
                                               const SymbolizerOptions& options, const ElfImage* opened) {
  std::string binary = options.symfs + long_name;
  std::string debug_root = options.symfs + options.debug_root;
  std::vector<std::string> candidates;
  std::optional<std::string> link;
  if (opened) {
    link = opened->debuglink();
  } else if (path_exists(binary) && !is_directory(binary)) {
    if (auto image = ElfImage::open(binary)) link = image->debuglink();
  }
  if (link) {
    // A binary's names are absolute; a directory of "/" gives "//link", which opens the same.
    std::string dir = path_directory(binary);
    candidates.push_back(*link);
    candidates.push_back(dir + "/" + *link);
    candidates.push_back(dir + "/.debug/" + *link);
    candidates.push_back(debug_root + path_directory(long_name) + "/" + *link);
  }
  if (!build_id.empty()) {
    candidates.push_back(buildid_cache_file(options.buildid_dir, build_id, "elf"));
    candidates.push_back(buildid_cache_file(options.buildid_dir, build_id, "debug"));
  }
  candidates.push_back(debug_root + long_name + ".debug");
  candidates.push_back(debug_root + long_name);
  if (!build_id.empty())
    candidates.push_back(debug_root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) +
                         ".debug");
  candidates.push_back(binary);
  return candidates;
}

}  // namespace sonde::symbols
