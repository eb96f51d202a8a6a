#include "session/dso.hpp"

#include "base/strings.hpp"

namespace sonde::session {

Dso& DsoTable::intern(std::string_view long_name, DsoKind kind) {
  if (Dso* existing = find(long_name)) return *existing;
  auto dso = std::make_unique<Dso>();
  dso->id = static_cast<uint32_t>(dsos_.size());
  dso->kind = kind;
  dso->long_name = std::string(long_name);
  dso->short_name = dso_short_name(long_name);
  Dso* raw = dso.get();
  dsos_.push_back(std::move(dso));
  by_name_.emplace(raw->long_name, raw);
  return *raw;
}

Dso* DsoTable::find(std::string_view long_name) {
  auto it = by_name_.find(std::string(long_name));
  return it == by_name_.end() ? nullptr : it->second;
}

std::string dso_short_name(std::string_view long_name) {
  if (long_name.starts_with('[')) return std::string(long_name);
  return std::string(path_basename(long_name));
}

}  // namespace sonde::session
