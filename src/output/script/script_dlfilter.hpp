#pragma once
// The script printer's side of --dlfilter: each sample in the filter's structure, and the
// answers to the filter's questions about it from the session's maps and script's symbols.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/script/dlfilter.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

class ScriptDlfilterHost : public analysis::DlfilterHost {
 public:
  ScriptDlfilterHost(session::Session& session, ScriptSymbols& symbols)
      : session_(session), symbols_(symbols) {}

  // The sample as the filter sees it (`event_name` must outlive the call); the answers that
  // follow are about it.
  const analysis::dlfilter_abi::Sample& describe(const session::SampleEvent& sample, const char* event_name);

  bool resolve_ip(analysis::dlfilter_abi::AddressLocation& al) override;
  bool resolve_addr(analysis::dlfilter_abi::AddressLocation& al) override;
  bool resolve_address(uint64_t address, analysis::dlfilter_abi::AddressLocation& al) override;
  const char* srcline(uint32_t& line) override;
  int32_t object_code(uint64_t ip, void* buffer, uint32_t length) override;
  perf_event_attr* attr() override;

 private:
  // Fills `al` for `loc`; the strings it points to live until the next sample.
  void fill(const session::Location& loc, analysis::dlfilter_abi::AddressLocation& al, std::string& build_id);
  // `address` placed in the sample's thread, into `al` (its build-id bytes kept in `build_id`).
  bool locate(uint64_t address, analysis::dlfilter_abi::AddressLocation& al, std::string& build_id);

  session::Session& session_;
  ScriptSymbols& symbols_;
  const session::SampleEvent* sample_ = nullptr;
  analysis::dlfilter_abi::Sample described_{};
  perf_event_attr attr_{};
  std::vector<uint64_t> callchain_;
  std::string ip_build_id_, addr_build_id_, address_build_id_, srcline_file_;
};

// perf's --list-dlfilters text: a title, then each filter's name and description.
std::string dlfilter_listing_text(const std::vector<analysis::DlfilterListing>& listings);

}  // namespace sonde::output
