// Touches N fresh pages of an anonymous mapping once each, from touch_pages(), for sonde trace
// --pf: exactly N minor faults there (huge pages are turned off for the mapping).
//   faults N
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) void touch_pages(volatile char* pages, long count, long page_size) {
  for (long i = 0; i < count; ++i) pages[i * page_size] = 1;
}

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 100;
  long page_size = sysconf(_SC_PAGESIZE);
  char* pages =
      mmap(NULL, (size_t)(count * page_size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return 1;
  madvise(pages, (size_t)(count * page_size), MADV_NOHUGEPAGE);
  touch_pages(pages, count, page_size);
  return 0;
}
