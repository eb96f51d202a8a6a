// perf's --control protocol: commands by line (or NUL), acknowledged with perf's "ack\n\0".
#include "capture/control_channel.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

using namespace sonde;
using capture::ControlCommand;

TEST(ControlChannel, ReadsCommandsFromDescriptorsAndAcknowledges) {
  int control[2], ack[2];
  ASSERT_EQ(pipe(control), 0);
  ASSERT_EQ(pipe(ack), 0);
  auto channel =
      capture::ControlChannel::open("fd:" + std::to_string(control[0]) + "," + std::to_string(ack[1]));
  ASSERT_TRUE(channel) << channel.error().message;
  EXPECT_FALSE(channel->next());
  std::string commands = std::string("enable\nbogus\ndisa", 17);
  ASSERT_EQ(write(control[1], commands.data(), commands.size()), static_cast<ssize_t>(commands.size()));
  EXPECT_EQ(channel->next(), ControlCommand::enable);
  EXPECT_FALSE(channel->next());  // "bogus" is skipped and "disa" is not complete yet
  std::string rest("ble\0ping\n", 9);
  ASSERT_EQ(write(control[1], rest.data(), rest.size()), 9);
  EXPECT_EQ(channel->next(), ControlCommand::disable);
  EXPECT_EQ(channel->next(), ControlCommand::ping);
  channel->acknowledge();
  char reply[8] = {};
  ASSERT_EQ(read(ack[0], reply, sizeof reply), 5);
  EXPECT_EQ(std::string(reply, 5), std::string("ack\n\0", 5));
  for (int fd : {control[0], control[1], ack[0], ack[1]}) close(fd);
}

TEST(ControlChannel, RefusesBadSpecs) {
  for (const char* spec : {"pipe:3", "fd:", "fd:x", "fifo:", "fd:1,2,3", "fifo"}) {
    auto channel = capture::ControlChannel::open(spec);
    ASSERT_FALSE(channel) << spec;
    EXPECT_NE(channel.error().message.find("--control"), std::string::npos) << spec;
  }
  auto closed = capture::ControlChannel::open("fd:987");
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().message,
            "--control descriptor 987 is not open; give --control fifo:CTL-FIFO[,ACK-FIFO] or --control "
            "fd:CTL-FD[,ACK-FD]");
}
