#include "analysis/stacks/wakeup_chains.hpp"

#include <string_view>

namespace sonde::analysis {

void WakeupChains::add(const StackSample& sample) {
  bool blocked = sample.event == kBlockedEvent;
  if (!blocked && sample.event != kWakerEvent) return;
  if (!blocked) ++waker_samples_;
  auto folded = collapser_.fold(sample);
  std::vector<uint32_t> ids(folded.begin(), folded.end());
  auto& others = blocked ? wakers_ : blocked_;
  if (auto found = others.find(sample.time_ns); found != others.end()) {
    if (blocked)
      join(ids, found->second.frames, sample.period);
    else
      join(found->second.frames, ids, sample.period);
    others.erase(found);
    return;
  }
  (blocked ? blocked_ : wakers_)[sample.time_ns] = {std::move(ids), sample.period};
}

namespace {

// A hardware interrupt's entry: a wake-up below it was done by the interrupt (a timer, a device),
// not by the task it happened to interrupt.
bool interrupt_entry(std::string_view name) {
  return name.starts_with("asm_sysvec_") || name.starts_with("asm_common_interrupt") ||
         name.starts_with("asm_spurious_interrupt");
}

}  // namespace

void WakeupChains::join(const std::vector<uint32_t>& blocked, const std::vector<uint32_t>& waker,
                        uint64_t ns) {
  const auto& names = collapser_.names();
  std::string chain;
  for (uint32_t id : blocked) {
    if (!chain.empty()) chain += ';';
    chain += names[id];
  }
  chain += ";--";
  // The waker's frames leaf first, its process name last (offwaketime's order). A wake-up from
  // an interrupt ends at the interrupt's entry and is named "[interrupt]": what it interrupted
  // (whatever ran on that CPU) did not wake anyone. Interrupts nest (a timer's can come in the
  // exit path of a rescheduling IPI's), and the one nearest the leaf did the wake-up.
  size_t root = waker.empty() ? 0 : 1;
  std::string_view waker_name = waker.empty() ? std::string_view("[unknown]") : names[waker[0]];
  for (size_t i = waker.size(); i-- > root;)
    if (interrupt_entry(names[waker[i]])) {
      root = i;
      waker_name = "[interrupt]";
      break;
    }
  for (size_t i = waker.size(); i-- > root;) {
    chain += ';';
    chain += names[waker[i]];
  }
  if (!waker_name.empty()) {
    chain += ';';
    chain += waker_name;
  }
  chains_[chain] += ns;
}

std::string WakeupChains::folded_text() {
  // A block whose waker the recording did not catch keeps its time, with the waker unknown.
  for (const auto& [time, block] : blocked_) join(block.frames, {}, block.ns);
  blocked_.clear();
  std::string text;
  for (const auto& [chain, ns] : chains_) {
    text += chain;
    text += ' ';
    text += std::to_string(ns);
    text += '\n';
  }
  return text;
}

}  // namespace sonde::analysis
