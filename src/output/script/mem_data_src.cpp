#include "output/script/mem_data_src.hpp"

#include <fmt/format.h>

#include <span>
#include <string_view>

namespace sonde::output {

namespace {

// The bit fields of struct perf_mem_data_src (little-endian layout).
uint64_t bits(uint64_t value, unsigned shift, unsigned width) {
  return (value >> shift) & ((1ull << width) - 1);
}

// Names for the set bits of `mask`, from bit 0 on, joined by " or ".
void append_alternatives(std::string& out, uint64_t mask, std::span<const std::string_view> names) {
  bool any = false;
  for (size_t i = 0; mask != 0 && i < names.size(); ++i, mask >>= 1) {
    if (!(mask & 1)) continue;
    if (any) out += " or ";
    out += names[i];
    any = true;
  }
}

std::string operation(uint64_t op) {
  if (op & 0x01) return "N/A";
  if (op & 0x02) return "LOAD";
  if (op & 0x04) return "STORE";
  if (op & 0x08) return "PFETCH";
  if (op & 0x10) return "EXEC";
  return "No";
}

std::string level(uint64_t data_src) {
  static constexpr std::string_view kLevels[] = {"N/A",
                                                 "HIT",
                                                 "MISS",
                                                 "L1",
                                                 "LFB/MAB",
                                                 "L2",
                                                 "L3",
                                                 "Local RAM",
                                                 "Remote RAM (1 hop)",
                                                 "Remote RAM (2 hops)",
                                                 "Remote Cache (1 hop)",
                                                 "Remote Cache (2 hops)",
                                                 "I/O",
                                                 "Uncached"};
  static constexpr std::string_view kHops[] = {"N/A", "core, same node", "node, same socket",
                                               "socket, same board", "board"};
  uint64_t mask = bits(data_src, 5, 14);
  const bool hit = mask & 0x2, miss = mask & 0x4;
  mask &= ~uint64_t{0x6};
  std::string out;
  if (bits(data_src, 37, 1)) out += "Remote ";
  bool any = false;
  if (uint64_t hops = bits(data_src, 43, 3)) {
    out += hops < std::size(kHops) ? std::string(kHops[hops]) : std::string();
    out += ' ';
  } else {
    size_t before = out.size();
    append_alternatives(out, mask, kLevels);
    any = out.size() != before;
  }
  if (uint64_t number = bits(data_src, 33, 4)) {
    if (any) out += " or ";
    switch (number) {
      case 0x09:
        out += "CXL";
        break;
      case 0x0a:
        out += "I/O";
        break;
      case 0x0b:
        out += "Any cache";
        break;
      case 0x0c:
        out += "LFB/MAB";
        break;
      case 0x0d:
        out += "RAM";
        break;
      case 0x0e:
        out += "PMEM";
        break;
      case 0x0f:
        out += "N/A";
        break;
      default:
        out += fmt::format("L{}", number);
    }
  }
  if (out.empty()) out = "N/A";
  if (hit) out += " hit";
  if (miss) out += " miss";
  return out;
}

std::string snoop(uint64_t data_src) {
  static constexpr std::string_view kSnoop[] = {"N/A", "None", "Hit", "Miss", "HitM"};
  static constexpr std::string_view kSnoopX[] = {"Fwd", "Peer"};
  std::string out;
  append_alternatives(out, bits(data_src, 19, 5), kSnoop);
  if (uint64_t extended = bits(data_src, 38, 2)) {
    std::string more;
    append_alternatives(more, extended, kSnoopX);
    if (!out.empty() && !more.empty()) out += " or ";
    out += more;
  }
  return out.empty() ? "N/A" : out;
}

std::string tlb(uint64_t data_src) {
  static constexpr std::string_view kTlb[] = {"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"};
  uint64_t mask = bits(data_src, 26, 7);
  const bool hit = mask & 0x2, miss = mask & 0x4;
  mask &= ~uint64_t{0x6};
  std::string out;
  append_alternatives(out, mask, kTlb);
  if (out.empty()) out = "N/A";
  if (hit) out += " hit";
  if (miss) out += " miss";
  return out;
}

std::string lock(uint64_t data_src) {
  uint64_t mask = bits(data_src, 24, 2);
  if (mask & 0x1) return "N/A";
  return (mask & 0x2) ? "Yes" : "No";
}

std::string blocked(uint64_t data_src) {
  uint64_t mask = bits(data_src, 40, 3);
  if (mask == 0 || (mask & 0x1)) return " N/A";
  std::string out;
  if (mask & 0x2) out += " Data";
  if (mask & 0x4) out += " Addr";
  return out;
}

}  // namespace

std::string mem_data_src_text(uint64_t data_src) {
  std::string text =
      fmt::format("|OP {}|LVL {}|SNP {}|TLB {}|LCK {}|BLK {}", operation(bits(data_src, 0, 5)),
                  level(data_src), snoop(data_src), tlb(data_src), lock(data_src), blocked(data_src));
  // perf writes it into 100 bytes.
  if (text.size() > 99) text.resize(99);
  return text;
}

}  // namespace sonde::output
