#include "output/script/script_fields.hpp"

#include <fmt/format.h>

#include "base/strings.hpp"
#include "session/session.hpp"

namespace sonde::output {

namespace {

struct FieldName {
  std::string_view name;
  ScriptField field;
};

// perf 6.1's field names, in its order.
constexpr FieldName kFieldNames[] = {
    {"comm", kFieldComm},
    {"tid", kFieldTid},
    {"pid", kFieldPid},
    {"time", kFieldTime},
    {"cpu", kFieldCpu},
    {"event", kFieldEvent},
    {"trace", kFieldTrace},
    {"ip", kFieldIp},
    {"sym", kFieldSym},
    {"dso", kFieldDso},
    {"addr", kFieldAddr},
    {"symoff", kFieldSymoff},
    {"srcline", kFieldSrcline},
    {"period", kFieldPeriod},
    {"iregs", kFieldIregs},
    {"uregs", kFieldUregs},
    {"brstack", kFieldBrstack},
    {"brstacksym", kFieldBrstacksym},
    {"data_src", kFieldDataSrc},
    {"weight", kFieldWeight},
    {"bpf-output", kFieldBpfOutput},
    {"callindent", kFieldCallindent},
    {"insn", kFieldInsn},
    {"insnlen", kFieldInsnlen},
    {"synth", kFieldSynth},
    {"brstackinsn", kFieldBrstackinsn},
    {"brstackoff", kFieldBrstackoff},
    {"phys_addr", kFieldPhysAddr},
    {"metric", kFieldMetric},
    {"misc", kFieldMisc},
    {"srccode", kFieldSrccode},
    {"ipc", kFieldIpc},
    {"tod", kFieldTod},
    {"data_page_size", kFieldDataPageSize},
    {"code_page_size", kFieldCodePageSize},
    {"ins_lat", kFieldInsLat},
};

std::string_view field_name(uint64_t field) {
  for (const auto& entry : kFieldNames)
    if (entry.field == field) return entry.name;
  return "";
}

constexpr uint64_t kCommon = kFieldComm | kFieldTid | kFieldCpu | kFieldTime | kFieldEvent;
constexpr uint64_t kCode = kFieldIp | kFieldSym | kFieldSymoff | kFieldDso;

enum class Change { none, set, add, remove };

}  // namespace

OutputType output_type(uint32_t attr_type) {
  switch (attr_type) {
    case PERF_TYPE_HARDWARE:
      return OutputType::hardware;
    case PERF_TYPE_SOFTWARE:
      return OutputType::software;
    case PERF_TYPE_TRACEPOINT:
      return OutputType::tracepoint;
    case PERF_TYPE_HW_CACHE:
      return OutputType::hw_cache;
    case PERF_TYPE_RAW:
      return OutputType::raw;
    case PERF_TYPE_BREAKPOINT:
      return OutputType::breakpoint;
    case 0x80000000u:
      return OutputType::synth;  // perf's PERF_TYPE_SYNTH
    default:
      return OutputType::other;
  }
}

std::string_view output_type_name(OutputType type) {
  switch (type) {
    case OutputType::hardware:
      return "hardware";
    case OutputType::software:
      return "software";
    case OutputType::tracepoint:
      return "tracepoint";
    case OutputType::hw_cache:
      return "hardware-cache";
    case OutputType::raw:
      return "raw";
    case OutputType::breakpoint:
      return "breakpoint";
    case OutputType::synth:
      return "synth";
    default:
      return "other";
  }
}

ScriptFields default_script_fields() {
  ScriptFields out;
  auto set = [&](OutputType type, uint64_t fields, uint64_t invalid) {
    out.types[static_cast<size_t>(type)].fields = fields;
    out.types[static_cast<size_t>(type)].invalid = invalid;
  };
  set(OutputType::hardware, kCommon | kCode | kFieldPeriod, kFieldTrace | kFieldBpfOutput);
  set(OutputType::hw_cache, kCommon | kCode | kFieldPeriod, kFieldTrace | kFieldBpfOutput);
  set(OutputType::software, kCommon | kCode | kFieldPeriod | kFieldBpfOutput, kFieldTrace);
  set(OutputType::tracepoint, kCommon | kFieldTrace, kFieldBpfOutput);
  set(OutputType::raw, kCommon | kCode | kFieldPeriod | kFieldAddr | kFieldDataSrc | kFieldWeight,
      kFieldTrace | kFieldBpfOutput);
  set(OutputType::breakpoint, kCommon | kCode | kFieldPeriod, kFieldTrace | kFieldBpfOutput);
  set(OutputType::synth, kCommon | kFieldIp | kFieldSym | kFieldDso | kFieldSynth,
      kFieldTrace | kFieldBpfOutput);
  set(OutputType::other, kCommon | kCode | kFieldPeriod, kFieldTrace | kFieldBpfOutput);
  return out;
}

uint64_t unsupported_fields() {
  return kFieldBrstack | kFieldBrstacksym | kFieldBrstackinsn | kFieldBrstackoff | kFieldInsn |
         kFieldInsnlen | kFieldSynth | kFieldMetric | kFieldSrccode | kFieldIpc | kFieldBpfOutput;
}

Result<void> apply_field_spec(ScriptFields& fields, std::string_view spec,
                              std::vector<std::string>& warnings) {
  int type = -1;
  std::string_view list = spec;
  if (size_t colon = spec.find(':'); colon != std::string_view::npos) {
    std::string_view name = spec.substr(0, colon);
    list = spec.substr(colon + 1);
    static constexpr std::pair<std::string_view, OutputType> kTypes[] = {
        {"hw", OutputType::hardware}, {"sw", OutputType::software},      {"trace", OutputType::tracepoint},
        {"raw", OutputType::raw},     {"break", OutputType::breakpoint}, {"synth", OutputType::synth}};
    for (const auto& [type_name, value] : kTypes)
      if (name == type_name) type = static_cast<int>(value);
    if (type < 0)
      return fail_usage(
          fmt::format("invalid event type '{}' in -F; use hw, sw, trace, raw, break or synth", name));
    TypeFields& typed = fields.types[static_cast<size_t>(type)];
    if (list.find_first_of("+-") == std::string_view::npos) {
      typed.fields = 0;
      typed.user_set = true;
      typed.wildcard_set = false;
    }
  } else {
    if (spec.empty()) return fail_usage("-F cannot set no fields for every event type");
    if (spec.find_first_of("+-") == std::string_view::npos) {
      for (TypeFields& typed : fields.types) {
        typed.fields = 0;
        typed.user_set = true;
        typed.wildcard_set = true;
      }
    }
  }

  Change change = Change::none;
  for (const std::string& token : split(list, ',')) {
    std::string_view name = token;
    if (name.empty()) continue;
    Change next = name[0] == '+' ? Change::add : name[0] == '-' ? Change::remove : Change::set;
    if ((next == Change::set && change != Change::none && change != Change::set) ||
        (next != Change::set && change == Change::set))
      return fail_usage("-F cannot mix +field/-field with a list of fields");
    change = next;
    if (next != Change::set) name.remove_prefix(1);
    if (name == "flags") {
      fields.print_flags = change != Change::remove;
      continue;
    }
    uint64_t field = 0;
    for (const auto& entry : kFieldNames)
      if (entry.name == name) field = entry.field;
    if (field == 0) return fail_usage(fmt::format("invalid field '{}' in -F", name));
    if (field & unsupported_fields())
      return fail_usage(fmt::format("the '{}' field is not supported yet", name));
    if (type < 0) {
      for (size_t t = 0; t < fields.types.size(); ++t) {
        TypeFields& typed = fields.types[t];
        if (typed.invalid & field) {
          warnings.push_back(fmt::format("'{}' not valid for {} events. Ignoring.", name,
                                         output_type_name(static_cast<OutputType>(t))));
          continue;
        }
        if (change == Change::remove) {
          typed.fields &= ~field;
          typed.user_set_fields &= ~field;
        } else {
          typed.fields |= field;
          typed.user_set_fields |= field;
        }
        typed.user_set = true;
        typed.wildcard_set = true;
      }
    } else {
      TypeFields& typed = fields.types[static_cast<size_t>(type)];
      if (typed.invalid & field)
        return fail_usage(fmt::format("'{}' not valid for {} events", name,
                                      output_type_name(static_cast<OutputType>(type))));
      if (change == Change::remove)
        typed.fields &= ~field;
      else
        typed.fields |= field;
      typed.user_set = true;
      typed.wildcard_set = true;
    }
  }
  return {};
}

namespace {

// perf's evsel__do_check_stype: a field the samples cannot fill is dropped from the defaults,
// or is an error when the user named it (unless `allow_user_set`).
Result<void> check_sample_bit(TypeFields& typed, const perfdata::EventAttr& event, uint64_t sample_bit,
                              std::string_view bit_name, uint64_t field, bool allow_user_set = false) {
  if (event.attr.sample_type & sample_bit) return {};
  if (typed.user_set_fields & field) {
    if (allow_user_set) return {};
    return fail(fmt::format("samples for '{}' event do not have {} attribute set; cannot print '{}' field",
                            session::event_name(event), bit_name, field_name(field)));
  }
  typed.fields &= ~field;
  return {};
}

Result<void> check_event(TypeFields& typed, const perfdata::EventAttr& event) {
  uint64_t f = typed.fields;
  uint64_t sample_type = event.attr.sample_type;
  if ((f & kFieldIp)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_IP, "IP", kFieldIp); !r) return r;
  }
  if ((f & kFieldAddr)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_ADDR, "ADDR", kFieldAddr); !r) return r;
  }
  if ((f & kFieldDataSrc)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_DATA_SRC, "DATA_SRC", kFieldDataSrc); !r)
      return r;
  }
  if ((f & kFieldWeight)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT",
                                  kFieldWeight);
        !r)
      return r;
  }
  if ((f & kFieldIregs)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_REGS_INTR, "IREGS", kFieldIregs); !r) return r;
  }
  if ((f & kFieldUregs)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_REGS_USER, "UREGS", kFieldUregs); !r) return r;
  }
  f = typed.fields;
  if ((f & kFieldSym) && !(sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
    return fail("symbols asked for, but the samples have neither IP nor address to turn into symbols");
  if ((f & kFieldSymoff) && !(f & kFieldSym)) return fail("symoff needs the sym field; add sym to -F");
  if ((f & kFieldDso) && !(sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
    return fail("dso asked for, but the samples have no address to convert");
  if ((f & kFieldSrcline) && !(f & kFieldIp)) return fail("srcline needs the ip field; add ip to -F");
  if (f & (kFieldPid | kFieldTid)) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_TID, "TID", kFieldTid | kFieldPid); !r) return r;
  }
  if (typed.fields & kFieldTime) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_TIME, "TIME", kFieldTime); !r) return r;
  }
  if (typed.fields & kFieldCpu) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_CPU, "CPU", kFieldCpu); !r) return r;
  }
  if (typed.fields & kFieldPeriod) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_PERIOD, "PERIOD", kFieldPeriod); !r) return r;
  }
  if (typed.fields & kFieldPhysAddr) {
    if (auto r = check_sample_bit(typed, event, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", kFieldPhysAddr); !r)
      return r;
  }
  return {};
}

}  // namespace

