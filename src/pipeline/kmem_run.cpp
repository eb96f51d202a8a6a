#include "pipeline/kmem_run.hpp"

#include <unistd.h>

#include "base/output_stream.hpp"
#include "kernel/tracefs.hpp"
#include "output/kmem/kmem_text.hpp"

namespace sonde::pipeline {

std::vector<std::string> kmem_record_arguments(bool slab, bool page) {
  std::vector<std::string> args = {"record", "-a", "-R", "-c", "1"};
  if (slab) {
    for (const char* event :
         {"kmem:kmalloc", "kmem:kfree", "kmem:kmem_cache_alloc", "kmem:kmem_cache_free"}) {
      args.emplace_back("-e");
      args.emplace_back(event);
    }
    // Kernels before 6.1 have the NUMA forms as events of their own.
    if (kernel::tracepoint_id("kmem", "kmalloc_node"))
      for (const char* event : {"kmem:kmalloc_node", "kmem:kmem_cache_alloc_node"}) {
        args.emplace_back("-e");
        args.emplace_back(event);
      }
  }
  if (page) {
    args.emplace_back("-g");
    for (const char* event : {"kmem:mm_page_alloc", "kmem:mm_page_free"}) {
      args.emplace_back("-e");
      args.emplace_back(event);
    }
  }
  return args;
}

Result<void> run_kmem_stat(const analysis::KmemOptions& options, Diagnostics& diagnostics) {
  auto report = analysis::kmem_stat(options, diagnostics);
  if (!report) return tl::unexpected(report.error());
  std::string text;
  output::append_kmem_report(*report, text);
  OutputStream out(STDOUT_FILENO, false, "stdout");
  if (auto written = out.write(text.data(), text.size()); !written) return written;
  return out.flush();
}

}  // namespace sonde::pipeline
