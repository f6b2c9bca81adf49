// Caps on a preconditioned step per block, shared by curvature.ts and the family curvatures.

/** Largest move of any item parameter in one application when the gate is on (the loss is far from quadratic in (a_i, c_i)). */
export const ITEM_STEP_CAP = 0.25;

/**
 * Largest move of any per-LLM parameter in one application when the gate is on: a long step can throw
 * theta where the gate is open (G ~ 1), theta's gradient vanishes, and the LLM stays stuck in fallback.
 */
export const LLM_STEP_CAP = 1;
