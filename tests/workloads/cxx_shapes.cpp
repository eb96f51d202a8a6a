// A C++ workload: its hot functions are a member of a class template in a namespace and a free
// function with parameters, so their symbols need demangling ("geo::Box<long>::spin").
#include <cstdio>
#include <cstdlib>

namespace geo {

template <typename T>
struct Box {
  T value;
  __attribute__((noinline)) T spin(int rounds) {
    for (int i = 0; i < rounds; ++i) value = value * 3 + 1;
    return value;
  }
};

__attribute__((noinline)) long area(int width, long height) {
  Box<long> box{height};
  return box.spin(width);
}

}  // namespace geo

int main(int argc, char** argv) {
  int loops = argc > 1 ? std::atoi(argv[1]) : 3000;
  long sum = 0;
  for (int i = 0; i < loops; ++i) sum += geo::area(100000, i);
  std::printf("%ld\n", sum & 0xff);
  return 0;
}
