#pragma once
// One function's code annotated with where its samples landed, as perf annotate shows it: each
// instruction (disassembled in process) with the weight of the samples whose ip is that
// instruction and the source line the DWARF line table gives it, and the function's main source
// file (the one holding most of its weight) with each line's weight and text when the file is
// on this machine. Shared by report --html's source view and, later, sonde annotate.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::analysis {

struct AnnotatedInstruction {
  uint64_t address = 0;  // the ELF virtual address
  std::string text;      // "mov    %rdi,%rax"
  double weight = 0;
  int32_t file = -1;  // index in FunctionAnnotation::files, -1 without a line
  uint32_t line = 0;
};

struct AnnotatedSourceLine {
  uint32_t line = 0;
  std::string text;  // "" when the file could not be read
  double weight = 0;
};

struct FunctionAnnotation {
  std::string name;
  uint64_t start = 0, size = 0;
  double total = 0;  // the weight inside the function
  std::vector<std::string> files;
  std::vector<AnnotatedInstruction> instructions;
  int32_t main_file = -1;                   // the source shown, -1 without DWARF lines
  std::vector<AnnotatedSourceLine> source;  // its lines from the function's first to its last
};

// The function of the ELF file `elf_path` that starts at `start` (an ELF virtual address), with
// `weights` by instruction address. Fails when the file has no such function or no code for it.
Result<FunctionAnnotation> annotate_function(const std::string& elf_path, uint64_t start,
                                             const std::map<uint64_t, double>& weights);

}  // namespace sonde::analysis
