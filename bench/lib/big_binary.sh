# shellcheck shell=bash
# Sourced by the benchmarks that need a large C++ binary with DWARF (probe_speed, annotate_speed);
# not a benchmark itself.
# make_big_binary OUT FUNCTIONS: writes OUT.cpp and builds OUT (g++ -O2 -g): FUNCTIONS functions
# work_N, each inlining two of eight always-inline helpers and calling a method of its own class in
# one of 50 namespaces. `OUT [ROUNDS]` calls every 97th work_N ROUNDS times (once by default), so a
# profile of it has samples in many functions.
make_big_binary() {
    local out=$1 functions=$2
    {
        echo '#include <cstdio>'
        echo '#include <cstdlib>'
        echo 'struct item { long key; long value; item* next; };'
        for ((h = 0; h < 8; h++)); do
            echo "static inline __attribute__((always_inline)) long helper_$h(long v, const item* it) { long t = v * $((h + 3)) + it->key; return t ^ (t >> $((h + 1))); }"
        done
        for ((f = 0; f < functions; f++)); do
            echo "namespace ns$((f % 50)) { struct Worker$f { long state; __attribute__((noinline)) long step(long delta); };"
            echo "long Worker$f::step(long delta) { state += delta; return state; } }"
            echo "__attribute__((noinline)) long work_$f(long seed, const item* it) {"
            echo "  long acc = helper_$((f % 8))(seed, it);"
            echo "  acc += helper_$(((f + 3) % 8))(acc, it);"
            echo "  ns$((f % 50))::Worker$f w{acc};"
            echo "  return w.step(it->value) + acc;"
            echo "}"
        done
        echo 'int main(int argc, char** argv) { item it{1, 2, nullptr}; long s = argc;'
        echo '  long rounds = argc > 1 ? std::atol(argv[1]) : 1;'
        echo '  for (long r = 0; r < rounds; ++r) {'
        for ((f = 0; f < functions; f += 97)); do echo "    s += work_$f(s, &it);"; done
        echo '  }'
        echo '  std::printf("%ld\n", s); return argc > 5 ? (int)s : 0; }'
    } >"$out.cpp"
    g++ -O2 -g -o "$out" "$out.cpp"
}
