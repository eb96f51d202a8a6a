#include "analysis/kmem/kmem_scan.hpp"

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include <array>
#include <unordered_map>

#include "analysis/heatmap/tracepoint_field.hpp"
#include "base/bytes.hpp"
#include "kernel/cpus.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

namespace {

enum class KmemRole : uint8_t { none, slab_alloc, slab_free, page_alloc, page_free };

struct KmemEventLayout {
  KmemRole role = KmemRole::none;
  TracepointNumber call_site, ptr, bytes_req, bytes_alloc, node;  // slab
  TracepointNumber page, order, gfp_flags, migrate_type;          // pages: `page` is pfn or the struct page
};

KmemRole role_of(std::string_view name) {
  if (name == "kmem:kmalloc" || name == "kmem:kmem_cache_alloc" || name == "kmem:kmalloc_node" ||
      name == "kmem:kmem_cache_alloc_node")
    return KmemRole::slab_alloc;
  if (name == "kmem:kfree" || name == "kmem:kmem_cache_free") return KmemRole::slab_free;
  if (name == "kmem:mm_page_alloc") return KmemRole::page_alloc;
  if (name == "kmem:mm_page_free") return KmemRole::page_free;
  return KmemRole::none;
}

// perf's allocation functions, /^_?_?(alloc|get_free|get_zeroed)_pages?/, and the entry points
// newer kernels added under them (the frozen-page and folio allocators), so that a page's call
// site is the code that asked for memory rather than the allocator's own innermost frame.
bool is_page_allocator(std::string_view name) {
  for (int underscores = 0; underscores <= 2; ++underscores) {
    if (underscores > 0 && (name.size() < static_cast<size_t>(underscores) || name[underscores - 1] != '_'))
      break;
    std::string_view rest = name.substr(static_cast<size_t>(underscores));
    for (std::string_view prefix : {"alloc_page", "get_free_page", "get_zeroed_page", "alloc_frozen_pages",
                                    "folio_alloc", "vma_alloc_folio"})
      if (rest.starts_with(prefix)) return true;
  }
  return false;
}

// What a file's events are to kmem, from its attrs and tracepoint formats (a pipe's arrive
// with its first records).
struct KmemEvents {
  std::vector<KmemEventLayout> layouts;  // by event index
  std::optional<session::TracepointFormats> formats;
  bool has_slab = false, has_page = false, has_tracepoints = false, use_pfn = false;
  uint64_t page_size = 4096;
};

KmemEvents kmem_events(perfdata::PerfDataReader& reader) {
  KmemEvents events;
  Bytes blob = reader.tracing_data();
  if (!blob.empty())
    if (auto formats = session::TracepointFormats::parse(blob)) events.formats.emplace(std::move(*formats));
  for (const auto& attr : reader.attrs().events()) {
    KmemEventLayout layout;
    const tep_event* format = attr.attr.type == PERF_TYPE_TRACEPOINT && events.formats
                                  ? events.formats->find(attr.attr.config)
                                  : nullptr;
    if (format != nullptr) {
      events.has_tracepoints = true;
      std::string name = session::TracepointFormats::qualified_name(format);
      layout.role = role_of(name);
      layout.call_site = tracepoint_number(format, "call_site");
      layout.ptr = tracepoint_number(format, "ptr");
      layout.bytes_req = tracepoint_number(format, "bytes_req");
      layout.bytes_alloc = tracepoint_number(format, "bytes_alloc");
      layout.node = tracepoint_number(format, "node");
      layout.order = tracepoint_number(format, "order");
      layout.gfp_flags = tracepoint_number(format, "gfp_flags");
      layout.migrate_type = tracepoint_number(format, "migratetype");
      layout.page = tracepoint_number(format, "pfn");
      if (name == "kmem:kmalloc") events.has_slab = true;
      if (name == "kmem:mm_page_alloc") {
        events.has_page = true;
        events.use_pfn = layout.page.present();
        if (tep_get_page_size(format->tep) > 0)
          events.page_size = static_cast<uint64_t>(tep_get_page_size(format->tep));
      }
      if (!layout.page.present()) layout.page = tracepoint_number(format, "page");
    }
    events.layouts.push_back(layout);
  }
  return events;
}

// perf's refusals, in its order: the allocator asked for has no events, or nothing is a tracepoint.
Result<void> check_kmem_events(const KmemEvents& events, const KmemOptions& options) {
  const std::string& path = options.input_path;
  if (options.slab && !events.has_slab)
    return failf(
        "{} has no slab allocation events (kmem:kmalloc); record them with 'sonde kmem record --slab'", path);
  if (options.page && !events.has_page)
    return failf(
        "{} has no page allocation events (kmem:mm_page_alloc); record them with 'sonde kmem record --page'",
        path);
  if (!events.has_tracepoints)
    return failf("{} has no tracepoint samples; record them with 'sonde kmem record'", path);
  return {};
}

struct SiteName {
  std::string name;
  uint64_t offset = 0;
  bool known = false;
};

class KmemScanner : public session::SessionVisitor {
 public:
  KmemScanner(const KmemOptions& options, perfdata::PerfDataReader& reader, const session::Machine& machine,
              Diagnostics& diagnostics)
      : options_(options),
        reader_(reader),
        machine_(machine),
        symbolizer_(symbols::SymbolizerOptions{}, &diagnostics),
        stats_(options.live, 4096) {}

