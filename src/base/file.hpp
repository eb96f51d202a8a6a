#pragma once
// Whole-file reads of small kernel files (sysfs, procfs, tracefs).
#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde {

Result<std::string> read_file(const std::string& path);
// The names in a directory, sorted, without "." and "..".
Result<std::vector<std::string>> list_directory(const std::string& path);
bool path_exists(const std::string& path);
bool is_directory(const std::string& path);
// A regular file with at least one byte (following symlinks): what perf keeps as FILE.old before
// writing FILE. A device such as /dev/null, a FIFO or an empty file is written over in place.
bool is_nonempty_regular_file(const std::string& path);
// All of `content` to `fd`, across short writes and EINTR; false (errno set) on an error.
bool write_all(int fd, std::string_view content);
// ENOSPC, EDQUOT or EFBIG: the file system has no more room for the file.
inline bool is_out_of_space(int error_number) {
  return error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG;
}
// The bytes an unprivileged writer may still put on the file system holding `path`.
Result<uint64_t> free_bytes(const std::string& path);
// Writes into an existing file (a tracefs or sysfs control file).
Result<void> write_file(const std::string& path, std::string_view content);
// An output's symbolic link is followed (-o /dev/stdout) unless another user planted it in a
// directory others can write to (/tmp): writing through it as root would overwrite its target.
// Fails with what to do when `path` is such a link.
Result<void> refuse_planted_link(const std::string& path);
// Opens an output for writing from its start (created, or truncated), a regular file given
// `mode` even when it existed (perf.data, trace.dat and the text outputs are private: 0600); a
// device keeps its own mode. A planted link is refused (refuse_planted_link).
Result<UniqueFd> open_output_file(const std::string& path, mode_t mode = 0600);
// Creates a fresh private temporary (0600) at a predictable `path`: whatever is there (a stale
// temporary, a planted link) is removed first and the file is made with O_EXCL|O_NOFOLLOW.
Result<UniqueFd> create_temporary_file(const std::string& path);
// A private file without a name in `directory` (O_TMPFILE): nothing is left behind however the
// process ends; /proc/self/fd/N opens it while the descriptor lives. Fails on file systems that
// cannot make one (create_temporary_file is the fallback).
Result<UniqueFd> create_anonymous_file(const std::string& directory);
// Writes a whole file so that a reader never sees half of it: to a temporary file beside it,
// renamed over `path` once complete, with `mode`. A device, FIFO or symlink at `path`
// (-o /dev/null, -o /dev/stdout) is written through instead: a rename would replace it.
Result<void> replace_file(const std::string& path, std::string_view content, mode_t mode = 0600);

}  // namespace sonde
