#include "output/convert/pprof_profile.hpp"

#include <linux/perf_event.h>

#include "base/gzip.hpp"
#include "proto/profile.pb.h"

namespace sonde::output {

namespace {

namespace pb = perftools::profiles;

// Strings once each: pprof's string table, "" first.
class StringTable {
 public:
  explicit StringTable(pb::Profile& profile) : profile_(profile) { id(""); }
  int64_t id(const std::string& text) {
    auto [it, fresh] = ids_.try_emplace(text, static_cast<int64_t>(ids_.size()));
    if (fresh) profile_.add_string_table(text);
    return it->second;
  }

 private:
  pb::Profile& profile_;
  std::unordered_map<std::string, int64_t> ids_;
};

}  // namespace

PprofProfile::PprofProfile(session::Session& session, ScriptSymbols& symbols)
    : session_(session), symbols_(symbols), locations_(session) {
  for (const auto& event : session.reader().attrs().events()) {
    event_names_.push_back(session::event_name(event));
    any_cpu_ |= (event.attr.sample_type & PERF_SAMPLE_CPU) != 0;
  }
  columns_ = 2 * event_names_.size();
}

uint32_t PprofProfile::comm_id(const std::string& comm) {
  auto [it, fresh] = comms_.try_emplace(comm, static_cast<uint32_t>(comm_names_.size()));
  if (fresh) comm_names_.push_back(comm);
  return it->second;
}

void PprofProfile::on_sample(const session::SampleEvent& sample) {
  const perfdata::Sample& s = sample.sample;
  ++samples_;
  if (s.has(PERF_SAMPLE_TIME)) {
    first_time_ = std::min(first_time_, s.time);
    last_time_ = std::max(last_time_, s.time);
  }
  uint64_t cpu = any_cpu_ && s.has(PERF_SAMPLE_CPU) ? s.cpu : UINT64_MAX;
  uint32_t thread = thread_ids_.intern({static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.pid)),
                                        static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.tid)),
                                        comm_id(sample.thread.comm), cpu});
  scratch_.clear();
  scratch_.push_back(thread);
  locations_.append_stack(sample, scratch_);
  bool inserted;
  uint32_t id = stacks_.intern(scratch_, inserted);
  if (inserted) values_.resize(values_.size() + columns_, 0);
  size_t column = 2 * sample.event_index;
  values_[id * columns_ + column] += 1;
  // Without PERIOD in the sample, perf takes the event's fixed period.
  uint64_t period = s.has(PERF_SAMPLE_PERIOD) ? s.period : sample.event.attr.sample_period;
  values_[id * columns_ + column + 1] += static_cast<int64_t>(period);
}

