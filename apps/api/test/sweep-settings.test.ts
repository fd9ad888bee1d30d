import { DEFAULT_RUNTIME_WINDOWS } from '@statehouse/state';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

/** docs/domain.md §10.3.1: the liveness settings stop start-up when they cannot be meant. */
describe('liveness sweep settings', () => {
  const SWEEP = 'STATEHOUSE_SWEEP_INTERVAL_SECONDS';
  const GATEWAY = 'STATEHOUSE_GATEWAY_TIMEOUT_SECONDS';
  const ORPHAN = 'STATEHOUSE_ORPHAN_IDLE_SECONDS';
  const HANDOFF = 'STATEHOUSE_HANDOFF_TIMEOUT_SECONDS';

  it('[liveness.settings-validated] defaults, and the values given', () => {
    const defaults = loadConfig({});
    expect(defaults.sweepIntervalSeconds).toBe(30);
    expect(defaults.runtime).toEqual({
      gatewayTimeoutMs: DEFAULT_RUNTIME_WINDOWS.gatewayTimeoutMs,
      orphanIdleMs: DEFAULT_RUNTIME_WINDOWS.orphanIdleMs,
      handoffTimeoutMs: DEFAULT_RUNTIME_WINDOWS.handoffTimeoutMs,
    });
    const given = loadConfig({ [SWEEP]: '0', [GATEWAY]: '45', [ORPHAN]: '0', [HANDOFF]: '1.5' });
    expect(given.sweepIntervalSeconds).toBe(0);
    expect(given.runtime).toEqual({ gatewayTimeoutMs: 45_000, orphanIdleMs: 0, handoffTimeoutMs: 1500 });
    expect(loadConfig({ [SWEEP]: ' 12 ' }).sweepIntervalSeconds).toBe(12);
  });

  it('[liveness.settings-validated] stops start-up on a value that is not a plain number of seconds, naming the setting', () => {
    for (const name of [SWEEP, GATEWAY, ORPHAN, HANDOFF]) {
      for (const value of ['abc', '-5', 'NaN', 'Infinity', ' ', '0x1e', '10s', '1e400']) {
        expect(() => loadConfig({ [name]: value }), `${name}=${JSON.stringify(value)}`).toThrow(name);
      }
    }
  });

  it('[liveness.settings-validated] refuses a liveness or handoff window of zero (a sweep interval of 0 turns sweeping off)', () => {
    for (const name of [GATEWAY, HANDOFF]) expect(() => loadConfig({ [name]: '0' })).toThrow(name);
    expect(loadConfig({ [SWEEP]: '0.5' }).sweepIntervalSeconds).toBe(0.5);
  });
});
