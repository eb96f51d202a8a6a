// Key values read from tracepoint payloads through the formats of a TRACING_DATA blob (perf's
// 0.6 layout, made by hand): numbers sign-extended, strings and dynamic strings by content.
#include "analysis/heatmap/tracepoint_field.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "session/tracepoint_formats.hpp"
#include "tracing_data_blob.hpp"

using namespace sonde;
using sonde::test::bytes_of;

namespace {

const char* kFormat =
    "name: keyed\n"
    "ID: 77\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int delta;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:char name[8];\toffset:12;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long long sector;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:__data_loc char[] cmd;\toffset:32;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"%d %s %llu %s\", REC->delta, REC->name, REC->sector, __get_str(cmd)\n";

std::string blob() { return test::tracing_data_blob("demo", kFormat); }

// A payload: delta, name (NUL then `tail` garbage), sector, cmd as __data_loc at offset 40.
std::string payload(int32_t delta, const char* name, char tail, uint64_t sector, const std::string& cmd) {
  std::string out(40, '\0');
  uint16_t type = 77;  // common_type
  std::memcpy(out.data(), &type, 2);
  std::memcpy(out.data() + 8, &delta, 4);
  std::memset(out.data() + 12, tail, 8);
  std::memcpy(out.data() + 12, name, std::strlen(name) + 1);
  std::memcpy(out.data() + 24, &sector, 8);
  uint32_t loc = static_cast<uint32_t>(cmd.size() + 1) << 16 | 40u;
  std::memcpy(out.data() + 32, &loc, 4);
  out += cmd;
  out += '\0';
  return out;
}

}  // namespace

TEST(TracepointField, KeyValuesFromThePayload) {
  std::string data = blob();
  auto formats = session::TracepointFormats::parse(bytes_of(data));
  ASSERT_TRUE(formats) << formats.error().message;
  tep_event* event = formats->find(77);
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(analysis::tracepoint_field_names(event), "delta, name, sector, cmd");
  EXPECT_EQ(analysis::find_tracepoint_field(event, "nosuch"), nullptr);
  ASSERT_NE(analysis::find_tracepoint_field(event, "common_pid"), nullptr);
  auto* delta = analysis::find_tracepoint_field(event, "delta");
  auto* name = analysis::find_tracepoint_field(event, "name");
  auto* sector = analysis::find_tracepoint_field(event, "sector");
  auto* cmd = analysis::find_tracepoint_field(event, "cmd");
  ASSERT_TRUE(delta && name && sector && cmd);

  std::string a = payload(-1, "dd", 'x', 123456789012ull, "write"), b = payload(-1, "dd", 'y', 7, "write"),
              c = payload(5, "cp", 'x', 7, "read");
  EXPECT_EQ(analysis::tracepoint_key_value(*delta, bytes_of(a)), UINT64_MAX);  // sign-extended
  EXPECT_EQ(analysis::tracepoint_key_value(*delta, bytes_of(c)), 5u);
  EXPECT_EQ(analysis::tracepoint_key_value(*sector, bytes_of(a)), 123456789012ull);
  // Strings are equal up to their NUL, whatever follows it.
  EXPECT_EQ(analysis::tracepoint_key_value(*name, bytes_of(a)),
            analysis::tracepoint_key_value(*name, bytes_of(b)));
  EXPECT_NE(analysis::tracepoint_key_value(*name, bytes_of(a)),
            analysis::tracepoint_key_value(*name, bytes_of(c)));
  EXPECT_EQ(analysis::tracepoint_key_value(*cmd, bytes_of(a)),
            analysis::tracepoint_key_value(*cmd, bytes_of(b)));
  EXPECT_NE(analysis::tracepoint_key_value(*cmd, bytes_of(a)),
            analysis::tracepoint_key_value(*cmd, bytes_of(c)));
  // A payload too short for a field, or a __data_loc pointing past its end, has no value.
  EXPECT_EQ(analysis::tracepoint_key_value(*sector, bytes_of(a.substr(0, 30))), std::nullopt);
  EXPECT_EQ(analysis::tracepoint_key_value(*cmd, bytes_of(a.substr(0, 42))), std::nullopt);
}
