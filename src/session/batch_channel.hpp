#pragma once
// One producer thread hands batches of items to one consumer, in order. Bounded: the producer
// waits while `capacity` batches are queued, so memory stays flat however far ahead it could
// read. Handing over whole batches keeps the locking to once per few thousand items.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace sonde::session {

template <typename Item>
class BatchChannel {
 public:
  explicit BatchChannel(size_t capacity) : capacity_(capacity) {}

  // Producer: queues `batch` (left empty, its storage recycled). False once the consumer has
  // cancelled: the producer should stop.
  bool put(std::vector<Item>& batch) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return queued_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    queued_.push_back(std::move(batch));
    batch.clear();
    if (!spare_.empty()) {
      batch = std::move(spare_.back());
      spare_.pop_back();
    }
    ready_.notify_one();
    return true;
  }
  // Producer: nothing more will come.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  // Producer: waits until the consumer calls signal() (or cancels); false when cancelled.
  bool wait_for_signal() {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return signalled_ || cancelled_; });
    signalled_ = false;
    return !cancelled_;
  }

  // Consumer: the next batch into `batch` (its old storage recycled); false at the end.
  bool take(std::vector<Item>& batch) {
    std::unique_lock lock(mutex_);
    batch.clear();
    if (batch.capacity() > 0 && spare_.size() < capacity_) spare_.push_back(std::move(batch));
    ready_.wait(lock, [&] { return !queued_.empty() || closed_; });
    if (queued_.empty()) return false;
    batch = std::move(queued_.front());
    queued_.pop_front();
    room_.notify_one();
    return true;
  }
  // Consumer: wakes a producer in wait_for_signal().
  void signal() {
    std::lock_guard lock(mutex_);
    signalled_ = true;
    room_.notify_one();
  }
  // Consumer: stops the producer at its next put() or wait_for_signal().
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    room_.notify_one();
  }

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;  // the consumer waits for a batch
  std::condition_variable room_;   // the producer waits for room or a signal
  std::deque<std::vector<Item>> queued_;
  std::vector<std::vector<Item>> spare_;
  bool closed_ = false;
  bool cancelled_ = false;
  bool signalled_ = false;
};

}  // namespace sonde::session
