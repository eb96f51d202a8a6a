#include "analysis/report/wall_clock.hpp"

#include <string_view>

#include "analysis/stacks/wall_time.hpp"

namespace sonde::analysis {

namespace {

constexpr std::string_view kStateEvents[] = {"offcpu-time", "offcpu-preempted"};

class WallClockResolver : public FrameResolver {
 public:
  WallClockResolver(std::unique_ptr<FrameResolver> inner, const session::Dso& dso)
      : inner_(std::move(inner)), dso_(dso) {}

  std::optional<Symbol> symbol(const session::Dso& dso, uint64_t address) override {
    if (&dso != &dso_) return inner_->symbol(dso, address);
    std::string_view name = address == 3   ? off_cpu_state_frame(kStateEvents[1], 0)
                            : address == 2 ? off_cpu_state_frame(kStateEvents[0], 2)
                                           : off_cpu_state_frame(kStateEvents[0], 1);
    return Symbol{address, std::string(name)};
  }
  std::string srcline(const session::Dso& dso, uint64_t address) override {
    return &dso == &dso_ ? std::string() : inner_->srcline(dso, address);
  }
  std::vector<UnwoundName> unwound_frames(const session::Dso& dso, uint64_t address) override {
    return &dso == &dso_ ? std::vector<UnwoundName>{} : inner_->unwound_frames(dso, address);
  }
  uint64_t symbol_address(const session::Dso& dso, uint64_t address) override {
    return &dso == &dso_ ? address : inner_->symbol_address(dso, address);
  }
  void prefetch_kernel_symbols() override { inner_->prefetch_kernel_symbols(); }

 private:
  std::unique_ptr<FrameResolver> inner_;
  const session::Dso& dso_;
};

}  // namespace

Result<std::vector<WallClockKind>> wall_clock_kinds(const std::vector<perfdata::EventAttr>& events,
                                                    const std::string& path) {
  std::vector<WallClockKind> kinds;
  bool on_cpu = false, off_cpu = false;
  for (const auto& event : events) {
    std::string name = session::event_name(event);
    WallClockKind kind = !wall_time_event(name)    ? WallClockKind::skipped
                         : name == kStateEvents[0] ? WallClockKind::blocked
                         : name == kStateEvents[1] ? WallClockKind::preempted
                                                   : WallClockKind::on_cpu;
    kinds.push_back(kind);
    on_cpu |= kind == WallClockKind::on_cpu;
    off_cpu |= kind == WallClockKind::blocked || kind == WallClockKind::preempted;
  }
  if (auto checked = check_wall_time_sources(on_cpu, off_cpu, path); !checked)
    return tl::unexpected(checked.error());
  return kinds;
}

uint64_t off_cpu_state_address(WallClockKind kind, uint64_t weight) {
  if (kind == WallClockKind::preempted) return 3;
  if (kind != WallClockKind::blocked) return 0;
  return weight == 2 ? 2 : 1;
}

session::Dso& off_cpu_dso(session::Session& session) {
  return session.machine().dsos().intern("[off-CPU]", session::DsoKind::anon);
}

std::unique_ptr<FrameResolver> wall_clock_resolver(std::unique_ptr<FrameResolver> inner,
                                                   const session::Dso& dso) {
  return std::make_unique<WallClockResolver>(std::move(inner), dso);
}

}  // namespace sonde::analysis
