#include "pipeline/record_kcore.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/file.hpp"
#include "kernel/kcore_copy.hpp"

namespace sonde::pipeline {

namespace {

// perf's rm_rf_perf_data: a previous recording's files (data, data.N, kcore_dir*), and the
// directory; anything else in it stops the removal, as it stops perf.
Result<void> remove_previous_recording(const std::string& directory) {
  auto names = list_directory(directory);
  if (!names) return tl::unexpected(names.error());
  for (const std::string& name : *names) {
    std::string path = directory + "/" + name;
    if (name.starts_with("kcore_dir") && is_directory(path)) {
      for (const char* copied : {"kcore", "kallsyms", "modules"}) unlink((path + "/" + copied).c_str());
      if (rmdir(path.c_str()) != 0)
        return failf("can't remove old data: {} holds files sonde did not write; move it away", path);
    } else if (name == "data" || name.starts_with("data.")) {
      if (unlink(path.c_str()) != 0) return fail_errno(errno, fmt::format("removing {}", path));
    } else {
      return failf("can't remove old data: unknown file {} found; move {} away", path, directory);
    }
  }
  if (rmdir(directory.c_str()) != 0) return fail_errno(errno, fmt::format("removing {}", directory));
  return {};
}

}  // namespace

Result<void> check_kcore_readable() {
  if (kernel::kcore_readable("/proc")) return {};
  return fail(
      "--kcore: kcore is not readable: this kernel has no /proc/kcore (CONFIG_PROC_KCORE), or it needs root; "
      "record without --kcore");
}

Result<std::string> make_recording_directory(const std::string& directory) {
  if (directory == "-")
    return fail("--kcore writes a directory (DIR/data, DIR/kcore_dir), not a pipe: give -o DIR");
  if (path_exists(directory)) {
    std::string old = directory + ".old";
    if (is_directory(old)) {
      if (auto removed = remove_previous_recording(old); !removed) return tl::unexpected(removed.error());
    }
    if (std::rename(directory.c_str(), old.c_str()) != 0)
      return failf("cannot rename {} to {}: {}", directory, old, errno_text(errno));
  }
  if (mkdir(directory.c_str(), 0700) != 0) return fail_errno(errno, fmt::format("creating {}", directory));
  return directory + "/data";
}

Result<void> copy_kcore_into(const std::string& directory) {
  std::string kcore_dir = directory + "/kcore_dir";
  if (mkdir(kcore_dir.c_str(), 0700) != 0) return fail_errno(errno, fmt::format("creating {}", kcore_dir));
  auto copied = kernel::copy_kcore("/proc", kcore_dir);
  if (!copied) return tl::unexpected(copied.error().with_context("--kcore: failed to copy kcore"));
  return {};
}

events::EventSpec text_poke_event() {
  events::EventSpec dummy = events::dummy_event("dummy:u");
  dummy.attr.exclude_kernel = dummy.attr.exclude_hv = dummy.attr.exclude_guest = 1;
  dummy.attr.text_poke = dummy.attr.ksymbol = 1;
  return dummy;
}

}  // namespace sonde::pipeline
