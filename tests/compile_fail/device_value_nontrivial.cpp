// DeviceValue<T> copies T's bytes to the device: T must be trivially copyable.
// expect: graphdsl DeviceValue: T must be trivially copyable
#include <string>

#include <graphdsl/device_value.hpp>

void misuse() { graphdsl::DeviceValue<std::string> value; }
