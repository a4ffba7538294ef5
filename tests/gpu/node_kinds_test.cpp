// tests/gpu/node_kinds_test.cpp — the effect of every node kind on random data, launched several
// times with the result checked after each launch.
#include "gpu_support.hpp"

using namespace gpu_test;

// The file's names live in a namespace of its own: CI compiles the suite's files in batches (unity
// builds, tests/CMakeLists.txt), where its kernels and helpers would collide with other files'.
namespace node_kinds_test {

namespace {

constexpr unsigned long long kMs = 1000ull * 1000ull;

}  // namespace

// ---- kernel --------------------------------------------------------------------------------------

TEST_CASE("kernel node converts arguments to the kernel's parameter types and recomputes each launch",
          "[gpu][kernel]") {
  auto gen = rng(1);
  const int n = 3001;  // not a multiple of the block size
  DeviceBuffer<float> d_x(random_floats(n, gen));
  DeviceBuffer<float> d_y(random_floats(n, gen));

  gd::Graph g("kernel");
  // 2.5 (double) -> float, -3 (int) -> float, n (int) -> std::size_t
  g.add_kernel(axpb_sized, gd::cover(n), d_y.get(), d_x.get(), 2.5, -3, n).name("axpb");
  gd::Executable exec = g.instantiate();

  Stream s;
  for (int launch = 0; launch < 3; ++launch) {
    const std::vector<float> x = random_floats(n, gen);  // the kernel reads x at launch time
    d_x.upload(x);
    exec.launch(s);
    exec.synchronize(s);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = 2.5f * x[i] - 3.0f;  // exact for multiples of 1/8
    INFO("launch " << launch);
    require_equal(d_y.download(), want, "y = 2.5 x - 3");
  }
}

TEST_CASE("kernel node packs mixed-size arguments (char, double, short, struct, ...) exactly", "[gpu][kernel]") {
  auto gen = rng(2);
  std::uniform_int_distribution<int> small(-120, 120);
  std::uniform_int_distribution<int> shorts(-30000, 30000);
  const int c = small(gen) | 1;                        // int -> char
  const float d = static_cast<float>(small(gen)) / 4;  // float -> double
  const int s = shorts(gen) | 1;                       // int -> short
  const unsigned l = 4000000000u - static_cast<unsigned>(shorts(gen) + 40000);  // unsigned -> long long
  const double f = 0.1 * small(gen) + 0.05;            // double -> float (rounded)
  const Mixed m{small(gen) | 1, static_cast<float>(small(gen)) / 8 + 0.125f, 1e10 + small(gen)};
  const int u = 12345 + small(gen);                    // int -> unsigned
  const int b = 200 + small(gen) / 4;                  // int -> uint8_t

  DeviceBuffer<double> d_out(10);
  gd::Graph g("mixed");
  g.add_kernel(mixed_args, gd::Launch{1, 1}, d_out.get(), c, d, s, l, f, m, u, b).name("mixed");
  gd::Executable exec = g.instantiate();
  for (int launch = 0; launch < 2; ++launch) {
    GPU_REQUIRE(cudaMemset(d_out.get(), 0xFF, d_out.bytes()));  // NaN everywhere
    GPU_REQUIRE(cudaStreamSynchronize(cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
    exec.launch();
    exec.synchronize();
    const std::vector<double> out = d_out.download();
    CHECK(out[0] == static_cast<double>(static_cast<char>(c)));
    CHECK(out[1] == static_cast<double>(d));
    CHECK(out[2] == static_cast<double>(static_cast<short>(s)));
    CHECK(out[3] == static_cast<double>(static_cast<long long>(l)));
    CHECK(out[4] == static_cast<double>(static_cast<float>(f)));
    CHECK(out[5] == static_cast<double>(m.i));
    CHECK(out[6] == static_cast<double>(m.f));
    CHECK(out[7] == m.d);
    CHECK(out[8] == static_cast<double>(static_cast<unsigned>(u)));
    CHECK(out[9] == static_cast<double>(static_cast<std::uint8_t>(b)));
  }
}

// ---- memset --------------------------------------------------------------------------------------

namespace {

template <class T>
void check_memset_1d(unsigned salt) {
  auto gen = rng(salt);
  const std::size_t n = 1000, offset = 13, count = 700;
  std::vector<T> init = random_ints<T>(n, gen);
  const T value = random_value_not_in(init, gen);
  DeviceBuffer<T> d(init);

  gd::Graph g("memset");
  g.add_memset(d.get() + offset, value, count).name("fill");
  gd::Executable exec = g.instantiate();
  Stream s;
  for (int launch = 0; launch < 2; ++launch) {
    init = random_ints<T>(n, gen);  // the memset rewrites its range on every launch
    for (auto& v : init) {
      if (v == value) v = static_cast<T>(v + 1);
    }
    d.upload(init);
    exec.launch(s);
    exec.synchronize(s);
    std::vector<T> want = init;
    std::fill(want.begin() + offset, want.begin() + offset + count, value);
    INFO(sizeof(T) << "-byte elements, launch " << launch);
    require_equal(d.download(), want, "memset range set, rest untouched");
  }
}

template <class T>
void check_memset_2d(unsigned salt) {
  auto gen = rng(salt);
  const std::size_t width = 77, set_width = 71, height = 19;
  PitchedBuffer p(width * sizeof(T), height);
  REQUIRE(p.pitch() >= width * sizeof(T));
  std::vector<std::uint8_t> init = random_ints<std::uint8_t>(p.total_bytes(), gen);
  const T value = static_cast<T>(random_ints<T>(1, gen)[0] | 1);
  GPU_REQUIRE(cudaMemcpy(p.get(), init.data(), init.size(), cudaMemcpyHostToDevice));
  GPU_REQUIRE(cudaStreamSynchronize(cudaStreamLegacy));  // a pageable upload may still be in flight: other streams do not wait for it

  gd::Graph g("memset2d");
  g.add_memset_2d(static_cast<T*>(p.get()), p.pitch(), value, set_width, height).name("fill2d");
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();

  std::vector<std::uint8_t> got(p.total_bytes());
  GPU_REQUIRE(cudaMemcpy(got.data(), p.get(), got.size(), cudaMemcpyDeviceToHost));
  std::vector<std::uint8_t> want = init;
  for (std::size_t r = 0; r < height; ++r) {
    for (std::size_t c = 0; c < set_width; ++c) std::memcpy(&want[r * p.pitch() + c * sizeof(T)], &value, sizeof(T));
  }
  INFO(sizeof(T) << "-byte elements, pitch " << p.pitch());
  require_equal(got, want, "rows set up to the width, padding and tail untouched");
}

}  // namespace

TEST_CASE("memset node sets 1-, 2- and 4-byte elements", "[gpu][memset]") {
  check_memset_1d<std::uint8_t>(10);
  check_memset_1d<std::uint16_t>(11);
  check_memset_1d<std::int16_t>(12);
  check_memset_1d<std::uint32_t>(13);
  check_memset_1d<std::int32_t>(14);
}

TEST_CASE("memset node stores a float's bit pattern", "[gpu][memset]") {
  auto gen = rng(15);
  const std::size_t n = 513;
  const std::vector<float> init = random_floats(n, gen);
  const float value = 1.0f / 3.0f;  // not a multiple of 1/8: differs from every initial element
  DeviceBuffer<float> d(init);
  gd::Graph g("memset_float");
  g.add_memset(d.get() + 1, value, n - 2).name("fill_float");
  gd::Executable exec = g.instantiate();
  exec.launch();
  exec.synchronize();
  std::vector<float> want(n, value);
  want.front() = init.front();
  want.back() = init.back();
  require_equal(d.download(), want, "every float but the first and last set");
}

TEST_CASE("2-D memset node honours the pitch (cudaMallocPitch)", "[gpu][memset]") {
  check_memset_2d<std::uint32_t>(20);
  check_memset_2d<std::uint16_t>(21);
  check_memset_2d<std::uint8_t>(22);
}

// ---- memcpy --------------------------------------------------------------------------------------

TEST_CASE("typed 1-D memcpy nodes copy H2D, D2D and D2H, with explicit kinds and cudaMemcpyDefault",
          "[gpu][memcpy]") {
  auto gen = rng(30);
  const std::size_t n = 5000, count = n - 7;
  PinnedBuffer<float> h_src(n), h_dst(n);
  DeviceBuffer<float> d_a(n), d_b(n);

  for (const bool explicit_kinds : {true, false}) {
    INFO((explicit_kinds ? "explicit kinds" : "cudaMemcpyDefault"));
    gd::Graph g("memcpy1d");
    gd::MemcpyNode up, across;
    if (explicit_kinds) {
      up = g.add_memcpy(d_a.get(), h_src.data(), count, cudaMemcpyHostToDevice).name("h2d");
      across = g.add_memcpy(d_b.get(), static_cast<const float*>(d_a.get()), count, cudaMemcpyDeviceToDevice)
                   .name("d2d")
                   .after(up);
      g.add_memcpy(h_dst.data(), static_cast<const float*>(d_b.get()), count, cudaMemcpyDeviceToHost)
                 .name("d2h")
                 .after(across);
    } else {
      up = g.add_memcpy(d_a.get(), h_src.data(), count).name("h2d");
      across = g.add_memcpy(d_b.get(), static_cast<const float*>(d_a.get()), count).name("d2d").after(up);
      g.add_memcpy(h_dst.data(), static_cast<const float*>(d_b.get()), count).name("d2h").after(across);
    }
    gd::Executable exec = g.instantiate();
    Stream s;
    for (int launch = 0; launch < 3; ++launch) {
      h_src.assign(random_floats(n, gen));  // memcpy nodes read their source at launch time
      const std::vector<float> sentinel = random_floats(n, gen);
      h_dst.assign(sentinel);
      exec.launch(s);
      exec.synchronize(s);
      std::vector<float> want = h_src.to_vector();
      std::copy(sentinel.begin() + count, sentinel.end(), want.begin() + count);  // beyond count: untouched
      INFO("launch " << launch);
      require_equal(h_dst.to_vector(), want, "round trip through two device buffers");
    }
  }
}

TEST_CASE("raw-byte memcpy node copies an odd number of bytes at unaligned offsets", "[gpu][memcpy]") {
  auto gen = rng(31);
  const std::size_t n = 2048, bytes = 1001, offset = 3;
  PinnedBuffer<std::uint8_t> h_src(n), h_dst(n);
  DeviceBuffer<std::uint8_t> d(n);
  gd::Graph g("bytes");
  auto up = g.add_memcpy_bytes(d.get() + offset, h_src.data() + 1, bytes).name("up");
  g.add_memcpy_bytes(h_dst.data() + 5, d.get() + offset, bytes, cudaMemcpyDeviceToHost).name("down").after(up);
  gd::Executable exec = g.instantiate();
  for (int launch = 0; launch < 2; ++launch) {
    h_src.assign(random_ints<std::uint8_t>(n, gen));
    const std::vector<std::uint8_t> sentinel = random_ints<std::uint8_t>(n, gen);
    h_dst.assign(sentinel);
    exec.launch();
    exec.synchronize();
    std::vector<std::uint8_t> want = sentinel;
    std::copy(h_src.data() + 1, h_src.data() + 1 + bytes, want.begin() + 5);
    INFO("launch " << launch);
    require_equal(h_dst.to_vector(), want, "exactly `bytes` bytes copied");
  }
}

TEST_CASE("2-D memcpy node copies between packed host rows and a pitched device array", "[gpu][memcpy]") {
  auto gen = rng(32);
  const std::size_t w = 67, h = 23, copy_w = w - 2, dst_w = w + 5;  // in floats
  PinnedBuffer<float> h_src(w * h), h_dst(dst_w * h);
  PitchedBuffer d(copy_w * sizeof(float), h);

  gd::Graph g("memcpy2d");
  // host columns [1, 1 + copy_w) of each row -> device rows; device rows -> host rows of dst_w floats
  auto up = g.add_memcpy_2d(d.get(), d.pitch(), h_src.data() + 1, w * sizeof(float), copy_w * sizeof(float), h,
                            cudaMemcpyHostToDevice)
                .name("up2d");
  g.add_memcpy_2d(h_dst.data(), dst_w * sizeof(float), d.get(), d.pitch(), copy_w * sizeof(float), h)
      .name("down2d")
      .after(up);
  gd::Executable exec = g.instantiate();
  for (int launch = 0; launch < 2; ++launch) {
    h_src.assign(random_floats(w * h, gen));
    const std::vector<float> sentinel = random_floats(dst_w * h, gen);
    h_dst.assign(sentinel);
    exec.launch();
    exec.synchronize();
    std::vector<float> want = sentinel;
    for (std::size_t r = 0; r < h; ++r) {
      for (std::size_t c = 0; c < copy_w; ++c) want[r * dst_w + c] = h_src[r * w + c + 1];
    }
    INFO("launch " << launch);
    require_equal(h_dst.to_vector(), want, "rows copied, host row tails untouched");
  }
}

TEST_CASE("3-D memcpy nodes copy to and from a cudaMalloc3D array, with offsets", "[gpu][memcpy]") {
  auto gen = rng(33);
  const int w = 37, h = 11, dz = 5;
  const std::size_t row = w * sizeof(float);
  PinnedBuffer<float> h_src(static_cast<std::size_t>(w) * h * dz);
  const int ow = w - 1, oh = h - 1, od = dz - 1;  // the box read back: starts at (1, 1, 1)
  PinnedBuffer<float> h_dst(static_cast<std::size_t>(ow) * oh * od);
  Pitched3DBuffer d(make_cudaExtent(row, h, dz));

  gd::Graph g("memcpy3d");
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(h_src.data(), row, w, h);
  up.dstPtr = d.ptr();
  up.extent = make_cudaExtent(row, h, dz);
  up.kind = cudaMemcpyHostToDevice;
  auto n_up = g.add_memcpy_3d(up).name("up3d");
  auto n_add = g.add_kernel(add_one_3d, gd::Launch{dim3(1, h, dz), dim3(64)}, d.ptr(), w, h, dz).name("add_one").after(n_up);
  cudaMemcpy3DParms down{};
  down.srcPtr = d.ptr();
  down.srcPos = make_cudaPos(sizeof(float), 1, 1);  // x in bytes for linear memory
  down.dstPtr = make_cudaPitchedPtr(h_dst.data(), ow * sizeof(float), ow, oh);
  down.extent = make_cudaExtent(ow * sizeof(float), oh, od);
  down.kind = cudaMemcpyDefault;
  g.add_memcpy_3d(down).name("down3d").after(n_add);
  gd::Executable exec = g.instantiate();

  for (int launch = 0; launch < 2; ++launch) {
    h_src.assign(random_floats(h_src.size(), gen));
    h_dst.assign(random_floats(h_dst.size(), gen));
    exec.launch();
    exec.synchronize();
    std::vector<float> want(h_dst.size());
    for (int z = 0; z < od; ++z) {
      for (int y = 0; y < oh; ++y) {
        for (int x = 0; x < ow; ++x) {
          want[(static_cast<std::size_t>(z) * oh + y) * ow + x] =
              h_src[(static_cast<std::size_t>(z + 1) * h + (y + 1)) * w + (x + 1)] + 1.0f;
        }
      }
    }
    INFO("launch " << launch);
    require_equal(h_dst.to_vector(), want, "sub-box of (src + 1)");
  }
}

// ---- host, child, empty, events ------------------------------------------------------------------

TEST_CASE("host node runs its callable once per launch", "[gpu][host]") {
  auto calls = std::make_shared<std::atomic<int>>(0);
  gd::Graph g("host");
  g.add_host([calls] { calls->fetch_add(1); }).name("count");
  gd::Executable exec = g.instantiate();
  Stream s;
  for (int launch = 1; launch <= 5; ++launch) {
    exec.launch(s);
    exec.synchronize(s);
    REQUIRE(calls->load() == launch);
  }
  for (int i = 0; i < 7; ++i) exec.launch(s);  // queued back to back
  exec.synchronize(s);
  REQUIRE(calls->load() == 12);
}

TEST_CASE("child node embeds a copy of a plan (kernel + memcpy); embedding it twice runs it twice",
          "[gpu][child]") {
  auto gen = rng(40);
  const int n = 1500;
  PinnedBuffer<float> h_x(n), h_out(n);
  DeviceBuffer<float> d_x(n), d_y(n);

  gd::Graph child("child");
  auto k = child.add_kernel(add_scalar, gd::cover(n), d_x.get(), 1.5, n).name("add_1.5");
  child.add_memcpy(d_y.get(), static_cast<const float*>(d_x.get()), n).name("x_to_y").after(k);

  gd::Graph g("parent");
  auto up = g.add_memcpy(d_x.get(), h_x.data(), n).name("up");
  auto c1 = g.add_child(child).name("first").after(up);
  auto c2 = g.add_child(child).name("second").after(c1);
  g.add_memcpy(h_out.data(), static_cast<const float*>(d_y.get()), n).name("down").after(c2);

  // add_child took a copy: a node added to `child` now (zeroing y after the copy) changes nothing.
  const gd::Node last = child.nodes().back();
  child.add_memset(d_y.get(), 0.0f, n).name("late").after(last);
  REQUIRE(child.node_count() == 3);
  REQUIRE(g.child_plan(c1).node_count() == 2);

  gd::Executable exec = g.instantiate();
  Stream s;
  for (int launch = 0; launch < 3; ++launch) {
    h_x.assign(random_floats(n, gen));
    h_out.assign(random_floats(n, gen));
    exec.launch(s);
    exec.synchronize(s);
    std::vector<float> want = h_x.to_vector();
    for (auto& v : want) v += 3.0f;
    INFO("launch " << launch);
    require_equal(h_out.to_vector(), want, "x + 1.5 + 1.5");
  }
}

TEST_CASE("empty node joins two branches; the node after it sees both", "[gpu][empty]") {
  auto gen = rng(41);
  const int n = 2000;
  PinnedBuffer<float> h_x(n), h_out(n);
  DeviceBuffer<float> d_x(n), d_a(n), d_b(n), d_c(n);

  gd::Graph g("join");
  auto up = g.add_memcpy(d_x.get(), h_x.data(), n).name("up");
  auto a = g.add_kernel(spin_affine, gd::cover(n), d_a.get(), d_x.get(), 2.0, 0.5, 4 * kMs, n).name("slow").after(up);
  auto b = g.add_kernel(spin_affine, gd::cover(n), d_b.get(), d_x.get(), -1.0, 3.0, 0ull, n).name("fast").after(up);
  auto join = g.add_empty().name("join").after(a, b);
  auto c = g.add_kernel(add2, gd::cover(n), d_c.get(), d_a.get(), d_b.get(), n).name("sum").after(join);
  g.add_memcpy(h_out.data(), static_cast<const float*>(d_c.get()), n).name("down").after(c);
  REQUIRE(g.predecessors(c) == std::vector<gd::Node>{join});

  gd::Executable exec = g.instantiate();
  Stream s;
  for (int launch = 0; launch < 3; ++launch) {
    h_x.assign(random_floats(n, gen));
    exec.launch(s);
    exec.synchronize(s);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = (2.0f * h_x[i] + 0.5f) + (-h_x[i] + 3.0f);
    INFO("launch " << launch);
    require_equal(h_out.to_vector(), want, "(2x + 0.5) + (3 - x)");
  }
}

TEST_CASE("event record node in one graph orders an event wait node in another graph on another stream",
          "[gpu][event]") {
  auto gen = rng(42);
  const int n = 1024;
  const std::vector<float> x = random_floats(n, gen);
  const std::vector<float> v0 = random_floats(n, gen);
  DeviceBuffer<float> d_x(x), d_v(v0);
  PinnedBuffer<float> h_out(n);
  gd::Event e = gd::Event::create();

  gd::Graph producer("producer");
  auto acc = producer.add_kernel(spin_accumulate, gd::cover(n), d_v.get(), d_x.get(), 5 * kMs, n).name("slow_acc");
  producer.add_event_record(e).name("record").after(acc);

  gd::Graph consumer("consumer");
  auto wait = consumer.add_event_wait(e).name("wait");
  consumer.add_memcpy(h_out.data(), static_cast<const float*>(d_v.get()), n).name("read_v").after(wait);

  gd::Executable a = producer.instantiate();
  gd::Executable b = consumer.instantiate();
  Stream s1, s2;
  for (int launch = 1; launch <= 4; ++launch) {
    h_out.assign(random_floats(n, gen));
    a.launch(s1);
    b.launch(s2);  // must not read v before the slow accumulation of this launch finished
    b.synchronize(s2);
    a.synchronize(s1);
    std::vector<float> want = v0;
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < launch; ++k) want[i] += x[i];
    }
    INFO("launch " << launch);
    require_equal(h_out.to_vector(), want, "v0 + launch * x read after the record");
  }
}

}  // namespace node_kinds_test
