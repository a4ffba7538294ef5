// DeviceKernelNode::set_arg with a double for a float parameter: a device-side update writes the value's bytes as
// they are, so the type must be the parameter's own. The compiler names the position and both types in the
// instantiation of DeviceArgument<N, Value, Parameter>.
// expect: DeviceArgument<2, double, float>.*graphdsl DeviceKernelNode::set_arg<I>: the value's type is not parameter I's type
#include <graphdsl/device_node.hpp>

void kernel(const float*, float, int) {}

void misuse(graphdsl::DeviceKernelNodeOf<decltype(kernel)> node) { (void)node.set_arg<1>(2.0); }
