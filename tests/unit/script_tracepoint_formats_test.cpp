// The TRACING_DATA blob into libtraceevent: a hand-made blob in perf's 0.6 layout, one event.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "session/tracepoint_formats.hpp"
#include "tracing_data_blob.hpp"

using namespace sonde;
using sonde::test::bytes_of;

namespace {

const char* kFormat =
    "name: demo_event\n"
    "ID: 42\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:char name[8];\toffset:12;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"value=%d name=%s\", REC->value, REC->name\n";

std::string blob(bool cut_after_events) { return test::tracing_data_blob("demo", kFormat, cut_after_events); }

}  // namespace

TEST(TracepointFormats, FormatsAPayloadByItsPrintFmt) {
  for (bool cut : {false, true}) {
    std::string data = blob(cut);
    auto formats = session::TracepointFormats::parse(bytes_of(data));
    ASSERT_TRUE(formats) << formats.error().message;
    ASSERT_NE(formats->find(42), nullptr);
    EXPECT_EQ(formats->find(43), nullptr);
    uint8_t raw[20] = {};
    uint16_t type = 42;
    int32_t value = -7;
    std::memcpy(raw, &type, 2);
    std::memcpy(raw + 8, &value, 4);
    std::memcpy(raw + 12, "sonde", 6);
    std::string text;
    formats->append_info(0, sonde::Bytes(raw, sizeof raw), text);
    EXPECT_EQ(text, "value=-7 name=sonde");
  }
}

TEST(TracepointFormats, RejectsWhatIsNotTracingData) {
  std::string junk = "not tracing data at all";
  EXPECT_FALSE(session::TracepointFormats::parse(bytes_of(junk)));
  std::string data = blob(false);
  EXPECT_FALSE(session::TracepointFormats::parse(bytes_of(data.substr(0, 40))));
}
