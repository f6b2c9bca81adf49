// Caps on a preconditioned step's size per block, shared by the block
// preconditioner (curvature.ts) and the family curvatures that build its blocks.

/**
 * Largest move of any item parameter in one preconditioner application when the gate is on: the
 * gate makes the loss strongly non-quadratic in (a_i, c_i) (b_i swings, and G with it), so a full
 * block-Newton step on a weakly determined item can overshoot badly; measured on simulated fleets,
 * a cap of 0.25 halved the passes to convergence.
 */
export const ITEM_STEP_CAP = 0.25;

/**
 * Largest move of any per-LLM parameter in one application when the gate is on. A long step can
 * throw an LLM's theta deep into the region where its gate is open (G ~ 1): there the NRM part's
 * weight 1 - G vanishes, so does theta's gradient, and the LLM stays stuck in fallback mode (seen on
 * a simulated 189 x 2,000 fleet: one strong LLM ended at theta -6.2 instead of +2.4).
 */
export const LLM_STEP_CAP = 1;
