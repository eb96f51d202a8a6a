// Makes THREADS threads fight over one kernel lock, for sonde lock's tests:
//   contend THREADS ROUNDS
// Each thread maps and unmaps an anonymous page ROUNDS times: every mmap and munmap takes the
// process's mmap_lock for writing, so on two or more CPUs the threads wait for each other there
// (rwsem:W contention under vm_mmap_pgoff and __vm_munmap).
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

static long rounds;

static void* map_and_unmap(void* unused) {
  (void)unused;
  for (long i = 0; i < rounds; ++i) {
    void* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) exit(2);
    munmap(page, 4096);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  rounds = argc > 2 ? atol(argv[2]) : 10000;
  pthread_t ids[64];
  if (threads < 1 || threads > 64) return 1;
  for (int i = 0; i < threads; ++i) pthread_create(&ids[i], NULL, map_and_unmap, NULL);
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  return 0;
}