Result<void> fit_fields_to_events(ScriptFields& fields, const std::vector<perfdata::EventAttr>& events,
                                  bool& use_callchain) {
  for (size_t t = 0; t < fields.types.size(); ++t) {
    const perfdata::EventAttr* first = nullptr;
    for (const auto& event : events) {
      if (static_cast<size_t>(output_type(event.attr.type)) == t) {
        first = &event;
        break;
      }
    }
    TypeFields& typed = fields.types[t];
    if (first == nullptr) {
      if (typed.user_set && !typed.wildcard_set)
        return fail(fmt::format("{} events do not exist; remove the matching -F option",
                                output_type_name(static_cast<OutputType>(t))));
      continue;
    }
    if (typed.fields != 0) {
      if (auto r = check_event(typed, *first); !r) return r;
    }
  }
  bool any_callchain = false;
  for (const auto& event : events) any_callchain |= (event.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
  if (!events.empty() && !any_callchain) use_callchain = false;

  TypeFields& tracepoint = fields.types[static_cast<size_t>(OutputType::tracepoint)];
  if (use_callchain && !tracepoint.user_set) {
    for (const auto& event : events) {
      if (event.attr.type == PERF_TYPE_TRACEPOINT && (event.attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
        tracepoint.fields |= kCode;
        break;
      }
    }
  }
  return {};
}

}  // namespace sonde::output
