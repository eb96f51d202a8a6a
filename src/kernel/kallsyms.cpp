#include "kernel/kallsyms.hpp"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::kernel {

namespace {

// One "ADDR TYPE NAME[\t[module]]" line of /proc/kallsyms.
struct KallsymsLine {
  uint64_t addr = 0;
  std::string_view name;
};

bool parse_kallsyms_line(std::string_view line, KallsymsLine& out) {
  size_t space = line.find(' ');
  if (space == std::string_view::npos || line.size() < space + 3) return false;
  auto addr = parse_uint(line.substr(0, space), 16);
  if (!addr) return false;
  std::string_view name = line.substr(space + 3);
  name = name.substr(0, name.find('\t'));
  out = {*addr, name};
  return true;
}

// Reads `path` in large chunks and hands each whole line to `on_line` until it returns false.
// seq_file generates kallsyms as it is read, so stopping early is what makes this cheap.
template <typename OnLine>
Result<void> scan_lines(const std::string& path, OnLine on_line) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failf("cannot open {}: {}", path, errno_text(errno));
  std::string buffer(64 * 1024, '\0');
  size_t filled = 0;  // bytes in buffer: the unfinished last line of the previous chunk, then new
  bool more = true;
  while (more) {
    if (filled == buffer.size()) buffer.resize(buffer.size() * 2);  // a line longer than the buffer
    ssize_t n = ::read(fd, buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return failf("cannot read {}: {}", path, errno_text(err));
    }
    bool eof = n == 0;
    filled += static_cast<size_t>(n);
    std::string_view text(buffer.data(), filled);
    size_t begin = 0;
    for (size_t newline; more && (newline = text.find('\n', begin)) != std::string_view::npos;
         begin = newline + 1)
      more = on_line(text.substr(begin, newline - begin));
    if (eof) {
      if (more && begin < filled) on_line(text.substr(begin));
      break;
    }
    std::memmove(buffer.data(), buffer.data() + begin, filled - begin);
    filled -= begin;
  }
  ::close(fd);
  return {};
}

}  // namespace

std::string module_name_from_path(std::string_view path) {
  std::string_view base = path_basename(path);
  if (base.size() >= 2 && base.front() == '[' && base.back() == ']') base = base.substr(1, base.size() - 2);
  base = base.substr(0, base.find(".ko"));
  std::string name(base);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

uint64_t iomem_kernel_code_size(std::string_view iomem) {
  for (const auto& line : split(iomem, '\n')) {
    std::string_view text = trim(line);
    size_t colon = text.find(" : ");
    if (colon == std::string_view::npos || trim(text.substr(colon + 3)) != "Kernel code") continue;
    std::string_view range = text.substr(0, colon);
    size_t dash = range.find('-');
    if (dash == std::string_view::npos) continue;
    auto start = parse_uint(range.substr(0, dash), 16);
    auto end = parse_uint(range.substr(dash + 1), 16);
    if (!start || !end || *end <= *start) return 0;  // zeros: hidden from the unprivileged
    return *end + 1 - *start;
  }
  return 0;
}

Result<KernelText> find_kernel_text(const KallsymsPaths& paths) {
  uint64_t code_size = 0;
#if defined(__x86_64__) || defined(__i386__)
  // Only x86 makes "Kernel code" exactly _text.._etext (arm64's starts at _stext, ends at init).
  if (!paths.iomem.empty()) {
    if (auto iomem = read_file(paths.iomem)) code_size = iomem_kernel_code_size(*iomem);
  }
#endif
  std::optional<uint64_t> text, stext, etext;
  bool hidden = false;
  auto scanned = scan_lines(paths.kallsyms, [&](std::string_view line) {
    KallsymsLine sym;
    if (!parse_kallsyms_line(line, sym)) return true;
    if (sym.name == "_text")
      text = sym.addr;
    else if (sym.name == "_stext")
      stext = sym.addr;
    else if (sym.name == "_etext")
      etext = sym.addr;
    else
      return true;
    if (sym.addr == 0) {  // kptr_restrict shows every address as 0
      hidden = true;
      return false;
    }
    return !(text && (etext || code_size));
  });
  if (!scanned) return tl::unexpected(scanned.error());
  if (hidden)
    return failf("{} shows no addresses (kernel.kptr_restrict, or not privileged): no kernel map",
                 paths.kallsyms);
  KernelText result;
  if (text) {
    result = {"_text", *text, 0};
    if (!etext && code_size) etext = *text + code_size;
  } else if (stext) {
    result = {"_stext", *stext, 0};
  } else {
    return failf("{} has neither _text nor _stext", paths.kallsyms);
  }
  if (etext && *etext > result.start) result.end = *etext;
  return result;
}

std::vector<KernelModule> parse_modules(std::string_view text) {
  std::vector<KernelModule> modules;
  for (const auto& line : split(text, '\n')) {
    auto fields = split(trim(line), ' ');
    if (fields.size() < 6) continue;
    auto size = parse_uint(fields[1], 10);
    auto start = parse_uint(fields[5], 0);
    if (!size || !start || *start == 0) continue;  // 0: addresses hidden from the unprivileged
    modules.push_back({fields[0], *start, *size, ""});
  }
  return modules;
}

void resolve_module_paths(std::vector<KernelModule>& modules, std::string_view modules_dep,
                          const std::string& module_dir) {
  std::map<std::string, std::string, std::less<>> by_name;
  for (const auto& line : split(modules_dep, '\n')) {
    std::string_view file = line;
    file = file.substr(0, file.find(':'));
    if (file.empty()) continue;
    std::string path = file.front() == '/' ? std::string(file) : module_dir + "/" + std::string(file);
    by_name.emplace(module_name_from_path(file), std::move(path));
  }
  for (auto& module : modules) {
    auto found = by_name.find(module.name);
    module.path = found != by_name.end() ? found->second : "[" + module.name + "]";
  }
}

Result<std::vector<KernelModule>> read_modules(const std::string& proc_modules) {
  if (!path_exists(proc_modules)) return std::vector<KernelModule>{};  // CONFIG_MODULES=n
  auto text = read_file(proc_modules);
  if (!text) return tl::unexpected(text.error());
  auto modules = parse_modules(*text);
  if (modules.empty()) return modules;
  struct utsname uts {};
  ::uname(&uts);
  std::string dir = std::string("/lib/modules/") + uts.release;
  auto dep = read_file(dir + "/modules.dep");
  resolve_module_paths(modules, dep ? std::string_view(*dep) : std::string_view(), dir);
  return modules;
}

}  // namespace sonde::kernel
