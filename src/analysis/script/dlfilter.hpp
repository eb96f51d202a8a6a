#pragma once
// perf script --dlfilter: a shared object whose filter_event_early and filter_event keep or drop
// each sample (and may print, on the same stdout), started with --dlarg's arguments. Loaded,
// started, asked and stopped here; what it asks about a sample (where its ip and addr resolve,
// its source line, its code) the script's printer answers as the DlfilterHost.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/script/dlfilter_abi.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

class DlfilterHost {
 public:
  virtual ~DlfilterHost() = default;
  // Fill `al` (its size already set) for the sample's ip, its addr, or any address of its
  // thread; false when there is nothing to say.
  virtual bool resolve_ip(dlfilter_abi::AddressLocation& al) = 0;
  virtual bool resolve_addr(dlfilter_abi::AddressLocation& al) = 0;
  virtual bool resolve_address(uint64_t address, dlfilter_abi::AddressLocation& al) = 0;
  // The sample ip's source file and line; nullptr when unknown.
  virtual const char* srcline(uint32_t& line) = 0;
  // Up to `length` bytes of the code at `ip` in the sample's thread; the count read, -1 when none.
  virtual int32_t object_code(uint64_t ip, void* buffer, uint32_t length) = 0;
  virtual perf_event_attr* attr() = 0;
};

struct DlfilterListing {
  std::string name;  // the file's name, "dlfilter-show-cycles.so"
  std::string description, long_description;
};

class Dlfilter {
 public:
  // Finds the filter as perf does (a name with a '/' as given, else in the current directory,
  // else in perf's dlfilters directory) and loads it, its arguments for start().
  static Result<std::unique_ptr<Dlfilter>> load(const std::string& name, std::vector<std::string> args);
  ~Dlfilter();  // stops a started filter, then unloads it
  Dlfilter(const Dlfilter&) = delete;
  Dlfilter& operator=(const Dlfilter&) = delete;

  Result<void> start();
  Result<void> stop();
  // Whether the filter drops the sample: filter_event_early before the sample is resolved
  // (`early`), filter_event after. A negative answer from the filter is an error.
  Result<bool> drops(bool early, const dlfilter_abi::Sample& sample, DlfilterHost& host);

  // Where --list-dlfilters looks, as perf: the current directory, then perf's directory.
  static std::vector<std::string> search_directories();
  // The filters (*.so) in `directory` with their descriptions, in the directory's order.
  static std::vector<DlfilterListing> list(const std::string& directory);

 private:
  Dlfilter() = default;
  friend struct DlfilterCalls;
  std::string path_;
  void* handle_ = nullptr;
  void* data_ = nullptr;  // what the filter's start() gave back
  bool started_ = false;
  dlfilter_abi::StartFunction start_ = nullptr;
  dlfilter_abi::StopFunction stop_ = nullptr;
  dlfilter_abi::FilterFunction filter_event_ = nullptr, filter_event_early_ = nullptr;
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  // Valid during one drops() call, for the callbacks.
  DlfilterHost* host_ = nullptr;
  const dlfilter_abi::Sample* sample_ = nullptr;
  dlfilter_abi::AddressLocation ip_location_{}, addr_location_{};
};

}  // namespace sonde::analysis
