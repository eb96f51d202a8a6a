// Fills a pipe with N pages and reads none of them, for sonde kmem's page counts:
//   pipe_pages N
// The pipe is widened to hold N pages (F_SETPIPE_SZ), then N writes of one page each go into
// fresh pipe buffers, so the kernel allocates exactly N order-0 pages from anon_pipe_write.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 16;
  long page_size = sysconf(_SC_PAGESIZE);
  int ends[2];
  if (pipe2(ends, O_NONBLOCK) != 0) return 1;
  if (fcntl(ends[1], F_SETPIPE_SZ, (int)(count * page_size)) < 0) return 2;
  static char page[65536];
  for (long i = 0; i < count; ++i)
    if (write(ends[1], page, (size_t)page_size) != page_size) return 3;
  return 0;
}
