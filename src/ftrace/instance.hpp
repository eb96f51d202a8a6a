#pragma once
// One tracefs instance: sonde's own (instances/sonde-<pid>), made on demand and removed when
// it goes, or the top level, which is shared with every other tool and only borrowed.
#include <string>
#include <string_view>

#include "base/error.hpp"

struct tracefs_instance;

namespace sonde::ftrace {

class Instance {
 public:
  // mkdir instances/sonde-<pid>; an error when it cannot be made or already exists.
  static Result<Instance> create_own();
  // The top level (the tracefs root itself).
  static Result<Instance> top();
  // An existing instance by name (instances/NAME), not removed when this goes.
  static Result<Instance> existing(const std::string& name);

  Instance(Instance&& other) noexcept;
  Instance& operator=(Instance&&) = delete;
  ~Instance();

  bool is_top() const { return name_.empty(); }
  // "sonde-1234", or "" for the top level.
  const std::string& name() const { return name_; }
  // The instance's directory (the tracefs root for the top level).
  const std::string& dir() const { return dir_; }
  // The tracefs root, where the files only the top level has live (printk_formats...).
  const std::string& root() const { return root_; }
  std::string path(std::string_view file) const { return dir_ + "/" + std::string(file); }
  tracefs_instance* handle() const { return handle_; }

  Result<std::string> read(std::string_view file) const;
  // Writes `text` in one write(2) (truncating: a plain `echo TEXT > FILE`); the error names the
  // file and what the kernel said, and carries its errno (sys_errno) for callers that act on it
  // (EPERM from a locked-down kernel, EINVAL for a tracer the instance does not allow).
  Result<void> write(std::string_view file, std::string_view text) const;
  // `echo TEXT >> FILE`: adds to lists such as set_event or a trigger file.
  Result<void> append(std::string_view file, std::string_view text) const;
  // Removes the own instance now (retrying while the kernel says it is busy); no-op otherwise.
  Result<void> remove();

 private:
  Instance() = default;
  std::string name_, dir_, root_;
  tracefs_instance* handle_ = nullptr;
  bool owned_ = false;
};

// Writes one tracefs or sysfs control file in one write(2); 0 or the errno.
int write_control_file(const std::string& path, std::string_view text, bool append);
// "EPERM", "EINVAL"...: the kernel's name for an errno, as users see it in the kernel's docs.
std::string errno_name(int err);

}  // namespace sonde::ftrace
