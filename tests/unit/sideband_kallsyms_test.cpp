// kernel/kallsyms against the running kernel (grep of /proc/kallsyms) and against small texts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/kallsyms.hpp"

using namespace sonde;
using namespace sonde::kernel;

namespace {

// The address of `name` in /proc/kallsyms as grep finds it; 0 when absent.
uint64_t grep_kallsyms(const std::string& name) {
  std::string command = "grep -m1 ' " + name + "$' /proc/kallsyms";
  FILE* pipe = ::popen(command.c_str(), "r");
  char line[256] = {};
  bool got = pipe && std::fgets(line, sizeof line, pipe);
  if (pipe) ::pclose(pipe);
  return got ? parse_uint(std::string_view(line).substr(0, 16), 16).value_or(0) : 0;
}

std::string write_temp(const std::string& content) {
  char path[] = "/tmp/sonde-kallsyms-XXXXXX";
  int fd = ::mkstemp(path);
  EXPECT_EQ(::write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  ::close(fd);
  return path;
}

}  // namespace

TEST(SidebandKallsyms, FindsTextAndEtextOfTheRunningKernel) {
  uint64_t text = grep_kallsyms("_text"), etext = grep_kallsyms("_etext");
  if (text == 0) GTEST_SKIP() << "/proc/kallsyms shows no addresses here";
  auto found = find_kernel_text();
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->ref_name, "_text");
  EXPECT_EQ(found->start, text);
  EXPECT_EQ(found->end, etext);

  // The slow path (no /proc/iomem) scans to _etext and must agree.
  auto scanned = find_kernel_text({"/proc/kallsyms", ""});
  ASSERT_TRUE(scanned) << scanned.error().message;
  EXPECT_EQ(scanned->start, text);
  EXPECT_EQ(scanned->end, etext);
}

TEST(SidebandKallsyms, FastPathReadsOnlyTheHeadOfKallsyms) {
  auto iomem = read_file("/proc/iomem");
  if (grep_kallsyms("_text") == 0 || !iomem || iomem_kernel_code_size(*iomem) == 0)
    GTEST_SKIP() << "no addresses in kallsyms or iomem";
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(find_kernel_text());
  auto per_call = (std::chrono::steady_clock::now() - start) / 10;
  // Reading all of /proc/kallsyms costs ~50 ms here; the head and iomem well under 1 ms.
  EXPECT_LT(per_call, std::chrono::milliseconds(5));
}

TEST(SidebandKallsyms, StextWhenNoTextAndHiddenAddressesFail) {
  std::string only_stext =
      write_temp("ffffffff81000000 T _stext\nffffffff81000010 T foo\nffffffff82000000 T _etext\n");
  auto found = find_kernel_text({only_stext, ""});
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->ref_name, "_stext");
  EXPECT_EQ(found->start, 0xffffffff81000000);
  EXPECT_EQ(found->end, 0xffffffff82000000);

  std::string hidden = write_temp("0000000000000000 T _stext\n0000000000000000 T _text\n");
  auto refused = find_kernel_text({hidden, ""});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("kptr_restrict"), std::string::npos);

  // A last line without a newline is still a line.
  std::string no_newline = write_temp("ffffffff81000000 T _text\nffffffff81200000 T _etext");
  auto last = find_kernel_text({no_newline, ""});
  ASSERT_TRUE(last);
  EXPECT_EQ(last->end, 0xffffffff81200000);
  ::unlink(only_stext.c_str());
  ::unlink(hidden.c_str());
  ::unlink(no_newline.c_str());
}

TEST(SidebandKallsyms, IomemKernelCode) {
  EXPECT_EQ(iomem_kernel_code_size("00100000-bffdffff : System RAM\n  01000000-02209987 : Kernel code\n"
                                   "  02400000-02e09fff : Kernel rodata\n"),
            0x1209988u);
  EXPECT_EQ(iomem_kernel_code_size("  00000000-00000000 : Kernel code\n"), 0u);  // unprivileged view
  EXPECT_EQ(iomem_kernel_code_size("00100000-bffdffff : System RAM\n"), 0u);
}

TEST(SidebandKallsyms, ModulesAndTheirFiles) {
  auto modules = parse_modules(
      "nf_tables 348160 0 - Live 0xffffffffc0a00000\n"
      "xfs 1994752 1 - Live 0xffffffffc0200000 (E)\n"
      "garbage line\n"
      "virtio_net 65536 0 - Live 0x0000000000000000\n");  // hidden address: skipped
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0].name, "nf_tables");
  EXPECT_EQ(modules[0].start, 0xffffffffc0a00000);
  EXPECT_EQ(modules[0].size, 348160u);
  resolve_module_paths(modules,
                       "kernel/net/netfilter/nf-tables.ko.xz: kernel/net/netfilter/nfnetlink.ko.xz\n",
                       "/lib/modules/6.1.0");
  EXPECT_EQ(modules[0].path, "/lib/modules/6.1.0/kernel/net/netfilter/nf-tables.ko.xz");
  EXPECT_EQ(modules[1].path, "[xfs]");
  EXPECT_EQ(module_name_from_path("/lib/modules/x/kernel/a/nf-nat.ko.zst"), "nf_nat");
  EXPECT_EQ(module_name_from_path("[xfs]"), "xfs");

  auto none = read_modules("/nonexistent/modules");  // a kernel without module support
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}
