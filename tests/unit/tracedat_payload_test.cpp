// PayloadPrinter against libtraceevent itself: for print formats it compiles, its text must be
// libtraceevent's, value for value; the rest it must leave to libtraceevent.
#include <gtest/gtest.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <cstring>
#include <string>
#include <vector>

#include "tracedat/payload_printer.hpp"

using sonde::tracedat::PayloadPrinter;

namespace {

constexpr const char* kFields =
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long l;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:short s;\toffset:24;\tsize:2;\tsigned:1;\n"
    "\tfield:unsigned char c;\toffset:26;\tsize:1;\tsigned:0;\n"
    "\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n\n";

class TracedatPayloads : public ::testing::Test {
 protected:
  void SetUp() override {
    tep_ = tep_alloc();
    tep_set_long_size(tep_, 8);
    // Two kernel functions for %pS and %ps.
    char first[] = "first_function", second[] = "second_function";
    tep_register_function(tep_, first, 0xffffffff81000000ull, nullptr);
    tep_register_function(tep_, second, 0xffffffff81000100ull, nullptr);
  }
  void TearDown() override { tep_free(tep_); }

  tep_event* parse(int id, const std::string& print_fmt) {
    std::string format = "name: e" + std::to_string(id) + "\nID: " + std::to_string(id) + "\n" + kFields +
                         "print fmt: " + print_fmt + "\n";
    EXPECT_EQ(tep_parse_event(tep_, format.data(), format.size(), "test"), 0) << print_fmt;
    return tep_find_event(tep_, id);
  }

  // A record of event `id` with these field values.
  std::vector<uint8_t> data(int id, int32_t i, uint64_t l, int16_t s, uint8_t c, const std::string& name) {
    std::vector<uint8_t> bytes(32 + name.size() + 1, 0);
    uint16_t type = static_cast<uint16_t>(id);
    std::memcpy(&bytes[0], &type, 2);
    std::memcpy(&bytes[8], &i, 4);
    std::memcpy(&bytes[16], &l, 8);
    std::memcpy(&bytes[24], &s, 2);
    bytes[26] = c;
    uint32_t loc = (static_cast<uint32_t>(name.size() + 1) << 16) | 32;
    std::memcpy(&bytes[28], &loc, 4);
    std::memcpy(&bytes[32], name.c_str(), name.size() + 1);
    return bytes;
  }

  std::string libtraceevent(std::vector<uint8_t>& bytes) {
    tep_record record{};
    record.data = bytes.data();
    record.size = static_cast<int>(bytes.size());
    trace_seq seq;
    trace_seq_init(&seq);
    tep_print_event(tep_, &seq, &record, "%s", TEP_PRINT_INFO);
    std::string text(seq.buffer, seq.len);
    trace_seq_destroy(&seq);
    return text;
  }

  tep_handle* tep_ = nullptr;
};

}  // namespace

