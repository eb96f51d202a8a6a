// The line program decoder against libdw: for every CU of the workloads (DWARF 5 from g++ 12),
// the rows decoded from .debug_line equal libdw's rows (address, file name, line, statement).
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <tuple>
#include <vector>

#include "probe/line_program.hpp"

namespace sonde::probe {
namespace {

using RowKey = std::tuple<uint64_t, std::string, unsigned, bool>;

std::vector<RowKey> libdw_rows(Dwarf_Die* cu) {
  std::vector<RowKey> rows;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(cu, &lines, &count) != 0) return rows;
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* row = dwarf_onesrcline(lines, i);
    Dwarf_Addr address = 0;
    int number = 0;
    bool statement = false;
    dwarf_lineaddr(row, &address);
    dwarf_lineno(row, &number);
    dwarf_linebeginstatement(row, &statement);
    const char* file = dwarf_linesrc(row, nullptr, nullptr);
    rows.emplace_back(address, file ? file : "", static_cast<unsigned>(number), statement);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<RowKey> decoded_rows(const LineProgram& program) {
  std::vector<RowKey> rows;
  for (const LineProgram::Row& row : program.rows) {
    const std::string* file = program.file_name(row.file);
    rows.emplace_back(row.address, file ? *file : "", row.line, row.statement);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

void expect_same_rows(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  ASSERT_NE(dwarf, nullptr) << path;
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  int cus = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header, &cu) && dwarf_tag(&cu) == DW_TAG_compile_unit) {
      auto program = read_line_program(dwarf, &cu, 0, UINT64_MAX);
      ASSERT_TRUE(program.has_value()) << path;
      EXPECT_EQ(decoded_rows(*program), libdw_rows(&cu)) << path << " CU at " << offset;
      ++cus;
    }
    offset = next;
  }
  EXPECT_GT(cus, 0);
  dwarf_end(dwarf);
  ::close(fd);
}

TEST(ProbeLineProgram, RowsEqualLibdwsOnTheWorkloads) {
  for (const char* name : {"probe_targets", "cxx_shapes", "inlined", "deep_stacks", "usdt_markers"})
    expect_same_rows(std::string(SONDE_WORKLOAD_DIR) + "/" + name);
}

TEST(ProbeLineProgram, OnlyTheAskedAddressesAreKept) {
  std::string path = std::string(SONDE_WORKLOAD_DIR) + "/probe_targets";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  ASSERT_NE(dwarf, nullptr);
  Dwarf_Die cu;
  ASSERT_NE(dwarf_offdie(dwarf, 0xc, &cu), nullptr);  // the first CU of a DWARF 5 file
  auto all = read_line_program(dwarf, &cu, 0, UINT64_MAX);
  ASSERT_TRUE(all && all->rows.size() > 4);
  uint64_t low = all->rows[1].address, high = all->rows[all->rows.size() / 2].address;
  auto some = read_line_program(dwarf, &cu, low, high);
  ASSERT_TRUE(some);
  for (const LineProgram::Row& row : some->rows) {
    EXPECT_GE(row.address, low);
    EXPECT_LT(row.address, high);
  }
  size_t expected = 0;
  for (const LineProgram::Row& row : all->rows) expected += row.address >= low && row.address < high;
  EXPECT_EQ(some->rows.size(), expected);
  dwarf_end(dwarf);
  ::close(fd);
}

}  // namespace
}  // namespace sonde::probe
