#include "ftrace/undo_log.hpp"

namespace sonde::ftrace {

std::vector<Error> UndoLog::undo_all() {
  std::vector<Error> failures;
  while (!undos_.empty()) {
    auto undo = std::move(undos_.back());
    undos_.pop_back();
    if (auto done = undo(); !done) failures.push_back(done.error());
  }
  return failures;
}

}  // namespace sonde::ftrace
