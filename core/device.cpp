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

void to_json(nlohmann::json& j, Device device)
{
    j = deviceName(device);
}

void from_json(const nlohmann::json& j, Device& device)
{
    const auto d = j.is_string() ? parseDevice(j.get<std::string>()) : std::nullopt;
    if (!d)
        throw nlohmann::json::other_error::create(501, "not a device: " + j.dump() + " (cpu or cuda)", &j);
    device = *d;
}

}  // namespace kbx
