#include "symbols/kallsyms_cache.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "base/bytes.hpp"
#include "base/file.hpp"
#include "base/mapped_file.hpp"
#include "base/strings.hpp"
#include "format/build_ids.hpp"
#include "kernel/bpf_programs.hpp"
#include "kernel/kallsyms.hpp"

namespace sonde::symbols {

namespace {

// Bumped whenever the layout below or the clean-ups that made the tables change.
constexpr char kMagic[8] = {'S', 'O', 'N', 'D', 'E', 'K', 'S', '4'};

void put_text(ByteWriter& out, std::string_view text) {
  out.put(static_cast<uint32_t>(text.size()));
  out.put_bytes(text.data(), text.size());
}

std::optional<std::string_view> take_text(ByteReader& in) {
  auto size = in.read<uint32_t>();
  if (!size) return std::nullopt;
  auto bytes = in.take(*size);
  if (!bytes) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

// A table as columns the reader maps in place: its name, the symbol count and the names' size,
// padding to 8 bytes, then starts, sizes, ends and running maximum ends (u64 each), each name's
// offset (u32), the names, each ending in a NUL, and each symbol's binding (u8).
void put_table(ByteWriter& out, std::string_view name, const SymbolTable& table) {
  const std::vector<Symbol>& symbols = table.symbols();
  std::string names;
  std::vector<uint32_t> offsets;
  offsets.reserve(symbols.size());
  for (const Symbol& symbol : symbols) {
    offsets.push_back(static_cast<uint32_t>(names.size()));
    names.append(symbol.name);
    names.push_back('\0');
  }
  put_text(out, name);
  out.put(static_cast<uint64_t>(symbols.size()));
  out.put(static_cast<uint64_t>(names.size()));
  out.put_zeros(ByteWriter::align_up(out.size(), 8) - out.size());
  for (const Symbol& symbol : symbols) out.put(symbol.start);
  for (const Symbol& symbol : symbols) out.put(symbol.size);
  for (uint64_t end : table.ends()) out.put(end);
  for (uint64_t end : table.max_ends()) out.put(end);
  out.put_bytes(offsets.data(), offsets.size() * sizeof(uint32_t));
  out.put_bytes(names.data(), names.size());
  for (const Symbol& symbol : symbols) out.put(symbol.binding);
}

template <typename T>
std::optional<std::span<const T>> take_column(ByteReader& in, uint64_t count) {
  if (count > in.remaining() / sizeof(T)) return std::nullopt;
  auto bytes = in.take(count * sizeof(T));
  return std::span<const T>(reinterpret_cast<const T*>(bytes->data()), count);
}

std::optional<SymbolTable> take_table(ByteReader& in, const std::shared_ptr<const MappedFile>& file) {
  auto count = in.read<uint64_t>();
  auto names_size = in.read<uint64_t>();
  if (!count || !names_size) return std::nullopt;
  auto padding = in.take(ByteWriter::align_up(in.offset(), 8) - in.offset());
  // The u64 columns are read in place: the mapping is page-aligned, so the offset must be too.
  if (!padding || in.offset() % 8 != 0) return std::nullopt;
  SymbolTable::MappedColumns columns;
  auto starts = take_column<uint64_t>(in, *count);
  auto sizes = take_column<uint64_t>(in, *count);
  auto ends = take_column<uint64_t>(in, *count);
  auto max_ends = take_column<uint64_t>(in, *count);
  auto offsets = take_column<uint32_t>(in, *count);
  auto names = take_column<char>(in, *names_size);
  auto bindings = take_column<uint8_t>(in, *count);
  if (!starts || !sizes || !ends || !max_ends || !offsets || !names || !bindings) return std::nullopt;
  // Every name must start inside the names and end with a NUL there.
  if (*count > 0 && (names->empty() || names->back() != '\0')) return std::nullopt;
  for (uint32_t offset : *offsets)
    if (offset >= names->size()) return std::nullopt;
  columns.keep_alive = file;
  columns.starts = *starts;
  columns.sizes = *sizes;
  columns.ends = *ends;
  columns.max_ends = *max_ends;
  columns.name_offsets = *offsets;
  columns.names = std::string_view(names->data(), names->size());
  columns.bindings = *bindings;
  return SymbolTable::from_mapped(std::move(columns));
}

// /proc/modules without its changing columns (use counts, users): name, size and address.
std::string modules_key() {
  auto text = read_file("/proc/modules");
  if (!text) return "none";
  std::string key;
  for (const auto& module : kernel::parse_modules(*text))
    key += fmt::format("{}:{}:{:x},", module.name, module.size, module.start);
  return key;
}

}  // namespace

Result<RunningKernelState> running_kernel_state() {
  auto build_id = format::read_kernel_build_id();
  if (!build_id) return tl::unexpected(build_id.error());
  auto boot = read_file("/proc/sys/kernel/random/boot_id");
  if (!boot) return tl::unexpected(boot.error());
  auto bpf = kernel::loaded_bpf_program_ids();
  if (!bpf) return tl::unexpected(bpf.error());
  RunningKernelState state;
  state.build_id = format::build_id_hex(*build_id);
  state.key = fmt::format("kernel {} boot {} modules {} bpf", state.build_id, trim(*boot), modules_key());
  for (uint32_t id : *bpf) state.key += fmt::format(" {}", id);
  return state;
}

std::string sonde_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/sonde";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/sonde";
}

std::string serialize_kernel_symbols(const KernelSymbols& symbols, const std::string& key) {
  ByteWriter out;
  out.put_bytes(kMagic, sizeof kMagic);
  put_text(out, key);
  out.put(static_cast<uint32_t>(1 + symbols.modules.size()));
  put_table(out, "", symbols.kernel);
  for (const auto& [name, table] : symbols.modules) put_table(out, name, table);
  return std::move(out.str());
}

Result<KernelSymbols> read_kernel_symbols_cache(const std::string& path, const std::string& key) {
  auto opened = MappedFile::open(path);
  if (!opened) return tl::unexpected(opened.error());
  auto file = std::make_shared<const MappedFile>(std::move(*opened));
  ByteReader in(file->bytes());
  auto magic = in.take(sizeof kMagic);
  if (!magic || std::memcmp(magic->data(), kMagic, sizeof kMagic) != 0)
    return failf("{}: not a sonde kallsyms cache", path);
  auto stored_key = take_text(in);
  if (!stored_key || *stored_key != key) return failf("{}: made for another kernel state", path);
  auto tables = in.read<uint32_t>();
  if (!tables || *tables == 0) return failf("{}: truncated", path);
  KernelSymbols symbols;
  for (uint32_t i = 0; i < *tables; ++i) {
    auto name = take_text(in);
    if (!name) return failf("{}: truncated", path);
    auto table = take_table(in, file);
    if (!table) return failf("{}: truncated", path);
    if (i == 0)
      symbols.kernel = std::move(*table);
    else
      symbols.modules.emplace(std::string(*name), std::move(*table));
  }
  if (!in.at_end()) return failf("{}: trailing bytes", path);
  return symbols;
}

Result<void> write_kernel_symbols_cache(const std::string& path, const KernelSymbols& symbols,
                                        const std::string& key) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) return failf("cannot create the directory of {}: {}", path, error.message());
  // Private: the file holds kernel addresses.
  return replace_file(path, serialize_kernel_symbols(symbols, key), 0600);
}

