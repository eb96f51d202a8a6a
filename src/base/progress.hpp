#pragma once
// A progress line on stderr for long work. Shown only when stderr is a terminal, and only once
// the work has taken a second (SONDE_PROGRESS_DELAY_MS changes that, for tests); redrawn at most
// ten times a second; erased when the work is done, so what follows starts on a clean line.
//
//   Progress progress("sonde report: reading perf.data");
//   for (...) progress.update(done, total);  // cheap between redraws
//   progress.finish();                        // or let the destructor erase it
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace sonde {

// Work whose output streams to stdout while it runs shows no progress when stdout is a
// terminal too: the line would land among the output.
bool stdout_is_terminal();

class Progress {
 public:
  // `label` leads the line. Not `wanted`: never shown (say, when the output goes to the same
  // terminal as it is written).
  explicit Progress(std::string label, bool wanted = true, std::FILE* terminal = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` units (bytes, records); total 0: unknown, the count alone is shown.
  void update(uint64_t done, uint64_t total);
  // Erases the line if it was drawn.
  void finish();
  bool drawn() const { return drawn_; }

 private:
  void draw(uint64_t done, uint64_t total);

  std::string label_;
  std::FILE* terminal_;
  bool active_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point next_draw_;
  std::chrono::milliseconds delay_{1000};
};

}  // namespace sonde
