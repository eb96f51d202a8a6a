#include "pipeline/archive_run.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "format/build_ids.hpp"
#include "pipeline/build_id_list.hpp"
#include "symbols/buildid_cache.hpp"

extern char** environ;

namespace sonde::pipeline {

namespace {

namespace fs = std::filesystem;

// The file holding `path`'s code with build-id `id`: the file itself, or its build-id cache copy.
std::string file_with_build_id(const std::string& path, const std::string& id) {
  if (auto own = format::read_elf_build_id(path); own && format::build_id_hex(*own) == id) return path;
  std::string cached = symbols::buildid_cache_file(symbols::buildid_cache_dir(), id, "elf");
  if (auto copy = format::read_elf_build_id(cached); copy && format::build_id_hex(*copy) == id) return cached;
  return "";
}

// Runs tar to pack `staging`'s tree, following its links to the files; its status.
Result<void> run_tar(const std::string& output, const std::string& staging) {
  std::vector<std::string> words{"tar", "-chjf", output, "-C", staging, "."};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawned = ::posix_spawnp(&pid, "tar", nullptr, nullptr, argv.data(), environ);
  if (spawned != 0) return fail_errno(spawned, "cannot run tar (install tar and bzip2)");
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return fail_errno(errno, "waiting for tar");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return failf("tar could not write {} (exit status {})", output,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return {};
}

// Removes the staging tree when the archive is written or abandoned.
struct StagingDirectory {
  std::string path;
  ~StagingDirectory() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

}  // namespace

Result<ArchiveSummary> write_archive(const std::string& input, const std::string& output) {
  if (input == "-") return fail("archive reads a file's DSOs: save the stream to a file first");
  auto source = open_build_id_source(input, /*with_hits=*/true);
  if (!source) return tl::unexpected(source.error());
  auto listing = list_build_ids(*source);
  if (!listing) return tl::unexpected(listing.error());

  ArchiveSummary summary;
  summary.output = output.empty() ? input + ".tar.bz2" : output;
  std::string pattern = fs::temp_directory_path().string() + "/sonde-archive.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return fail_errno(errno, "cannot make a staging directory");
  StagingDirectory staging{pattern};

  for (const std::string& line : split(*listing, '\n')) {
    size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    std::string id = line.substr(0, space), path = line.substr(space + 1);
    if (path == "[kernel.kallsyms]") {
      // Kernel symbols come from kallsyms, which only the running kernel can give.
      auto running = format::read_kernel_build_id();
      if (!running || format::build_id_hex(*running) != id) {
        summary.missing.push_back(fmt::format("{} (build-id {}: not the running kernel)", path, id));
        continue;
      }
      auto kallsyms = read_file("/proc/kallsyms");
      if (!kallsyms) return tl::unexpected(kallsyms.error());
      if (auto written = replace_file(staging.path + "/kallsyms", *kallsyms, 0644); !written)
        return tl::unexpected(written.error());
      summary.kallsyms = true;
      continue;
    }
    if (!path.starts_with('/')) continue;  // [vdso] and the like: sonde reads them from its own process
    std::string file = file_with_build_id(path, id);
    if (file.empty()) {
      summary.missing.push_back(fmt::format("{} (build-id {})", path, id));
      continue;
    }
    fs::path target = fs::path(staging.path) / path.substr(1);
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    if (!error) fs::create_symlink(fs::absolute(file), target, error);
    if (error) return failf("cannot stage {}: {}", path, error.message());
    ++summary.files;
  }
  if (summary.files == 0 && !summary.kallsyms) {
    std::string missing;
    for (const std::string& dso : summary.missing) missing += (missing.empty() ? "" : ", ") + dso;
    return failf("{}: no sampled DSO's file was found with its recorded build-id ({}); nothing to archive",
                 input, missing.empty() ? "no DSO with a build-id was sampled" : missing);
  }
  if (auto packed = run_tar(summary.output, staging.path); !packed) return tl::unexpected(packed.error());
  return summary;
}

}  // namespace sonde::pipeline
