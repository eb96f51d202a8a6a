#pragma once
// -L: which lines of a function or a source file have code a probe can land on, perf's way. A
// line counts when a statement row of the line table holds it and its address maps back to it
// (a line that only shares another line's address does not), plus each function's declaration
// line and the call lines of inlined instances; for an inline-only function, the lines that call
// it. Numbers are relative to the function's declaration when a function is named.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "probe/probe_binary.hpp"
#include "probe/probe_spec.hpp"

namespace sonde::probe {

struct LineListing {
  std::string header;               // "add_ints@/abs/file.c:0" or "/abs/file.c:50"
  std::string source_path;          // the file to read the text from
  unsigned offset = 0;              // the declaration line (0 for a file range)
  unsigned first = 0, last = 0;     // absolute lines shown; `last` 0: the last code line + 3
  std::set<unsigned> code_lines;    // absolute
  std::string source;               // the source file
  std::vector<size_t> line_starts;  // where each line of `source` starts
  // The text of line `number` (1-based) without its newline.
  std::string_view line(unsigned number) const;
  size_t line_count() const { return line_starts.size(); }
};

// `source_dir`: -s, a directory the DWARF's paths are looked up under. Errors carry perf's
// errno: ENOENT for a function or line not found (or the source missing), EOPNOTSUPP for a file
// the DWARF does not have.
Result<LineListing> list_source_lines(ProbeBinary& binary, const LineRange& range,
                                      const std::string& source_dir);

}  // namespace sonde::probe
