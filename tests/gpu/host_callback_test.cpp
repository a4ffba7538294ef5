// tests/gpu/host_callback_test.cpp — host nodes run once per launch, in order, after their
// predecessors; an exception thrown by one does not end the process and is re-thrown, with its
// own type and message, by the Executable.
#include <typeinfo>

#include "gpu_support.hpp"

using namespace gpu_test;

namespace {

/// A user exception type that is not derived from std::exception.
struct CustomFailure {
  int code;
  std::string text;
};

/// A user exception type derived from std::exception with extra state.
class DomainError : public std::logic_error {
 public:
  DomainError(const std::string& what, int id) : std::logic_error(what), id_(id) {}
  int id() const noexcept { return id_; }

 private:
  int id_;
};

}  // namespace

TEST_CASE("host callback reads what the preceding D2H memcpy node wrote, on every launch", "[gpu][host]") {
  auto gen = rng(200);
  const int n = 777;
  PinnedBuffer<float> h_in(n), h_out(n);
  DeviceBuffer<float> d_in(n), d_out(n);
  std::vector<std::vector<float>> seen;  // written only by the callback

  gd::Graph g("host_reads");
  auto up = g.add_memcpy(d_in.get(), h_in.data(), n).name("upload");
  auto k = g.add_kernel(affine, gd::cover(n), d_out.get(), d_in.get(), 2, 1, n).name("affine").after(up);
  auto down = g.add_memcpy(h_out.data(), static_cast<const float*>(d_out.get()), n).name("download").after(k);
  g.add_host([&seen, &h_out] { seen.push_back(h_out.to_vector()); }).name("record").after(down);
  gd::Executable exec = g.instantiate();

  Stream s;
  std::vector<std::vector<float>> inputs;
  for (int launch = 0; launch < 4; ++launch) {
    inputs.push_back(random_floats(n, gen));
    h_in.assign(inputs.back());
    h_out.assign(random_floats(n, gen));  // garbage the callback must not see
    exec.launch(s);
    exec.synchronize(s);
    REQUIRE(seen.size() == static_cast<std::size_t>(launch + 1));
  }
  for (std::size_t launch = 0; launch < inputs.size(); ++launch) {
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = 2.0f * inputs[launch][i] + 1.0f;
    INFO("launch " << launch);
    require_equal(seen[launch], want, "the callback saw 2x + 1 of its own launch");
  }
}

TEST_CASE("host callbacks of queued launches run once each, in launch order, after their predecessors",
          "[gpu][host]") {
  auto gen = rng(201);
  std::uniform_int_distribution<int> start(1000, 100000);
  const int first = start(gen);
  DeviceBuffer<int> d_counter(std::vector<int>{first});
  PinnedBuffer<int> h_counter(1);
  h_counter[0] = -1;
  std::vector<int> log;  // appended to by the callbacks only

  gd::Graph g("ordered");
  auto inc = g.add_kernel(increment, gd::Launch{1, 1}, d_counter.get()).name("increment");
  auto down = g.add_memcpy(h_counter.data(), static_cast<const int*>(d_counter.get()), 1).name("download").after(inc);
  auto first_cb = g.add_host([&log, &h_counter] { log.push_back(h_counter[0]); }).name("first").after(down);
  g.add_host([&log, &h_counter] { log.push_back(-h_counter[0]); }).name("second").after(first_cb);
  gd::Executable exec = g.instantiate();

  Stream s;
  const int launches = 10;
  for (int i = 0; i < launches; ++i) exec.launch(s);  // no synchronization in between
  exec.synchronize(s);

  std::vector<int> want;
  for (int i = 1; i <= launches; ++i) {
    want.push_back(first + i);
    want.push_back(-(first + i));
  }
  require_equal(log, want, "each launch's callbacks, in order, saw that launch's counter");
}

TEST_CASE("an exception thrown by a host callback is re-thrown by synchronize(), then cleared",
          "[gpu][host][error]") {
  auto gen = rng(202);
  const int n = 300;
  const std::vector<float> x = random_floats(n, gen);
  DeviceBuffer<float> d_x(x), d_y(n);
  std::atomic<bool> do_throw{true};
  std::atomic<int> calls{0};

  gd::Graph g("throwing");
  auto cb = g.add_host([&] {
               calls.fetch_add(1);
               if (do_throw.load()) throw std::runtime_error("boom");
             }).name("thrower");
  // a successor of the throwing node still runs: the exception was caught in the trampoline
  g.add_kernel(affine, gd::cover(n), d_y.get(), d_x.get(), -2, 0.25, n).name("after_throw").after(cb);
  gd::Executable exec = g.instantiate();

  Stream s;
  REQUIRE_FALSE(exec.has_host_error());
  exec.launch(s);
  GPU_REQUIRE(cudaStreamSynchronize(s));  // raw wait: nothing re-thrown yet
  REQUIRE(calls.load() == 1);
  REQUIRE(exec.has_host_error());
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = -2.0f * x[i] + 0.25f;
  require_equal(d_y.download(), want, "the successor of the throwing node ran");

  bool caught = false;
  try {
    exec.synchronize(s);
  } catch (const gd::Error& e) {
    FAIL("the user's exception was wrapped in a graphdsl error: " << e.what());
  } catch (const std::runtime_error& e) {
    caught = true;
    CHECK(std::string(e.what()) == "boom");
    CHECK(typeid(e) == typeid(std::runtime_error));  // the original object, not a copy of a base
  }
  REQUIRE(caught);
  REQUIRE_FALSE(exec.has_host_error());
  REQUIRE_NOTHROW(exec.synchronize(s));  // re-thrown once only
  REQUIRE_NOTHROW(exec.rethrow_host_error());

  // the executable keeps working
  do_throw = false;
  GPU_REQUIRE(cudaMemset(d_y.get(), 0xFF, d_y.bytes()));
  GPU_REQUIRE(cudaStreamSynchronize(cudaStreamLegacy));  // cudaMemset is asynchronous; non-blocking streams do not wait for it
  exec.launch(s);
  REQUIRE_NOTHROW(exec.synchronize(s));
  REQUIRE(calls.load() == 2);
  REQUIRE_FALSE(exec.has_host_error());
  require_equal(d_y.download(), want, "the next launch ran completely");
}

