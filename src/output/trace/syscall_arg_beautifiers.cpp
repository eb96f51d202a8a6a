#include "output/trace/syscall_arg_beautifiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace sonde::output {
namespace {

// Names by value, as perf's string arrays: names in order from `first`, "@N" jumps to value N,
// "-" leaves a value unnamed. Values outside the table or unnamed have no name ("").
class NameTable {
 public:
  explicit NameTable(std::string_view spec, int64_t first = 0) : first_(first) {
    size_t at = 0;
    while (at < spec.size()) {
      const size_t end = std::min(spec.find(' ', at), spec.size());
      const std::string_view word = spec.substr(at, end - at);
      at = end + 1;
      if (word.empty()) continue;
      if (word[0] == '@') {
        names_.resize(static_cast<size_t>(std::stoll(std::string(word.substr(1)), nullptr, 0) - first_));
      } else {
        names_.push_back(word == "-" ? std::string_view() : word);
      }
    }
  }
  std::string_view operator()(int64_t value) const {
    if (value < first_ || value - first_ >= static_cast<int64_t>(names_.size())) return {};
    return names_[static_cast<size_t>(value - first_)];
  }
  // For perf's flag arrays: entry i names bit i - 1; bits from size() - 1 up are not looked at.
  size_t size() const { return names_.size(); }

 private:
  int64_t first_;
  std::vector<std::string_view> names_;
};

// perf's P_FLAG lists, written as "VALUE NAME" pairs in perf's order.
class FlagList {
 public:
  struct Flag {
    uint64_t bits;
    std::string_view name;
  };
  explicit FlagList(std::string_view spec) {
    for (size_t at = 0; at < spec.size();) {
      const size_t value_end = spec.find(' ', at),
                   name_end = std::min(spec.find(' ', value_end + 1), spec.size());
      flags_.push_back({std::stoull(std::string(spec.substr(at, value_end - at)), nullptr, 0),
                        spec.substr(value_end + 1, name_end - value_end - 1)});
      at = name_end + 1;
    }
  }
  auto begin() const { return flags_.begin(); }
  auto end() const { return flags_.end(); }

