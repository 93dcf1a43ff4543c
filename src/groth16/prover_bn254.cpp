#include "groth16/prove_files_impl.hpp"

namespace cuzk::groth16 {
template ProveOutput prove_with<ec::Bn254>(const io::ZkeyGroth16&, const io::Wtns&, const io::R1cs*,
                                          const ProveOptions&, ThreadPool&);
}