TEST_CASE("host callback exceptions keep their own type: a non-std type and a derived type", "[gpu][host][error]") {
  SECTION("a type not derived from std::exception") {
    gd::Graph g("custom");
    g.add_host([] { throw CustomFailure{417, "teapot"}; }).name("custom");
    gd::Executable exec = g.instantiate();
    exec.launch();
    GPU_REQUIRE(cudaDeviceSynchronize());
    REQUIRE(exec.has_host_error());
    bool caught = false;
    try {
      exec.rethrow_host_error();
    } catch (const CustomFailure& f) {
      caught = true;
      CHECK(f.code == 417);
      CHECK(f.text == "teapot");
    }
    REQUIRE(caught);
    REQUIRE_FALSE(exec.has_host_error());
  }
  SECTION("a type derived from std::logic_error") {
    gd::Graph g("derived");
    g.add_host([] { throw DomainError("out of domain", 42); }).name("derived");
    gd::Executable exec = g.instantiate();
    Stream s;
    exec.launch(s);
    bool caught = false;
    try {
      exec.synchronize(s);
    } catch (const DomainError& e) {
      caught = true;
      CHECK(e.id() == 42);
      CHECK(std::string(e.what()) == "out of domain");
    }
    REQUIRE(caught);
  }
}

TEST_CASE("launch() re-throws a pending host error before launching, and the next launch works",
          "[gpu][host][error]") {
  DeviceBuffer<int> d_counter(std::vector<int>{5});
  std::atomic<int> calls{0};
  gd::Graph g("pending");
  auto inc = g.add_kernel(increment, gd::Launch{1, 1}, d_counter.get()).name("increment");
  g.add_host([&calls] {
     if (calls.fetch_add(1) == 0) throw std::runtime_error("boom");
   }).name("throw_first_time").after(inc);
  gd::Executable exec = g.instantiate();

  Stream s;
  exec.launch(s);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  REQUIRE(exec.has_host_error());
  REQUIRE_THROWS_MATCHES(exec.launch(s), std::runtime_error, message_is("boom"));
  GPU_REQUIRE(cudaStreamSynchronize(s));
  CHECK(d_counter.download()[0] == 6);  // the launch that threw was not issued
  CHECK(calls.load() == 1);
  REQUIRE_FALSE(exec.has_host_error());

  exec.launch(s);
  REQUIRE_NOTHROW(exec.synchronize(s));
  CHECK(d_counter.download()[0] == 7);
  CHECK(calls.load() == 2);
}

TEST_CASE("only the first host exception is kept; upload() also re-throws it", "[gpu][host][error]") {
  std::atomic<int> calls{0};
  gd::Graph g("first_only");
  // the callback runs 20 ms after the launch, so both launches are issued before the first throws
  auto wait = g.add_kernel(spin_kernel, gd::Launch{1, 1}, 20ull * 1000 * 1000).name("spin");
  g.add_host([&calls] {
     const int c = calls.fetch_add(1) + 1;
     throw std::runtime_error("boom " + std::to_string(c));
   }).name("always_throws").after(wait);
  gd::Executable exec = g.instantiate();

  Stream s;
  exec.launch(s);
  exec.launch(s);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  REQUIRE(calls.load() == 2);
  REQUIRE(exec.has_host_error());
  REQUIRE_THROWS_MATCHES(exec.upload(s), std::runtime_error, message_is("boom 1"));
  REQUIRE_FALSE(exec.has_host_error());
  REQUIRE_NOTHROW(exec.synchronize(s));  // "boom 2" was dropped
}

TEST_CASE("a host callable inside a child plan reports its exception to the executable, also after set_child",
          "[gpu][host][error][child]") {
  // The executable's error sink is made by the first host node built for it: here none is at the
  // top level, only inside the child plan, and set_child builds the next ones.
  std::atomic<int> calls{0};
  auto child = [&calls](const char* message) {
    gd::Graph c("inner");
    c.add_host([&calls, message] {
       calls.fetch_add(1);
       throw std::runtime_error(message);
     }).name("throws");
    return c;
  };
  gd::Graph g("outer");
  auto node = g.add_child(child("from the compiled child")).name("sub");
  gd::Executable exec = g.instantiate();
  CHECK_FALSE(exec.has_host_error());

  Stream s;
  exec.launch(s);
  GPU_REQUIRE(cudaStreamSynchronize(s));
  REQUIRE(exec.has_host_error());
  REQUIRE_THROWS_MATCHES(exec.synchronize(s), std::runtime_error, message_is("from the compiled child"));
  CHECK_FALSE(exec.has_host_error());

  exec.set_child(node, child("from the child set later"));
  exec.launch(s);
  REQUIRE_THROWS_MATCHES(exec.synchronize(s), std::runtime_error, message_is("from the child set later"));
  const gd::PreparedChild prepared = exec.prepare_child(node, child("from a prepared child"));
  exec.set_child(node, prepared);
  exec.launch(s);
  REQUIRE_THROWS_MATCHES(exec.synchronize(s), std::runtime_error, message_is("from a prepared child"));
  CHECK(calls.load() == 3);
}