 private:
  std::vector<Flag> flags_;
};

std::string c_int(int32_t value) { return fmt::format("{}", value); }
std::string c_long(uint64_t value) { return fmt::format("{}", static_cast<int64_t>(value)); }
std::string c_hex32(uint32_t value) { return c_hex(value); }
int32_t low_int(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

// perf's strarray__scnprintf: the name, or the number in `fallback` format.
std::string name_or(const NameTable& table, int32_t value, std::string_view fallback = "%d") {
  const std::string_view name = table(value);
  if (!name.empty()) return std::string(name);
  if (fallback == "%#x") return c_hex32(static_cast<uint32_t>(value));
  if (fallback == "%x") return fmt::format("{:x}", static_cast<uint32_t>(value));
  return c_int(value);
}

// perf's P_FLAG lists: each flag present (any of its bits, or all of them with `whole`) prints
// and is cleared, in list order; what remains prints as hex.
std::string flag_list(uint64_t flags, const FlagList& list, bool whole = false) {
  std::string out;
  for (const FlagList::Flag& flag : list) {
    if (whole ? (flags & flag.bits) != flag.bits : (flags & flag.bits) == 0) continue;
    if (!out.empty()) out += '|';
    out += flag.name;
    flags &= ~flag.bits;
  }
  if (flags != 0) {  // printed with "%#x", which keeps the low 32 bits
    if (!out.empty()) out += '|';
    out += c_hex32(static_cast<uint32_t>(flags));
  }
  return out;
}

// perf's strarray__scnprintf_flags over a generated array: an unnamed bit inside the array hits
// the "0x%#" format glibc rejects; bits past the array are dropped.
void put_flag_array(PerfText& text, const NameTable& table, uint64_t flags) {
  if (flags == 0) {
    const std::string_view zero = table(0);
    text.put(zero.empty() ? "0" : zero);
    return;
  }
  const size_t start = text.cursor();
  for (size_t entry = 1; entry < table.size() && entry <= 64; ++entry) {
    if ((flags & (uint64_t{1} << (entry - 1))) == 0) continue;
    if (text.cursor() != start) text.put("|");
    const std::string_view name = table(static_cast<int64_t>(entry));
    if (name.empty()) {
      text.put_rejected("0x");
    } else {
      text.put(name);
    }
  }
}

// The names below are perf 6.1's tables (its copies of the 6.1 uapi headers).
const NameTable kFcntlCmds(
    "DUPFD GETFD SETFD GETFL SETFL GETLK SETLK SETLKW SETOWN GETOWN SETSIG GETSIG GETLK64 SETLK64 "
    "SETLKW64 SETOWN_EX GETOWN_EX GETOWNER_UIDS @1024 SETLEASE GETLEASE NOTIFY - - CANCELLK "
    "DUPFD_CLOEXEC SETPIPE_SZ GETPIPE_SZ ADD_SEALS GET_SEALS GET_RW_HINT SET_RW_HINT GET_FILE_RW_HINT "
    "SET_FILE_RW_HINT");
const NameTable kLeases("RDLCK WRLCK UNLCK");
const NameTable kWhences("SET CUR END DATA HOLE");
const NameTable kRlimits(
    "CPU FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS LOCKS SIGPENDING MSGQUEUE NICE RTPRIO RTTIME");
const NameTable kSigHow("BLOCK UNBLOCK SETMASK");
const NameTable kClockIds(
    "REALTIME MONOTONIC PROCESS_CPUTIME_ID THREAD_CPUTIME_ID MONOTONIC_RAW REALTIME_COARSE "
    "MONOTONIC_COARSE BOOTTIME REALTIME_ALARM BOOTTIME_ALARM SGI_CYCLE TAI");
const NameTable kItimers("REAL VIRTUAL PROF");
const NameTable kEpollCtlOps("ADD DEL MOD", 1);
const NameTable kSocketFamilies(
    "UNSPEC LOCAL INET AX25 IPX APPLETALK NETROM BRIDGE ATMPVC X25 INET6 ROSE DECnet NETBEUI SECURITY "
    "KEY NETLINK PACKET ASH ECONET ATMSVC RDS SNA IRDA PPPOX WANPIPE LLC IB MPLS CAN TIPC BLUETOOTH IUCV "
    "RXRPC ISDN PHONET IEEE802154 CAIF ALG NFC VSOCK KCM QIPCRTR SMC XDP MCTP");
const NameTable kSocketLevels(
    "IP @6 TCP @17 UDP @41 IPV6 @58 ICMPV6 @132 SCTP @136 UDPLITE @255 RAW IPX AX25 ATALK NETROM ROSE "
    "DECNET X25 PACKET ATM AAL IRDA NETBEUI LLC DCCP NETLINK TIPC RXRPC PPPOL2TP BLUETOOTH PNPIPE RDS "
    "IUCV CAIF ALG NFC KCM TLS XDP MPTCP MCTP SMC");
const NameTable kIpProtocols(
    "IP ICMP IGMP @4 IPIP @6 TCP @8 EGP @12 PUP @17 UDP @22 IDP @29 TP @33 DCCP @41 IPV6 @46 RSVP GRE "
    "@50 ESP AH @92 MTP @94 BEETPH @98 ENCAP @103 PIM @108 COMP @115 L2TP @132 SCTP @136 UDPLITE MPLS "
    "@143 ETHERNET @255 RAW @262 MPTCP");
const NameTable kBpfCmds(
    "MAP_CREATE MAP_LOOKUP_ELEM MAP_UPDATE_ELEM MAP_DELETE_ELEM MAP_GET_NEXT_KEY PROG_LOAD OBJ_PIN "
    "OBJ_GET PROG_ATTACH PROG_DETACH PROG_TEST_RUN PROG_GET_NEXT_ID MAP_GET_NEXT_ID PROG_GET_FD_BY_ID "
    "MAP_GET_FD_BY_ID OBJ_GET_INFO_BY_FD PROG_QUERY RAW_TRACEPOINT_OPEN BTF_LOAD BTF_GET_FD_BY_ID "
    "TASK_FD_QUERY MAP_LOOKUP_AND_DELETE_ELEM MAP_FREEZE BTF_GET_NEXT_ID MAP_LOOKUP_BATCH "
    "MAP_LOOKUP_AND_DELETE_BATCH MAP_UPDATE_BATCH MAP_DELETE_BATCH LINK_CREATE LINK_UPDATE "
    "LINK_GET_FD_BY_ID LINK_GET_NEXT_ID ENABLE_STATS ITER_CREATE LINK_DETACH PROG_BIND_MAP");
const NameTable kKeyctlOptions(
    "GET_KEYRING_ID JOIN_SESSION_KEYRING UPDATE REVOKE CHOWN SETPERM DESCRIBE CLEAR LINK UNLINK SEARCH "
    "READ INSTANTIATE NEGATE SET_REQKEY_KEYRING SET_TIMEOUT ASSUME_AUTHORITY GET_SECURITY "
    "SESSION_TO_PARENT REJECT INSTANTIATE_IOV INVALIDATE GET_PERSISTENT");
const NameTable kFsconfigCmds(
    "SET_FLAG SET_STRING SET_BINARY SET_PATH SET_PATH_EMPTY SET_FD CMD_CREATE CMD_RECONFIGURE");
const NameTable kFsmountFlags("- CLOEXEC");
const NameTable kKcmpTypes("FILE VM FILES FS SIGHAND IO SYSVSEM EPOLL_TFD");
const NameTable kPrctlOptions(
    "- SET_PDEATHSIG GET_PDEATHSIG GET_DUMPABLE SET_DUMPABLE GET_UNALIGN SET_UNALIGN GET_KEEPCAPS "
    "SET_KEEPCAPS GET_FPEMU SET_FPEMU GET_FPEXC SET_FPEXC GET_TIMING SET_TIMING SET_NAME GET_NAME - - "
    "GET_ENDIAN SET_ENDIAN GET_SECCOMP SET_SECCOMP CAPBSET_READ CAPBSET_DROP GET_TSC SET_TSC "
    "GET_SECUREBITS SET_SECUREBITS SET_TIMERSLACK GET_TIMERSLACK TASK_PERF_EVENTS_DISABLE "
    "TASK_PERF_EVENTS_ENABLE MCE_KILL MCE_KILL_GET SET_MM SET_CHILD_SUBREAPER GET_CHILD_SUBREAPER "
    "SET_NO_NEW_PRIVS GET_NO_NEW_PRIVS GET_TID_ADDRESS SET_THP_DISABLE GET_THP_DISABLE "
    "MPX_ENABLE_MANAGEMENT MPX_DISABLE_MANAGEMENT SET_FP_MODE GET_FP_MODE CAP_AMBIENT - - SVE_SET_VL "
    "SVE_GET_VL GET_SPECULATION_CTRL SET_SPECULATION_CTRL PAC_RESET_KEYS SET_TAGGED_ADDR_CTRL "
    "GET_TAGGED_ADDR_CTRL SET_IO_FLUSHER GET_IO_FLUSHER SET_SYSCALL_USER_DISPATCH PAC_SET_ENABLED_KEYS "
    "PAC_GET_ENABLED_KEYS SCHED_CORE SME_SET_VL SME_GET_VL");
const NameTable kPrctlSetMm(
    "- START_CODE END_CODE START_DATA END_DATA START_STACK START_BRK BRK ARG_START ARG_END ENV_START "
    "ENV_END AUXV EXE_FILE MAP MAP_SIZE");
const NameTable kArchPrctlCodes(
    "SET_GS SET_FS GET_FS GET_GS @0x1011 GET_CPUID SET_CPUID @0x1021 GET_XCOMP_SUPP GET_XCOMP_PERM "
    "REQ_XCOMP_PERM GET_XCOMP_GUEST_PERM REQ_XCOMP_GUEST_PERM @0x2001 MAP_VDSO_X32 MAP_VDSO_32 "
    "MAP_VDSO_64",
    0x1001);
const NameTable kMadviseBehaviors(
    "NORMAL RANDOM SEQUENTIAL WILLNEED DONTNEED @8 FREE REMOVE DONTFORK DOFORK MERGEABLE UNMERGEABLE "
    "HUGEPAGE NOHUGEPAGE DONTDUMP DODUMP WIPEONFORK KEEPONFORK COLD PAGEOUT POPULATE_READ POPULATE_WRITE "
    "DONTNEED_LOCKED COLLAPSE @100 HWPOISON SOFT_OFFLINE");
const NameTable kSignals(
    "- HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP "
    "TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS");

// Generated flag arrays: entry i names bit i - 1.
const NameTable kMmapProt("- READ WRITE EXEC SEM @25 GROWSDOWN GROWSUP");
const NameTable kMmapFlags(
    "- SHARED PRIVATE - - FIXED ANONYMOUS 32BIT - GROWSDOWN - - DENYWRITE EXECUTABLE LOCKED NORESERVE "
    "POPULATE NONBLOCK STACK HUGETLB SYNC FIXED_NOREPLACE");
const NameTable kMremapFlags("- MAYMOVE FIXED DONTUNMAP");
const NameTable kMountFlags(
    "- RDONLY NOSUID NODEV NOEXEC SYNCHRONOUS REMOUNT MANDLOCK DIRSYNC NOSYMFOLLOW - NOATIME NODIRATIME "
    "BIND MOVE REC SILENT POSIXACL UNBINDABLE PRIVATE SLAVE SHARED RELATIME KERNMOUNT I_VERSION "
    "STRICTATIME LAZYTIME SUBMOUNT NOREMOTELOCK NOSEC BORN ACTIVE NOUSER");
const NameTable kRenameatFlags("- NOREPLACE EXCHANGE WHITEOUT");
const NameTable kSyncFileRangeFlags("- WAIT_BEFORE WRITE WAIT_AFTER");
const NameTable kPkeyAccessRights("- DISABLE_ACCESS DISABLE_WRITE");

// ioctl commands by _IOC_NR for the types perf 6.1 knows.
const NameTable kTtyIoctls(
    "- TCGETS TCSETS TCSETSW TCSETSF TCGETA TCSETA TCSETAW TCSETAF TCSBRK TCXONC TCFLSH TIOCEXCL "
    "TIOCNXCL TIOCSCTTY TIOCGPGRP TIOCSPGRP TIOCOUTQ TIOCSTI TIOCGWINSZ TIOCSWINSZ TIOCMGET TIOCMBIS "
    "TIOCMBIC TIOCMSET TIOCGSOFTCAR TIOCSSOFTCAR FIONREAD TIOCLINUX TIOCCONS TIOCGSERIAL TIOCSSERIAL "
    "TIOCPKT FIONBIO TIOCNOTTY TIOCSETD TIOCGETD TCSBRKP - TIOCSBRK TIOCCBRK TIOCGSID TCGETS2 TCSETS2 "
    "TCSETSW2 TCSETSF2 TIOCGRS48 TIOCSRS485 TIOCGPTN TIOCSPTLCK TIOCGDEV TCSETX TCSETXF TCSETXW TIOCSIG "
    "TIOCVHANGUP TIOCGPKT TIOCGPTLCK @64 TIOCGEXCL TIOCGPTPEER TIOCGISO7816 TIOCSISO7816 @80 FIONCLEX "
    "FIOCLEX FIOASYNC TIOCSERCONFIG TIOCSERGWILD TIOCSERSWILD TIOCGLCKTRMIOS TIOCSLCKTRMIOS "
    "TIOCSERGSTRUCT TIOCSERGETLSR TIOCSERGETMULTI TIOCSERSETMULTI TIOCMIWAIT TIOCGICOUNT");
const NameTable kIoctlDirections("NONE WRITE READ READ|WRITE");
const NameTable kPerfIoctls(
    "ENABLE DISABLE REFRESH RESET PERIOD SET_OUTPUT SET_FILTER ID SET_BPF PAUSE_OUTPUT QUERY_BPF "
    "MODIFY_ATTRIBUTES");
const NameTable kSndPcmIoctls(
    "PVERSION INFO TSTAMP TTSTAMP USER_PVERSION @16 HW_REFINE HW_PARAMS HW_FREE SW_PARAMS @32 STATUS "
    "DELAY HWSYNC SYNC_PTR STATUS_EXT @50 CHANNEL_INFO @64 PREPARE RESET START DROP DRAIN PAUSE REWIND "
    "RESUME XRUN FORWARD @80 WRITEI_FRAMES READI_FRAMES WRITEN_FRAMES READN_FRAMES @96 LINK UNLINK");
const NameTable kSndCtlIoctls(
    "PVERSION CARD_INFO @16 ELEM_LIST ELEM_INFO ELEM_READ ELEM_WRITE ELEM_LOCK ELEM_UNLOCK "
    "SUBSCRIBE_EVENTS ELEM_ADD ELEM_REPLACE ELEM_REMOVE TLV_READ TLV_WRITE TLV_COMMAND @32 "
    "HWDEP_NEXT_DEVICE HWDEP_INFO @48 PCM_NEXT_DEVICE PCM_INFO PCM_PREFER_SUBDEVICE @64 "
    "RAWMIDI_NEXT_DEVICE RAWMIDI_INFO RAWMIDI_PREFER_SUBDEVICE @208 POWER POWER_STATE");
const NameTable kDrmIoctls(
    "VERSION GET_UNIQUE GET_MAGIC IRQ_BUSID GET_MAP GET_CLIENT GET_STATS SET_VERSION MODESET_CTL "
    "GEM_CLOSE GEM_FLINK GEM_OPEN GET_CAP SET_CLIENT_CAP @16 SET_UNIQUE AUTH_MAGIC BLOCK UNBLOCK CONTROL "
    "ADD_MAP ADD_BUFS MARK_BUFS INFO_BUFS MAP_BUFS FREE_BUFS RM_MAP SET_SAREA_CTX GET_SAREA_CTX "
    "SET_MASTER DROP_MASTER ADD_CTX RM_CTX MOD_CTX GET_CTX SWITCH_CTX NEW_CTX RES_CTX ADD_DRAW RM_DRAW "
    "DMA LOCK UNLOCK FINISH PRIME_HANDLE_TO_FD PRIME_FD_TO_HANDLE @48 AGP_ACQUIRE AGP_RELEASE AGP_ENABLE "
    "AGP_INFO AGP_ALLOC AGP_FREE AGP_BIND AGP_UNBIND SG_ALLOC SG_FREE WAIT_VBLANK CRTC_GET_SEQUENCE "
    "CRTC_QUEUE_SEQUENCE @63 UPDATE_DRAW I915_INIT I915_FLUSH I915_FLIP I915_BATCHBUFFER I915_IRQ_EMIT "
    "I915_IRQ_WAIT I915_GETPARAM I915_SETPARAM I915_ALLOC I915_FREE I915_INIT_HEAP I915_CMDBUFFER "
    "I915_DESTROY_HEAP I915_SET_VBLANK_PIPE I915_GET_VBLANK_PIPE I915_VBLANK_SWAP @81 I915_HWS_ADDR @83 "
    "I915_GEM_INIT I915_GEM_EXECBUFFER I915_GEM_PIN I915_GEM_UNPIN I915_GEM_BUSY I915_GEM_THROTTLE "
    "I915_GEM_ENTERVT I915_GEM_LEAVEVT I915_GEM_CREATE I915_GEM_PREAD I915_GEM_PWRITE I915_GEM_MMAP "
    "I915_GEM_SET_DOMAIN I915_GEM_SW_FINISH I915_GEM_SET_TILING I915_GEM_GET_TILING "
    "I915_GEM_GET_APERTURE I915_GEM_MMAP_GTT I915_GET_PIPE_FROM_CRTC_ID I915_GEM_MADVISE "
    "I915_OVERLAY_PUT_IMAGE I915_OVERLAY_ATTRS I915_GEM_EXECBUFFER2 I915_GET_SPRITE_COLORKEY "
    "I915_SET_SPRITE_COLORKEY I915_GEM_WAIT I915_GEM_CONTEXT_CREATE I915_GEM_CONTEXT_DESTROY "
    "I915_GEM_SET_CACHING I915_GEM_GET_CACHING I915_REG_READ I915_GET_RESET_STATS I915_GEM_USERPTR "
    "I915_GEM_CONTEXT_GETPARAM I915_GEM_CONTEXT_SETPARAM I915_PERF_OPEN I915_PERF_ADD_CONFIG "
    "I915_PERF_REMOVE_CONFIG I915_QUERY I915_GEM_VM_CREATE I915_GEM_VM_DESTROY I915_GEM_CREATE_EXT @160 "
    "MODE_GETRESOURCES MODE_GETCRTC MODE_SETCRTC MODE_CURSOR MODE_GETGAMMA MODE_SETGAMMA MODE_GETENCODER "
    "MODE_GETCONNECTOR MODE_ATTACHMODE MODE_DETACHMODE MODE_GETPROPERTY MODE_SETPROPERTY "
    "MODE_GETPROPBLOB MODE_GETFB MODE_ADDFB MODE_RMFB MODE_PAGE_FLIP MODE_DIRTYFB MODE_CREATE_DUMB "
    "MODE_MAP_DUMB MODE_DESTROY_DUMB MODE_GETPLANERESOURCES MODE_GETPLANE MODE_SETPLANE MODE_ADDFB2 "
    "MODE_OBJ_GETPROPERTIES MODE_OBJ_SETPROPERTY MODE_CURSOR2 MODE_ATOMIC MODE_CREATEPROPBLOB "
    "MODE_DESTROYPROPBLOB SYNCOBJ_CREATE SYNCOBJ_DESTROY SYNCOBJ_HANDLE_TO_FD SYNCOBJ_FD_TO_HANDLE "
    "SYNCOBJ_WAIT SYNCOBJ_RESET SYNCOBJ_SIGNAL MODE_CREATE_LEASE MODE_LIST_LESSEES MODE_GET_LEASE "
    "MODE_REVOKE_LEASE SYNCOBJ_TIMELINE_WAIT SYNCOBJ_QUERY SYNCOBJ_TRANSFER SYNCOBJ_TIMELINE_SIGNAL "
    "MODE_GETFB2");
const NameTable kKvmIoctls(
    "GET_API_VERSION CREATE_VM GET_MSR_INDEX_LIST CHECK_EXTENSION GET_VCPU_MMAP_SIZE GET_SUPPORTED_CPUID "
    "@9 GET_EMULATED_CPUID GET_MSR_FEATURE_INDEX_LIST @64 SET_MEMORY_REGION CREATE_VCPU GET_DIRTY_LOG "
    "SET_MEMORY_ALIAS SET_NR_MMU_PAGES GET_NR_MMU_PAGES SET_USER_MEMORY_REGION SET_TSS_ADDR "
    "SET_IDENTITY_MAP_ADDR @96 CREATE_IRQCHIP IRQ_LINE GET_IRQCHIP SET_IRQCHIP CREATE_PIT GET_PIT "
    "SET_PIT IRQ_LINE_STATUS @105 ASSIGN_PCI_DEVICE SET_GSI_ROUTING @112 ASSIGN_DEV_IRQ REINJECT_CONTROL "
    "DEASSIGN_PCI_DEVICE ASSIGN_SET_MSIX_NR ASSIGN_SET_MSIX_ENTRY DEASSIGN_DEV_IRQ IRQFD CREATE_PIT2 "
    "SET_BOOT_CPU_ID IOEVENTFD XEN_HVM_CONFIG SET_CLOCK GET_CLOCK @128 RUN GET_REGS SET_REGS GET_SREGS "
    "SET_SREGS TRANSLATE INTERRUPT @136 GET_MSRS SET_MSRS SET_CPUID SET_SIGNAL_MASK GET_FPU SET_FPU "
    "GET_LAPIC SET_LAPIC SET_CPUID2 GET_CPUID2 TPR_ACCESS_REPORTING SET_VAPIC_ADDR @152 GET_MP_STATE "
    "SET_MP_STATE NMI SET_GUEST_DEBUG X86_SETUP_MCE X86_GET_MCE_CAP_SUPPORTED X86_SET_MCE "
    "GET_VCPU_EVENTS SET_VCPU_EVENTS @163 ENABLE_CAP ASSIGN_SET_INTX_MASK SIGNAL_MSI GET_XCRS SET_XCRS "
    "CREATE_SPAPR_TCE ALLOCATE_RMA DIRTY_TLB GET_ONE_REG SET_ONE_REG KVMCLOCK_CTRL @176 GET_REG_LIST "
    "@178 SET_PMU_EVENT_FILTER @183 SMI @186 MEMORY_ENCRYPT_OP MEMORY_ENCRYPT_REG_REGION "
    "MEMORY_ENCRYPT_UNREG_REGION HYPERV_EVENTFD GET_NESTED_STATE SET_NESTED_STATE CLEAR_DIRTY_LOG "
    "GET_SUPPORTED_HV_CPUID @198 X86_SET_MSR_FILTER RESET_DIRTY_RINGS XEN_HVM_GET_ATTR XEN_HVM_SET_ATTR "
    "XEN_VCPU_GET_ATTR XEN_VCPU_SET_ATTR GET_SREGS2 SET_SREGS2 GET_STATS_FD @208 XEN_HVM_EVTCHN_SEND "
    "@224 CREATE_DEVICE SET_DEVICE_ATTR GET_DEVICE_ATTR HAS_DEVICE_ATTR");
const NameTable kVhostWriteIoctls(
    "SET_FEATURES SET_OWNER RESET_OWNER SET_MEM_TABLE SET_LOG_BASE @7 SET_LOG_FD @16 SET_VRING_NUM "
    "SET_VRING_ADDR SET_VRING_BASE SET_VRING_ENDIAN GET_VRING_ENDIAN @32 SET_VRING_KICK SET_VRING_CALL "
    "SET_VRING_ERR SET_VRING_BUSYLOOP_TIMEOUT GET_VRING_BUSYLOOP_TIMEOUT SET_BACKEND_FEATURES @48 "
    "NET_SET_BACKEND @64 SCSI_SET_ENDPOINT SCSI_CLEAR_ENDPOINT SCSI_GET_ABI_VERSION "
    "SCSI_SET_EVENTS_MISSED SCSI_GET_EVENTS_MISSED @96 VSOCK_SET_GUEST_CID VSOCK_SET_RUNNING @114 "
    "VDPA_SET_STATUS @116 VDPA_SET_CONFIG VDPA_SET_VRING_ENABLE @119 VDPA_SET_CONFIG_CALL @124 "
    "VDPA_SET_GROUP_ASID VDPA_SUSPEND");
const NameTable kVhostReadIoctls(
    "GET_FEATURES @18 GET_VRING_BASE @38 GET_BACKEND_FEATURES @112 VDPA_GET_DEVICE_ID VDPA_GET_STATUS "
    "@115 VDPA_GET_CONFIG @118 VDPA_GET_VRING_NUM @120 VDPA_GET_IOVA_RANGE VDPA_GET_CONFIG_SIZE "
    "VDPA_GET_AS_NUM VDPA_GET_VRING_GROUP @128 VDPA_GET_VQS_COUNT VDPA_GET_GROUP_NUM");

const FlagList kCloneFlags(
    "0x100 VM 0x200 FS 0x400 FILES 0x800 SIGHAND 0x1000 PIDFD 0x2000 PTRACE 0x4000 VFORK 0x8000 PARENT "
    "0x10000 THREAD 0x20000 NEWNS 0x40000 SYSVSEM 0x80000 SETTLS 0x100000 PARENT_SETTID 0x200000 "
    "CHILD_CLEARTID 0x400000 DETACHED 0x800000 UNTRACED 0x1000000 CHILD_SETTID 0x2000000 NEWCGROUP "
    "0x4000000 NEWUTS 0x8000000 NEWIPC 0x10000000 NEWUSER 0x20000000 NEWPID 0x40000000 NEWNET 0x80000000 "
    "IO 0x100000000 CLEAR_SIGHAND 0x200000000 INTO_CGROUP");
// O_TMPFILE includes O_DIRECTORY; SYNC, DSYNC, TRUNC and WRONLY come after these.
const FlagList kOpenFlags(
    "02 RDWR 02000 APPEND 020000 ASYNC 02000000 CLOEXEC 0100 CREAT 040000 DIRECT 0200000 DIRECTORY 0200 "
    "EXCL 0100000 LARGEFILE 0400000 NOFOLLOW 020200000 TMPFILE 01000000 NOATIME 0400 NOCTTY 04000 "
    "NONBLOCK 010000000 PATH");
const FlagList kModeBits(
    "07777 IALLUGO 0777 IRWXUGO 0444 IRUGO 0222 IWUGO 0111 IXUGO 0170000 IFMT 0140000 IFSOCK 0120000 "
    "IFLNK 0100000 IFREG 060000 IFBLK 040000 IFDIR 020000 IFCHR 010000 IFIFO 04000 ISUID 02000 ISGID "
    "01000 ISVTX 0700 IRWXU 0400 IRUSR 0200 IWUSR 0100 IXUSR 070 IRWXG 040 IRGRP 020 IWGRP 010 IXGRP 07 "
    "IRWXO 04 IROTH 02 IWOTH 01 IXOTH");
const FlagList kMsgFlags(
    "0x1 OOB 0x2 PEEK 0x4 DONTROUTE 0x8 CTRUNC 0x10 PROBE 0x20 TRUNC 0x40 DONTWAIT 0x80 EOR 0x100 "
    "WAITALL 0x200 FIN 0x400 SYN 0x800 CONFIRM 0x1000 RST 0x2000 ERRQUEUE 0x4000 NOSIGNAL 0x8000 MORE "
    "0x10000 WAITFORONE 0x20000 SENDPAGE_NOTLAST 0x20000000 FASTOPEN 0x40000000 CMSG_CLOEXEC");
const FlagList kWaitidOptions("1 NOHANG 2 UNTRACED 8 CONTINUED");
const FlagList kGetrandomFlags("2 RANDOM 1 NONBLOCK");
const FlagList kPipeFlags("02000000 CLOEXEC 04000 NONBLOCK");
const FlagList kEventfdFlags("1 SEMAPHORE 02000000 CLOEXEC 04000 NONBLOCK");
const FlagList kPerfFlags("1 FD_NO_GROUP 2 FD_OUTPUT 4 PID_CGROUP 8 FD_CLOEXEC");
const FlagList kSeccompFlags("1 TSYNC");
// flock's operations print only when all their bits are set (RW is READ|WRITE).
const FlagList kFlockOps("1 SH 2 EX 4 NB 8 UN 32 MAND 192 RW 64 READ 128 WRITE");
const FlagList kAccessModes("4 R 2 W 1 X");
const FlagList kSocketTypeFlags("02000000 CLOEXEC 04000 NONBLOCK");
const NameTable kFutexCommands(
    "WAIT WAKE FD REQUEUE CMP_REQUEUE WAKE_OP LOCK_PI UNLOCK_PI TRYLOCK_PI WAIT_BITSET WAKE_BITSET "
    "WAIT_REQUEUE_PI CMP_REQUEUE_PI");
const NameTable kSocketTypes("- STREAM DGRAM RAW RDM SEQPACKET DCCP @10 PACKET");
const NameTable kSchedPolicies("NORMAL FIFO RR BATCH ISO IDLE DEADLINE");

// Arguments printed from one of perf's string tables (SCA_STRARRAY): zero has a name too.
struct NamedFormat {
  ArgFormat format;
  const NameTable& table;
};
const NamedFormat kNamedFormats[] = {{ArgFormat::Whence, kWhences},
                                     {ArgFormat::Rlimit, kRlimits},
                                     {ArgFormat::SigHow, kSigHow},
                                     {ArgFormat::ClockId, kClockIds},
                                     {ArgFormat::Itimer, kItimers},
                                     {ArgFormat::EpollCtlOp, kEpollCtlOps},
                                     {ArgFormat::BpfCmd, kBpfCmds},
                                     {ArgFormat::SocketLevel, kSocketLevels},
                                     {ArgFormat::FsconfigCmd, kFsconfigCmds},
                                     {ArgFormat::KeyctlOption, kKeyctlOptions},
                                     {ArgFormat::SocketFamily, kSocketFamilies}};

// Arguments printed as perf's P_FLAG lists of an int.
struct FlagFormat {
  ArgFormat format;
  const FlagList& flags;
};
const FlagFormat kFlagFormats[] = {
    {ArgFormat::MsgFlags, kMsgFlags},        {ArgFormat::WaitidOptions, kWaitidOptions},
    {ArgFormat::PipeFlags, kPipeFlags},      {ArgFormat::GetrandomFlags, kGetrandomFlags},
    {ArgFormat::PerfFlags, kPerfFlags},      {ArgFormat::EventfdFlags, kEventfdFlags},
    {ArgFormat::SeccompFlags, kSeccompFlags}};

// Arguments printed from perf's generated flag arrays.
const NamedFormat kFlagArrayFormats[] = {{ArgFormat::MmapProt, kMmapProt},
                                         {ArgFormat::MremapFlags, kMremapFlags},
                                         {ArgFormat::RenameatFlags, kRenameatFlags},
                                         {ArgFormat::PkeyAccessRights, kPkeyAccessRights},
                                         {ArgFormat::FsmountFlags, kFsmountFlags}};

template <typename Format, size_t N>
const Format* find(const Format (&formats)[N], ArgFormat format) {
  for (const Format& entry : formats) {
    if (entry.format == format) return &entry;
  }
  return nullptr;
}

std::string open_flags(uint32_t flags) {
  std::string out = (flags & 3) == 0 ? "RDONLY" : "";
  if (flags == 0) return out;
  uint32_t left = flags;
  const auto add = [&](std::string_view name, uint32_t clear) {
    out += out.empty() ? "" : "|";
    out += name;
    left &= ~clear;
  };
  for (const FlagList::Flag& flag : kOpenFlags) {
    if ((left & flag.bits) != 0) add(flag.name, static_cast<uint32_t>(flag.bits));
  }
  if ((left & 04010000) == 04010000) {
    add("SYNC", 0);  // printed, not cleared: its bits show again as hex
  } else if ((left & 010000) != 0) {
    add("DSYNC", 010000);
  }
  if ((left & 01000) != 0) add("TRUNC", 01000);
  if ((left & 01) != 0) add("WRONLY", 01);
  if (left != 0) add(c_hex32(left), 0);
  return out;
}

std::string access_mode(int32_t mode) {
  if (mode == 0) return "F";
  std::string out;
  for (const FlagList::Flag& flag : kAccessModes) {
    if ((static_cast<uint32_t>(mode) & flag.bits) == 0) continue;
    out += flag.name;
    mode &= ~static_cast<int32_t>(flag.bits);
  }
  if (mode != 0) out += "|" + c_hex32(static_cast<uint32_t>(mode));
  return out;
}

// FUTEX_* commands, and the arguments each leaves unused (bit 3 utime, 4 uaddr2, 5 val3).
std::string futex_op(int32_t op, uint32_t& skipped) {
  // By command: 0x30 uaddr2|val3, 0x38 utime|uaddr2|val3, 0x28 utime|val3, 0x10 uaddr2, 0x08 utime.
  constexpr uint32_t unused[] = {0x30, 0x38, 0x38, 0x28, 0x08, 0, 0x38, 0x38, 0x30, 0x10, 0x10, 0, 0x08};
  const int32_t command = op & ~(128 | 256);
  std::string out(kFutexCommands(command));
  if (out.empty()) {
    out = c_hex32(static_cast<uint32_t>(command));
  } else {
    skipped |= unused[command];
  }
  if ((op & 128) != 0) out += "|PRIVATE_FLAG";
  if ((op & 256) != 0) out += "|CLOCK_REALTIME";
  return out;
}

std::string socket_type(int32_t type) {
  std::string out(kSocketTypes(type & 0xf));
  if (out.empty()) out = c_hex32(static_cast<uint32_t>(type & 0xf));
  uint32_t flags = static_cast<uint32_t>(type) & ~0xfu;
  for (const FlagList::Flag& flag : kSocketTypeFlags) {
    if ((flags & flag.bits) == 0) continue;
    out += fmt::format("|{}", flag.name);
    flags &= ~static_cast<uint32_t>(flag.bits);
  }
  if (flags != 0) out += "|" + c_hex32(flags);
  return out;
}

std::string sched_policy(int32_t value) {
  const int32_t policy = value & 0xff;
  uint32_t flags = static_cast<uint32_t>(value) & ~0xffu;
  std::string out(kSchedPolicies(policy));
  if (out.empty()) out = c_hex32(static_cast<uint32_t>(policy));
  if ((flags & 0x40000000) != 0) out += "|RESET_ON_FORK";
  flags &= ~0x40000000u;
  if (flags != 0) out += "|" + c_hex32(flags);
  return out;
}

// perf 6.1's statx beautifiers drop the names they match (a "%s%s" format given three strings),
// so only the unknown bits show, as hex.
std::string statx_bits(uint32_t value, uint32_t known) {
  return (value & ~known) != 0 ? c_hex32(value & ~known) : std::string();
}

// prctl options whose extra arguments perf does not print (bit i: argument i).
uint32_t prctl_unused_arguments(uint64_t option) {
  // GET_PDEATHSIG, GET_DUMPABLE, GET_SECUREBITS: none; SET_PDEATHSIG, SET_DUMPABLE, SET_NAME,
  // SET_SECUREBITS, {SET,GET}_CHILD_SUBREAPER: arg2 only; SET_MM: arg2, arg3.
  constexpr std::pair<uint64_t, uint32_t> unused[] = {{2, 0x3e},  {3, 0x3e},  {27, 0x3e}, {1, 0x3c},
                                                      {4, 0x3c},  {15, 0x3c}, {28, 0x3c}, {36, 0x3c},
                                                      {37, 0x3c}, {35, 0x38}};
  for (const auto& [known, arguments] : unused) {
    if (known == option) return arguments;
  }
  return 0;
}

std::string ioctl_cmd(uint64_t cmd) {
  const auto dir = static_cast<uint32_t>((cmd >> 30) & 3), type = static_cast<uint32_t>((cmd >> 8) & 0xff),
             nr = static_cast<uint32_t>(cmd & 0xff), size = static_cast<uint32_t>((cmd >> 16) & 0x3fff);
  struct Type {
    uint32_t type;
    const NameTable& names;
    std::string_view prefix;
    uint32_t shown_type;  // in the tuple for an unnamed command: perf 6.1 shows KVM's for perf's own
  };
  const Type types[] = {{'$', kPerfIoctls, "PERF_", 0xae},
                        {'A', kSndPcmIoctls, "SNDRV_PCM_", 'A'},
                        {'T', kTtyIoctls, "", 'T'},
                        {'U', kSndCtlIoctls, "SNDRV_CTL_", 'U'},
                        {'d', kDrmIoctls, "DRM_", 'd'},
                        {0xae, kKvmIoctls, "KVM_", 0xae},
                        {0xaf, (dir & 2) != 0 ? kVhostReadIoctls : kVhostWriteIoctls, "VHOST_", 0xaf}};
  for (const Type& known : types) {
    if (known.type != type) continue;
    const std::string_view name = known.names(nr);
    if (!name.empty()) return fmt::format("{}{}", known.prefix, name);
    return fmt::format("({}, {}, {})", c_hex32(known.shown_type), c_hex32(nr), c_hex32(dir));
  }
  const std::string_view direction = kIoctlDirections(dir);
  return fmt::format("({}, {}, {}, {})", direction, c_hex32(type), c_hex32(nr), c_hex32(size));
}

}  // namespace

std::string c_hex(uint64_t value) { return value == 0 ? "0" : fmt::format("{:#x}", value); }

bool prints_zero(ArgFormat format) { return format == ArgFormat::FcntlCmd || find(kNamedFormats, format); }

uint64_t mount_flags_without_magic(uint64_t flags) {
  return (flags & 0xffff0000) == 0xc0ed0000 ? flags & ~uint64_t{0xffff0000} : flags;
}

std::string open_flags_text(uint32_t flags) { return open_flags(flags); }
std::string fcntl_cmd_name(int32_t cmd) { return name_or(kFcntlCmds, cmd); }
std::string lease_name(int32_t lease) { return name_or(kLeases, lease, "%x"); }

void put_value(PerfText& text, ArgFormat format, const std::array<uint64_t, 6>& args, size_t index,
               uint32_t& skipped) {
  const uint64_t value = args[index];
  const int32_t number = low_int(value);
  if (const NamedFormat* named = find(kNamedFormats, format)) return text.put(name_or(named->table, number));
  if (const FlagFormat* flags = find(kFlagFormats, format)) {
    return text.put(flag_list(static_cast<uint32_t>(number), flags->flags));
  }
  if (const NamedFormat* bits = find(kFlagArrayFormats, format))
    return put_flag_array(text, bits->table, value);
  switch (format) {
    case ArgFormat::Int:
      return text.put(c_int(number));
    case ArgFormat::Hex:
      return text.put(c_hex(value));
    case ArgFormat::Pointer:
      return text.put(value == 0 ? "NULL" : c_hex(value));
    case ArgFormat::Filename:
      return text.put(c_hex32(static_cast<uint32_t>(value)));  // "%#x" of the pointer
    case ArgFormat::Mode:
      return text.put(flag_list(static_cast<uint32_t>(number), kModeBits, true));
    case ArgFormat::AccessMode:
      return text.put(access_mode(number));
    case ArgFormat::OpenFlags:
      if ((number & 0100) == 0) skipped |= 1u << (index + 1);  // the mode only with O_CREAT
      return text.put(open_flags(static_cast<uint32_t>(number)));
    case ArgFormat::MmapFlags:
      if ((value & 0x20) != 0) skipped |= (1u << 4) | (1u << 5);  // MAP_ANONYMOUS: no fd, offset
      return put_flag_array(text, kMmapFlags, value);
    case ArgFormat::MadviseBehavior: {
      const std::string_view name = kMadviseBehaviors(number);
      if (name.empty()) return text.put_rejected("");  // perf's "%#" format
      return text.put(fmt::format("MADV_{}", name));
    }
    case ArgFormat::CloneFlags:
      if ((value & 0x100000) == 0) skipped |= 1u << 2;   // parent_tidptr without PARENT_SETTID
      if ((value & 0x1200000) == 0) skipped |= 1u << 3;  // child_tidptr without CHILD_*TID
      if ((value & 0x80000) == 0) skipped |= 1u << 4;    // tls without SETTLS
      return text.put(flag_list(value, kCloneFlags));
    case ArgFormat::Signal:
      return text.put(name_or(kSignals, number, "%#x"));
    case ArgFormat::FutexOp:
      return text.put(futex_op(number, skipped));
    case ArgFormat::FutexVal3:  // perf 6.1 prints "%#xd"
      return text.put(static_cast<uint32_t>(value) == 0xffffffff
                          ? "MATCH_ANY"
                          : c_hex32(static_cast<uint32_t>(value)) + "d");
    case ArgFormat::SocketType:
      return text.put(socket_type(number));
    case ArgFormat::SocketProtocol: {  // IP protocols for AF_INET and AF_INET6
      const int32_t family = low_int(args[0]);
      return text.put(family == 2 || family == 10 ? name_or(kIpProtocols, number) : c_int(number));
    }
    case ArgFormat::SchedPolicy:
      return text.put(sched_policy(number));
    case ArgFormat::SeccompOp:
      return text.put(number == 0   ? "STRICT"
                      : number == 1 ? "FILTER"
                                    : c_hex32(static_cast<uint32_t>(number)));
    case ArgFormat::StatxFlags:
      return text.put(statx_bits(static_cast<uint32_t>(number), 0x7f00));
    case ArgFormat::StatxMask:
      return text.put(statx_bits(static_cast<uint32_t>(number), 0x3fff));
    case ArgFormat::Flock:
      return text.put(flag_list(static_cast<uint32_t>(number), kFlockOps, true));
    case ArgFormat::MountFlags:
      return put_flag_array(text, kMountFlags, mount_flags_without_magic(value));
    case ArgFormat::SyncFileRangeFlags:
      if ((value & 7) == 7) {  // WRITE_AND_WAIT, then the rest, which prints "0" when nothing is left
        text.put("WRITE_AND_WAIT");
        return put_flag_array(text, kSyncFileRangeFlags, value & ~uint64_t{7});
      }
      return put_flag_array(text, kSyncFileRangeFlags, value);
    case ArgFormat::PrctlOption:
      skipped |= prctl_unused_arguments(value);
      return text.put(name_or(kPrctlOptions, number));
    case ArgFormat::PrctlArg2: {  // PR_SET_MM's command, PR_SET_NAME's buffer
      const int32_t option = low_int(args[0]);
      return text.put(option == 35   ? name_or(kPrctlSetMm, number)
                      : option == 15 ? c_hex(value)
                                     : c_long(value));
    }
    case ArgFormat::PrctlArg3:
      return text.put(low_int(args[0]) == 35 ? c_hex(value) : c_long(value));
    case ArgFormat::KcmpType:
      if (value != 0) skipped |= (1u << 3) | (1u << 4);  // idx1, idx2 are fds only for KCMP_FILE
      return text.put(name_or(kKcmpTypes, number));
    case ArgFormat::IoctlCmd:
      return text.put(ioctl_cmd(value));
    case ArgFormat::ArchPrctlCode:
      return text.put(name_or(kArchPrctlCodes, number, "%#x"));
    default:
      return text.put(c_long(value));  // perf's "%ld"
  }
}

}  // namespace sonde::output