Result<std::string> PprofProfile::finish() {
  pb::Profile profile;
  StringTable strings(profile);
  const auto& events = session_.reader().attrs().events();
  for (size_t i = 0; i < events.size(); ++i) {
    pb::ValueType* count = profile.add_sample_type();
    count->set_type(strings.id(event_names_.size() == 1 ? "samples" : event_names_[i] + "_samples"));
    count->set_unit(strings.id("count"));
    pb::ValueType* period = profile.add_sample_type();
    period->set_type(strings.id(event_names_[i]));
    period->set_unit(strings.id(counts_nanoseconds(events[i], event_names_[i]) ? "nanoseconds" : "count"));
  }
  if (!events.empty()) {
    profile.set_default_sample_type(profile.sample_type(1).type());
    *profile.mutable_period_type() = profile.sample_type(1);
    if (!events[0].attr.freq) profile.set_period(static_cast<int64_t>(events[0].attr.sample_period));
  }
  if (const auto& clock = session_.reader().features().clock_data; clock && first_time_ != UINT64_MAX)
    profile.set_time_nanos(static_cast<int64_t>(clock->tod_ns + (first_time_ - clock->clockid_ns)));
  if (first_time_ != UINT64_MAX) profile.set_duration_nanos(static_cast<int64_t>(last_time_ - first_time_));

  // pprof takes the first mapping for the profiled program: executables first (user files not
  // named like a shared object: the order samples met them put libc first when the first sample
  // fell there), then the other user files, then the kernel's and the rest.
  uint64_t next_number = 1;
  const auto& mappings = locations_.mappings();
  std::vector<uint64_t> mapping_number(mappings.size() + 1, 0);
  auto rank = [](const ProfileLocations::Mapping& info) {
    if (info.dso == nullptr || info.dso->kind != session::DsoKind::user) return 2;
    std::string_view name = info.dso->long_name;
    name = name.substr(name.rfind('/') + 1);
    return name.find(".so") == std::string_view::npos ? 0 : 1;
  };
  for (int pass = 0; pass < 3; ++pass)
    for (size_t i = 0; i < mappings.size(); ++i) {
      const ProfileLocations::Mapping& info = mappings[i];
      if (rank(info) != pass) continue;
      mapping_number[i + 1] = next_number;
      pb::Mapping* mapping = profile.add_mapping();
      mapping->set_id(next_number++);
      mapping->set_memory_start(info.start);
      mapping->set_memory_limit(info.end);
      mapping->set_file_offset(info.pgoff);
      if (info.dso != nullptr) {
        mapping->set_filename(strings.id(info.dso->long_name));
        if (!info.dso->build_id.empty()) mapping->set_build_id(strings.id(info.dso->build_id));
      }
      // Named here: pprof must not look for the binaries to symbolize again.
      mapping->set_has_functions(true);
      mapping->set_has_filenames(true);
      mapping->set_has_line_numbers(true);
      mapping->set_has_inline_frames(true);
    }

  analysis::KeyIndex<2> function_ids;  // name, file (string ids)
  auto function_of = [&](const std::string& name, const std::string& file) {
    bool inserted;
    int64_t name_id = strings.id(name), file_id = strings.id(file);
    uint32_t id =
        function_ids.intern({static_cast<uint64_t>(name_id), static_cast<uint64_t>(file_id)}, inserted);
    if (inserted) {
      pb::Function* function = profile.add_function();
      function->set_id(id + 1);
      function->set_name(name_id);
      function->set_system_name(name_id);
      function->set_filename(file_id);
    }
    return static_cast<uint64_t>(id + 1);
  };
  const auto& locations = locations_.locations();
  for (size_t i = 0; i < locations.size(); ++i) {
    const ProfileLocations::Location& info = locations[i];
    pb::Location* location = profile.add_location();
    location->set_id(i + 1);
    location->set_mapping_id(mapping_number[info.mapping]);
    location->set_address(info.ip);
    // No frames: pprof shows the address and the mapping's file.
    for (const ProfileLocations::Frame& frame : locations_.frames(info, symbols_)) {
      pb::Line* entry = location->add_line();
      entry->set_function_id(function_of(frame.name, frame.file));
      entry->set_line(frame.line);
    }
  }

  int64_t pid_key = strings.id("pid"), tid_key = strings.id("tid"), comm_key = strings.id("comm");
  int64_t cpu_key = strings.id("cpu");
  for (uint32_t id = 0; id < stacks_.size(); ++id) {
    auto stack = stacks_.sequence(id);
    pb::Sample* out = profile.add_sample();
    for (size_t i = 1; i < stack.size(); ++i) out->add_location_id(stack[i] + 1);
    for (size_t column = 0; column < columns_; ++column) out->add_value(values_[id * columns_ + column]);
    const auto& thread = thread_ids_.key(stack[0]);
    auto add_number = [&](int64_t key, int64_t value) {
      pb::Label* label = out->add_label();
      label->set_key(key);
      label->set_num(value);
    };
    add_number(pid_key, static_cast<int32_t>(thread[0]));
    add_number(tid_key, static_cast<int32_t>(thread[1]));
    pb::Label* comm = out->add_label();
    comm->set_key(comm_key);
    comm->set_str(strings.id(comm_names_[thread[2]]));
    if (thread[3] != UINT64_MAX) add_number(cpu_key, static_cast<int64_t>(thread[3]));
  }
  std::string bytes;
  if (!profile.SerializeToString(&bytes)) return fail("the profile could not be serialized");
  return gzip(bytes);
}

}  // namespace sonde::output