TEST_F(TracedatPayloads, CompiledFormatsPrintAsLibtraceeventPrintsThem) {
  const char* formats[] = {
      R"("i=%d l=%lu s=%d c=%u name=%s", REC->i, REC->l, REC->s, REC->c, __get_str(name))",
      R"("%5d|%-5d|%05d|%.3d|%x|%#x|%08lx|%#010lx|%X|%o|%#o", REC->i, REC->i, REC->i, REC->i, REC->i, REC->i, REC->l, REC->l, REC->i, REC->i, REC->i)",
      R"("fd: 0x%08lx, count: 0x%08lx\n", ((unsigned long)(REC->i)), ((unsigned long)(REC->l)))",
      R"("%hd %hx %hhd %hhx %lld %llx %u", REC->i, REC->i, REC->i, REC->i, REC->l, REC->l, (unsigned int)REC->s)",
      R"("%d%% done, %s\t[%lu]", (int)REC->c, __get_str(name), (u32)REC->l)",
      R"("ptr=%p call=%pS fn=%ps", (void *)REC->l, (void *)REC->l, (void *)REC->l)",
      R"("state=%s flags=%s", __print_symbolic(REC->c, { 0, "R" }, { 1, "S" }, { 7, "X" }), __print_flags(REC->l, "|", { 1, "A" }, { 2, "B" }, { 0xc, "CD" }))",
      R"("x=%d y=%u z=%lx w=%d", REC->i + 1, REC->c ? REC->i : REC->s, (REC->l >> 4) & 0xff, REC->i < 5 && REC->s != 0)",
      R"("%s %s", REC->c ? "yes" : "no", (REC->l) ? __print_flags(REC->l, ",", { 1, "ONE" }) : "none")",
  };
  struct Values {
    int32_t i;
    uint64_t l;
    int16_t s;
    uint8_t c;
    std::string name;
  };
  const Values values[] = {{0, 0, 0, 0, ""},
                           {1, 1, 1, 1, "a"},
                           {7, 0xffffffff81000010ull, 2, 7, "k"},
                           {3, 0xffffffff81000200ull, 5, 2, "z"},
                           {-1, ~0ull, -1, 255, "worker"},
                           {123456, 0x123456789abcdefull, -32768, 7, "x y"},
                           {-2147483647 - 1, 1ull << 63, 32767, 128, "long name with spaces"}};
  int id = 100;
  for (const char* print_fmt : formats) {
    tep_event* event = parse(id, print_fmt);
    ASSERT_NE(event, nullptr);
    auto printer = PayloadPrinter::compile(event);
    ASSERT_NE(printer, nullptr) << print_fmt;
    for (const auto& v : values) {
      auto bytes = data(id, v.i, v.l, v.s, v.c, v.name);
      tep_record record{};
      record.data = bytes.data();
      record.size = static_cast<int>(bytes.size());
      std::string ours;
      ASSERT_TRUE(printer->print(record, ours));
      EXPECT_EQ(ours, libtraceevent(bytes)) << print_fmt << " i=" << v.i << " l=" << v.l;
    }
    ++id;
  }
}

TEST_F(TracedatPayloads, OtherFormatsAreLeftToLibtraceevent) {
  const char* formats[] = {
      R"("mac=%pM", REC->l)",
      R"("w=%*d", REC->c, REC->i)",
      R"("x=%d", REC->i + some_symbol)",
      R"("s=%s", __print_symbolic(REC->i, { SOME_NAME, "R" }))",
      R"("h=%s", __print_hex(__get_dynamic_array(name), 4))",
  };
  int id = 200;
  for (const char* print_fmt : formats) {
    tep_event* event = parse(id++, print_fmt);
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(PayloadPrinter::compile(event), nullptr) << print_fmt;
  }
}

TEST_F(TracedatPayloads, AFieldOutsideTheRecordGoesTheFullWay) {
  tep_event* event = parse(300, R"("l=%lu", REC->l)");
  ASSERT_NE(event, nullptr);
  auto printer = PayloadPrinter::compile(event);
  ASSERT_NE(printer, nullptr);
  auto bytes = data(300, 1, 2, 3, 4, "");
  tep_record record{};
  record.data = bytes.data();
  record.size = 20;  // ends inside l
  std::string out = "kept";
  EXPECT_FALSE(printer->print(record, out));
  EXPECT_EQ(out, "kept");
}

TEST_F(TracedatPayloads, AtomsNamingSymbolsCompileWithALookupAndPrintLibtraceeventsValue) {
  const char* print_fmt = R"("x=%lx y=%lx", REC->l + second_function, REC->l - no_such_symbol)";
  tep_event* event = parse(400, print_fmt);
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(PayloadPrinter::compile(event), nullptr);  // without a lookup: left to libtraceevent
  // libtraceevent's own answer, from a handle that has not been compiled against.
  auto bytes = data(400, 1, 0x1000, 3, 4, "");
  std::string theirs = libtraceevent(bytes);
  EXPECT_EQ(theirs, "x=ffffffff81001100 y=1000");
  event = parse(401, print_fmt);
  auto printer = PayloadPrinter::compile(
      event, [](std::string_view name) { return name == "second_function" ? 0xffffffff81000100ull : 0ull; });
  ASSERT_NE(printer, nullptr);
  bytes = data(401, 1, 0x1000, 3, 4, "");
  tep_record record{};
  record.data = bytes.data();
  record.size = static_cast<int>(bytes.size());
  std::string ours;
  ASSERT_TRUE(printer->print(record, ours));
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(libtraceevent(bytes), theirs);  // the atoms rewritten as numbers, as libtraceevent does
}
