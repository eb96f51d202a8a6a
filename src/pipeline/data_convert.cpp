#include "pipeline/data_convert.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "base/output_stream.hpp"
#include "base/progress.hpp"
#include "output/convert/chrome_trace.hpp"
#include "output/convert/chrome_tracedat.hpp"
#include "output/convert/ctf_trace.hpp"
#include "output/convert/ctf_tracedat.hpp"
#include "output/convert/firefox_profile.hpp"
#include "output/convert/perf_json.hpp"
#include "output/convert/pprof_profile.hpp"
#include "output/convert/speedscope_profile.hpp"
#include "pipeline/profile_replay.hpp"
#include "pipeline/script_run.hpp"
#include "session/session.hpp"
#include "tracedat/format.hpp"
#include "tracedat/reader.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::pipeline {

namespace {

// perf's O_EXCL unless --force; never through a symbolic link, and private like perf.data.
Result<int> create_output(const std::string& path, bool force) {
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (force ? O_TRUNC : O_EXCL);
  int fd = ::open(path.c_str(), flags, 0600);
  if (fd >= 0) return fd;
  int err = errno;
  if (err == EEXIST) return failf("output file '{}' exists; use -f/--force to overwrite it", path);
  if (err == ELOOP) return failf("output file '{}' is a symbolic link; name the file itself", path);
  return fail_errno(err, fmt::format("cannot create output file '{}'", path));
}

int64_t input_mtime(const std::string& input) {
  struct stat st {};
  int result = input == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(input.c_str(), &st);
  return result == 0 ? static_cast<int64_t>(st.st_mtime) : -1;
}

// A document written by `write(out)`, which returns the summary: the output is created once the
// input has opened, and removed when the conversion fails (a document cut short is no document).
template <typename Write>
Result<DataConvertSummary> write_document(const std::string& path, bool force, Write write) {
  auto fd = create_output(path, force);
  if (!fd) return tl::unexpected(fd.error());
  struct stat created {};
  bool regular = ::fstat(*fd, &created) == 0 && S_ISREG(created.st_mode);
  OutputStream out(*fd, true, path);
  Result<DataConvertSummary> written = write(out);
  Result<void> closed = out.close();
  if (!written || !closed) {
    if (regular) ::unlink(path.c_str());
    return tl::unexpected(!written ? written.error() : closed.error());
  }
  return written;
}

// A document written while the file is replayed. `make(out)` builds the visitor, which must offer
// finish(), samples() and bytes().
template <typename Make>
Result<DataConvertSummary> stream_document(session::Session& session, const std::string& path, bool force,
                                           Make make) {
  return write_document(path, force, [&](OutputStream& out) -> Result<DataConvertSummary> {
    auto writer = make(out);
    auto processed = session.process(*writer);
    if (processed) processed = writer->finish();
    if (!processed) return tl::unexpected(processed.error());
    return DataConvertSummary{writer->samples(), 0, writer->bytes()};
  });
}

}  // namespace

Result<DataConvertSummary> convert_to_json(const DataConvertOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  session->show_progress("Converting");
  output::ScriptSymbols symbols(options.symbols);
  int64_t captured_on = input_mtime(options.input);
  return stream_document(*session, options.json_path, options.force, [&](OutputStream& out) {
    auto writer = std::make_unique<output::PerfJsonWriter>(*session, symbols, out);
    writer->begin({captured_on});
    return writer;
  });
}

namespace {

// A document made whole in memory, written out at once.
Result<void> write_output(const std::string& path, bool force, const std::string& bytes) {
  auto written = write_document(path, force, [&](OutputStream& out) -> Result<DataConvertSummary> {
    if (auto put = out.write(bytes.data(), bytes.size()); !put) return tl::unexpected(put.error());
    return DataConvertSummary{};
  });
  if (!written) return tl::unexpected(written.error());
  return {};
}

}  // namespace

