// Okabe-Ito, the colour-blind-safe qualitative palette (Okabe & Ito 2008), darkest first for
// options, with dash patterns so that options stay apart past eight and in greyscale.
export const OKABE_ITO = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
export const DASHES = ['', '6 3', '2 2', '8 3 2 3'];

export function optionColor(k: number): string {
  return OKABE_ITO[k % OKABE_ITO.length]!;
}

export function optionDash(k: number): string {
  return DASHES[Math.floor(k / OKABE_ITO.length) % DASHES.length]!;
}

export const ACCENT = '#0072B2';
export const WARN = '#D55E00';
export const MUTED = '#6b7280';
