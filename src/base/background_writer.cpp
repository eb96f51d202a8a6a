#include "base/background_writer.hpp"

namespace sonde {

namespace {
constexpr size_t kQueued = 4;
}

BackgroundWriter::BackgroundWriter(OutputStream& out) : out_(out) {
  if (std::thread::hardware_concurrency() >= 2) thread_ = std::thread([this] { run(); });
}

BackgroundWriter::~BackgroundWriter() { (void)finish(); }

void BackgroundWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ready_.wait(lock, [&] { return !queued_.empty() || closing_; });
    if (queued_.empty()) return;
    std::string buffer = std::move(queued_.front());
    queued_.pop_front();
    bool ok = static_cast<bool>(status_);
    lock.unlock();
    Result<void> written = ok ? out_.write(buffer.data(), buffer.size()) : Result<void>{};
    buffer.clear();
    lock.lock();
    if (!written && status_) status_ = written;
    if (spare_.size() < kQueued) spare_.push_back(std::move(buffer));
    room_.notify_one();
  }
}

Result<void> BackgroundWriter::put(std::string& buffer) {
  if (!thread_.joinable()) {
    if (status_) status_ = out_.write(buffer.data(), buffer.size());
    buffer.clear();
    return status_;
  }
  std::unique_lock lock(mutex_);
  room_.wait(lock, [&] { return queued_.size() < kQueued; });
  if (!status_) {
    buffer.clear();
    return status_;
  }
  queued_.push_back(std::move(buffer));
  buffer.clear();
  if (!spare_.empty()) {
    buffer = std::move(spare_.back());
    spare_.pop_back();
  }
  ready_.notify_one();
  return {};
}

Result<void> BackgroundWriter::finish() {
  if (finished_) return status_;
  finished_ = true;
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  if (status_) status_ = out_.flush();
  return status_;
}

}  // namespace sonde
