#pragma once
// Existing tasks as /proc shows them: the threads of a process, and whether a task still runs.
#include <sys/types.h>

#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::capture {

// A comma list of process or thread ids ("1234,5678"); `what` names them in the error.
Result<std::vector<pid_t>> parse_task_ids(std::string_view text, std::string_view what);
// The threads of a process, from /proc/PID/task; an error names a process that does not exist.
Result<std::vector<pid_t>> process_threads(pid_t pid);
// A task is alive while /proc has it in a state other than zombie or dead.
bool task_alive(pid_t id);
// perf's -u: the processes whose real user is `user` (a name or a number), as a -p list.
Result<std::string> processes_of_user(std::string_view user);
bool any_alive(const std::vector<pid_t>& ids);

}  // namespace sonde::capture
