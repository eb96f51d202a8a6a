#pragma once
// The text input of sonde collapse, flamegraph and heatmap: a file, mapped read-only, or stdin,
// read whole. Also tells perf.data apart from text, and folded stacks from perf script text.
#include <optional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/mapped_file.hpp"

namespace sonde::analysis {

enum class InputKind { perf_data, script_text, folded };

class TextInput {
 public:
  // `path` "-" or empty reads stdin.
  static Result<TextInput> open(const std::string& path);
  std::string_view text() const { return mapped_ ? mapped_view_ : std::string_view(owned_); }
  const std::string& name() const { return name_; }
  InputKind kind() const;

 private:
  std::string name_;
  std::optional<sonde::MappedFile> mapped_;
  std::string_view mapped_view_;
  std::string owned_;
};

}  // namespace sonde::analysis
