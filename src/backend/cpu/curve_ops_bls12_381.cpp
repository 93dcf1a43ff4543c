// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/cpu/curve_ops_impl.hpp"

namespace cuzk::cpu {

const CurveOps& curve_ops_bls12_381() {
  static const CurveOps ops = make_curve_ops<ec::Bls12381>();
  return ops;
}

}  // namespace cuzk::cpu
