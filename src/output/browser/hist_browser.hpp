#pragma once
// The terminal browser (ncurses) perf report opens on a terminal: the entries, each call graph
// folded under its entry until expanded, an Enter menu, zooms into a DSO or a thread, a symbol
// filter, an annotate view with jumps to the hot instructions, help, and printing the screen to
// a file. It shows what a BrowserSource gives it, so report, top and annotate can feed it alike.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::output {

struct BrowserEntry {
  std::string line;                // the entry's row, as report --stdio prints it
  std::vector<std::string> graph;  // its call graph's lines (empty: nothing to expand)
  std::string symbol;              // what a, d and t act on
  std::string dso;
  std::string thread;  // "comm tid"
  int32_t tid = -1;
};

struct BrowserPage {
  std::string title;   // "Samples: 1K of event 'cpu-clock:pppH', Event count (approx.): 250000000"
  std::string header;  // the columns' names
  std::vector<BrowserEntry> entries;
};

// What the annotate view may change.
struct AnnotateView {
  bool raw_bytes = false;  // o: the instructions' bytes
  bool source = true;      // s: the source lines between the instructions
};

class BrowserSource {
 public:
  virtual ~BrowserSource() = default;
  // The entries with the zooms applied: only `dso`'s (when not empty), only thread `tid`'s (when
  // not -1).
  virtual BrowserPage page(const std::string& dso, int32_t tid) = 0;
  // perf annotate --stdio's lines for the entry's symbol, or one line saying why there are none.
  virtual std::vector<std::string> annotate(const BrowserEntry& entry, const AnnotateView& view) = 0;
};

// Whether standard input and output are a terminal the browser can draw on (one that ncurses'
// database knows): perf falls back to text otherwise, and so do report's callers.
bool terminal_usable();

// Runs the browser on the terminal until q (or Esc with nothing zoomed, or Ctrl-C). The
// terminal is put back as it was on every way out.
Result<void> run_hist_browser(BrowserSource& source);

}  // namespace sonde::output
