#include "analysis/script/dlfilter.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>

namespace sonde::analysis {

namespace {

// Where Debian's perf installs the dlfilters it ships (its exec path's dlfilters/).
constexpr const char* kPerfDlfilterDirectory = "/usr/lib/perf-core/dlfilters";

bool readable(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

std::string find_filter(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  if (readable(name)) return "./" + name;
  std::string shipped = fmt::format("{}/{}", kPerfDlfilterDirectory, name);
  return readable(shipped) ? shipped : name;
}

}  // namespace

// The table handed to the filter: each call finds its Dlfilter through ctx.
struct DlfilterCalls {
  static Dlfilter& of(void* ctx) { return *static_cast<Dlfilter*>(ctx); }
  static const dlfilter_abi::AddressLocation* resolve_ip(void* ctx) {
    Dlfilter& filter = of(ctx);
    if (filter.host_ == nullptr) return nullptr;
    filter.ip_location_ = {};
    filter.ip_location_.size = sizeof filter.ip_location_;
    return filter.host_->resolve_ip(filter.ip_location_) ? &filter.ip_location_ : nullptr;
  }
  static const dlfilter_abi::AddressLocation* resolve_addr(void* ctx) {
    Dlfilter& filter = of(ctx);
    if (filter.host_ == nullptr || filter.sample_ == nullptr || !filter.sample_->addr_correlates_sym)
      return nullptr;
    filter.addr_location_ = {};
    filter.addr_location_.size = sizeof filter.addr_location_;
    return filter.host_->resolve_addr(filter.addr_location_) ? &filter.addr_location_ : nullptr;
  }
  static char** args(void* ctx, int* count) {
    Dlfilter& filter = of(ctx);
    if (count != nullptr) *count = static_cast<int>(filter.args_.size());
    return filter.argv_.data();
  }
  static int32_t resolve_address(void* ctx, uint64_t address, dlfilter_abi::AddressLocation* al) {
    Dlfilter& filter = of(ctx);
    if (filter.host_ == nullptr || al == nullptr) return -1;
    // The filter says how much of the structure it knows; never write past that.
    dlfilter_abi::AddressLocation filled{};
    filled.size = sizeof filled;
    if (!filter.host_->resolve_address(address, filled)) return -1;
    uint32_t size = std::min<uint32_t>(al->size, sizeof filled);
    filled.size = size;
    std::memcpy(al, &filled, size);
    return 0;
  }
  static const uint8_t* insn(void*, uint32_t* length) {
    // Instruction bytes come with instruction traces (Intel PT), which sonde does not decode.
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  static const char* srcline(void* ctx, uint32_t* line) {
    Dlfilter& filter = of(ctx);
    uint32_t number = 0;
    const char* file = filter.host_ != nullptr ? filter.host_->srcline(number) : nullptr;
    if (line != nullptr) *line = number;
    return file;
  }
  static perf_event_attr* attr(void* ctx) {
    Dlfilter& filter = of(ctx);
    return filter.host_ != nullptr ? filter.host_->attr() : nullptr;
  }
  static int32_t object_code(void* ctx, uint64_t ip, void* buffer, uint32_t length) {
    Dlfilter& filter = of(ctx);
    return filter.host_ != nullptr ? filter.host_->object_code(ip, buffer, length) : -1;
  }
};

Result<std::unique_ptr<Dlfilter>> Dlfilter::load(const std::string& name, std::vector<std::string> args) {
  std::unique_ptr<Dlfilter> filter(new Dlfilter());
  filter->path_ = find_filter(name);
  filter->handle_ = ::dlopen(filter->path_.c_str(), RTLD_NOW);
  if (filter->handle_ == nullptr)
    return failf("cannot load the dlfilter {}: {}; give its path (sonde script --list-dlfilters lists some)",
                 name, ::dlerror());
  if (auto* functions =
          static_cast<dlfilter_abi::Functions*>(::dlsym(filter->handle_, "perf_dlfilter_fns"))) {
    dlfilter_abi::Functions table{};
    table.resolve_ip = DlfilterCalls::resolve_ip;
    table.resolve_addr = DlfilterCalls::resolve_addr;
    table.args = DlfilterCalls::args;
    table.resolve_address = DlfilterCalls::resolve_address;
    table.insn = DlfilterCalls::insn;
    table.srcline = DlfilterCalls::srcline;
    table.attr = DlfilterCalls::attr;
    table.object_code = DlfilterCalls::object_code;
    *functions = table;
  }
  filter->start_ = reinterpret_cast<dlfilter_abi::StartFunction>(::dlsym(filter->handle_, "start"));
  filter->stop_ = reinterpret_cast<dlfilter_abi::StopFunction>(::dlsym(filter->handle_, "stop"));
  filter->filter_event_ =
      reinterpret_cast<dlfilter_abi::FilterFunction>(::dlsym(filter->handle_, "filter_event"));
  filter->filter_event_early_ =
      reinterpret_cast<dlfilter_abi::FilterFunction>(::dlsym(filter->handle_, "filter_event_early"));
  filter->args_ = std::move(args);
  for (std::string& arg : filter->args_) filter->argv_.push_back(arg.data());
  filter->argv_.push_back(nullptr);
  return filter;
}

Dlfilter::~Dlfilter() {
  (void)stop();
  if (handle_ != nullptr) ::dlclose(handle_);
}

Result<void> Dlfilter::start() {
  if (started_) return {};
  started_ = true;
  if (start_ != nullptr && start_(&data_, this) != 0) return failf("the dlfilter {}'s start() failed", path_);
  return {};
}

Result<void> Dlfilter::stop() {
  if (!started_) return {};
  started_ = false;
  if (stop_ != nullptr && stop_(data_, this) != 0) return failf("the dlfilter {}'s stop() failed", path_);
  return {};
}

Result<bool> Dlfilter::drops(bool early, const dlfilter_abi::Sample& sample, DlfilterHost& host) {
  dlfilter_abi::FilterFunction function = early ? filter_event_early_ : filter_event_;
  if (function == nullptr) return false;
  host_ = &host;
  sample_ = &sample;
  int answer = function(data_, &sample, this);
  host_ = nullptr;
  sample_ = nullptr;
  if (answer < 0)
    return failf("the dlfilter {}'s {} failed ({})", path_, early ? "filter_event_early" : "filter_event",
                 answer);
  return answer > 0;
}

std::vector<std::string> Dlfilter::search_directories() { return {".", kPerfDlfilterDirectory}; }

std::vector<DlfilterListing> Dlfilter::list(const std::string& directory) {
  std::vector<DlfilterListing> listings;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return listings;
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name.size() <= 3 || !name.ends_with(".so")) continue;
    DlfilterListing listing;
    listing.name = name;
    std::string path = directory + "/" + std::string(name);
    // As perf: only what opens and says what it is counts as a filter.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW);
    if (handle == nullptr) continue;
    auto describe =
        reinterpret_cast<dlfilter_abi::DescriptionFunction>(::dlsym(handle, "filter_description"));
    if (describe != nullptr) {
      const char* long_description = nullptr;
      if (const char* description = describe(&long_description)) listing.description = description;
      if (long_description != nullptr) listing.long_description = long_description;
    }
    ::dlclose(handle);
    listings.push_back(std::move(listing));
  }
  ::closedir(dir);
  return listings;
}

}  // namespace sonde::analysis
