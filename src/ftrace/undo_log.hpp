#pragma once
// What sonde changed outside its own instance (the top level's tracer, options, buffer sizes, a
// block device's trace switch), with how to put each back: replayed newest first on every exit.
#include <functional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::ftrace {

class UndoLog {
 public:
  UndoLog() = default;
  UndoLog(const UndoLog&) = delete;
  UndoLog& operator=(const UndoLog&) = delete;
  ~UndoLog() { (void)undo_all(); }

  void add(std::function<Result<void>()> undo) { undos_.push_back(std::move(undo)); }
  // Runs every undo, newest first, even after one fails; the failures, one line each.
  std::vector<Error> undo_all();

 private:
  std::vector<std::function<Result<void>()>> undos_;
};

}  // namespace sonde::ftrace