  // The file's events as kmem reads them, found at the first sample (or before the pass).
  const KmemEvents& events() {
    if (!events_) {
      events_ = kmem_events(reader_);
      stats_.set_page_size(events_->page_size);
    }
    return *events_;
  }

  void on_sample(const session::SampleEvent& sample) override {
    const std::vector<KmemEventLayout>& layouts = events().layouts;
    if (sample.event_index >= layouts.size()) return;
    const KmemEventLayout& layout = layouts[sample.event_index];
    if (layout.role == KmemRole::none) return;
    const perfdata::Sample& s = sample.sample;
    if (outside_time_ranges(options_.times, s.time)) return;
    switch (layout.role) {
      case KmemRole::slab_alloc: {
        uint64_t call_site = layout.call_site.read(s.raw);
        bool cross_node = false;
        if (layout.node.present()) {
          auto node = static_cast<int32_t>(layout.node.read(s.raw));
          cross_node = node != -1 && node != cpu_node(s.cpu);
        }
        stats_.slab_alloc(call_site, layout.ptr.read(s.raw),
                          static_cast<int32_t>(layout.bytes_req.read(s.raw)),
                          static_cast<int32_t>(layout.bytes_alloc.read(s.raw)), s.cpu, cross_node);
        if (options_.slab && options_.caller && !options_.raw_ip && !names_.count(call_site))
          names_.emplace(call_site, name_kernel_address(sample.thread, call_site));
        return;
      }
      case KmemRole::slab_free:
        stats_.slab_free(layout.ptr.read(s.raw), s.cpu);
        return;
      case KmemRole::page_alloc: {
        if (!options_.page) return;
        uint64_t page = layout.page.read(s.raw);
        bool valid = events_->use_pfn ? page != UINT64_MAX : page != 0;
        auto gfp = static_cast<uint32_t>(layout.gfp_flags.read(s.raw));
        uint64_t callsite = 0;
        if (valid) {
          if (!gfps_.contains(gfp)) name_gfp(s, gfp);
          callsite = page_callsite(sample);
          if (!names_.count(callsite)) names_.emplace(callsite, name_kernel_address(sample.thread, callsite));
        }
        stats_.page_alloc(page, valid, static_cast<uint32_t>(layout.order.read(s.raw)), gfp,
                          static_cast<uint32_t>(layout.migrate_type.read(s.raw)), callsite);
        return;
      }
      case KmemRole::page_free:
        if (options_.page)
          stats_.page_free(layout.page.read(s.raw), static_cast<uint32_t>(layout.order.read(s.raw)));
        return;
      case KmemRole::none:
        return;
    }
  }

  KmemReport report() const {
    KmemReport report;
    report.options = options_;
    report.use_pfn = events_ && events_->use_pfn;
    report.slab_summary = stats_.slab_summary();
    report.page_summary = stats_.page_summary();
    report.gfps = gfps_;
    auto or_default = [](const auto& keys, auto defaults) { return keys.empty() ? defaults : keys; };
    const std::vector<SlabSortKey> slab_default = {SlabSortKey::frag, SlabSortKey::hit, SlabSortKey::bytes};
    const std::vector<PageSortKey> page_default = {PageSortKey::bytes, PageSortKey::hit};
    if (options_.slab && options_.caller)
      for (const SlabSite& site : stats_.slab_by_caller(or_default(options_.slab_caller_sort, slab_default)))
        report.slab_callers.push_back({site, slab_site_label(site.call_site)});
    if (options_.slab && options_.alloc)
      for (const SlabSite& site : stats_.slab_by_pointer(or_default(options_.slab_alloc_sort, slab_default)))
        report.slab_pointers.push_back({site, fmt::format("{:#x}", site.ptr)});
    if (options_.page && options_.caller)
      for (const PageSite& site : stats_.pages_by_caller(or_default(options_.page_caller_sort, page_default)))
        report.page_callers.push_back({site, page_site_label(site.callsite)});
    if (options_.page && options_.alloc)
      for (const PageSite& site : stats_.pages_by_page(or_default(options_.page_alloc_sort, page_default)))
        report.page_allocs.push_back({site, page_site_label(site.callsite)});
    return report;
  }

