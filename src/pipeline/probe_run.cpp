#include "pipeline/probe_run.hpp"

#include <dwarf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/probe_events.hpp"
#include "output/probe/probe_text.hpp"
#include "pipeline/sdt_cache.hpp"
#include "probe/event_names.hpp"
#include "probe/function_sites.hpp"
#include "probe/kernel_probe.hpp"
#include "probe/line_listing.hpp"
#include "probe/name_filter.hpp"
#include "probe/probe_binary.hpp"
#include "probe/probe_resolver.hpp"
#include "probe/probe_spec.hpp"
#include "probe/sdt_notes.hpp"
#include "symbols/buildid_cache.hpp"
#include "symbols/demangle.hpp"
#include "symbols/kernel_symbols.hpp"

namespace sonde::pipeline {

namespace {

// perf's warning, in one line: what a probe on an IFUNC catches, and what to do instead.
std::string ifunc_warning(const std::string& function) {
  return fmt::format(
      "{} is a GNU indirect function: a probe there fires when the dynamic linker picks its implementation; "
      "probe the implementation used at run time instead",
      function);
}

Error with_errno(Error error, int err) {
  error.sys_errno = err;
  return error;
}

// perf's text for where a probe is: the point rebuilt, not echoed (no lazy pattern).
std::string where_text(const probe::ProbeSpec& spec) {
  const probe::ProbePoint& point = spec.point;
  if (point.address) return fmt::format("{:#x}", *point.address);
  std::string text = point.function;
  if (point.offset) text += fmt::format("+{}", point.offset);
  if (point.line && !point.function.empty()) text += fmt::format(":{}", point.line);
  if (point.retprobe) text += "%return";
  if (!point.file.empty()) {
    text += "@" + output::short_source_path(point.file);
    if (point.function.empty() && point.line) text += fmt::format(":{}", point.line);
  }
  return text;
}

// The argument as perf shows it after "with": members without a name get "LAST=EXPR".
std::string arg_text(const probe::ProbeArg& arg) {
  if (!arg.fields.empty() && arg.text.find('=') == std::string::npos) return arg.name + "=" + arg.text;
  return arg.text;
}

std::string base_name(const probe::ProbeSpec& spec, const probe::ResolvedProbe& probe) {
  if (!spec.event.empty()) return spec.event;
  const probe::ProbePoint& point = spec.point;
  if (point.address) return fmt::format("abs_{:x}", *point.address);
  if (!point.function.empty() && !probe::is_glob_pattern(point.function)) {
    std::string name = probe::base_event_name(point.function);
    if (point.line) name += fmt::format("_L{}", point.line);
    return name;
  }
  return probe::base_event_name(probe.function);
}

std::set<std::string> taken_names() {
  std::set<std::string> taken;
  for (auto kind : {kernel::ProbeKind::uprobe, kernel::ProbeKind::kprobe}) {
    if (!kernel::probe_events_supported(kind)) continue;
    if (auto lines = kernel::read_probe_events(kind))
      for (const auto& line : *lines) taken.insert(line.group + ":" + line.event);
  }
  return taken;
}

struct Planned {
  kernel::ProbeEventLine line;
  bool first_of_event = true;  // later probes of a definition join the first's event
};

Result<void> plan_sdt(probe::ProbeBinary& binary, const probe::ProbeSpec& spec, probe::EventNamer& namer,
                      std::vector<Planned>& planned, std::vector<output::ProbeEventText>& shown) {
  auto notes = probe::read_sdt_notes(binary.image().elf());
  if (!notes) return tl::unexpected(notes.error());
  std::map<std::string, std::string>
      named;  // event -> name used (a marker in several places joins one event)
  for (const probe::SdtNote& note : *notes) {
    if (probe::sdt_event_group(note) != spec.group || !glob_match(spec.event, note.name)) continue;
    auto offset = probe::sdt_probe_file_offset(binary.image().elf(), note);
    if (!offset)
      return failf("the SDT marker {}:{} is outside {}'s loaded segments", spec.group, note.name,
                   binary.path());
    auto args = probe::sdt_fetchargs(note);
    if (!args) return tl::unexpected(args.error());
    kernel::ProbeEventLine line;
    line.group = spec.group;
    auto known = named.find(note.name);
    bool first = known == named.end();
    if (first) {
      auto name = namer.claim(spec.group, note.name, false, false);
      if (!name) return tl::unexpected(with_errno(name.error(), EEXIST));
      known = named.emplace(note.name, *name).first;
    }
    line.event = known->second;
    line.place = fmt::format("{}:{:#x}", binary.path(), *offset);
    if (note.semaphore) {
      auto semaphore = probe::semaphore_file_offset(binary.image().elf(), note);
      if (!semaphore)
        return failf("the semaphore of {}:{} is outside {}'s segments", spec.group, note.name, binary.path());
      line.place += fmt::format("({:#x})", *semaphore);
    }
    line.fetchargs = *args;
    planned.push_back({line, first});
    if (first) shown.push_back({line.group, line.event, "%" + note.name, binary.path(), {}});
  }
  if (planned.empty())
    return fail_with(ENOENT, fmt::format("no SDT marker {}:{} in {} (see 'sonde probe -x {} -F')", spec.group,
                                         spec.event, binary.path(), binary.path()));
  return {};
}

// A definition resolved in `binary` (a user binary, or a vmlinux for a kernel probe), its
// events named and its lines planned: "PATH:0xOFFSET" for a uprobe, "SYMBOL+OFFSET" for a kprobe.
Result<void> plan_resolved(probe::ProbeBinary& binary, const probe::ProbeSpec& spec,
                           const ProbeRunOptions& options, bool kernel_probe, probe::EventNamer& namer,
                           std::vector<Planned>& planned, std::vector<output::ProbeEventText>& shown,
                           std::vector<std::string>& warnings) {
  auto probes = probe::resolve_user_probe(binary, spec, {options.inlines, options.max_probes, kernel_probe});
  if (!probes) return tl::unexpected(with_errno(probes.error(), ENOENT));
  for (const probe::ResolvedProbe& probe : *probes)
    if (probe.offset == 0 && binary.is_gnu_ifunc(probe.vaddr))
      warnings.push_back(ifunc_warning(probe.function));
  std::string group = !spec.group.empty() ? spec.group
                      : kernel_probe      ? "probe"
                                          : probe::default_user_group(binary.path());
  std::map<std::string, std::string> names;  // base -> event: a definition's sites of one base share it
  std::vector<std::string> args;
  for (const probe::ProbeArg& arg : spec.args) args.push_back(arg_text(arg));
  bool allow_suffix = options.force;
  for (const probe::ResolvedProbe& probe : *probes) {
    kernel::ProbeEventLine line;
    if (kernel_probe) {
      const symbols::RawSymbol* symbol = binary.symbol_at(probe.vaddr);
      if (!symbol)
        return fail_with(ENOENT, fmt::format("no symbol of {} holds {:#x}", binary.path(), probe.vaddr));
      line.kind = kernel::ProbeKind::kprobe;
      line.place = fmt::format("{}+{}", symbol->name, probe.vaddr - symbol->start);
    } else {
      line.place = fmt::format("{}:{:#x}", binary.path(), probe.file_offset);
    }
    std::string base = base_name(spec, probe);
    auto known = names.find(base);
    bool first = known == names.end();
    if (first) {
      auto name = namer.claim(group, base, probe.retprobe, allow_suffix);
      if (!name) return tl::unexpected(with_errno(name.error(), EEXIST));
      known = names.emplace(base, *name).first;
      allow_suffix = true;
    }
    line.retprobe = probe.retprobe;
    line.group = group;
    line.event = known->second;
    for (const probe::FetchArg& arg : probe.args) line.fetchargs.push_back(arg.text());
    planned.push_back({line, first});
    if (first)
      shown.push_back({group, line.event, where_text(spec), kernel_probe ? "" : binary.path(), args});
  }
  return {};
}

// Writes the planned lines (or, with -n, nothing); on a refusal removes the events it made.
Result<void> write_planned(const std::vector<Planned>& planned) {
  std::vector<const Planned*> written;
  for (const Planned& plan : planned) {
    if (auto added = kernel::add_probe_event(plan.line); !added) {
      for (auto it = written.rbegin(); it != written.rend(); ++it)
        if ((*it)->first_of_event)
          (void)kernel::remove_probe_event((*it)->line.kind, (*it)->line.group, (*it)->line.event);
      return tl::unexpected(with_errno(added.error(), EINVAL));
    }
    written.push_back(&plan);
  }
  return {};
}

// -k: the vmlinux's DWARF places a kernel probe and its arguments, as for a user binary.
Result<void> plan_vmlinux(const probe::ProbeSpec& spec, const ProbeRunOptions& options,
                          probe::EventNamer& namer, std::vector<Planned>& planned,
                          std::vector<output::ProbeEventText>& shown, std::vector<std::string>& warnings) {
  auto vmlinux = probe::ProbeBinary::open(options.symbols.vmlinux, options.symbols);
  if (!vmlinux) return tl::unexpected(with_errno(vmlinux.error(), ENOENT));
  if (!(*vmlinux)->dwarf())
    return fail_with(ENOENT,
                     fmt::format("{} has no DWARF: build the kernel with CONFIG_DEBUG_INFO, or drop -k to "
                                 "take arguments from the kernel's BTF",
                                 options.symbols.vmlinux));
  return plan_resolved(**vmlinux, spec, options, /*kernel_probe=*/true, namer, planned, shown, warnings);
}

Result<ProbeAddOutcome> add_kernel_probes(const std::vector<probe::ProbeSpec>& specs,
                                          const ProbeRunOptions& options) {
  probe::EventNamer namer(taken_names());
  ProbeAddOutcome outcome;
  std::vector<Planned> planned;
  std::vector<output::ProbeEventText> shown;
  for (const probe::ProbeSpec& spec : specs) {
    if (spec.sdt) {
      // Without -x, the markers the build-id cache knows (buildid-cache --add BINARY).
      size_t before = planned.size();
      for (const CachedSdtEvent& event : cached_sdt_events(symbols::buildid_cache_dir())) {
        if (event.group != spec.group || !glob_match(spec.event, event.event)) continue;
        auto line = kernel::parse_probe_event_line(event.definition, kernel::ProbeKind::uprobe);
        if (!line) continue;
        auto name = namer.claim(line->group, line->event, false, false);
        if (!name) return tl::unexpected(with_errno(name.error(), EEXIST));
        planned.push_back({*line, true});
        shown.push_back(
            {line->group, line->event, "%" + line->event, line->place.substr(0, line->place.rfind(':')), {}});
      }
      if (planned.size() == before)
        return fail_with(ENOENT,
                         fmt::format("no SDT marker {}:{} in the build-id cache; give its binary with -x, or "
                                     "add it with 'sonde buildid-cache --add BINARY'",
                                     spec.group, spec.event));
      continue;
    }
    if (!options.symbols.vmlinux.empty()) {
      // -k: the vmlinux's DWARF places the probe and its arguments, as for a user binary.
      if (auto placed = plan_vmlinux(spec, options, namer, planned, shown, outcome.warnings); !placed)
        return tl::unexpected(placed.error());
      continue;
    }
    auto resolved = probe::resolve_kernel_probe(spec);
    if (!resolved)
      return tl::unexpected(resolved.error().sys_errno ? resolved.error()
                                                       : with_errno(resolved.error(), ENOENT));
    std::string group = spec.group.empty() ? "probe" : spec.group;
    std::string base = spec.event.empty() ? probe::base_event_name(resolved->function) : spec.event;
    auto name = namer.claim(group, base, spec.point.retprobe, options.force);
    if (!name) return tl::unexpected(with_errno(name.error(), EEXIST));
    resolved->line.group = group;
    resolved->line.event = *name;
    planned.push_back({resolved->line, true});
    std::vector<std::string> args;
    for (const probe::ProbeArg& arg : spec.args) args.push_back(arg_text(arg));
    shown.push_back({group, *name, where_text(spec), "", args});
  }
  if (options.definitions_only) {
    for (const Planned& plan : planned)
      outcome.definitions += kernel::probe_event_definition(plan.line) + "\n";
    return outcome;
  }
  if (!options.dry_run) {
    bool kprobes = std::any_of(planned.begin(), planned.end(), [](const Planned& plan) {
      return plan.line.kind == kernel::ProbeKind::kprobe;
    });
    if (kprobes && !kernel::probe_events_supported(kernel::ProbeKind::kprobe))
      return fail_with(
          EOPNOTSUPP,
          "this kernel has no kprobe_events (built without CONFIG_KPROBE_EVENTS): kernel probes cannot be "
          "added here; user probes with -x BINARY work");
    if (auto written = write_planned(planned); !written) return tl::unexpected(written.error());
  }
  if (options.keep_definitions)
    for (const Planned& plan : planned)
      outcome.definitions += kernel::probe_event_definition(plan.line) + "\n";
  outcome.added_text = output::added_events_text(shown);
  return outcome;
}

}  // namespace

Result<std::string> binary_in_target(const std::string& pid_text, const std::string& binary) {
  auto pid = parse_uint(pid_text, 10);
  if (!pid || !path_exists(fmt::format("/proc/{}", *pid)))
    return fail_with(ESRCH, fmt::format("--target {}: no such process", pid_text));
  if (binary.empty() || !binary.starts_with('/')) return binary;
  return fmt::format("/proc/{}/root{}", *pid, binary);
}

Result<ProbeAddOutcome> add_probes(const std::vector<std::string>& definitions,
                                   const ProbeRunOptions& options) {
  std::vector<probe::ProbeSpec> specs;
  for (const std::string& definition : definitions) {
    auto spec = probe::parse_probe_spec(definition);
    if (!spec) return tl::unexpected(with_errno(spec.error(), EINVAL));
    specs.push_back(std::move(*spec));
  }
  if (options.binary.empty()) return add_kernel_probes(specs, options);
  auto binary = probe::ProbeBinary::open(options.binary, options.symbols);
  if (!binary) return tl::unexpected(with_errno(binary.error(), ENOENT));
  probe::EventNamer namer(taken_names());
  ProbeAddOutcome outcome;
  std::vector<Planned> planned;
  std::vector<output::ProbeEventText> shown;
  for (const probe::ProbeSpec& spec : specs) {
    Result<void> done =
        spec.sdt ? plan_sdt(**binary, spec, namer, planned, shown)
                 : plan_resolved(**binary, spec, options, false, namer, planned, shown, outcome.warnings);
    if (!done) return tl::unexpected(done.error());
  }
  if (options.definitions_only) {
    for (const Planned& plan : planned)
      outcome.definitions += kernel::probe_event_definition(plan.line) + "\n";
    return outcome;
  }
  if (!options.dry_run)
    if (auto written = write_planned(planned); !written) return tl::unexpected(written.error());
  if (options.keep_definitions)
    for (const Planned& plan : planned)
      outcome.definitions += kernel::probe_event_definition(plan.line) + "\n";
  outcome.added_text = output::added_events_text(shown);
  return outcome;
}

namespace {

// What -l says of a uprobe: the function and line holding its address, from the binary's DWARF.
std::string listed_where(const kernel::ProbeEventLine& line, const symbols::SymbolizerOptions& symbols,
                         std::map<std::string, std::unique_ptr<probe::ProbeBinary>>& binaries,
                         std::string* binary_path) {
  size_t colon = line.place.rfind(':');
  if (colon == std::string::npos) return line.place;
  std::string path = line.place.substr(0, colon);
  *binary_path = path;
  auto offset =
      parse_uint(std::string_view(line.place).substr(colon + 1, line.place.find('(', colon) - colon - 1), 16);
  auto& binary = binaries[path];
  if (!binary) {
    if (auto opened = probe::ProbeBinary::open(path, symbols)) binary = std::move(*opened);
  }
  std::string fallback = fmt::format("{:#x}", offset.value_or(0));
  if (!binary || !offset) return fallback;
  auto vaddr = binary->vaddr_of_offset(*offset);
  if (!vaddr) return fallback;
  std::string suffix = line.retprobe ? "%return" : "";
  if (Dwarf* dwarf = binary->dwarf()) {
    Dwarf_Die cu;
    auto function = probe::subprogram_at(dwarf, *vaddr);
    if (function && dwarf_addrdie(dwarf, *vaddr, &cu)) {
      Dwarf_Attribute attribute;
      const char* name = nullptr;
      if (dwarf_attr_integrate(&*function, DW_AT_linkage_name, &attribute))
        name = dwarf_formstring(&attribute);
      if (!name && dwarf_attr_integrate(&*function, DW_AT_name, &attribute))
        name = dwarf_formstring(&attribute);
      if (name) {
        Dwarf_Addr entry = 0;
        dwarf_entrypc(&*function, &entry);
        std::string text = name;
        int decl_line = 0, row_line = 0;
        if (*vaddr != entry) {
          Dwarf_Line* row = dwarf_getsrc_die(&cu, *vaddr);
          if (row && dwarf_lineno(row, &row_line) == 0 && dwarf_decl_line(&*function, &decl_line) == 0 &&
              row_line >= decl_line)
            text += fmt::format(":{}", row_line - decl_line);
          else
            text += fmt::format("+{}", *vaddr - entry);
        }
        text += suffix;
        if (const char* file = dwarf_decl_file(&*function)) text += "@" + output::short_source_path(file);
        return text;
      }
    }
  }
  if (const symbols::RawSymbol* symbol = binary->symbol_at(*vaddr)) {
    std::string text = symbol->name;
    if (*vaddr != symbol->start) text += fmt::format("+{}", *vaddr - symbol->start);
    return text + suffix;
  }
  return fallback;
}

bool event_matches(const std::string& filter, const kernel::ProbeEventLine& line) {
  if (filter.empty()) return true;
  if (filter.find(':') != std::string::npos) return glob_match(filter, line.group + ":" + line.event);
  return glob_match(filter, line.event) || glob_match(filter, line.group + ":" + line.event);
}

}  // namespace

Result<std::string> list_probes(const std::string& filter, const symbols::SymbolizerOptions& symbols) {
  std::vector<kernel::ProbeEventLine> lines;
  for (auto kind : {kernel::ProbeKind::kprobe, kernel::ProbeKind::uprobe}) {
    if (!kernel::probe_events_supported(kind)) continue;
    auto read = kernel::read_probe_events(kind);
    if (!read) return tl::unexpected(read.error());
    for (auto& line : *read)
      if (event_matches(filter, line)) lines.push_back(std::move(line));
  }
  std::stable_sort(
      lines.begin(), lines.end(),
      [](const kernel::ProbeEventLine& a, const kernel::ProbeEventLine& b) { return a.text < b.text; });
  std::map<std::string, std::unique_ptr<probe::ProbeBinary>> binaries;
  std::string text;
  for (const kernel::ProbeEventLine& line : lines) {
    output::ProbeEventText shown;
    shown.group = line.group;
    shown.event = line.event;
    shown.where = listed_where(line, symbols, binaries, &shown.binary);
    for (const std::string& arg : line.fetchargs) shown.args.push_back(arg.substr(0, arg.find('=')));
    text += output::probe_event_line(shown) + "\n";
  }
  return text;
}

Result<std::string> delete_probes(const std::string& pattern) {
  std::string text;
  std::set<std::pair<std::string, std::string>> removed;
  for (auto kind : {kernel::ProbeKind::kprobe, kernel::ProbeKind::uprobe}) {
    if (!kernel::probe_events_supported(kind)) continue;
    auto lines = kernel::read_probe_events(kind);
    if (!lines) return tl::unexpected(lines.error());
    std::set<std::pair<std::string, std::string>> events;
    for (const auto& line : *lines)
      if (event_matches(pattern, line)) events.insert({line.group, line.event});
    for (const auto& [group, event] : events) {
      if (auto done = kernel::remove_probe_event(kind, group, event); !done)
        return tl::unexpected(
            done.error().with_context(fmt::format("removing {}:{} (is it being recorded?)", group, event)));
      removed.insert({group, event});
    }
  }
  if (removed.empty()) return fail_with(ENOENT, fmt::format("\"{}\" does not hit any event", pattern));
  for (const auto& [group, event] : removed) text += fmt::format("Removed event: {}:{}\n", group, event);
  return text;
}

Result<std::string> probe_variables(const std::string& definition, const ProbeRunOptions& options,
                                    bool externs, Diagnostics& diagnostics) {
  auto spec = probe::parse_probe_spec(definition);
  if (!spec) return tl::unexpected(with_errno(spec.error(), EINVAL));
  if (options.binary.empty())
    return fail_with(EOPNOTSUPP,
                     "-V on kernel functions needs a vmlinux with DWARF (-k), which this machine lacks");
  auto binary = probe::ProbeBinary::open(options.binary, options.symbols);
  if (!binary) return tl::unexpected(with_errno(binary.error(), ENOENT));
  if (!(*binary)->dwarf()) return fail_with(ENOENT, (*binary)->missing_debug_info_hint());
  probe::ProbeSpec bare = *spec;
  bare.args.clear();
  auto probes = probe::resolve_user_probe(**binary, bare, {options.inlines, options.max_probes});
  if (!probes) return tl::unexpected(with_errno(probes.error(), ENOENT));
  for (const probe::ResolvedProbe& probe : *probes)
    if (probe.offset == 0 && (*binary)->is_gnu_ifunc(probe.vaddr))
      diagnostics.warning(ifunc_warning(probe.function));
  std::vector<output::VariablesAtProbe> places;
  for (const probe::ResolvedProbe& resolved : *probes) {
    output::VariablesAtProbe place;
    Dwarf* dwarf = (*binary)->dwarf();
    probe::FetchScope scope;
    scope.binary = binary->get();
    scope.pc = resolved.vaddr;
    scope.retprobe = resolved.retprobe;
    std::string holder = resolved.function;
    uint64_t holder_entry = resolved.vaddr - resolved.offset;
    if (resolved.scope && dwarf_offdie(dwarf, resolved.scope, &scope.function)) scope.has_function = true;
    // Named after the out-of-line function holding the address, also inside an inline instance.
    std::optional<Dwarf_Die> holder_die;
    if (scope.has_function && dwarf_tag(&scope.function) == DW_TAG_subprogram)
      holder_die = scope.function;
    else
      holder_die = probe::subprogram_at(dwarf, resolved.vaddr);
    if (holder_die) {
      Dwarf_Attribute attribute;
      if (dwarf_attr_integrate(&*holder_die, DW_AT_name, &attribute))
        if (const char* name = dwarf_formstring(&attribute)) holder = name;
      Dwarf_Addr entry = 0;
      if (dwarf_entrypc(&*holder_die, &entry) == 0) holder_entry = entry;
    }
    place.location = fmt::format("{}+{}", holder, resolved.vaddr - holder_entry);
    for (const probe::ScopeVariable& variable : probe::scope_variables(scope, externs))
      if (variable.has_location || variable.external)
        place.variables.push_back({variable.c_type, variable.name});
    std::sort(place.variables.begin(), place.variables.end(), [](const auto& a, const auto& b) {
      return a.first + '\t' + a.second < b.first + '\t' + b.second;
    });
    place.variables.erase(std::unique(place.variables.begin(), place.variables.end()), place.variables.end());
    places.push_back(std::move(place));
  }
  return output::variables_text(definition, places);
}

Result<std::string> probe_source_lines(const std::string& range_text, const ProbeRunOptions& options,
                                       const std::string& source_dir) {
  auto range = probe::parse_line_range(range_text);
  if (!range) return tl::unexpected(with_errno(range.error(), EINVAL));
  if (options.binary.empty())
    return fail_with(EOPNOTSUPP,
                     "-L on kernel functions needs a vmlinux with DWARF (-k), which this machine lacks");
  auto binary = probe::ProbeBinary::open(options.binary, options.symbols);
  if (!binary) return tl::unexpected(with_errno(binary.error(), ENOENT));
  auto listing = probe::list_source_lines(**binary, *range, source_dir);
  if (!listing) return tl::unexpected(listing.error());
  output::SourceListing shown{
      listing->header, {},
      listing->offset, listing->first,
      listing->last,   std::vector<unsigned>(listing->code_lines.begin(), listing->code_lines.end())};
  for (unsigned line = 1; line <= listing->line_count(); ++line) shown.text.push_back(listing->line(line));
  return output::source_listing_text(shown);
}

Result<std::string> probe_functions(const std::vector<std::string>& filters, const ProbeRunOptions& options,
                                    bool demangle) {
  probe::NameFilter filter;
  if (filters.empty()) {
    auto parsed = probe::NameFilter::parse("!_* & !*@plt");
    if (!parsed) return tl::unexpected(parsed.error());
    filter = *parsed;
  }
  for (const std::string& text : filters) {
    auto parsed = probe::NameFilter::parse(text);
    if (!parsed) return tl::unexpected(with_errno(parsed.error(), EINVAL));
    filter.or_with(*parsed);
  }
  std::vector<std::string> names;  // perf lists a name once per symbol: statics repeat
  auto add = [&](std::string name) {
    if (demangle)
      if (auto demangled = symbols::demangle(name)) name = std::move(*demangled);
    if (filter.matches(name)) names.push_back(std::move(name));
  };
  if (options.binary.empty()) {
    // The kernel's functions, from kallsyms (perf lists them without kprobes too).
    // Every text symbol of the kernel image, once per symbol as perf lists them.
    auto kallsyms = read_file(options.symbols.kallsyms);
    if (!kallsyms) return tl::unexpected(with_errno(kallsyms.error(), ENOENT));
    std::string_view rest = *kallsyms;
    while (!rest.empty()) {
      size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      // "ffffffff81000000 T _text", modules' lines end in "\t[module]"
      if (line.size() < 20 || line.find('\t') != std::string_view::npos) continue;
      char type = line[17];
      if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
      add(std::string(line.substr(19)));
    }
  } else {
    auto binary = probe::ProbeBinary::open(options.binary, options.symbols);
    if (!binary) return tl::unexpected(with_errno(binary.error(), ENOENT));
    const symbols::ElfImage& image = (*binary)->symbol_image();
    for (std::string& name : image.defined_symbol_names(!image.has_symtab())) add(std::move(name));
    for (const symbols::RawSymbol& symbol : (*binary)->image().plt_symbols()) add(symbol.name + "@plt");
  }
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) text += name + "\n";
  return text;
}

}  // namespace sonde::pipeline
