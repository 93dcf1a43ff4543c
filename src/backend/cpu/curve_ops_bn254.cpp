// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/cpu/curve_ops_impl.hpp"

namespace cuzk::cpu {

const CurveOps& curve_ops_bn254() {
  static const CurveOps ops = make_curve_ops<ec::Bn254>();
  return ops;
}

}  // namespace cuzk::cpu
