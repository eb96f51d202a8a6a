// USDT notes and their conversion to uprobe fetch-args. The conversions are perf 6.1's, as its
// build-id cache recorded them for notes with these argument strings; the notes of the
// usdt_markers workload and of python3.11 are checked against readelf's view of the same files.
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "probe/sdt_notes.hpp"
#include "symbols_support.hpp"

using namespace sonde;
using namespace sonde::probe;
using sonde::test::shell_output;
using sonde::test::workload_path;

namespace {

// One ELF file opened with libelf for the length of a test.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) {
    elf_version(EV_CURRENT);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ >= 0) elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  }
  ~ElfFile() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  Elf* elf() const { return elf_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

// What readelf -n says of each SDT note, by "provider:name".
struct ReadelfNote {
  uint64_t location = 0, base = 0, semaphore = 0;
  std::string arguments;
};
std::map<std::string, ReadelfNote> readelf_sdt_notes(const std::string& path) {
  std::map<std::string, ReadelfNote> notes;
  std::istringstream lines(shell_output("readelf -n '" + path + "'"));
  std::string line, provider, key;
  // The text after `label` on the line, which may follow the note's owner and type.
  auto field = [&line](const std::string& label) -> std::optional<std::string> {
    size_t at = line.find(label);
    if (at == std::string::npos) return std::nullopt;
    return line.substr(at + label.size());
  };
  while (std::getline(lines, line)) {
    if (auto value = field("Provider: ")) {
      provider = *value;
    } else if (auto name = field("Name: ")) {
      key = provider + ":" + *name;
      notes[key];
    } else if (auto location = field("Location: ")) {
      unsigned long long pc = 0, base = 0, semaphore = 0;
      std::sscanf(location->c_str(), "%llx, Base: %llx, Semaphore: %llx", &pc, &base, &semaphore);
      notes[key] = ReadelfNote{pc, base, semaphore, ""};
    } else if (auto arguments = field("Arguments: ")) {
      notes[key].arguments = *arguments;
    }
  }
  return notes;
}

// readelf -S's address and file offset of a section; {0, 0} when there is none.
std::pair<uint64_t, uint64_t> readelf_section(const std::string& path, const std::string& name) {
  std::istringstream lines(shell_output("readelf -SW '" + path + "'"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line.substr(line.find(']') == std::string::npos ? 0 : line.find(']') + 1));
    std::string section, type, address, offset;
    if (words >> section >> type >> address >> offset && section == name)
      return {std::stoull(address, nullptr, 16), std::stoull(offset, nullptr, 16)};
  }
  return {0, 0};
}

const SdtNote* find_note(const std::vector<SdtNote>& notes, const std::string& provider,
                         const std::string& name) {
  for (const SdtNote& note : notes)
    if (note.provider == provider && note.name == name) return &note;
  return nullptr;
}

std::string convert(std::string_view argument) {
  std::string why;
  std::optional<std::string> fetcharg = sdt_argument_to_fetcharg(argument, &why);
  return fetcharg ? *fetcharg : "skipped: " + why;
}

std::vector<std::string> fetchargs_of(const std::string& arguments) {
  SdtNote note;
  note.provider = "p";
  note.name = "n";
  note.arguments = arguments;
  Result<std::vector<std::string>> fetchargs = sdt_fetchargs(note);
  EXPECT_TRUE(fetchargs) << arguments;
  return fetchargs ? *fetchargs : std::vector<std::string>{};
}

}  // namespace

TEST(ProbeSdtArguments, SizesPickTheType) {
  EXPECT_EQ(convert("1@%al"), "%ax:u8");
  EXPECT_EQ(convert("2@%ax"), "%ax:u16");
  EXPECT_EQ(convert("4@%eax"), "%ax:u32");
  EXPECT_EQ(convert("8@%rax"), "%ax:u64");
  EXPECT_EQ(convert("-1@%al"), "%ax:s8");
  EXPECT_EQ(convert("-2@%ax"), "%ax:s16");
  EXPECT_EQ(convert("-4@%eax"), "%ax:s32");
  EXPECT_EQ(convert("-8@%rax"), "%ax:s64");
  // Other sizes within -8..8, a size that is no number and no size at all: no type.
  EXPECT_EQ(convert("3@%rax"), "%ax");
  EXPECT_EQ(convert("0@%rax"), "%ax");
  EXPECT_EQ(convert("-3@%eax"), "%ax");
  EXPECT_EQ(convert("abc@%rbx"), "%bx");
  EXPECT_EQ(convert("%rax"), "%ax");
  EXPECT_EQ(convert("+8@%rax"), "%ax:u64");
}

