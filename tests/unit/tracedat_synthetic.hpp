#pragma once
// A synthetic trace for the trace.dat unit tests: the kernel's header_page and header_event
// texts, one made-up event "sonde_test/sample" (id 1000: an int and a dynamic string), and
// ring-buffer pages built as the kernel lays them out.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "temp_dir.hpp"
#include "tracedat/writer.hpp"

namespace sonde::test {

// Creates or replaces a file (base's write_file only writes existing kernel files).
inline Result<void> create_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) return failf("cannot write {}", path);
  return {};
}

class SyntheticTrace {
 public:
  struct Sample {
    uint32_t delta;  // ns after the previous event (or the page's time)
    int32_t value;
    std::string name;
  };

  explicit SyntheticTrace(std::string name) : name_(std::move(name)) {
    contents_.header_page =
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
        "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
    contents_.header_event =
        "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
        "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
        "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
    contents_.event_formats = {
        {"sonde_test",
         {"name: sample\nID: 1000\nformat:\n"
          "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
          "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
          "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
          "print fmt: \"value=%d name=%s\", REC->value, __get_str(name)\n"}}};
    contents_.kallsyms = "ffffffff81000000 T _stext\n";
    contents_.saved_cmdlines = "42 worker\n";
    contents_.trace_clock = "[local] global counter";
    contents_.nr_cpus = 2;
  }

  tracedat::TraceDatContents& contents() { return contents_; }

  // One page of `samples` on `cpu`, starting at `ts`; `missed` > 0 marks events lost before it.
  void add_page(int cpu, uint64_t ts, const std::vector<Sample>& samples, uint64_t missed = 0) {
    std::string page(4096, '\0');
    size_t at = 16;
    for (const auto& s : samples) {
      size_t length = 16 + s.name.size() + 1;
      length = (length + 3) & ~size_t{3};
      uint32_t header = static_cast<uint32_t>(length / 4) | (s.delta << 5);
      std::memcpy(&page[at], &header, 4);
      uint16_t type = 1000;
      int32_t pid = 42;
      uint32_t loc = (static_cast<uint32_t>(s.name.size() + 1) << 16) | 16;
      std::memcpy(&page[at + 4], &type, 2);
      std::memcpy(&page[at + 8], &pid, 4);
      std::memcpy(&page[at + 12], &s.value, 4);
      std::memcpy(&page[at + 16], &loc, 4);
      std::memcpy(&page[at + 20], s.name.data(), s.name.size());
      at += 4 + length;
    }
    uint64_t commit = at - 16;
    if (missed) {
      std::memcpy(&page[at], &missed, 8);  // the count sits right after the data
      commit |= (1ull << 31) | (1ull << 30);
    }
    std::memcpy(&page[0], &ts, 8);
    std::memcpy(&page[8], &commit, 8);
    pages_[cpu] += page;
  }

  // Writes the CPU files and the trace.dat; its path.
  Result<std::string> write() {
    const std::string base = unit_temp_dir() + "/" + name_;
    contents_.cpus.clear();
    for (int cpu = 0; cpu < 2; ++cpu) {
      std::string path = base + ".cpu" + std::to_string(cpu);
      if (auto r = create_file(path, pages_[cpu]); !r) return tl::unexpected(r.error());
      contents_.cpus.push_back({cpu, path});
    }
    std::string path = base + ".dat";
    if (auto r = tracedat::write_trace_dat(path, contents_); !r) return tl::unexpected(r.error());
    return path;
  }

 private:
  std::string name_;
  tracedat::TraceDatContents contents_;
  std::string pages_[2];
};

}  // namespace sonde::test
