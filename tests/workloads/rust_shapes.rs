// A Rust workload for demangling (legacy and v0 manglings): a generic method, a generic
// function taking a closure. Not built by CMake: the e2e test compiles it with rustc when the
// machine has one, once per mangling scheme.
struct Foo<T>(T);

impl<T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T>> Foo<T> {
    #[inline(never)]
    fn spin(&self, n: u64, one: T) -> T {
        let mut x = self.0;
        for _ in 0..n {
            x = x * x + one;
        }
        x
    }
}

#[inline(never)]
fn work<F: Fn(u64) -> u64>(f: F) -> u64 {
    let mut s = 0;
    for i in 0..1500u64 {
        s ^= f(i);
    }
    s
}

fn main() {
    let foo = Foo(3u64);
    let s = work(|i| foo.spin(100000 + (i & 1), 1));
    println!("{}", s & 0xff);
}
