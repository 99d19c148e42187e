// SPDX-License-Identifier: MIT
#pragma once
#include <QPalette>

namespace kbx::gui {

QPalette lightPalette();
QPalette darkPalette();
/// Sets the Fusion style and the light or dark palette application-wide.
void applyPalette(bool dark);

}  // namespace kbx::gui
