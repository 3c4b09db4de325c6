import { resetConfig } from '#core/config';

/**
 * Settings a test file runs with: `apply` sets them in the environment (and reads the
 * configuration again), `restore` puts back what was there before.
 */
export function envSettings(settings: Record<string, string>) {
  const saved: Record<string, string | undefined> = {};
  return {
    apply() {
      for (const [name, value] of Object.entries(settings)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
      resetConfig();
    },
    restore() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetConfig();
    },
  };
}
