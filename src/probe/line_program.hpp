#pragma once
// A CU's DWARF line program (DWARF 2-5) decoded straight from .debug_line, keeping only the
// rows in an address range. libdw materializes and sorts every row of the CU, and also does so
// to name one file: in a binary whose one CU holds thousands of functions that is most of a -L
// listing's time. File names are composed as libdw composes them (directory, then name).
#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sonde::probe {

struct LineProgram {
  struct Row {
    uint64_t address = 0;
    uint32_t file = 0;  // index into `files`
    uint32_t line = 0;
    bool statement = false;
    bool end_sequence = false;
  };
  std::vector<std::string> files;  // full paths by the program's file index
  std::vector<Row> rows;           // in program order

  const std::string* file_name(uint64_t index) const {
    return index < files.size() ? &files[index] : nullptr;
  }
};

// The rows of `cu`'s line program at addresses in [low, high); nullopt when the sections are
// compressed or the program is in a form this reader does not know (callers use libdw then).
std::optional<LineProgram> read_line_program(Dwarf* dwarf, Dwarf_Die* cu, uint64_t low, uint64_t high);

}  // namespace sonde::probe
