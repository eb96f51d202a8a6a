#include "symbols/symbol_table.hpp"

#include <elf.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace sonde::symbols {

namespace {

size_t leading_underscores(const std::string& name) {
  size_t n = 0;
  while (n < name.size() && name[n] == '_') ++n;
  return n;
}

// perf's choose_best_symbol: true when `a` is kept over `b` (same start address). The
// extents are after perf's symbols__fixup_end, so of kallsyms aliases (all without a size) the
// last one, which alone reaches the next address, wins: "__pi_memcpy" over "memcpy".
bool better_symbol(const RawSymbol& a, uint64_t a_extent, const RawSymbol& b, uint64_t b_extent) {
  if ((a_extent > 0) != (b_extent > 0)) return a_extent > 0;
  bool a_weak = a.binding == STB_WEAK, b_weak = b.binding == STB_WEAK;
  if (a_weak != b_weak) return !a_weak;
  bool a_global = a.binding == STB_GLOBAL, b_global = b.binding == STB_GLOBAL;
  if (a_global != b_global) return a_global;
  size_t ua = leading_underscores(a.name), ub = leading_underscores(b.name);
  if (ua != ub) return ua < ub;
  if (a.name.size() != b.name.size()) return a.name.size() > b.name.size();
  return true;
}

uint64_t page_round_up(uint64_t value) { return (value + 4095) & ~uint64_t{4095}; }

}  // namespace

SymbolTable SymbolTable::build(std::vector<RawSymbol> raw, bool kallsyms) {
  // perf inserts the symbols into its tree in table order; keep that order for the replay.
  std::vector<size_t> table_order(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) table_order[i] = i;
  auto by_start = [&](size_t a, size_t b) { return raw[a].start < raw[b].start; };
  // kallsyms and most symbol tables come sorted already: nothing to move then.
  bool sorted_already = std::is_sorted(table_order.begin(), table_order.end(), by_start);
  if (!sorted_already) std::stable_sort(table_order.begin(), table_order.end(), by_start);
  std::vector<size_t> sorted_position;  // for the tree's replay (not kallsyms)
  if (!kallsyms) {
    sorted_position.resize(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) sorted_position[table_order[i]] = i;
  }
  if (!sorted_already) {
    std::vector<RawSymbol> sorted;
    sorted.reserve(raw.size());
    for (size_t index : table_order) sorted.push_back(std::move(raw[index]));
    raw = std::move(sorted);
  }
  // perf's symbols__fixup_end runs before symbols__fixup_duplicate: a zero-size symbol ends at
  // the next symbol's start, even when that one shares its address.
  std::vector<uint64_t> ends(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    ends[i] = raw[i].start + raw[i].size;
    if (raw[i].size != 0) continue;
    if (i + 1 < raw.size()) {
      bool module_boundary = kallsyms && ((raw[i].name.find('[') == std::string::npos) !=
                                          (raw[i + 1].name.find('[') == std::string::npos));
      ends[i] = module_boundary ? page_round_up(raw[i].start + 4096) : raw[i + 1].start;
    } else {
      ends[i] = page_round_up(raw[i].start) + 4096;
    }
  }
  SymbolTable table;
  table.symbols_.reserve(raw.size());
  table.ends_.reserve(raw.size());
  // perf compares the fixed-up lengths: of zero-size aliases, the last one reaches the next
  // symbol and so counts as sized.
  for (size_t i = 0; i < raw.size(); ++i) raw[i].size = ends[i] - raw[i].start;
  if (!kallsyms) {
    // The tree: inserts in table order, then perf's symbols__fixup_duplicate walking it in order
    // and erasing the loser of each pair with one start.
    for (size_t position : sorted_position)
      table.tree_.insert(raw[position].start, ends[position], static_cast<uint32_t>(position));
    uint32_t node = table.tree_.first();
    while (node != PerfSymbolTree::kNil) {
      uint32_t next = table.tree_.next(node);
      while (next != PerfSymbolTree::kNil && table.tree_.start(next) == table.tree_.start(node)) {
        size_t a = table.tree_.payload(node), b = table.tree_.payload(next);
        if (better_symbol(raw[a], ends[a] - raw[a].start, raw[b], ends[b] - raw[b].start)) {
          table.tree_.erase(next);
          next = table.tree_.next(node);
        } else {
          table.tree_.erase(node);
          node = next;
          next = table.tree_.next(node);
        }
      }
      node = next;
    }
    table.has_tree_ = true;
  }
  for (size_t i = 0; i < raw.size();) {
    size_t best = i;
    size_t j = i + 1;
    for (; j < raw.size() && raw[j].start == raw[i].start; ++j)
      if (!better_symbol(raw[best], ends[best] - raw[best].start, raw[j], ends[j] - raw[j].start)) best = j;
    // The survivor keeps perf's original end (its own size, or the fixed-up one).
    uint64_t end = std::max(ends[best], raw[best].start + 1);
    table.symbols_.push_back(
        Symbol{raw[best].start, end - raw[best].start, std::move(raw[best].name), raw[best].binding});
    table.ends_.push_back(end);
    i = j;
  }
  table.sort_and_index();
  return table;
}