Result<DataConvertSummary> convert_to_ctf(const DataConvertOptions& options, Diagnostics& diagnostics) {
  const std::string& directory = options.ctf_directory;
  if (DIR* listing = ::opendir(directory.c_str())) {
    bool empty = true;
    while (dirent* entry = ::readdir(listing))
      if (std::string_view(entry->d_name) != "." && std::string_view(entry->d_name) != "..") empty = false;
    ::closedir(listing);
    if (!empty && !options.force)
      return failf("output directory '{}' is not empty; use -f/--force to write into it", directory);
  }
  if (tracedat::is_trace_dat(options.input)) {
    if (options.tod)
      return fail("--tod converts perf.data stamps; a trace.dat's are the trace clock's already");
    if (options.all) return fail("--all adds perf.data's side-band records; a trace.dat has none");
    auto reader = tracedat::TraceDatReader::open(options.input);
    if (!reader) return tl::unexpected(reader.error());
    auto written = output::write_ctf_trace(**reader, directory);
    if (!written) return tl::unexpected(written.error());
    return DataConvertSummary{written->events, 0, written->bytes};
  }
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  session->show_progress("Converting");
  session->set_locate_callchains(false);
  auto trace = output::CtfTrace::create(*session, directory, {options.all, options.tod});
  if (!trace) return tl::unexpected(trace.error());
  if (auto processed = session->process(**trace); !processed) return tl::unexpected(processed.error());
  if (auto finished = (*trace)->finish(); !finished) return tl::unexpected(finished.error());
  return DataConvertSummary{(*trace)->samples(), (*trace)->non_samples(), (*trace)->bytes()};
}

namespace {

Result<DataConvertSummary> convert_trace_dat_to_chrome(const DataConvertOptions& options) {
  auto reader = tracedat::TraceDatReader::open(options.input);
  if (!reader) return tl::unexpected(reader.error());
  return write_document(options.chrome_path, options.force,
                        [&](OutputStream& out) -> Result<DataConvertSummary> {
                          auto written = output::write_chrome_trace(**reader, out);
                          if (!written) return tl::unexpected(written.error());
                          return DataConvertSummary{written->events, 0, written->bytes};
                        });
}

}  // namespace

Result<DataConvertSummary> convert_to_chrome(const DataConvertOptions& options, Diagnostics& diagnostics) {
  if (tracedat::is_trace_dat(options.input)) return convert_trace_dat_to_chrome(options);
  auto replay = open_profile_replay(options.input, options.symbols, diagnostics, "Converting");
  if (!replay) return tl::unexpected(replay.error());
  ProfileReplay& r = **replay;
  return stream_document(r.session, options.chrome_path, options.force, [&](OutputStream& out) {
    return std::make_unique<output::ChromeTrace>(r.session, r.symbols, out);
  });
}

Result<DataConvertSummary> convert_to_pprof(const DataConvertOptions& options, Diagnostics& diagnostics) {
  auto replay = open_profile_replay(options.input, options.symbols, diagnostics, "Converting");
  if (!replay) return tl::unexpected(replay.error());
  output::PprofProfile profile((*replay)->session, (*replay)->symbols);
  if (auto processed = (*replay)->session.process(profile); !processed)
    return tl::unexpected(processed.error());
  // A profile.proto is made whole at the end: written at once.
  DataConvertSummary summary;
  summary.samples = profile.samples();
  auto bytes = profile.finish();
  if (!bytes) return tl::unexpected(bytes.error());
  if (auto written = write_output(options.pprof_path, options.force, *bytes); !written)
    return tl::unexpected(written.error());
  summary.bytes = bytes->size();
  return summary;
}

Result<DataConvertSummary> convert_to_speedscope(const DataConvertOptions& options,
                                                 Diagnostics& diagnostics) {
  auto replay = open_profile_replay(options.input, options.symbols, diagnostics, "Converting");
  if (!replay) return tl::unexpected(replay.error());
  ProfileReplay& r = **replay;
  return stream_document(r.session, options.speedscope_path, options.force, [&](OutputStream& out) {
    return std::make_unique<output::SpeedscopeProfile>(r.session, r.symbols, out, options.input);
  });
}

Result<DataConvertSummary> convert_to_firefox(const DataConvertOptions& options, Diagnostics& diagnostics) {
  auto replay = open_profile_replay(options.input, options.symbols, diagnostics, "Converting");
  if (!replay) return tl::unexpected(replay.error());
  ProfileReplay& r = **replay;
  return stream_document(r.session, options.firefox_path, options.force, [&](OutputStream& out) {
    return std::make_unique<output::FirefoxProfile>(r.session, r.symbols, out);
  });
}

}  // namespace sonde::pipeline
