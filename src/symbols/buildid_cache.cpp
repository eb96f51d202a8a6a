#include "symbols/buildid_cache.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "symbols/elf_image.hpp"

namespace sonde::symbols {

namespace fs = std::filesystem;

std::string buildid_cache_dir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* env = std::getenv("PERF_BUILDID_DIR"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "") + "/.debug";
}

std::string buildid_cache_link(const std::string& dir, const std::string& build_id) {
  if (build_id.size() < 3) return "";
  return dir + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2);
}

std::string buildid_cache_file(const std::string& dir, const std::string& build_id, const std::string& kind) {
  std::string link = buildid_cache_link(dir, build_id);
  if (link.empty()) return "";
  std::error_code ec;
  if (fs::is_directory(link, ec)) {
    std::string file = link + "/" + kind;
    return fs::is_regular_file(file, ec) ? file : "";
  }
  // perf's older layout: the link points at the file itself.
  return kind == "elf" && fs::is_regular_file(link, ec) ? link : "";
}

namespace {

// A hard link where the file system allows it, else a copy (perf's link-or-copyfile).
Result<void> link_or_copy(const std::string& from, const std::string& to) {
  if (::access(to.c_str(), F_OK) == 0) return {};
  if (::link(from.c_str(), to.c_str()) == 0) return {};
  std::error_code ec;
  fs::copy_file(from, to, ec);
  if (ec) return failf("{}: {}", to, ec.message());
  return {};
}

}  // namespace

Result<void> buildid_cache_add(const std::string& dir, const std::string& file,
                               const std::string& debug_root) {
  char* resolved = ::realpath(file.c_str(), nullptr);
  if (!resolved) return failf("Couldn't add {}: {}", file, errno_text(errno));
  std::string real(resolved);
  std::free(resolved);
  auto read_id = elf_build_id(real);
  if (!read_id) return failf("Couldn't add {}: {}", file, read_id.error().message);
  std::string build_id = std::move(*read_id);
  if (build_id.empty()) return failf("Couldn't add {}: no build-id (not an ELF file?)", file);

  std::string entry = dir + real + "/" + build_id;
  std::error_code ec;
  fs::create_directories(entry, ec);
  if (ec) return failf("Couldn't add {}: {}: {}", file, entry, ec.message());
  if (auto linked = link_or_copy(real, entry + "/elf"); !linked)
    return failf("Couldn't add {}: {}", file, linked.error().message);
  std::string debug =
      debug_root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug";
  if (fs::is_regular_file(debug, ec)) {
    if (auto linked = link_or_copy(debug, entry + "/debug"); !linked)
      return failf("Couldn't add {}: {}", file, linked.error().message);
  }
  std::string probes = entry + "/probes";
  if (::access(probes.c_str(), F_OK) != 0) {
    int fd = ::open(probes.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return failf("Couldn't add {}: {}: {}", file, probes, errno_text(errno));
    ::close(fd);
  }

  std::string link = buildid_cache_link(dir, build_id);
  fs::create_directories(fs::path(link).parent_path(), ec);
  if (ec) return failf("Couldn't add {}: {}", file, ec.message());
  std::string target = "../.." + real + "/" + build_id;
  if (::symlink(target.c_str(), link.c_str()) != 0 && errno != EEXIST)
    return failf("Couldn't add {}: {}: {}", file, link, errno_text(errno));
  return {};
}

Result<void> buildid_cache_remove(const std::string& dir, const std::string& file) {
  char* resolved = ::realpath(file.c_str(), nullptr);
  if (!resolved) return failf("Couldn't remove {}: {}", file, errno_text(errno));
  std::string real(resolved);
  std::free(resolved);
  auto read_id = elf_build_id(real);
  if (!read_id) return failf("Couldn't remove {}: {}", file, read_id.error().message);
  std::string build_id = std::move(*read_id);
  if (build_id.empty()) return failf("Couldn't remove {}: no build-id (not an ELF file?)", file);
  std::error_code ec;
  fs::remove(buildid_cache_link(dir, build_id), ec);
  fs::remove_all(dir + real + "/" + build_id, ec);
  return {};
}

Result<void> buildid_cache_purge(const std::string& dir, const std::string& file) {
  std::error_code ec;
  std::string real = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (real.empty()) return failf("Couldn't remove {}: {}", file, ec.message());
  std::string entries = dir + real;
  if (!fs::is_directory(entries, ec)) return {};
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(entries, ec)) ids.push_back(entry.path().filename());
  for (const std::string& id : ids) {
    fs::remove(buildid_cache_link(dir, id), ec);
    fs::remove_all(entries + "/" + id, ec);
  }
  return {};
}

std::vector<CachedEntry> buildid_cache_list(const std::string& dir) {
  std::vector<CachedEntry> out;
  std::error_code ec;
  for (const auto& prefix : fs::directory_iterator(dir + "/.build-id", ec)) {
    std::string head = prefix.path().filename();
    if (head.size() != 2) continue;
    for (const auto& link : fs::directory_iterator(prefix.path(), ec)) {
      if (!link.is_symlink(ec)) continue;
      std::string target = fs::read_symlink(link.path(), ec);
      if (ec || !target.starts_with("../..")) continue;
      std::string id = head + link.path().filename().string();
      // "../../<path>/<build-id>": the original path is what lies between.
      std::string path = target.substr(5);
      if (path.ends_with("/" + id)) path.resize(path.size() - id.size() - 1);
      if (path.starts_with("/[")) path.erase(0, 1);  // "[kernel.kallsyms]", "[vdso]"
      out.push_back({id, path});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const CachedEntry& a, const CachedEntry& b) { return a.build_id < b.build_id; });
  return out;
}

}  // namespace sonde::symbols
