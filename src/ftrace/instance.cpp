#include "ftrace/instance.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "ftrace/libtracefs.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::ftrace {

int write_control_file(const std::string& path, std::string_view text, bool append) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
  if (fd < 0) return errno;
  ssize_t written = ::write(fd, text.data(), text.size());
  int err = written < 0 ? errno : 0;
  ::close(fd);
  return err;
}

std::string errno_name(int err) {
  const char* name = strerrorname_np(err);
  return name ? name : fmt::format("errno {}", err);
}

Result<Instance> Instance::top() {
  auto root = kernel::tracefs_root();
  if (!root) return tl::unexpected(root.error());
  Instance instance;
  instance.root_ = *root;
  instance.dir_ = *root;
  return instance;
}

Result<Instance> Instance::existing(const std::string& name) {
  auto root = kernel::tracefs_root();
  if (!root) return tl::unexpected(root.error());
  Instance instance;
  instance.root_ = *root;
  instance.name_ = name;
  instance.dir_ = *root + "/instances/" + name;
  if (!is_directory(instance.dir_))
    return failf("no tracefs instance '{}' ({} does not exist); 'sonde ftrace show' lists them", name,
                 instance.dir_);
  return instance;
}

Result<Instance> Instance::create_own() {
  auto root = kernel::tracefs_root();
  if (!root) return tl::unexpected(root.error());
  Instance instance;
  instance.root_ = *root;
  instance.name_ = fmt::format("sonde-{}", ::getpid());
  instance.dir_ = *root + "/instances/" + instance.name_;
  if (path_exists(instance.dir_))
    return failf(
        "tracefs instance {} already exists (left by an earlier run?); remove it with "
        "'sonde ftrace reset'",
        instance.name_);
  errno = 0;
  instance.handle_ = tracefs_instance_create(instance.name_.c_str());
  if (!instance.handle_ || !is_directory(instance.dir_)) {
    int err = errno;
    if (instance.handle_) tracefs_instance_free(instance.handle_);
    instance.handle_ = nullptr;
    return failf("cannot create tracefs instance {}: {}", instance.dir_,
                 err ? errno_text(err) : "unknown error");
  }
  instance.owned_ = true;
  return instance;
}

Instance::Instance(Instance&& other) noexcept
    : name_(std::move(other.name_)),
      dir_(std::move(other.dir_)),
      root_(std::move(other.root_)),
      handle_(other.handle_),
      owned_(other.owned_) {
  other.handle_ = nullptr;
  other.owned_ = false;
}

Instance::~Instance() {
  (void)remove();
  if (handle_) tracefs_instance_free(handle_);
}

Result<void> Instance::remove() {
  if (!owned_) return {};
  owned_ = false;
  // rmdir fails with EBUSY while a reader still holds one of its files; readers close theirs
  // before this, but the kernel may take a moment to drop the last reference.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (::rmdir(dir_.c_str()) == 0 || errno == ENOENT) return {};
    if (errno != EBUSY) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return failf("cannot remove tracefs instance {}: {}; remove it with 'sonde ftrace reset'", dir_,
               errno_text(errno));
}

Result<std::string> Instance::read(std::string_view file) const { return read_file(path(file)); }

Result<void> Instance::write(std::string_view file, std::string_view text) const {
  if (int err = write_control_file(path(file), text, false); err != 0)
    return tl::unexpected(
        Error{fmt::format("writing '{}' to {} failed: {}", trim(text), path(file), errno_name(err)),
              Error::Kind::failed, err});
  return {};
}

Result<void> Instance::append(std::string_view file, std::string_view text) const {
  if (int err = write_control_file(path(file), text, true); err != 0)
    return tl::unexpected(
        Error{fmt::format("adding '{}' to {} failed: {}", trim(text), path(file), errno_name(err)),
              Error::Kind::failed, err});
  return {};
}

}  // namespace sonde::ftrace