TEST(ProbeSdtArguments, RegistersTakeTheirUprobeNames) {
  EXPECT_EQ(convert("1@%ah"), "%ax:u8");
  EXPECT_EQ(convert("1@%bl"), "%bx:u8");
  EXPECT_EQ(convert("1@%bh"), "%bx:u8");
  EXPECT_EQ(convert("1@%cl"), "%cx:u8");
  EXPECT_EQ(convert("1@%dh"), "%dx:u8");
  EXPECT_EQ(convert("1@%sil"), "%si:u8");
  EXPECT_EQ(convert("1@%dil"), "%di:u8");
  EXPECT_EQ(convert("1@%bpl"), "%bp:u8");
  EXPECT_EQ(convert("1@%spl"), "%sp:u8");
  EXPECT_EQ(convert("8@%rsp"), "%sp:u64");
  EXPECT_EQ(convert("4@%esp"), "%sp:u32");
  EXPECT_EQ(convert("8@%rbp"), "%bp:u64");
  EXPECT_EQ(convert("4@%ebp"), "%bp:u32");
  EXPECT_EQ(convert("8@%rcx"), "%cx:u64");
  EXPECT_EQ(convert("8@%cx"), "%cx:u64");
  EXPECT_EQ(convert("8@%rdx"), "%dx:u64");
  EXPECT_EQ(convert("8@%rbx"), "%bx:u64");
  EXPECT_EQ(convert("8@%rsi"), "%si:u64");
  EXPECT_EQ(convert("-4@%edi"), "%di:s32");
  EXPECT_EQ(convert("8@%r8"), "%r8:u64");
  EXPECT_EQ(convert("4@%r8d"), "%r8:u32");
  EXPECT_EQ(convert("2@%r8w"), "%r8:u16");
  EXPECT_EQ(convert("1@%r8b"), "%r8:u8");
  EXPECT_EQ(convert("4@%r9d"), "%r9:u32");
  EXPECT_EQ(convert("-2@%r9w"), "%r9:s16");
  EXPECT_EQ(convert("8@%r10"), "%r10:u64");
  EXPECT_EQ(convert("4@%r10d"), "%r10:u32");
  EXPECT_EQ(convert("2@%r11w"), "%r11:u16");
  EXPECT_EQ(convert("1@%r12b"), "%r12:u8");
  EXPECT_EQ(convert("-8@%r15"), "%r15:s64");
  EXPECT_EQ(convert("-4@%r15d"), "%r15:s32");
  // Names perf does not rename go through as written, even where the kernel knows no such name.
  EXPECT_EQ(convert("8@%rip"), "%rip:u64");
  EXPECT_EQ(convert("8@%eip"), "%eip:u64");
  EXPECT_EQ(convert("8@%xmm0"), "%xmm0:u64");
  EXPECT_EQ(convert("8@%xmm15"), "%xmm15:u64");
  EXPECT_EQ(convert("8@%r8dx"), "%r8dx:u64");
  // perf matches the operand's length of each table name: the start of a name takes its entry.
  EXPECT_EQ(convert("8@%r1"), "%r10:u64");
  EXPECT_EQ(convert("8@%ea"), "%ax:u64");
}

TEST(ProbeSdtArguments, MemoryOperandsGetASignedDisplacement) {
  EXPECT_EQ(convert("8@-8(%rbp)"), "-8(%bp):u64");
  EXPECT_EQ(convert("-4@-20(%rbp)"), "-20(%bp):s32");
  EXPECT_EQ(convert("8@8(%rax)"), "+8(%ax):u64");
  EXPECT_EQ(convert("8@+8(%rax)"), "+8(%ax):u64");
  EXPECT_EQ(convert("8@(%rax)"), "+0(%ax):u64");
  EXPECT_EQ(convert("8@(%r8)"), "+0(%r8):u64");
  EXPECT_EQ(convert("-4@112(%rsp)"), "+112(%sp):s32");
  EXPECT_EQ(convert("-8@-8(%r12)"), "-8(%r12):s64");
  EXPECT_EQ(convert("8@08(%rax)"), "+08(%ax):u64");
  // A displacement from %rip passes through (the kernel rejects it later).
  EXPECT_EQ(convert("8@16(%rip)"), "+16(%rip):u64");
  // perf's pattern makes each part optional on its own: these odd forms go through as it writes them.
  EXPECT_EQ(convert("8@-(%rbp)"), "-(%bp):u64");
  EXPECT_EQ(convert("8@+(%rbp)"), "+(%bp):u64");
  EXPECT_EQ(convert("8@8%rax"), "8%ax:u64");
  EXPECT_EQ(convert("8@-8%rax"), "8%ax:u64");
  EXPECT_EQ(convert("8@%rax)"), "%ax):u64");
  EXPECT_EQ(convert("-8@8(%rsp"), "+8(%sp:s64");
}

