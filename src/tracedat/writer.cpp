// trace.dat version 6: every length-prefixed block in order, the options, then the CPU data at
// page-aligned offsets that are known before writing (sizes come from the capture files), so
// the file is written front to back without seeking.
#include "tracedat/writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/file.hpp"
#include "base/output_stream.hpp"
#include "base/unique_fd.hpp"
#include "tracedat/format.hpp"

namespace sonde::tracedat {

namespace {

constexpr size_t kCopyChunk = 64 << 10;  // what is on disk twice at any moment of a consuming copy

// The bytes of a part of the file; a counting Block only sums their sizes (the room estimate).
class Block {
 public:
  explicit Block(bool counting = false) : counting_(counting) {}
  void bytes(const void* data, size_t size) { text(std::string_view(static_cast<const char*>(data), size)); }
  void text(std::string_view s) {
    if (counting_)
      counted_ += s.size();
    else
      text_.append(s);
  }
  void cstring(std::string_view s) {
    text(s);
    text(std::string_view("\0", 1));
  }
  template <typename T>
  void number(T value) {
    bytes(&value, sizeof(value));  // the file says little endian, as this host is
  }
  void option(uint16_t id, std::string_view data) {
    number<uint16_t>(id);
    number<uint32_t>(static_cast<uint32_t>(data.size()));
    text(data);
  }
  const std::string& str() const { return text_; }
  size_t size() const { return counting_ ? counted_ : text_.size(); }

