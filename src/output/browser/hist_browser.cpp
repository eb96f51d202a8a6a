#include "output/browser/hist_browser.hpp"

#include <curses.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "base/file.hpp"

namespace sonde::output {

namespace {

volatile sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

constexpr int kEscape = 27;
constexpr int kTab = '\t';

// ncurses for the browser's lifetime: keys one at a time without echo, a getch that wakes every
// tenth of a second (so Ctrl-C, caught as a flag, ends the loop), and the terminal put back by
// the destructor, whichever way the browser ends.
class Terminal {
 public:
  Terminal() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    timeout(100);
  }
  ~Terminal() {
    endwin();
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  // The next key, or ERR once interrupted.
  static int key() {
    for (;;) {
      if (interrupted) return ERR;
      int key = getch();
      if (key != ERR) return key;
    }
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// One line at `y`, cut to the screen's width, padded with the attribute to the end.
void put_line(int y, const std::string& text, attr_t attribute = A_NORMAL) {
  if (y < 0 || y >= LINES) return;
  attrset(attribute);
  mvaddnstr(y, 0, text.c_str(), COLS);
  int x = std::min<int>(static_cast<int>(text.size()), COLS);
  for (; x < COLS; ++x) addch(' ');
  attrset(A_NORMAL);
}

// A scrollable view of lines (annotate's, the help's): arrows, pages, Home/End; `extra` may
// take other keys (true: handled). q or Esc goes back.
class Pager {
 public:
  Pager(std::string title, std::vector<std::string> lines)
      : title_(std::move(title)), lines_(std::move(lines)) {}
  void set_lines(std::vector<std::string> lines) {
    lines_ = std::move(lines);
    top_ = std::min(top_, lines_.empty() ? 0 : lines_.size() - 1);
    selected_ = std::min(selected_, lines_.empty() ? 0 : lines_.size() - 1);
  }
  void select(size_t line) { selected_ = std::min(line, lines_.empty() ? 0 : lines_.size() - 1); }
  size_t selected() const { return selected_; }
  const std::vector<std::string>& lines() const { return lines_; }
  void set_status(std::string status) { status_ = std::move(status); }

  void run(const std::function<bool(int key)>& extra) {
    for (;;) {
      draw();
      int key = Terminal::key();
      if (key == ERR || key == 'q' || key == kEscape || key == KEY_LEFT) return;
      if (extra && extra(key)) continue;
      move_by(key);
    }
  }

 private:
  size_t page() const { return static_cast<size_t>(std::max(1, LINES - 2)); }
  void move_by(int key) {
    size_t last = lines_.empty() ? 0 : lines_.size() - 1;
    if (key == KEY_DOWN || key == 'j') selected_ = std::min(last, selected_ + 1);
    if (key == KEY_UP || key == 'k') selected_ = selected_ > 0 ? selected_ - 1 : 0;
    if (key == KEY_NPAGE || key == ' ') selected_ = std::min(last, selected_ + page());
    if (key == KEY_PPAGE) selected_ = selected_ > page() ? selected_ - page() : 0;
    if (key == KEY_HOME) selected_ = 0;
    if (key == KEY_END) selected_ = last;
  }
  void draw() {
    if (selected_ < top_) top_ = selected_;
    if (selected_ >= top_ + page()) top_ = selected_ - page() + 1;
    erase();
    put_line(0, title_, A_REVERSE);
    for (size_t row = 0; row < page() && top_ + row < lines_.size(); ++row)
      put_line(static_cast<int>(row) + 1, lines_[top_ + row], top_ + row == selected_ ? A_REVERSE : A_NORMAL);
    put_line(LINES - 1, status_.empty() ? "q/Esc: back" : status_);
    refresh();
  }

  std::string title_;
  std::vector<std::string> lines_;
  std::string status_;
  size_t top_ = 0, selected_ = 0;
};

// perf annotate --stdio's share of a line ("   12.50 :   401136: ..."), or -1.
double line_percent(const std::string& line) {
  size_t colon = line.find(" : ");
  if (colon == std::string::npos) return -1;
  char* end = nullptr;
  double value = std::strtod(line.c_str(), &end);
  return end != nullptr && end != line.c_str() && static_cast<size_t>(end - line.c_str()) <= colon ? value
                                                                                                   : -1;
}

const std::vector<std::string> kHelp = {
    "Up/Down/PgUp/PgDn/Home/End  move",
    "+                 expand or collapse the entry's call chain",
    "e                 expand or collapse the entry's call chain",
    "E / C             expand / collapse every call chain",
    "Enter             the entry's menu: annotate, zoom, expand",
    "a                 annotate the entry's symbol (Tab/H: hot instructions, o: raw bytes, s: source)",
    "d                 zoom into the entry's DSO (again: zoom out)",
    "t                 zoom into the entry's thread (again: zoom out)",
    "/                 show only the symbols that hold a text (empty: all)",
    "P                 print what is shown to sonde.hist.N",
    "?  h              this help",
    "Esc  Left         zoom or filter out, else quit",
    "q                 quit",
};

class Browser {
 public:
  explicit Browser(BrowserSource& source) : source_(source) { reload(); }

  void run() {
    for (;;) {
      draw();
      int key = Terminal::key();
      if (key == ERR) return;
      if (!handle(key)) return;
    }
  }

 private:
  struct Row {
    size_t entry;
    int graph_line;  // -1: the entry's own line
  };

  void reload() {
    page_ = source_.page(zoom_dso_, zoom_tid_);
    expanded_.assign(page_.entries.size(), false);
    layout_rows();
    selected_ = top_ = 0;
  }

  void layout_rows() {
    rows_.clear();
    for (size_t e = 0; e < page_.entries.size(); ++e) {
      const BrowserEntry& entry = page_.entries[e];
      if (!filter_.empty() && entry.symbol.find(filter_) == std::string::npos) continue;
      rows_.push_back({e, -1});
      if (expanded_[e])
        for (size_t g = 0; g < entry.graph.size(); ++g) rows_.push_back({e, static_cast<int>(g)});
    }
    if (selected_ >= rows_.size()) selected_ = rows_.empty() ? 0 : rows_.size() - 1;
  }

  std::string row_text(const Row& row) const {
    const BrowserEntry& entry = page_.entries[row.entry];
    if (row.graph_line >= 0) return entry.graph[static_cast<size_t>(row.graph_line)];
    // perf's fold marker before the entry: + folded, - expanded.
    char marker = entry.graph.empty() ? ' ' : expanded_[row.entry] ? '-' : '+';
    return std::string(1, marker) + (entry.line.empty() ? "" : entry.line.substr(1));
  }

  size_t page_rows() const { return static_cast<size_t>(std::max(1, LINES - 3)); }

  void draw() {
    if (selected_ < top_) top_ = selected_;
    if (selected_ >= top_ + page_rows()) top_ = selected_ - page_rows() + 1;
    erase();
    put_line(0, page_.title, A_REVERSE);
    put_line(1, page_.header, A_BOLD);
    for (size_t r = 0; r < page_rows() && top_ + r < rows_.size(); ++r)
      put_line(static_cast<int>(r) + 2, row_text(rows_[top_ + r]),
               top_ + r == selected_ ? A_REVERSE : A_NORMAL);
    std::string status = status_;
    if (status.empty()) {
      if (!zoom_dso_.empty()) status += "DSO: " + zoom_dso_ + "  ";
      if (zoom_tid_ != -1) status += "Thread: " + zoom_thread_ + "  ";
      if (!filter_.empty()) status += "Symbol filter: " + filter_ + "  ";
      status += "Press '?' for help on key bindings";
    }
    put_line(LINES - 1, status);
    status_.clear();
    refresh();
  }

  const BrowserEntry* current() const {
    return rows_.empty() ? nullptr : &page_.entries[rows_[selected_].entry];
  }

  void toggle(size_t entry) {
    expanded_[entry] = !expanded_[entry];
    layout_rows();
    // The selection stays on the entry's own line.
    for (size_t r = 0; r < rows_.size(); ++r)
      if (rows_[r].entry == entry && rows_[r].graph_line < 0) selected_ = r;
  }

  bool handle(int key) {
    size_t last = rows_.empty() ? 0 : rows_.size() - 1;
    switch (key) {
      case KEY_DOWN:
      case 'j':
        selected_ = std::min(last, selected_ + 1);
        return true;
      case KEY_UP:
      case 'k':
        selected_ = selected_ > 0 ? selected_ - 1 : 0;
        return true;
      case KEY_NPAGE:
      case ' ':
        selected_ = std::min(last, selected_ + page_rows());
        return true;
      case KEY_PPAGE:
        selected_ = selected_ > page_rows() ? selected_ - page_rows() : 0;
        return true;
      case KEY_HOME:
        selected_ = 0;
        return true;
      case KEY_END:
        selected_ = last;
        return true;
      case KEY_RESIZE:
        return true;
      case '+':
      case 'e':
        if (!rows_.empty()) toggle(rows_[selected_].entry);
        return true;
      case 'E':
      case 'C':
        expanded_.assign(page_.entries.size(), key == 'E');
        layout_rows();
        return true;
      case '\n':
      case KEY_ENTER:
      case KEY_RIGHT:
        menu();
        return true;
      case 'a':
        if (const BrowserEntry* entry = current()) annotate(*entry);
        return true;
      case 'd':
        zoom_dso();
        return true;
      case 't':
        zoom_thread();
        return true;
      case '/':
        filter_ = prompt("Symbol filter: ");
        layout_rows();
        return true;
      case 'P':
        print_rows();
        return true;
      case '?':
      case 'h':
      case KEY_F(1): {
        Pager help("Help: the report browser's keys", kHelp);
        help.run(nullptr);
        return true;
      }
      case 'q':
        return false;
      case kEscape:
      case KEY_LEFT:
        return zoom_out();
      default:
        return true;
    }
  }

  // Esc undoes the last zoom or filter first, as perf's browser leaves a zoom; q quits.
  bool zoom_out() {
    if (!filter_.empty()) {
      filter_.clear();
      layout_rows();
      return true;
    }
    if (zoom_tid_ != -1) {
      zoom_tid_ = -1;
      reload();
      return true;
    }
    if (!zoom_dso_.empty()) {
      zoom_dso_.clear();
      reload();
      return true;
    }
    return false;
  }

  void zoom_dso() {
    const BrowserEntry* entry = current();
    if (!zoom_dso_.empty() || entry == nullptr) {
      zoom_dso_.clear();
    } else {
      zoom_dso_ = entry->dso;
    }
    reload();
  }

  void zoom_thread() {
    const BrowserEntry* entry = current();
    if (zoom_tid_ != -1 || entry == nullptr || entry->tid < 0) {
      zoom_tid_ = -1;
    } else {
      zoom_tid_ = entry->tid;
      zoom_thread_ = entry->thread;
    }
    reload();
  }

  void annotate(const BrowserEntry& entry) {
    AnnotateView view;
    Pager pager(fmt::format("Annotate {} ({})", entry.symbol, entry.dso), source_.annotate(entry, view));
    // Tab and H go through the hot instructions, hottest first.
    std::vector<size_t> hot;
    size_t next_hot = 0;
    auto find_hot = [&] {
      hot.clear();
      std::vector<std::pair<double, size_t>> shares;
      for (size_t i = 0; i < pager.lines().size(); ++i)
        if (double share = line_percent(pager.lines()[i]); share > 0) shares.emplace_back(-share, i);
      std::stable_sort(shares.begin(), shares.end());
      for (const auto& [share, line] : shares) hot.push_back(line);
      next_hot = 0;
      if (!hot.empty()) pager.select(hot[0]);
    };
    const std::string keys = "Tab/H: hot instructions  o: raw bytes  s: source  q/Esc: back";
    find_hot();
    pager.set_status(keys);
    // The status names the hot instruction the cursor is on.
    auto show_hot = [&] {
      pager.select(hot[next_hot]);
      pager.set_status(fmt::format("hot instruction {} of {}: {}", next_hot + 1, hot.size(),
                                   pager.lines()[hot[next_hot]]));
    };
    pager.run([&](int key) {
      if (key == 'H' && !hot.empty()) {
        next_hot = 0;
        show_hot();
        return true;
      }
      if (key == kTab && !hot.empty()) {
        next_hot = (next_hot + 1) % hot.size();
        show_hot();
        return true;
      }
      if (key == 'o' || key == 's') {
        (key == 'o' ? view.raw_bytes : view.source) = !(key == 'o' ? view.raw_bytes : view.source);
        pager.set_lines(source_.annotate(entry, view));
        find_hot();
        return true;
      }
      return false;
    });
  }

  void menu() {
    const BrowserEntry* entry = current();
    if (entry == nullptr) return;
    std::vector<std::pair<std::string, std::function<void()>>> items;
    BrowserEntry chosen = *entry;
    size_t entry_index = rows_[selected_].entry;
    if (!chosen.graph.empty())
      items.emplace_back(expanded_[entry_index] ? "Collapse the call chain" : "Expand the call chain",
                         [&] { toggle(entry_index); });
    items.emplace_back(fmt::format("Annotate {}", chosen.symbol), [&] { annotate(chosen); });
    if (chosen.tid >= 0)
      items.emplace_back(
          zoom_tid_ == -1 ? fmt::format("Zoom into {} thread", chosen.thread) : "Zoom out of the thread",
          [&] { zoom_thread(); });
    items.emplace_back(
        zoom_dso_.empty() ? fmt::format("Zoom into {} DSO", chosen.dso) : "Zoom out of the DSO",
        [&] { zoom_dso(); });
    items.emplace_back("Exit the menu", [] {});
    std::vector<std::string> lines;
    for (const auto& item : items) lines.push_back(item.first);
    Pager pager(fmt::format("{}: Enter chooses, q/Esc goes back", chosen.symbol), lines);
    bool chosen_item = false;
    pager.run([&](int key) {
      if (key != '\n' && key != KEY_ENTER && key != KEY_RIGHT) return false;
      chosen_item = true;
      ungetch(kEscape);  // leave the menu's loop, then act
      return true;
    });
    if (chosen_item) items[pager.selected()].second();
  }

  std::string prompt(const std::string& label) {
    std::string text;
    for (;;) {
      put_line(LINES - 1, label + text);
      refresh();
      int key = Terminal::key();
      if (key == ERR || key == kEscape) return filter_;
      if (key == '\n' || key == KEY_ENTER) return text;
      if ((key == KEY_BACKSPACE || key == 127 || key == 8) && !text.empty()) text.pop_back();
      if (key >= 32 && key < 127) text.push_back(static_cast<char>(key));
    }
  }

  // P: what the browser shows now (expanded chains included), as perf's perf.hist.N.
  void print_rows() {
    std::string name;
    for (int n = 0; n < 1000; ++n) {
      name = fmt::format("sonde.hist.{}", n);
      if (::access(name.c_str(), F_OK) != 0) break;
    }
    std::string text = page_.title + "\n" + page_.header + "\n";
    for (const Row& row : rows_) text += row_text(row) + "\n";
    auto written = replace_file(name, text);
    status_ = written ? fmt::format("{} written", name) : written.error().message;
  }

  BrowserSource& source_;
  BrowserPage page_;
  std::vector<bool> expanded_;
  std::vector<Row> rows_;
  size_t selected_ = 0, top_ = 0;
  std::string zoom_dso_;
  int32_t zoom_tid_ = -1;
  std::string zoom_thread_;
  std::string filter_;
  std::string status_;
};

}  // namespace

Result<void> run_hist_browser(BrowserSource& source) {
  if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO))
    return fail("the browser needs a terminal on standard input and output; use --stdio for text");
  interrupted = 0;
  Terminal terminal;
  Browser browser(source);
  browser.run();
  return {};
}

}  // namespace sonde::output
