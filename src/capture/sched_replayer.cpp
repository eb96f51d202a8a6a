#include "capture/sched_replayer.hpp"

#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <mutex>

namespace sonde::capture {

namespace {

constexpr uint64_t kNsPerSec = 1000000000ULL;
constexpr uint64_t kNsPerMsec = 1000000ULL;

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }

// Spins until `ns` have passed, the clock read's own cost taken off as perf does.
void burn_ns(uint64_t ns, uint64_t overhead) {
  uint64_t t0 = now_ns(), t1 = 0;
  do {
    t1 = now_ns();
  } while (t1 + overhead < t0 + ns);
}

// perf splits the time at 999999999 ns, not a second; kept so the sleeps are perf's.
void sleep_ns(uint64_t ns) {
  timespec ts{};
  ts.tv_nsec = static_cast<long>(ns % 999999999ULL);
  ts.tv_sec = static_cast<time_t>(ns / 999999999ULL);
  ::nanosleep(&ts, nullptr);
}

}  // namespace

ReplayCalibration calibrate_replay() {
  ReplayCalibration c;
  uint64_t min_delta = kNsPerSec;
  for (int i = 0; i < 10; ++i) {
    uint64_t t0 = now_ns();
    burn_ns(0, c.run_overhead);
    min_delta = std::min(min_delta, now_ns() - t0);
  }
  c.run_overhead = min_delta;
  min_delta = kNsPerSec;
  for (int i = 0; i < 10; ++i) {
    uint64_t t0 = now_ns();
    sleep_ns(10000);
    min_delta = std::min(min_delta, now_ns() - t0);
  }
  c.sleep_overhead = min_delta - std::min<uint64_t>(min_delta, 10000);
  uint64_t t0 = now_ns();
  burn_ns(kNsPerMsec, c.run_overhead);
  c.run_test = now_ns() - t0;
  t0 = now_ns();
  sleep_ns(kNsPerMsec);
  c.sleep_test = now_ns() - t0;
  return c;
}

struct SchedReplayer::State {
  const ReplayPlan* plan = nullptr;
  uint64_t run_overhead = 0;
  unsigned repeat = 1;
  std::unique_ptr<sem_t[]> semaphores;
  std::vector<pthread_t> threads;

  std::mutex mutex;
  std::condition_variable start, done;
  uint64_t generation = 0;  // one more per round; a thread runs once per generation
  bool stop = false;
  size_t finished = 0;
  uint64_t cpu = 0;

  uint64_t rounds = 0, run_avg = 0, cpu_avg = 0;

  struct Worker {
    State* state;
    size_t task;
  };
  std::vector<Worker> workers;

  void work(size_t index) {
    const ReplayTask& task = plan->tasks[index];
    std::string name = ":" + task.comm;
    name.resize(std::min<size_t>(name.size(), 15));
    ::prctl(PR_SET_NAME, name.c_str());
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex);
        start.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
      }
      uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
      for (const ReplayAtom& atom : task.atoms) {
        switch (atom.kind) {
          case ReplayAtomKind::run:
            burn_ns(atom.duration, run_overhead);
            break;
          case ReplayAtomKind::sleep:
            if (atom.semaphore != ReplayAtom::kNoSemaphore)
              while (::sem_wait(&semaphores[atom.semaphore]) != 0 && errno == EINTR) {
              }
            break;
          case ReplayAtomKind::wakeup:
            if (atom.semaphore != ReplayAtom::kNoSemaphore) ::sem_post(&semaphores[atom.semaphore]);
            break;
        }
      }
      uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
      std::lock_guard lock(mutex);
      cpu += used;
      if (++finished == threads.size()) done.notify_one();
    }
  }

  static void* entry(void* arg) {
    auto* worker = static_cast<Worker*>(arg);
    worker->state->work(worker->task);
    return nullptr;
  }

  void stop_all() {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    start.notify_all();
    for (pthread_t thread : threads) ::pthread_join(thread, nullptr);
    threads.clear();
  }
};

SchedReplayer::SchedReplayer(std::unique_ptr<State> state) : state_(std::move(state)) {}

SchedReplayer::~SchedReplayer() {
  state_->stop_all();
  for (uint32_t i = 0; i < state_->plan->semaphores; ++i) ::sem_destroy(&state_->semaphores[i]);
}

Result<std::unique_ptr<SchedReplayer>> SchedReplayer::start(const ReplayPlan& plan, uint64_t run_overhead,
                                                            unsigned repeat) {
  auto state = std::make_unique<State>();
  state->plan = &plan;
  state->run_overhead = run_overhead;
  state->repeat = repeat == 0 ? 1 : repeat;
  state->semaphores = std::make_unique<sem_t[]>(plan.semaphores);
  for (uint32_t i = 0; i < plan.semaphores; ++i) ::sem_init(&state->semaphores[i], 0, 0);
  std::unique_ptr<SchedReplayer> replayer(new SchedReplayer(std::move(state)));
  State& s = *replayer->state_;
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  // Small stacks, as perf's: a recording may name thousands of tasks.
  ::pthread_attr_setstacksize(&attr, std::max<size_t>(64 * 1024, PTHREAD_STACK_MIN));
  s.workers.reserve(plan.tasks.size());
  s.threads.reserve(plan.tasks.size());
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    s.workers.push_back(State::Worker{&s, i});
    pthread_t thread;
    int err = ::pthread_create(&thread, &attr, &State::entry, &s.workers.back());
    if (err != 0) {
      ::pthread_attr_destroy(&attr);
      return fail_errno(err, fmt::format("cannot start the thread of task {} ({} of {})", plan.tasks[i].pid,
                                         i + 1, plan.tasks.size()));
    }
    s.threads.push_back(thread);
  }
  ::pthread_attr_destroy(&attr);
  return replayer;
}

ReplayRound SchedReplayer::run_round() {
  State& s = *state_;
  uint64_t t0 = now_ns();
  uint64_t cpu = 0;
  {
    std::unique_lock lock(s.mutex);
    s.finished = 0;
    s.cpu = 0;
    ++s.generation;
    s.start.notify_all();
    s.done.wait(lock, [&] { return s.finished == s.threads.size(); });
    cpu = s.cpu;
  }
  uint64_t wall = now_ns() - t0;
  // perf's running averages: seeded with the first value, then weighted by the repeat count.
  uint64_t weight = s.repeat;
  if (s.run_avg == 0) s.run_avg = wall;
  s.run_avg = (s.run_avg * (weight - 1) + wall) / weight;
  if (s.cpu_avg == 0) s.cpu_avg = cpu;
  s.cpu_avg = (s.cpu_avg * (weight - 1) + cpu) / weight;
  return ReplayRound{++s.rounds, wall, s.run_avg, cpu, s.cpu_avg};
}

}  // namespace sonde::capture