TEST(ProbeSdtArguments, WhatPerfCannotFetchIsSkipped) {
  for (const char* argument : {"-4@$42", "-4@$-1", "8@$0", "8@(%rax,%rsi,8)", "8@10(%rax,%rsi,8)",
                               "8@check_action(%rip)", "8@mp_+52(%rip)", "8@44+mp_(%rip)", "8@0x10(%rax)",
                               "8@1234", "8@-8", "8@%RAX", "8@%r", "8@", "-8@-0x8(%rbp)", "4@%eflags"}) {
    std::string why;
    EXPECT_EQ(sdt_argument_to_fetcharg(argument, &why), std::nullopt) << argument;
    std::string_view op = std::string_view(argument).substr(std::string_view(argument).find('@') + 1);
    EXPECT_EQ(why, fmt::format("Skipping unsupported SDT argument: {}", op)) << argument;
  }
  std::string why;
  EXPECT_EQ(sdt_argument_to_fetcharg("16@%xmm0", &why), std::nullopt);
  EXPECT_EQ(why, "Failed to get a valid sdt type: 16@%xmm0");
  EXPECT_EQ(sdt_argument_to_fetcharg("-9@%rcx", nullptr), std::nullopt);
}

TEST(ProbeSdtArguments, NumberedByPositionAroundSkippedOnes) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(fetchargs_of("-4@%edi -4@$42 8@%rax"), (Args{"arg1=%di:s32", "arg3=%ax:u64"}));
  EXPECT_EQ(fetchargs_of("8@(%rax,%rsi,8) 8@%rdx"), (Args{"arg2=%dx:u64"}));
  EXPECT_EQ(fetchargs_of("$1 8@%rax $2 -4@%esi"), (Args{"arg2=%ax:u64", "arg4=%si:s32"}));
  EXPECT_EQ(fetchargs_of("  8@%rax   -4@%edi "), (Args{"arg1=%ax:u64", "arg2=%di:s32"}));
  EXPECT_EQ(fetchargs_of("8@%rax\t-4@%edi"), (Args{"arg1=%ax:u64", "arg2=%di:s32"}));
  // "8@ %rax" is two words: "8@" (skipped) and "%rax".
  EXPECT_EQ(fetchargs_of("8@ %rax"), (Args{"arg2=%ax"}));
  EXPECT_EQ(fetchargs_of(""), Args{});
  EXPECT_EQ(fetchargs_of(":8@%rax"), Args{});
  // A size outside -8..8 fails the note (perf then lists no SDT event of the whole file).
  SdtNote note{"p", "n", 0, 0, "8@%rax 16@%xmm0"};
  Result<std::vector<std::string>> fetchargs = sdt_fetchargs(note);
  ASSERT_FALSE(fetchargs);
  EXPECT_EQ(fetchargs.error().message, "SDT marker p:n: Failed to get a valid sdt type: 16@%xmm0");
  EXPECT_EQ(sdt_event_group(note), "sdt_p");
}

