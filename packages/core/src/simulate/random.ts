/**
 * Seeded pseudo-random numbers (no Math.random in library code). xoshiro128** with a splitmix32
 * seeding, after Blackman and Vigna, "Scrambled linear pseudorandom number generators" (2018).
 */
export interface Random {
  /** Uniform in [0, 1). */
  uniform(): number;
  /** Standard normal (Box-Muller, both variates used). */
  normal(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  /** Gamma(shape, 1) (Marsaglia-Tsang). */
  gamma(shape: number): number;
}

export function randomSource(seed: number): Random {
  let s = seed >>> 0;
  const split = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
  let spare = NaN;
  const uniform = (): number => next() / 4294967296;
  const normal = (): number => {
    if (!Number.isNaN(spare)) {
      const x = spare;
      spare = NaN;
      return x;
    }
    let u = uniform();
    while (u <= 0) u = uniform();
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
  const gamma = (shape: number): number => {
    if (shape < 1) return gamma(shape + 1) * Math.pow(uniform() || 1e-300, 1 / shape);
    const dd = shape - 1 / 3;
    const cc = 1 / Math.sqrt(9 * dd);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + cc * x;
      } while (v <= 0);
      v = v * v * v;
      const u = uniform();
      if (u < 1 - 0.0331 * x * x * x * x) return dd * v;
      if (Math.log(u) < 0.5 * x * x + dd * (1 - v + Math.log(v))) return dd * v;
    }
  };
  return { uniform, normal, int: (n) => Math.floor(uniform() * n), gamma };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** Fisher-Yates shuffle in place, seeded (arrays and typed arrays alike); returns `a`. */
export function shuffleInPlace<A extends { length: number; [i: number]: unknown }>(a: A, rng: Random): A {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}