 private:
  bool counting_;
  size_t counted_ = 0;
  std::string text_;
};

std::string with_nul(std::string_view s) {
  std::string out(s);
  out.push_back('\0');
  return out;
}

// trace-cmd keeps the whole trace_clock file, "[local] global ...": the bracketed name is the one
// in use. A bare name becomes "[name]".
std::string clock_text(const std::string& clock) {
  if (clock.empty()) return "[local]";
  if (clock.find('[') != std::string::npos) return clock;
  return "[" + clock + "]";
}

std::string selected_clock(const std::string& clock_file) {
  auto open = clock_file.find('[');
  auto close = clock_file.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "[local]";
  return clock_file.substr(open, close - open + 1);
}

Result<uint64_t> file_size(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return failf("cannot stat {}: {}", path, errno_text(errno));
  return static_cast<uint64_t>(st.st_size);
}

Result<void> copy_file(const std::string& path, uint64_t size, sonde::OutputStream& out, bool consume) {
  UniqueFd fd(::open(path.c_str(), (consume ? O_RDWR : O_RDONLY) | O_CLOEXEC));
  if (fd.get() < 0) return failf("cannot open {}: {}", path, errno_text(errno));
  std::vector<char> buffer(kCopyChunk);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd.get(), buffer.data(), std::min<uint64_t>(size - done, buffer.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failf("cannot read {}: {}", path, errno_text(errno));
    if (n == 0) return failf("{} shrank while being copied", path);
    if (auto r = out.write(buffer.data(), static_cast<size_t>(n)); !r) return r;
    // The copied part's blocks go back to the file system at once, so the trace needs about
    // one chunk more room than its pages took (where holes can be punched; elsewhere twice).
    if (consume)
      (void)::fallocate(fd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(done), n);
    done += static_cast<uint64_t>(n);
  }
  return {};
}

Block metadata(const TraceDatContents& c, int nr_cpus, bool counting = false) {
  Block b(counting);
  b.text(kMagic);
  b.cstring("6");
  b.number<uint8_t>(0);  // little endian
  b.number<uint8_t>(sizeof(long));
  b.number<uint32_t>(c.page_size);

  b.cstring("header_page");
  b.number<uint64_t>(c.header_page.size());
  b.text(c.header_page);
  b.cstring("header_event");
  b.number<uint64_t>(c.header_event.size());
  b.text(c.header_event);

  b.number<uint32_t>(static_cast<uint32_t>(c.ftrace_formats.size()));
  for (const auto& format : c.ftrace_formats) {
    b.number<uint64_t>(format.size());
    b.text(format);
  }
  b.number<uint32_t>(static_cast<uint32_t>(c.event_formats.size()));
  for (const auto& [system, formats] : c.event_formats) {
    b.cstring(system);
    b.number<uint32_t>(static_cast<uint32_t>(formats.size()));
    for (const auto& format : formats) {
      b.number<uint64_t>(format.size());
      b.text(format);
    }
  }
  b.number<uint32_t>(static_cast<uint32_t>(c.kallsyms.size()));
  b.text(c.kallsyms);
  b.number<uint32_t>(static_cast<uint32_t>(c.printk_formats.size()));
  b.text(c.printk_formats);
  b.number<uint64_t>(c.saved_cmdlines.size());
  b.text(c.saved_cmdlines);
  b.number<uint32_t>(static_cast<uint32_t>(nr_cpus));

  b.text(std::string_view("options  \0", 10));
  b.option(kOptionTraceClock, with_nul(clock_text(c.trace_clock)));
  if (!c.uname.empty()) b.option(kOptionUname, with_nul(c.uname));
  b.option(kOptionCpuCount, std::string_view(reinterpret_cast<const char*>(&nr_cpus), 4));
  // trace-cmd record stores "CPU: N\n" + per_cpu/cpuN/stats; report --stat prints them.
  for (size_t cpu = 0; cpu < c.cpu_stats.size(); ++cpu) {
    if (c.cpu_stats[cpu].empty()) continue;
    b.option(kOptionCpuStat, with_nul(fmt::format("CPU: {}\n{}", cpu, c.cpu_stats[cpu])));
  }
  b.number<uint16_t>(kOptionDone);
  return b;
}

}  // namespace

std::string uname_text() {
  struct utsname u {};
  if (::uname(&u) != 0) return {};
  return fmt::format("{} {} {} {}", u.sysname, u.nodename, u.release, u.machine);
}

namespace {

Result<int> cpu_count(const TraceDatContents& contents) {
  int nr_cpus = contents.nr_cpus;
  for (const auto& cpu : contents.cpus) {
    if (cpu.cpu < 0) return failf("trace.dat CPU number {} is negative", cpu.cpu);
    nr_cpus = std::max(nr_cpus, cpu.cpu + 1);
  }
  return nr_cpus;
}

// "flyrecord\0", each CPU's offset and size, the clock's length and text.
uint64_t cpu_table_size(int nr_cpus, const std::string& clock) {
  return 10 + 16ull * static_cast<uint64_t>(nr_cpus) + 8 + clock.size();
}

}  // namespace

uint64_t trace_dat_room_needed(const TraceDatContents& contents) {
  auto nr_cpus = cpu_count(contents);
  uint64_t head = 0;
  if (nr_cpus)
    head = metadata(contents, *nr_cpus, true).size() +
           cpu_table_size(*nr_cpus, selected_clock(clock_text(contents.trace_clock)));
  return head + contents.page_size + kCopyChunk;
}

Result<void> write_trace_dat(const std::string& path, const TraceDatContents& contents,
                             bool consume_cpu_files) {
  if (contents.page_size == 0 || (contents.page_size & (contents.page_size - 1)) != 0)
    return failf("trace.dat page size {} is not a power of two", contents.page_size);
  auto counted = cpu_count(contents);
  if (!counted) return tl::unexpected(counted.error());
  int nr_cpus = *counted;

  std::vector<const CpuData*> by_cpu(static_cast<size_t>(nr_cpus), nullptr);
  std::vector<uint64_t> sizes(static_cast<size_t>(nr_cpus), 0);
  for (const auto& cpu : contents.cpus) {
    if (by_cpu[static_cast<size_t>(cpu.cpu)]) return failf("trace.dat: CPU {} is given twice", cpu.cpu);
    by_cpu[static_cast<size_t>(cpu.cpu)] = &cpu;
    auto size = file_size(cpu.path);
    if (!size) return tl::unexpected(size.error());
    sizes[static_cast<size_t>(cpu.cpu)] = *size;
  }

  Block head = metadata(contents, nr_cpus);
  std::string clock = selected_clock(clock_text(contents.trace_clock));
  uint64_t table_end = head.size() + cpu_table_size(nr_cpus, clock);
  uint64_t page = contents.page_size;
  auto align = [page](uint64_t offset) { return (offset + page - 1) & ~(page - 1); };

  // Each CPU's pages start on a page boundary; a partial last page is padded to a whole one.
  std::vector<uint64_t> offsets(static_cast<size_t>(nr_cpus), 0);
  std::vector<uint64_t> stored(static_cast<size_t>(nr_cpus), 0);
  uint64_t next = align(table_end);
  for (size_t cpu = 0; cpu < offsets.size(); ++cpu) {
    offsets[cpu] = next;
    stored[cpu] = align(sizes[cpu]);
    next = align(next + stored[cpu]);
  }

  head.text(std::string_view("flyrecord\0", 10));
  for (size_t cpu = 0; cpu < offsets.size(); ++cpu) {
    head.number<uint64_t>(offsets[cpu]);
    head.number<uint64_t>(stored[cpu]);
  }
  head.number<uint64_t>(clock.size());
  head.text(clock);

  auto opened = open_output_file(path, 0600);  // private, as perf writes perf.data
  if (!opened) return tl::unexpected(opened.error());
  sonde::OutputStream out(opened->release(), true, path);
  if (auto r = out.write(head.str().data(), head.size()); !r) return r;
  static const std::vector<char> zeros(1 << 16, 0);
  auto pad_to = [&](uint64_t offset) -> Result<void> {
    while (out.position() < offset) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(offset - out.position(), zeros.size()));
      if (auto r = out.write(zeros.data(), n); !r) return r;
    }
    return {};
  };
  for (size_t cpu = 0; cpu < offsets.size(); ++cpu) {
    if (auto r = pad_to(offsets[cpu]); !r) return r;
    if (by_cpu[cpu] && sizes[cpu] > 0) {
      if (auto r = copy_file(by_cpu[cpu]->path, sizes[cpu], out, consume_cpu_files); !r) return r;
    }
    if (auto r = pad_to(offsets[cpu] + stored[cpu]); !r) return r;
  }
  return out.close();
}

}  // namespace sonde::tracedat