namespace {

Result<KernelSymbols> load_running_kallsyms(const std::string& kallsyms_path,
                                            const RunningKernelState& state) {
  std::string cache = fmt::format("{}/kallsyms-{}", sonde_cache_dir(), state.build_id);
  if (auto cached = read_kernel_symbols_cache(cache, state.key)) return cached;
  auto loaded = load_kallsyms(kallsyms_path);
  // Kept only if nothing changed while /proc/kallsyms was read (a module or program loaded).
  auto after = running_kernel_state();
  if (loaded && after && after->key == state.key) (void)write_kernel_symbols_cache(cache, *loaded, state.key);
  return loaded;
}

}  // namespace

Result<std::shared_ptr<const KernelSymbols>> load_kallsyms_cached(const std::string& kallsyms_path) {
  auto shared = [](Result<KernelSymbols> loaded) -> Result<std::shared_ptr<const KernelSymbols>> {
    if (!loaded) return tl::unexpected(loaded.error());
    return std::make_shared<const KernelSymbols>(std::move(*loaded));
  };
  if (kallsyms_path != "/proc/kallsyms") return shared(load_kallsyms(kallsyms_path));
  auto state = running_kernel_state();
  if (!state) return shared(load_kallsyms(kallsyms_path));

  struct Loaded {
    std::mutex mutex;
    std::string key;
    std::shared_ptr<const KernelSymbols> symbols;
  };
  // Never freed: what it holds lives to the process's end on purpose (see the header).
  static Loaded* const loaded = new Loaded;
  std::lock_guard lock(loaded->mutex);
  if (loaded->symbols && loaded->key == state->key) return loaded->symbols;
  auto symbols = shared(load_running_kallsyms(kallsyms_path, *state));
  if (!symbols) return symbols;
  loaded->key = state->key;
  loaded->symbols = *symbols;
  return symbols;
}

}  // namespace sonde::symbols