TEST(ProbeSdtNotes, WorkloadMarkers) {
  std::string path = workload_path("usdt_markers");
  ElfFile file(path);
  ASSERT_NE(file.elf(), nullptr) << path;
  Result<std::vector<SdtNote>> notes = read_sdt_notes(file.elf());
  ASSERT_TRUE(notes) << notes.error().message;
  ASSERT_EQ(notes->size(), 2u);
  std::map<std::string, ReadelfNote> expected = readelf_sdt_notes(path);
  ASSERT_EQ(expected.size(), 2u);
  auto [base_address, base_offset] = readelf_section(path, ".stapsdt.base");
  auto [probes_address, probes_offset] = readelf_section(path, ".probes");
  ASSERT_NE(probes_address, 0u);

  const SdtNote* tick = find_note(*notes, "sonde_test", "tick");
  const SdtNote* tock = find_note(*notes, "sonde_test", "tock");
  ASSERT_TRUE(tick && tock);
  for (const SdtNote* note : {tick, tock}) {
    const ReadelfNote& facts = expected.at("sonde_test:" + note->name);
    EXPECT_EQ(note->pc, facts.location) << note->name;  // not prelinked: the base is where it was
    EXPECT_EQ(facts.base, base_address) << note->name;
    EXPECT_EQ(note->arguments, facts.arguments) << note->name;
    EXPECT_EQ(note->semaphore, facts.semaphore) << note->name;
    EXPECT_EQ(sdt_probe_file_offset(file.elf(), *note), note->pc - base_address + base_offset);
    EXPECT_EQ(sdt_probe_file_offset(file.elf(), *note), vaddr_to_file_offset(file.elf(), note->pc));
  }
  EXPECT_EQ(tick->semaphore, 0u);
  EXPECT_EQ(semaphore_file_offset(file.elf(), *tick), std::nullopt);
  EXPECT_EQ(tock->semaphore, probes_address);  // the file's only .probes variable
  EXPECT_EQ(semaphore_file_offset(file.elf(), *tock), probes_offset);

  // The sizes are the C types': int, long, const char* for tick; int, a constant, short and
  // unsigned char for tock.
  std::vector<std::string> sizes;
  for (const SdtNote* note : {tick, tock}) {
    std::istringstream words(note->arguments);
    for (std::string word; words >> word;) sizes.push_back(word.substr(0, word.find('@') + 1));
  }
  EXPECT_EQ(sizes, (std::vector<std::string>{"-4@", "-8@", "8@", "-4@", "-4@", "-2@", "1@"}));
  EXPECT_NE(tock->arguments.find(" -4@$42 "), std::string::npos) << tock->arguments;

  Result<std::vector<std::string>> tick_args = sdt_fetchargs(*tick);
  Result<std::vector<std::string>> tock_args = sdt_fetchargs(*tock);
  ASSERT_TRUE(tick_args && tock_args);
  ASSERT_EQ(tick_args->size(), 3u);
  EXPECT_EQ(tick_args->at(0).substr(0, 5), "arg1=");
  EXPECT_TRUE(tick_args->at(0).ends_with(":s32"));
  EXPECT_TRUE(tick_args->at(1).starts_with("arg2=") && tick_args->at(1).ends_with(":s64"));
  EXPECT_TRUE(tick_args->at(2).starts_with("arg3=") && tick_args->at(2).ends_with(":u64"));
  ASSERT_EQ(tock_args->size(), 3u);  // the constant, arg2, is skipped
  EXPECT_TRUE(tock_args->at(0).starts_with("arg1=") && tock_args->at(0).ends_with(":s32"));
  EXPECT_TRUE(tock_args->at(1).starts_with("arg3=") && tock_args->at(1).ends_with(":s16"));
  EXPECT_TRUE(tock_args->at(2).starts_with("arg4=") && tock_args->at(2).ends_with(":u8"));
}

TEST(ProbeSdtNotes, Python) {
  const std::string path = "/usr/bin/python3.11";
  if (::access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " is not installed";
  ElfFile file(path);
  ASSERT_NE(file.elf(), nullptr);
  Result<std::vector<SdtNote>> notes = read_sdt_notes(file.elf());
  ASSERT_TRUE(notes) << notes.error().message;
  std::map<std::string, ReadelfNote> expected = readelf_sdt_notes(path);
  ASSERT_EQ(notes->size(), expected.size());
  auto [base_address, base_offset] = readelf_section(path, ".stapsdt.base");
  auto [probes_address, probes_offset] = readelf_section(path, ".probes");
  ASSERT_NE(probes_address, 0u);
  for (const SdtNote& note : *notes) {
    EXPECT_EQ(note.provider, "python");
    const ReadelfNote& facts = expected.at(note.provider + ":" + note.name);
    EXPECT_EQ(note.pc, facts.location + base_address - facts.base) << note.name;
    EXPECT_EQ(note.arguments, facts.arguments) << note.name;
    EXPECT_EQ(note.semaphore, facts.semaphore) << note.name;
    EXPECT_NE(note.semaphore, 0u) << note.name;  // every python marker has one
    EXPECT_EQ(semaphore_file_offset(file.elf(), note), note.semaphore - probes_address + probes_offset);
    EXPECT_EQ(sdt_probe_file_offset(file.elf(), note), facts.location - facts.base + base_offset);
    EXPECT_EQ(sdt_probe_file_offset(file.elf(), note), vaddr_to_file_offset(file.elf(), note.pc));
    EXPECT_TRUE(sdt_fetchargs(note)) << note.name;
  }
  const SdtNote* entry = find_note(*notes, "python", "function__entry");
  ASSERT_NE(entry, nullptr);
  Result<std::vector<std::string>> args = sdt_fetchargs(*entry);
  ASSERT_TRUE(args);
  // (filename, funcname, lineno): two pointers and an int.
  ASSERT_EQ(args->size(), 3u);
  EXPECT_TRUE(args->at(0).starts_with("arg1=") && args->at(0).ends_with(":u64"));
  EXPECT_TRUE(args->at(1).starts_with("arg2=") && args->at(1).ends_with(":u64"));
  EXPECT_TRUE(args->at(2).starts_with("arg3=") && args->at(2).ends_with(":s32"));
  EXPECT_EQ(sdt_event_group(*entry), "sdt_python");
}

TEST(ProbeSdtNotes, FileWithoutNotes) {
  ElfFile file(workload_path("sleeps"));
  ASSERT_NE(file.elf(), nullptr);
  Result<std::vector<SdtNote>> notes = read_sdt_notes(file.elf());
  ASSERT_TRUE(notes);
  EXPECT_TRUE(notes->empty());
}
