// SPDX-License-Identifier: MIT
#include "device.h"

namespace kbx {

std::string deviceName(Device device)
{
    return device == Device::Cuda ? "cuda" : "cpu";
}

std::optional<Device> parseDevice(std::string_view name)
{
    if (name == "cpu")
        return Device::Cpu;
    if (name == "cuda")
        return Device::Cuda;
    return std::nullopt;
}

}  // namespace kbx
