import { describe, expect, it } from 'vitest';
import { fitConvergence } from './fitConvergence.js';

describe('fitConvergence', () => {
  it('is settled within 1 SE of the optimum, whatever stopped the fit', () => {
    expect(fitConvergence({ converged: true, reason: 'distance', distance: 0.004 })).toMatchObject({ settled: true, message: null });
    expect(fitConvergence({ converged: false, reason: 'max-iterations', distance: 0.6 })).toMatchObject({ settled: true, converged: false });
  });

  it('is unsettled farther than 1 SE, naming why it stopped and the distance', () => {
    const c = fitConvergence({ converged: false, reason: 'max-iterations', distance: 27.6 });
    expect(c.settled).toBe(false);
    expect(c.message).toBe(
      "the calibration fit did not converge (stopped by max-iterations): it ended an estimated 27.6 SE from its optimum (more than 1 SE), so its estimates are not the model's",
    );
  });

  it('without a distance (Adam, older bundles) reads the optimizer flag', () => {
    expect(fitConvergence({ converged: true, distance: null }).settled).toBe(true);
    expect(fitConvergence({ converged: false, reason: 'steps' }).message).toMatch(/ended before its stopping rule/);
  });
});
