// placeholder, replaced in the next step
char LICENSE[] __attribute__((section("license"), used)) = "GPL";
