// TraceDatReader: the parsed file's state, and the event formats parsed when a record first needs
// them (parser.cpp reads the file).
#include "tracedat/reader.hpp"

#include <fcntl.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "base/unique_fd.hpp"
#include "format/event_format_text.hpp"
#include "tracedat/format.hpp"
#include "tracedat/parser.hpp"

namespace sonde::tracedat {

bool is_trace_dat(const std::string& path) {
  if (path == "-") return false;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  char magic[kMagic.size()];
  return ::read(fd.get(), magic, sizeof magic) == static_cast<ssize_t>(sizeof magic) &&
         std::string_view(magic, sizeof magic) == kMagic;
}

Result<std::unique_ptr<TraceDatReader>> TraceDatReader::open(const std::string& path) {
  std::unique_ptr<TraceDatReader> reader(new TraceDatReader());
  auto file = sonde::MappedFile::open(path);
  if (!file) return tl::unexpected(file.error());
  reader->file_.emplace(std::move(*file));
  if (auto parsed = parse_trace_dat(*reader, path); !parsed) return tl::unexpected(parsed.error());
  return reader;
}

TraceDatReader::~TraceDatReader() {
  if (plugins_) tep_unload_plugins(plugins_, tep_);
  if (tep_) tep_free(tep_);
}

tep_event* TraceDatReader::record_format(const tep_record& record) const {
  int id = tep_data_type(tep_, const_cast<tep_record*>(&record));  // libtraceevent reads only
  return load_event(id) ? tep_find_event(tep_, id) : nullptr;
}

std::string TraceDatReader::event_name(size_t buffer, int id, const tep_event* format) const {
  std::string name;
  if (buffer < buffers_.size() && !buffers_[buffer].name.empty()) name = buffers_[buffer].name + "/";
  if (format != nullptr)
    name += fmt::format("{}:{}", format->system, format->name);
  else
    name += fmt::format("unknown:{}", id);
  return name;
}

bool TraceDatReader::load_event(int id) const {
  // Asked for every record: after the first time, the answer comes from a table by id.
  bool cacheable = id >= 0 && id <= 0xffff;
  if (cacheable) {
    if (event_known_.size() <= static_cast<size_t>(id)) event_known_.resize(static_cast<size_t>(id) + 1, 0);
    if (char known = event_known_[static_cast<size_t>(id)]) return known == 1;
  }
  auto found = unparsed_.find(id);
  if (found != unparsed_.end()) {
    const auto& [system, format] = contents_.event_formats[found->second.first];
    const std::string& text = format[found->second.second];
    if (event_format_is_parseable(text)) tep_parse_event(tep_, text.data(), text.size(), system.c_str());
    unparsed_.erase(found);
  }
  bool loaded = tep_find_event(tep_, id) != nullptr;
  if (cacheable) event_known_[static_cast<size_t>(id)] = loaded ? 1 : 2;
  return loaded;
}

TraceDatContents TraceDatReader::contents() const {
  TraceDatContents contents = contents_;
  contents.kallsyms = std::string(kallsyms_);
  return contents;
}

const KernelFunctions& TraceDatReader::kernel_functions() const {
  if (!kernel_functions_) {
    kernel_functions_ = std::make_unique<KernelFunctions>(kallsyms_);
    kernel_functions_->install(tep_);
  }
  return *kernel_functions_;
}

void TraceDatReader::load_all_events() const {
  std::vector<int> ids;
  for (const auto& entry : unparsed_) ids.push_back(entry.first);
  for (int id : ids) load_event(id);
}

unsigned long long TraceDatReader::adjust_timestamp(unsigned long long ts) const {
  if (tsc_mult_)
    ts = static_cast<unsigned long long>((static_cast<unsigned __int128>(ts) * tsc_mult_) >> tsc_shift_);
  return ts + static_cast<unsigned long long>(ts_offset_);
}

}  // namespace sonde::tracedat
