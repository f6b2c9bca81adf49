import type { BinaryLayout } from '../layout.js';

/** Mask of the parameters that are free (1) vs fixed (0): the item parameters beyond the layout's pl are fixed. */
export function binaryFreeMask(layout: BinaryLayout): Uint8Array {
  const m = new Uint8Array(layout.size).fill(1);
  const I = layout.nItems;
  if (layout.pl < 2) m.fill(0, layout.slope, layout.slope + I);
  if (layout.pl < 3) m.fill(0, layout.guess, layout.guess + I);
  if (layout.pl < 4) m.fill(0, layout.slip, layout.slip + I);
  return m;
}
