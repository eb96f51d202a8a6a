#pragma once
// perf 6.1's names for syscall argument values (its string arrays and flag lists, its copies of
// the 6.1 uapi headers), as the argument beautifiers look them up.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::output::syscall_names {

// Names by value, as perf's string arrays: names in order from `first`, "@N" jumps to value N,
// "-" leaves a value unnamed. Values outside the table or unnamed have no name ("").
class NameTable {
 public:
  explicit NameTable(std::string_view spec, int64_t first = 0) : first_(first) {
    size_t at = 0;
    while (at < spec.size()) {
      const size_t end = std::min(spec.find(' ', at), spec.size());
      const std::string_view word = spec.substr(at, end - at);
      at = end + 1;
      if (word.empty()) continue;
      if (word[0] == '@') {
        names_.resize(static_cast<size_t>(std::stoll(std::string(word.substr(1)), nullptr, 0) - first_));
      } else {
        names_.push_back(word == "-" ? std::string_view() : word);
      }
    }
  }
  std::string_view operator()(int64_t value) const {
    if (value < first_ || value - first_ >= static_cast<int64_t>(names_.size())) return {};
    return names_[static_cast<size_t>(value - first_)];
  }
  // For perf's flag arrays: entry i names bit i - 1; bits from size() - 1 up are not looked at.
  size_t size() const { return names_.size(); }

 private:
  int64_t first_;
  std::vector<std::string_view> names_;
};

// perf's P_FLAG lists, written as "VALUE NAME" pairs in perf's order.
class FlagList {
 public:
  struct Flag {
    uint64_t bits;
    std::string_view name;
  };
  explicit FlagList(std::string_view spec) {
    for (size_t at = 0; at < spec.size();) {
      const size_t value_end = spec.find(' ', at),
                   name_end = std::min(spec.find(' ', value_end + 1), spec.size());
      flags_.push_back({std::stoull(std::string(spec.substr(at, value_end - at)), nullptr, 0),
                        spec.substr(value_end + 1, name_end - value_end - 1)});
      at = name_end + 1;
    }
  }
  auto begin() const { return flags_.begin(); }
  auto end() const { return flags_.end(); }

 private:
  std::vector<Flag> flags_;
};

extern const NameTable kFcntlCmds;
extern const NameTable kLeases;
extern const NameTable kWhences;
extern const NameTable kRlimits;
extern const NameTable kSigHow;
extern const NameTable kClockIds;
extern const NameTable kItimers;
extern const NameTable kEpollCtlOps;
extern const NameTable kSocketFamilies;
extern const NameTable kSocketLevels;
extern const NameTable kIpProtocols;
extern const NameTable kBpfCmds;
extern const NameTable kKeyctlOptions;
extern const NameTable kFsconfigCmds;
extern const NameTable kFsmountFlags;
extern const NameTable kKcmpTypes;
extern const NameTable kPrctlOptions;
extern const NameTable kPrctlSetMm;
extern const NameTable kArchPrctlCodes;
extern const NameTable kMadviseBehaviors;
extern const NameTable kSignals;
extern const NameTable kMmapProt;
extern const NameTable kMmapFlags;
extern const NameTable kMremapFlags;
extern const NameTable kMountFlags;
extern const NameTable kRenameatFlags;
extern const NameTable kSyncFileRangeFlags;
extern const NameTable kPkeyAccessRights;
extern const NameTable kTtyIoctls;
extern const NameTable kIoctlDirections;
extern const NameTable kPerfIoctls;
extern const NameTable kSndPcmIoctls;
extern const NameTable kSndCtlIoctls;
extern const NameTable kDrmIoctls;
extern const NameTable kKvmIoctls;
extern const NameTable kVhostWriteIoctls;
extern const NameTable kVhostReadIoctls;
extern const FlagList kCloneFlags;
extern const FlagList kOpenFlags;
extern const FlagList kModeBits;
extern const FlagList kMsgFlags;
extern const FlagList kWaitidOptions;
extern const FlagList kGetrandomFlags;
extern const FlagList kPipeFlags;
extern const FlagList kEventfdFlags;
extern const FlagList kPerfFlags;
extern const FlagList kSeccompFlags;
extern const FlagList kFlockOps;
extern const FlagList kAccessModes;
extern const FlagList kSocketTypeFlags;
extern const NameTable kFutexCommands;
extern const NameTable kSocketTypes;
extern const NameTable kSchedPolicies;

}  // namespace sonde::output::syscall_names
