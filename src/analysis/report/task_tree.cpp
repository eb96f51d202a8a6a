#include "analysis/report/task_tree.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <unordered_map>

#include "session/session.hpp"

namespace sonde::analysis {

namespace {

// perf keeps threads in 256 trees by tid % 256, each sorted by tid, and visits them in that order.
constexpr uint32_t kBuckets = 256;

struct Task {
  const session::Thread* thread = nullptr;
  session::Thread own;  // for the threads perf has and the machine does not
  std::vector<Task*> children;
  bool listed = false;  // in a parent's children or among the roots
};

class NoVisit : public session::SessionVisitor {
 public:
  void on_sample(const session::SampleEvent& /*sample*/) override {}
};

}  // namespace

Result<std::vector<TaskLine>> task_tree(const session::Machine& machine, bool with_maps) {
  std::vector<const session::Thread*> threads = machine.threads();
  std::vector<std::unique_ptr<Task>> tasks;
  std::unordered_map<int32_t, Task*> by_tid;
  auto add = [&](const session::Thread* thread) {
    tasks.push_back(std::make_unique<Task>());
    tasks.back()->thread = thread;
    by_tid[thread->tid] = tasks.back().get();
  };
  auto add_own = [&](int32_t pid, int32_t tid, std::string comm) {
    tasks.push_back(std::make_unique<Task>());
    Task& task = *tasks.back();
    task.own.pid = pid;
    task.own.tid = tid;
    task.own.comm = std::move(comm);
    task.thread = &task.own;
    by_tid[tid] = &task;
  };
  for (const session::Thread* thread : threads) add(thread);
  // perf registers the idle thread, and makes a thread's leader when it makes the thread.
  if (!by_tid.contains(0)) add_own(0, 0, "swapper");
  for (const session::Thread* thread : threads)
    if (thread->pid >= 0 && thread->pid != thread->tid && !by_tid.contains(thread->pid))
      add_own(thread->pid, thread->pid, ":" + std::to_string(thread->pid));
  std::sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) {
    uint32_t bucket_a = static_cast<uint32_t>(a->thread->tid) % kBuckets,
             bucket_b = static_cast<uint32_t>(b->thread->tid) % kBuckets;
    return bucket_a != bucket_b ? bucket_a < bucket_b : a->thread->tid < b->thread->tid;
  });

  std::vector<Task*> roots;
  for (auto& owned : tasks) {
    Task* task = owned.get();
    // Up the chain of parents, each linked under the next, until one already placed or a root.
    while (!task->listed) {
      if (task->thread->ppid == -1) {
        task->listed = true;
        roots.push_back(task);
        break;
      }
      auto parent = by_tid.find(task->thread->ppid);
      if (parent == by_tid.end())
        return failf("failed to process tasks: the parent {} of thread {} is unknown", task->thread->ppid,
                     task->thread->tid);
      task->listed = true;
      parent->second->children.push_back(task);
      task = parent->second;
    }
  }

  std::vector<TaskLine> lines;
  std::function<void(const Task&, int)> walk = [&](const Task& task, int level) {
    std::string comm = task.thread->comm;
    if (task.thread->tid == 0 && task.thread->pid <= 0) comm = "swapper";
    lines.push_back({task.thread->pid, task.thread->tid, task.thread->ppid, level, std::move(comm), {}});
    if (with_maps && task.thread->maps)
      for (const session::Map& map : task.thread->maps->maps())
        lines.back().maps.push_back({map.start, map.end, map.pgoff, map.dso ? map.dso->inode : 0, map.prot,
                                     map.flags, map.dso ? map.dso->long_name : std::string()});
    for (const Task* child : task.children) walk(*child, level + 1);
  };
  for (const Task* root : roots) walk(*root, 0);
  return lines;
}

Result<std::vector<TaskLine>> list_tasks(const std::string& input, bool with_maps, Diagnostics& diagnostics) {
  auto session = session::Session::open(input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  NoVisit visitor;
  if (auto done = session->process(visitor); !done) return tl::unexpected(done.error());
  return task_tree(session->machine(), with_maps);
}

}  // namespace sonde::analysis
