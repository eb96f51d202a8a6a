#include "base/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

namespace sonde {

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

Progress::Progress(std::string label, bool wanted, std::FILE* terminal)
    : label_(std::move(label)), terminal_(terminal) {
  active_ = wanted && terminal_ != nullptr && ::isatty(::fileno(terminal_)) == 1;
  if (const char* delay = std::getenv("SONDE_PROGRESS_DELAY_MS"))
    delay_ = std::chrono::milliseconds(std::atoll(delay));
  start_ = std::chrono::steady_clock::now();
  next_draw_ = start_ + delay_;
}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, uint64_t total) {
  if (!active_) return;
  auto now = std::chrono::steady_clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + std::chrono::milliseconds(100);
  draw(done, total);
}

void Progress::draw(uint64_t done, uint64_t total) {
  std::string line = total > 0 ? fmt::format("\r{}: {:3}%", label_, done >= total ? 100 : done * 100 / total)
                               : fmt::format("\r{}: {}", label_, done);
  std::fputs(line.c_str(), terminal_);
  std::fflush(terminal_);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  std::fputs("\r\033[K", terminal_);  // back to the line's start, cleared
  std::fflush(terminal_);
  drawn_ = false;
}

}  // namespace sonde
