// The control: the correct counterpart of every misuse in this folder compiles, with the same
// compiler, include paths and flags. Without it a broken include path or flag would make every
// compile-fail test "pass".
// flags: -Werror=unused-result
// expect: compiles
#include <string>
#include <utility>

#include <graphdsl/device_node.hpp>
#include <graphdsl/device_value.hpp>
#include <graphdsl/executable.hpp>

namespace gd = graphdsl;

void kernel2(int*, float) {}
void kernel_int(int*, int) {}
void kernel_handle(cudaGraphConditionalHandle) {}
void kernel_float_buffer(float*, const float*, int) {}

struct Rgba {
  unsigned char r, g, b, a;
};

struct Plain {
  int value = 0;
};
void kernel_plain(Plain) {}

void correct(gd::Graph& g, gd::Executable& exec, int* ip, float* fp, const float* cfp, const int* value,
             Rgba* rgba, std::uint16_t* hp) {
  const gd::Launch launch{};
  auto k = g.add_kernel(kernel2, launch, ip, 1.0f);                 // exact count
  g.add_kernel(kernel2, launch, ip, 3);                             // int converts to float
  g.add_kernel(kernel_int, launch, ip, static_cast<short>(3));      // short converts to int
  g.add_kernel(kernel_plain, launch, Plain{});                      // trivially copyable parameter
  auto m = g.add_memset(fp, 1.0f, 16);                              // 4 bytes
  g.add_memset(rgba, Rgba{1, 2, 3, 4}, 16);                         // 4-byte struct
  g.add_memset(hp, std::uint16_t{7}, 16);                           // 2 bytes
  auto c = g.add_memcpy(fp, cfp, 16);                               // same element type
  g.add_memcpy_bytes(fp, value, 16 * sizeof(int));                  // raw bytes between types
  auto h = g.add_host([] {});
  g.add_captured([](cudaStream_t) {});
  auto e = g.add_empty();
  const gd::Condition cond = g.add_condition(1);
  g.add_while(cond, [&](gd::Graph& body) {
    body.add_kernel(kernel_handle, launch, cond);                    // Condition for a handle
    body.add_set_condition(cond, value, gd::Compare::greater, 5);    // int value
  });
  g.add_memset(fp, 0, 16);                                          // an int that converts exactly
  g.add_memset(reinterpret_cast<unsigned char*>(ip), 0xFF, 16);     // 0xFF (an int) for uint8 elements
  g.add_set_condition(cond, cfp, gd::Compare::greater, 1e-6f);      // a float operand for a float value
  g.add_set_condition(cond, cfp, gd::Compare::greater, 0);          // an int that converts exactly
  e.after(g.node(0));                                               // a handle, not an index
  gd::KernelNodeOf<decltype(kernel2)> typed = g.add_kernel(kernel2, launch, ip, 1.0f);
  gd::KernelNodeFor<&kernel2> same = gd::node_cast<gd::KernelNodeOf<decltype(&kernel2)>>(gd::Node(typed));
  (void)gd::node_cast<gd::EmptyNode>(g.node(0));
  (void)same;
  auto alloc = g.add_mem_alloc<float>(16);
  auto use = g.add_kernel(kernel_float_buffer, launch, alloc.buffer, alloc.buffer, 16).after(alloc.node);
  g.add_mem_free(alloc.buffer).after(use);

  const gd::Parameter<float> lr = g.parameter<float>(0.5f).name("lr");
  g.add_kernel(kernel2, launch, ip, lr);                            // a parameter for a float
  g.add_memset(fp, lr, 16);                                         // ... and as a memset value

  exec.set_kernel_args(k, ip, 2.0f);
  exec.set_kernel(k, kernel2, launch, ip, 2.0f);
  gd::KernelNode<int*, int> swapped = exec.set_kernel(k, kernel_int, launch, ip, 2);  // another signature
  exec.set_kernel_args(swapped, ip, 3);
  (void)exec.set(lr, 0.25f);                                        // a float for Parameter<float>
  exec.set_enabled(k, false);
  exec.set_enabled(m, false);
  exec.set_enabled(c, true);
  exec.set_memset(m, fp, 2.0f, 16);
  exec.set_memset(m, reinterpret_cast<unsigned char*>(ip), 0x22, 16);  // an int for uint8, as add_memset takes it
  exec.set_memset(m, fp, 0, 16);                                    // an int that converts exactly
  exec.set_host(h, [] {});
  g.set_kernel_args(k, ip, 2.0f);                                   // the plan's setters, the same forms
  g.set_memset(m, fp, 0, 16);
  g.set_host(h, [] {});
  g.remove_node(e);

  gd::Executable moved = std::move(exec);                           // move-only, not copyable
  exec = std::move(moved);
  const gd::UpdateResult r = exec.update(g);                        // the result is used
  (void)r;
  (void)exec.update(g);                                             // or explicitly discarded
}

void correct_value() { gd::DeviceValue<float> value(1.0f); }

void kernel_scaled(const float*, float, int) {}
void kernel_updater(gd::DeviceKernelNodeOf<decltype(kernel_scaled)>, const float*) {}

void correct_device_node(gd::Graph& g, gd::Executable& exec, float* fp) {
  auto w = g.add_kernel(kernel_scaled, gd::Launch{}.with_device_updatable(), fp, 1.0f, 16);
  auto u = g.add_kernel(kernel_updater, gd::Launch{}, gd::DeviceKernelNodeOf<decltype(kernel_scaled)>{}, fp);
  const gd::DeviceKernelNodeOf<decltype(kernel_scaled)> handle = exec.device_node(w);
  exec.set_kernel_args(u, handle, fp);                              // the handle is a kernel argument
  (void)handle.set_arg<0>(fp);                                      // float* for const float*
  (void)handle.set_arg<1>(2.0f);                                    // exactly float
  (void)handle.set_arg<0>(nullptr);                                 // nullptr for a pointer
}
