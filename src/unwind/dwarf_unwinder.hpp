#pragma once
// Unwinds the user stack of `--call-graph dwarf` samples: the registers and the copy of the
// stack the kernel saved, walked with the CFI (.eh_frame / .debug_frame) of each DSO through
// elfutils' libdwfl. One Dwfl per address space is kept and reused, so each DSO's CFI is
// parsed once per process rather than once per sample (perf builds a new one per sample).
//
// Frames come out as perf makes them: the sampled ip first, then each caller's return address
// minus one (the call instruction, so the caller's symbol and line are right).
#include <functional>
#include <memory>
#include <string>

#include "session/session.hpp"

namespace sonde::unwind {

class DwarfUnwinder : public session::UserStackUnwinder {
 public:
  // `elf_path` names the file to read a DSO's CFI and text from (the build-id cache or a
  // --symfs copy, say); by default the DSO's own path.
  using ElfPathFn = std::function<std::string(const session::Dso&)>;
  explicit DwarfUnwinder(ElfPathFn elf_path = {}, size_t max_frames = 127);
  ~DwarfUnwinder() override;

  void unwind(const session::Machine& machine, const session::Thread& thread, const perfdata::Sample& sample,
              std::vector<session::Location>& frames) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sonde::unwind
