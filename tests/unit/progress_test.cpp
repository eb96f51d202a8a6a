// The progress line: drawn on a terminal only, erased when the work is done; a session pass
// draws it on stderr when asked to.
#include "base/progress.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "pseudo_terminal.hpp"

using namespace sonde;

namespace {

struct NoDelay {
  NoDelay() { ::setenv("SONDE_PROGRESS_DELAY_MS", "0", 1); }
  ~NoDelay() { ::unsetenv("SONDE_PROGRESS_DELAY_MS"); }
};

}  // namespace

TEST(Progress, DrawnOnATerminalAndErasedWhenDone) {
  test::PseudoTerminal pty;
  ASSERT_NE(pty.terminal, nullptr) << "no pseudo-terminal";
  NoDelay no_delay;
  {
    Progress progress("sonde test: reading x.data", true, pty.terminal);
    progress.update(50, 200);
    EXPECT_TRUE(progress.drawn());
    progress.update(60, 200);  // within a tenth of a second: not redrawn
  }
  std::string written = pty.read();
  EXPECT_NE(written.find("sonde test: reading x.data:  25%"), std::string::npos) << written;
  EXPECT_EQ(written.find("30%"), std::string::npos) << written;
  ASSERT_GE(written.size(), 4u);
  EXPECT_EQ(written.substr(written.size() - 4), "\r\033[K") << "the line is erased at the end";
}

TEST(Progress, QuietOffATerminalBeforeTheDelayOrWhenNotWanted) {
  NoDelay no_delay;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* pipe_end = ::fdopen(fds[1], "w");
  {
    Progress progress("sonde test", true, pipe_end);
    progress.update(1, 2);
    EXPECT_FALSE(progress.drawn());
  }
  std::fclose(pipe_end);
  char byte;
  EXPECT_EQ(::read(fds[0], &byte, 1), 0) << "nothing written to a pipe";
  ::close(fds[0]);

  test::PseudoTerminal pty;
  ASSERT_NE(pty.terminal, nullptr);
  {
    Progress unwanted("sonde test", false, pty.terminal);
    unwanted.update(1, 2);
    EXPECT_FALSE(unwanted.drawn());
  }
  ::setenv("SONDE_PROGRESS_DELAY_MS", "60000", 1);
  {
    Progress early("sonde test", true, pty.terminal);
    early.update(1, 2);
    EXPECT_FALSE(early.drawn()) << "drawn before a minute had passed";
  }
  EXPECT_EQ(pty.read(), "");
}
