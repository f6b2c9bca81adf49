// Math shared by the loss kernel (kernel.ts) and the curvature's passes (curvature.ts,
// curvature4.ts): the f32x4 exp and sigmoid, and the f64 sigmoid and softplus.

export function sigmoid(x: f64): f64 {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export function softplus(x: f64): f64 {
  return x > 30 ? x : x < -30 ? Math.exp(x) : Math.log1p(Math.exp(x));
}

// exp(x) for x <= 0 in f32 lanes (Cephes expf: x = n ln 2 + r, |r| <= ln2 / 2, degree-6 polynomial;
// about 1 ulp). x is clamped at -87.3 so that 2^n stays a normal number: exp(-87.3) = 1.2e-38 is 0
// next to the softmax's largest term exp(0) = 1. n is rounded by adding 1.5 * 2^23 + 127 (where f32
// steps are 1), whose low mantissa bits are then n + 127: shifted left 23 they are the bits of 2^n.
// (pmax and this rounding compile to one instruction each; max, nearest and trunc_sat to several.)
@inline export function exp4(x0: v128): v128 {
  const x = f32x4.pmax(x0, f32x4.splat(-87.3));
  const t = f32x4.add(f32x4.mul(x, f32x4.splat(1.44269504088896341)), f32x4.splat(12583039.0));
  const n = f32x4.sub(t, f32x4.splat(12583039.0));
  let r = f32x4.sub(x, f32x4.mul(n, f32x4.splat(0.693359375)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(-2.12194440e-4)));
  let y = f32x4.splat(1.9875691500e-4);
  y = f32x4.add(f32x4.mul(y, r), f32x4.splat(1.3981999507e-3));
  y = f32x4.add(f32x4.mul(y, r), f32x4.splat(8.3334519073e-3));
  y = f32x4.add(f32x4.mul(y, r), f32x4.splat(4.1665795894e-2));
  y = f32x4.add(f32x4.mul(y, r), f32x4.splat(1.6666665459e-1));
  y = f32x4.add(f32x4.mul(y, r), f32x4.splat(5.0000001201e-1));
  y = f32x4.add(f32x4.add(f32x4.mul(f32x4.mul(y, r), r), r), f32x4.splat(1.0));
  return f32x4.mul(y, i32x4.shl(t, 23));
}

// sigmoid in f32 lanes, stable on both sides: t = exp(-|x|); x >= 0: 1 / (1 + t), else t / (1 + t).
@inline export function sigmoid4(x: v128): v128 {
  const t = exp4(f32x4.neg(f32x4.abs(x)));
  const pos = f32x4.div(f32x4.splat(1.0), f32x4.add(f32x4.splat(1.0), t));
  return v128.bitselect(pos, f32x4.mul(t, pos), f32x4.ge(x, f32x4.splat(0.0)));
}
