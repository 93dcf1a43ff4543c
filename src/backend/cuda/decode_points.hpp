// SPDX-License-Identifier: MIT OR Apache-2.0
// BLS12-381 key points in the zcash uncompressed encoding decoded on a GPU (ec/uncompressed.hpp's
// decoder in a kernel): the host's bytes streamed through pinned buffers to the device, decoded
// there in place, and streamed back into the caller's host array.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "backend/cuda/gpu.hpp"

namespace cuzk::gpu {

// Device memory decode_points needs (its chunk buffers).
size_t decode_points_workspace_bytes();

// n points (G2 when `g2`) at `raw` (host) into cuzk's affine form at `out` (host); `copy` does
// the host-side copies (raw into the pinned buffers, the pinned buffers into out), e.g. over a
// pool. Returns n when every point decodes, else the lowest index that fails, its
// ec::zcash::PointCode in `code` (that point's `out` is the identity; the others are written).
size_t decode_points(DeviceId dev, bool g2, const void* raw, size_t n, void* out, bool refuse_identity,
                     DeviceMemory workspace, const std::function<void(void*, const void*, size_t)>& copy,
                     uint8_t& code);

}  // namespace cuzk::gpu