 private:
  int cpu_node(uint32_t cpu) {
    if (cpu >= cpu_nodes_.size()) cpu_nodes_.resize(cpu + 1, -2);
    if (cpu_nodes_[cpu] == -2) cpu_nodes_[cpu] = kernel::cpu_place(static_cast<int>(cpu)).node;
    return cpu_nodes_[cpu];
  }

  SiteName name_kernel_address(const session::Thread& thread, uint64_t address) {
    session::Location location = machine_.locate(thread, PERF_RECORD_MISC_KERNEL, address);
    if (location.dso == nullptr) return {};
    const symbols::Symbol* symbol = symbolizer_.find(*location.dso, location.dso_address);
    if (symbol == nullptr) return {};
    return {symbol->name, location.dso_address - symbol->start, true};
  }

  // perf's find_callsite: the first of the callchain's first 16 frames outside the allocator
  // (the context markers not counted), else the sampled ip. A kernel address's verdict is kept, so
  // each distinct frame is looked up once; a user frame is never the allocator.
  uint64_t page_callsite(const session::SampleEvent& sample) {
    const perfdata::U64Array& chain = sample.sample.callchain;
    uint8_t cpumode = PERF_RECORD_MISC_USER;
    for (size_t i = 0, frames = 0; i < chain.size() && frames < 16; ++i) {
      uint64_t ip = chain[i];
      if (ip >= PERF_CONTEXT_MAX) {
        cpumode = session::context_cpumode(ip, cpumode);
        continue;
      }
      ++frames;
      if (cpumode != PERF_RECORD_MISC_KERNEL) return ip;
      auto [verdict, inserted] = allocator_frames_.try_emplace(ip, false);
      if (inserted) verdict->second = in_page_allocator(sample.thread, ip);
      if (!verdict->second) return ip;
    }
    return sample.sample.ip;
  }

  bool in_page_allocator(const session::Thread& thread, uint64_t ip) {
    session::Location location = machine_.locate(thread, PERF_RECORD_MISC_KERNEL, ip);
    if (location.dso == nullptr) return false;
    const symbols::Symbol* symbol = symbolizer_.find(*location.dso, location.dso_address);
    return symbol != nullptr && is_page_allocator(symbol->name);
  }

  void name_gfp(const perfdata::Sample& s, uint32_t gfp) {
    printed_.clear();
    events_->formats->append_info(static_cast<int>(s.cpu), s.raw, printed_);
    gfps_.add(gfp, gfp_flags_word(printed_));
  }

  std::string slab_site_label(uint64_t call_site) const {
    if (auto found = names_.find(call_site); found != names_.end() && found->second.known)
      return fmt::format("{}+{:x}", found->second.name, found->second.offset);
    return fmt::format("{:#x}", call_site);
  }

  std::string page_site_label(uint64_t callsite) const {
    if (auto found = names_.find(callsite); found != names_.end() && found->second.known)
      return found->second.name;
    return fmt::format("{:x}", callsite);
  }

 private:
  const KmemOptions& options_;
  perfdata::PerfDataReader& reader_;
  const session::Machine& machine_;
  std::optional<KmemEvents> events_;
  symbols::Symbolizer symbolizer_;
  KmemStats stats_;
  GfpTable gfps_;
  std::unordered_map<uint64_t, SiteName> names_;
  std::unordered_map<uint64_t, bool> allocator_frames_;  // kernel address: in the page allocator
  std::vector<int> cpu_nodes_;
  std::string printed_;
};

}  // namespace

Result<KmemReport> kmem_stat(const KmemOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input_path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  KmemScanner scanner(options, session->reader(), session->machine(), diagnostics);
  // A file's events are known now: refuse before reading its data. A pipe's come with its data.
  if (!session->reader().is_pipe())
    if (auto checked = check_kmem_events(scanner.events(), options); !checked)
      return tl::unexpected(checked.error());
  // The page call sites come from the raw callchains (see page_callsite).
  session->set_locate_callchains(false);
  session->show_progress("kmem");
  if (auto processed = session->process(scanner); !processed) return tl::unexpected(processed.error());
  if (auto checked = check_kmem_events(scanner.events(), options); !checked)
    return tl::unexpected(checked.error());
  return scanner.report();
}

}  // namespace sonde::analysis