SymbolTable SymbolTable::from_clean(std::vector<Symbol> symbols) {
  SymbolTable table;
  table.ends_.reserve(symbols.size());
  for (const Symbol& symbol : symbols)
    table.ends_.push_back(symbol.start + std::max<uint64_t>(symbol.size, 1));
  table.symbols_ = std::move(symbols);
  table.sort_and_index();
  return table;
}

void SymbolTable::add_unchecked(std::vector<RawSymbol> extra) {
  for (RawSymbol& symbol : extra) {
    if (has_tree_) tree_.insert(symbol.start, symbol.start + symbol.size, 0);
    symbols_.push_back(Symbol{symbol.start, symbol.size, std::move(symbol.name), symbol.binding});
    ends_.push_back(symbol.start + std::max<uint64_t>(symbol.size, 1));
  }
  sort_and_index();
}

void SymbolTable::sort_and_index() {
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  if (!std::is_sorted(symbols_.begin(), symbols_.end(), by_start)) permute_by_start();
  starts_.resize(symbols_.size());
  for (size_t i = 0; i < symbols_.size(); ++i) starts_[i] = symbols_[i].start;
  max_end_.resize(ends_.size());
  uint64_t running = 0;
  for (size_t i = 0; i < ends_.size(); ++i) max_end_[i] = running = std::max(running, ends_[i]);
}

void SymbolTable::permute_by_start() {
  std::vector<size_t> order(symbols_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return symbols_[a].start < symbols_[b].start; });
  std::vector<Symbol> symbols;
  std::vector<uint64_t> ends;
  symbols.reserve(order.size());
  ends.reserve(order.size());
  for (size_t index : order) {
    symbols.push_back(std::move(symbols_[index]));
    ends.push_back(ends_[index]);
  }
  symbols_ = std::move(symbols);
  ends_ = std::move(ends);
}

struct SymbolTable::Mapped {
  MappedColumns columns;
  std::mutex mutex;  // find() may run on two threads (Symbolizer::resolve_all)
  std::unordered_map<size_t, std::unique_ptr<Symbol>> made;
  std::vector<Symbol> all;  // symbols(), made on its first call
  bool all_made = false;

  Symbol make(size_t index) const {
    return Symbol{columns.starts[index], columns.sizes[index],
                  std::string(columns.names.data() + columns.name_offsets[index]),
                  index < columns.bindings.size() ? columns.bindings[index] : uint8_t{0}};
  }
};

std::span<const uint64_t> SymbolTable::starts() const { return mapped_ ? mapped_->columns.starts : starts_; }
std::span<const uint64_t> SymbolTable::ends() const { return mapped_ ? mapped_->columns.ends : ends_; }
std::span<const uint64_t> SymbolTable::max_ends() const {
  return mapped_ ? mapped_->columns.max_ends : max_end_;
}

SymbolTable SymbolTable::from_mapped(MappedColumns columns) {
  SymbolTable table;
  table.mapped_ = std::make_shared<Mapped>();
  table.mapped_->columns = std::move(columns);
  return table;
}

const Symbol* SymbolTable::symbol_at(size_t index) const {
  if (!mapped_) return &symbols_[index];
  std::lock_guard lock(mapped_->mutex);
  auto& made = mapped_->made[index];
  if (!made) made = std::make_unique<Symbol>(mapped_->make(index));
  return made.get();
}

const std::vector<Symbol>& SymbolTable::symbols() const {
  if (!mapped_) return symbols_;
  std::lock_guard lock(mapped_->mutex);
  if (!mapped_->all_made) {
    mapped_->all.reserve(mapped_->columns.starts.size());
    for (size_t i = 0; i < mapped_->columns.starts.size(); ++i) mapped_->all.push_back(mapped_->make(i));
    mapped_->all_made = true;
  }
  return mapped_->all;
}

const Symbol* SymbolTable::find(uint64_t addr) const {
  std::span<const uint64_t> starts = this->starts(), ends = this->ends(), max_ends = this->max_ends();
  auto it = std::upper_bound(starts.begin(), starts.end(), addr);
  size_t found = starts.size();
  for (size_t i = static_cast<size_t>(it - starts.begin()); i-- > 0;) {
    if (max_ends[i] <= addr) break;  // nothing at or before i reaches addr
    if (addr < ends[i]) {
      if (found != starts.size() && has_tree_) {
        // Several cover it: perf names the one its tree's search meets first.
        auto start = tree_.find_start(addr);
        if (!start) return symbol_at(found);
        for (size_t j = static_cast<size_t>(it - starts.begin()); j-- > 0;) {
          if (starts[j] < *start) break;
          if (starts[j] == *start && addr < ends[j]) return symbol_at(j);
        }
        return symbol_at(found);
      }
      found = i;
    }
  }
  return found == starts.size() ? nullptr : symbol_at(found);
}

}  // namespace sonde::symbols
