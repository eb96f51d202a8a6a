#pragma once
// Helpers for the symbols tests: workload paths, shell commands, and what binutils (readelf,
// addr2line, c++filt) say about a file, as the independent view to compare with.
#include <stdio.h>
#include <sys/wait.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "session/dso.hpp"

namespace sonde::test {

// The texts of the notes `diagnostics` kept.
inline std::vector<std::string> note_texts(const Diagnostics& diagnostics) {
  std::vector<std::string> texts;
  for (const Diagnostics::Message& message : diagnostics.messages()) texts.push_back(message.text);
  return texts;
}

inline std::string workload_path(const std::string& name) {
  return std::string(SONDE_WORKLOAD_DIR) + "/" + name;
}

// The standard output of a shell command.
inline std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

struct ElfSymbolFacts {
  uint64_t value = 0;
  uint64_t size = 0;
};

// FUNC symbols by name from `readelf -sW` (.symtab, or .dynsym when the file has no .symtab).
inline std::map<std::string, ElfSymbolFacts> readelf_functions(const std::string& path) {
  std::map<std::string, ElfSymbolFacts> out;
  std::istringstream text(shell_output("readelf -sW '" + path + "'"));
  std::string line;
  while (std::getline(text, line)) {
    std::istringstream fields(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(fields >> num >> value >> size >> type >> bind >> vis >> ndx >> name)) continue;
    if (type != "FUNC" || ndx == "UND") continue;
    if (size_t at = name.find('@'); at != std::string::npos) name.resize(at);  // symbol versions
    out[name] = ElfSymbolFacts{std::stoull(value, nullptr, 16), std::stoull(size, nullptr, 0)};
  }
  return out;
}

struct LoadFacts {
  uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// PT_LOAD segments from `readelf -lW`.
inline std::vector<LoadFacts> readelf_loads(const std::string& path) {
  std::vector<LoadFacts> out;
  std::istringstream text(shell_output("readelf -lW '" + path + "'"));
  std::string line;
  while (std::getline(text, line)) {
    std::istringstream fields(line);
    std::string type, offset, vaddr, paddr, filesz;
    if (!(fields >> type >> offset >> vaddr >> paddr >> filesz) || type != "LOAD") continue;
    out.push_back({std::stoull(offset, nullptr, 16), std::stoull(vaddr, nullptr, 16),
                   std::stoull(filesz, nullptr, 16)});
  }
  return out;
}

// The file offset of a virtual address, as the session's map_ip gives it for a user DSO.
inline uint64_t file_offset_of(const std::vector<LoadFacts>& loads, uint64_t vaddr) {
  for (const LoadFacts& load : loads)
    if (vaddr >= load.vaddr && vaddr < load.vaddr + load.filesz) return vaddr - load.vaddr + load.offset;
  return vaddr;
}

inline std::string readelf_build_id(const std::string& path) {
  std::string notes = shell_output("readelf -nW '" + path + "'");
  size_t at = notes.find("Build ID: ");
  if (at == std::string::npos) return "";
  size_t end = notes.find('\n', at);
  return notes.substr(at + 10, end - at - 10);
}

inline session::Dso make_dso(uint32_t id, session::DsoKind kind, const std::string& name,
                             const std::string& build_id = "") {
  session::Dso dso;
  dso.id = id;
  dso.kind = kind;
  dso.long_name = name;
  dso.short_name = session::dso_short_name(name);
  dso.build_id = build_id;
  return dso;
}

}  // namespace sonde::test
