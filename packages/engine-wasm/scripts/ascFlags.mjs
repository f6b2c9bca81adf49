// The AssemblyScript compiler flags every kernel module is built with (scripts/build-wasm.mjs) and
// that bench/binary.js compiles its not-shipped variant with, so the bench times what the build makes.
export const ASC_FLAGS = [
  '--optimizeLevel',
  '3',
  '--shrinkLevel',
  '0',
  '--noAssert',
  '--converge',
  '--runtime',
  'stub',
  '--enable',
  'simd',
  '--importMemory',
  '--noExportMemory',
  '--initialMemory',
  '1',
  '--use',
  'abort=',
];
